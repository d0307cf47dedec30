//! Bangla first, English as a switch: every sentence of the UI lives in `locales/{bn,en}/*.ftl`
//! (Fluent), looked up through `leptos-fluent`; numbers and money are written here, in each
//! language's own digits and grouping.
//!
//! The choice is kept in a cookie, so the server renders the page in the language the browser
//! chose and hydration finds the same words.

use fluent_templates::static_loader;
use leptos::prelude::*;
use leptos_fluent::{leptos_fluent, I18n};

static_loader! {
    pub static TRANSLATIONS = {
        locales: "./locales",
        fallback_language: "bn",
        // No Unicode isolation marks around arguments: a TXN or a key reads (and is found by a
        // test) exactly as the server wrote it.
        customise: |bundle| bundle.set_use_isolating(false),
    };
}

/// The name of the cookie that remembers the language.
pub const LANG_COOKIE: &str = "pocketpay_lang";

/// Provides the language context to everything inside it.
#[component]
pub fn I18nProvider(children: Children) -> impl IntoView {
    leptos_fluent! {
        children: children(),
        translations: [TRANSLATIONS],
        locales: "./locales",
        default_language: "bn",
        sync_html_tag_lang: true,
        cookie_name: "pocketpay_lang",
        cookie_attrs: "SameSite=Lax; Path=/; Max-Age=31536000",
        initial_language_from_cookie: true,
        set_language_to_cookie: true,
    }
}

/// Whether the page speaks Bangla right now (reactive).
pub fn is_bn() -> bool {
    expect_context::<I18n>().language.get().id == "bn"
}

/// Switches between Bangla and English.
pub fn toggle_language() {
    let i18n = expect_context::<I18n>();
    let next = if i18n.language.get_untracked().id == "bn" {
        "en"
    } else {
        "bn"
    };
    if let Some(lang) = i18n.languages.iter().find(|l| l.id == next) {
        i18n.language.set(lang);
    }
}

/// Looks up a message whose id is built at run time (a safeguard's name, an event's text).
pub fn tr_id(id: &str) -> String {
    expect_context::<I18n>().tr(id)
}

/// Looks up a message with arguments; every argument is already written for the language.
pub fn tr_args(id: &str, args: &[(&'static str, String)]) -> String {
    let map = args
        .iter()
        .map(|(k, v)| ((*k).into(), v.clone().into()))
        .collect();
    expect_context::<I18n>().tr_with_args(id, &map)
}

/// Looks up a message about a count. `$n` is the count as a number, which picks English's
/// plural form (`{ $n -> [one] … *[other] … }`); the other arguments, the count among them, are
/// already written for the language. Bangla has no such forms and never reads `$n`.
pub fn tr_count(id: &str, n: i64, args: &[(&'static str, String)]) -> String {
    let mut map: std::collections::HashMap<_, _> = args
        .iter()
        .map(|(k, v)| ((*k).into(), v.clone().into()))
        .collect();
    map.insert("n".into(), n.into());
    expect_context::<I18n>().tr_with_args(id, &map)
}

/// Writes ASCII digits as Bangla digits (০–৯), leaving everything else as it is.
pub fn bn_digits(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            '0'..='9' => char::from_u32('০' as u32 + (c as u32 - '0' as u32)).unwrap_or(c),
            _ => c,
        })
        .collect()
}

/// Digits in the page's language: Bangla digits in Bangla, as they are in English.
pub fn digits(s: &str) -> String {
    if is_bn() {
        bn_digits(s)
    } else {
        s.to_owned()
    }
}

/// A whole number grouped as each language writes it: `২০,০০,০০০` (lakh and crore) in Bangla,
/// `2,000,000` in English.
pub fn grouped(n: i64, bn: bool) -> String {
    let raw = n.unsigned_abs().to_string();
    let mut groups: Vec<&str> = Vec::new();
    let (mut head, tail) = raw.split_at(raw.len().saturating_sub(3));
    if bn {
        while head.len() > 2 {
            let (h, g) = head.split_at(head.len() - 2);
            groups.push(g);
            head = h;
        }
    } else {
        while head.len() > 3 {
            let (h, g) = head.split_at(head.len() - 3);
            groups.push(g);
            head = h;
        }
    }
    let mut out = String::new();
    if n < 0 {
        out.push('-');
    }
    if !head.is_empty() {
        out.push_str(head);
    }
    for g in groups.iter().rev() {
        out.push(',');
        out.push_str(g);
    }
    if !head.is_empty() || !groups.is_empty() {
        out.push(',');
    }
    out.push_str(tail);
    if bn {
        bn_digits(&out)
    } else {
        out
    }
}

/// A number for the page's language (reactive).
pub fn num(n: i64) -> String {
    grouped(n, is_bn())
}

/// Money as the lesson writes it: `৳৫০০`, `৳২,০০০` in Bangla; `৳500`, `৳2,000` in English.
pub fn taka(n: i64) -> String {
    if n < 0 {
        format!("-৳{}", grouped(-n, is_bn()))
    } else {
        format!("৳{}", grouped(n, is_bn()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_group_the_way_each_language_writes_them() {
        assert_eq!(grouped(500, true), "৫০০");
        assert_eq!(grouped(2_000, true), "২,০০০");
        assert_eq!(grouped(2_000_000, true), "২০,০০,০০০");
        assert_eq!(grouped(12_345_678, true), "১,২৩,৪৫,৬৭৮");
        assert_eq!(grouped(2_000_000, false), "2,000,000");
        assert_eq!(grouped(0, false), "0");
        assert_eq!(grouped(-1_500, false), "-1,500");
        assert_eq!(grouped(100_000, false), "100,000");
        assert_eq!(grouped(100_000, true), "১,০০,০০০");
        assert_eq!(bn_digits("TXN-88412"), "TXN-৮৮৪১২");
    }
}
