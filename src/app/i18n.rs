//! Bangla first, English as a switch: every sentence of the UI lives in `locales/{bn,en}/*.ftl`
//! (Fluent), looked up through `tr!` and the functions below; numbers and money are written
//! here, in each language's own digits and grouping.
//!
//! The choice is kept in a cookie, so the server renders the page in the language the browser
//! chose and writes it on `<html lang>`. The server holds both languages; a browser holds only
//! the one its page speaks: the page's head names that language's sentences
//! (`/strings/{lang}.{version}.ftl`, kept by the browser for good), the browser fetches them
//! before it hydrates, and fetches the other language's when the student switches
//! (BENCHMARKS.md, "What a phone downloads").

use leptos::prelude::*;

pub use fluent_bundle::FluentArgs;

/// The name of the cookie that remembers the language.
pub const LANG_COOKIE: &str = "pocketpay_lang";

/// A language the course speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lang {
    Bn,
    En,
}

impl Lang {
    /// Its BCP 47 tag, as `<html lang>`, the cookie and the strings' file name write it.
    pub fn id(self) -> &'static str {
        match self {
            Lang::Bn => "bn",
            Lang::En => "en",
        }
    }

    pub fn parse(tag: &str) -> Option<Lang> {
        match tag {
            "bn" => Some(Lang::Bn),
            "en" => Some(Lang::En),
            _ => None,
        }
    }

    pub fn other(self) -> Lang {
        match self {
            Lang::Bn => Lang::En,
            Lang::En => Lang::Bn,
        }
    }

    /// The `Set-Cookie` value that keeps this choice for a year: written by the switch in the
    /// browser, and by the server for a page sent without code (`POST /lang`, server/web.rs).
    pub fn cookie(self) -> String {
        format!(
            "{LANG_COOKIE}={}; SameSite=Lax; Path=/; Max-Age=31536000",
            self.id()
        )
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// The page's language, shared by every component under [`I18nProvider`].
#[derive(Clone, Copy)]
pub struct I18n {
    pub language: RwSignal<Lang>,
}

impl I18n {
    /// A message in the page's language (reactive); its id when no such message exists.
    pub fn tr(self, id: &str) -> String {
        self.tr_with(id, None)
    }

    pub fn tr_with(self, id: &str, args: Option<&FluentArgs>) -> String {
        format_in(self.language.get(), id, args)
    }
}

/// A message in `lang` with `args`; its id when no such message (or no such sentences) is here.
fn format_in(lang: Lang, id: &str, args: Option<&FluentArgs>) -> String {
    strings::with(lang, |bundle| {
        let pattern = bundle.get_message(id)?.value()?;
        let mut errors = Vec::new();
        Some(
            bundle
                .format_pattern(pattern, args, &mut errors)
                .into_owned(),
        )
    })
    .flatten()
    .unwrap_or_else(|| id.to_owned())
}

/// The language context.
pub fn i18n() -> I18n {
    expect_context::<I18n>()
}

/// A message by its literal id, alone or followed by its arguments already written
/// for the language: `{ "name" => value, … }`.
#[macro_export]
macro_rules! tr {
    ($id:literal) => {
        $crate::app::i18n::i18n().tr($id)
    };
    ($id:literal, { $($key:literal => $value:expr),* $(,)? }) => {{
        let mut args = $crate::app::i18n::FluentArgs::new();
        $( args.set($key, $value); )*
        $crate::app::i18n::i18n().tr_with($id, Some(&args))
    }};
}

/// The language the page is rendered in: on the server the cookie's (Bangla without one), in
/// the browser what the server wrote on `<html lang>`.
pub fn page_lang() -> Lang {
    #[cfg(feature = "ssr")]
    {
        use_context::<axum::http::request::Parts>()
            .and_then(|parts| lang_from_cookies(&parts.headers))
            .unwrap_or(Lang::Bn)
    }
    #[cfg(not(feature = "ssr"))]
    {
        document()
            .document_element()
            .and_then(|root| root.get_attribute("lang"))
            .and_then(|tag| Lang::parse(&tag))
            .unwrap_or(Lang::Bn)
    }
}

/// The language a request's cookie chose, if it names one.
#[cfg(feature = "ssr")]
pub fn lang_from_cookies(headers: &axum::http::HeaderMap) -> Option<Lang> {
    headers
        .get_all(axum::http::header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(name, _)| *name == LANG_COOKIE)
        .and_then(|(_, value)| Lang::parse(value.trim()))
}

/// Provides the language context to everything inside it.
#[component]
pub fn I18nProvider(children: Children) -> impl IntoView {
    provide_context(I18n {
        language: RwSignal::new(page_lang()),
    });
    children()
}

/// Whether the page speaks Bangla right now (reactive).
pub fn is_bn() -> bool {
    i18n().language.get() == Lang::Bn
}

/// Switches between Bangla and English. The other language's sentences are fetched first (once);
/// if they cannot be, the page is loaded again in that language, which the server renders.
pub fn toggle_language() {
    let i18n = i18n();
    let next = i18n.language.get_untracked().other();
    #[cfg(feature = "hydrate")]
    leptos::task::spawn_local(async move {
        remember(next);
        match strings::load(next).await {
            Ok(()) => {
                i18n.language.set(next);
                if let Some(root) = document().document_element() {
                    let _ = root.set_attribute("lang", next.id());
                }
            }
            Err(error) => {
                leptos::logging::warn!("the {} sentences did not load: {error}", next.id());
                let _ = window().location().reload();
            }
        }
    });
    #[cfg(not(feature = "hydrate"))]
    i18n.language.set(next);
}

/// Keeps the choice in the cookie the server reads.
#[cfg(feature = "hydrate")]
fn remember(lang: Lang) {
    use wasm_bindgen::JsCast;
    if let Ok(html) = document().dyn_into::<web_sys::HtmlDocument>() {
        let _ = html.set_cookie(&lang.cookie());
    }
}

/// Looks up a message whose id is built at run time (a safeguard's name, an event's text).
pub fn tr_id(id: &str) -> String {
    i18n().tr(id)
}

/// Whether the page's language has a message with this id (an optional part of a chapter).
pub fn has(id: &str) -> bool {
    let lang = i18n().language.get();
    strings::with(lang, |bundle| bundle.has_message(id)).unwrap_or(false)
}

/// A message in a given language, whatever the page's (the glossary's other-script names); its
/// id when that language's sentences are not here.
pub fn tr_in(lang: Lang, id: &str) -> String {
    format_in(lang, id, None)
}

/// Looks up a message with arguments; every argument is already written for the language.
pub fn tr_args(id: &str, args: &[(&'static str, String)]) -> String {
    let mut map = FluentArgs::new();
    for (k, v) in args {
        map.set(*k, v.clone());
    }
    i18n().tr_with(id, Some(&map))
}

/// Looks up a message about a count. `$n` is the count as a number, which picks English's
/// plural form (`{ $n -> [one] … *[other] … }`); the other arguments, the count among them, are
/// already written for the language. Bangla has no such forms and never reads `$n`.
pub fn tr_count(id: &str, n: i64, args: &[(&'static str, String)]) -> String {
    let mut map = FluentArgs::new();
    for (k, v) in args {
        map.set(*k, v.clone());
    }
    map.set("n", n);
    i18n().tr_with(id, Some(&map))
}

/// The sentences themselves: both languages on the server, compiled in; in the browser only
/// those it fetched.
pub mod strings {
    use super::Lang;
    use fluent_bundle::FluentResource;

    /// Every locale file of a language, joined in this order.
    #[cfg(not(feature = "hydrate"))]
    macro_rules! locale_files {
        ($lang:literal) => {
            [
                include_str!(concat!("../../locales/", $lang, "/main.ftl")),
                include_str!(concat!("../../locales/", $lang, "/course.ftl")),
                include_str!(concat!("../../locales/", $lang, "/quiz.ftl")),
                include_str!(concat!("../../locales/", $lang, "/glossary.ftl")),
                include_str!(concat!("../../locales/", $lang, "/realworld.ftl")),
                include_str!(concat!("../../locales/", $lang, "/class.ftl")),
                include_str!(concat!("../../locales/", $lang, "/head.ftl")),
            ]
        };
    }

    /// The names of the files [`locale_files`] joins (a test checks they are all there are).
    pub const FILES: [&str; 7] = [
        "main.ftl",
        "course.ftl",
        "quiz.ftl",
        "glossary.ftl",
        "realworld.ftl",
        "class.ftl",
        "head.ftl",
    ];

    /// The files only the server reads: the glossary's terms (a page the server sends whole and
    /// without code, app/mod.rs `SERVER_ONLY`) and each page's description in its head.
    #[cfg(not(feature = "hydrate"))]
    const SERVER_FILES: [&str; 2] = ["glossary.ftl", "head.ftl"];

    #[cfg(not(feature = "hydrate"))]
    type Bundle = fluent_bundle::concurrent::FluentBundle<FluentResource>;
    #[cfg(feature = "hydrate")]
    type Bundle = fluent_bundle::FluentBundle<FluentResource>;

    /// A language's sentences as Fluent reads them, comment lines left out: what the server
    /// parses.
    #[cfg(not(feature = "hydrate"))]
    pub fn source(lang: Lang) -> &'static str {
        use std::sync::LazyLock;
        static SOURCES: LazyLock<[String; 2]> = LazyLock::new(|| {
            [
                join(locale_files!("bn"), true),
                join(locale_files!("en"), true),
            ]
        });
        &SOURCES[lang.index()]
    }

    /// What a browser is sent: the same without [`SERVER_FILES`].
    #[cfg(not(feature = "hydrate"))]
    pub fn browser_source(lang: Lang) -> &'static str {
        use std::sync::LazyLock;
        static SOURCES: LazyLock<[String; 2]> = LazyLock::new(|| {
            [
                join(locale_files!("bn"), false),
                join(locale_files!("en"), false),
            ]
        });
        &SOURCES[lang.index()]
    }

    /// The files joined, comment lines left out, [`SERVER_FILES`] only if `all`.
    #[cfg(not(feature = "hydrate"))]
    fn join(files: [&str; 7], all: bool) -> String {
        files
            .iter()
            .zip(FILES)
            .filter(|(_, name)| all || !SERVER_FILES.contains(name))
            .flat_map(|(text, _)| text.lines())
            .filter(|line| !line.starts_with('#'))
            .fold(String::new(), |mut out, line| {
                out.push_str(line);
                out.push('\n');
                out
            })
    }

    /// The sentences' version: 22 hex digits of a hash over both languages, in their file's
    /// name so a browser may keep it for good and a new build's sentences get a new name.
    #[cfg(not(feature = "hydrate"))]
    pub fn version() -> &'static str {
        use std::sync::LazyLock;
        static VERSION: LazyLock<String> = LazyLock::new(|| {
            // FNV-1a, twice over with different starts: a name, not a secret.
            let fnv = |start: u64| {
                [Lang::Bn, Lang::En]
                    .iter()
                    .flat_map(|l| source(*l).bytes())
                    .fold(start, |h, b| {
                        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
                    })
            };
            let hex = format!(
                "{:016x}{:016x}",
                fnv(0xcbf2_9ce4_8422_2325),
                fnv(0x8422_2325)
            );
            hex[..22].to_owned()
        });
        &VERSION
    }

    /// Where a browser fetches a language's sentences.
    #[cfg(not(feature = "hydrate"))]
    pub fn href(lang: Lang) -> String {
        format!("/strings/{}.{}.ftl", lang.id(), version())
    }

    fn build(lang: Lang, text: String) -> Result<Bundle, String> {
        let resource = FluentResource::try_new(text)
            .map_err(|(_, errors)| format!("{} sentences do not parse: {errors:?}", lang.id()))?;
        let tag = lang.id().parse().map_err(|e| format!("{e}"))?;
        #[cfg(not(feature = "hydrate"))]
        let mut bundle = Bundle::new_concurrent(vec![tag]);
        #[cfg(feature = "hydrate")]
        let mut bundle = Bundle::new(vec![tag]);
        // No Unicode isolation marks around arguments: a TXN or a key reads (and is found by a
        // test) exactly as the server wrote it.
        bundle.set_use_isolating(false);
        bundle
            .add_resource(resource)
            .map_err(|errors| format!("{} sentences clash: {errors:?}", lang.id()))?;
        Ok(bundle)
    }

    /// Runs `f` over a language's sentences, if they are here.
    #[cfg(not(feature = "hydrate"))]
    pub(super) fn with<R>(lang: Lang, f: impl FnOnce(&Bundle) -> R) -> Option<R> {
        use std::sync::LazyLock;
        static BUNDLES: LazyLock<[Bundle; 2]> = LazyLock::new(|| {
            [Lang::Bn, Lang::En].map(|lang| {
                build(lang, source(lang).to_owned()).unwrap_or_else(|error| panic!("{error}"))
            })
        });
        Some(f(&BUNDLES[lang.index()]))
    }

    #[cfg(feature = "hydrate")]
    thread_local! {
        static LOADED: [std::cell::OnceCell<Bundle>; 2] = const {
            [std::cell::OnceCell::new(), std::cell::OnceCell::new()]
        };
    }

    #[cfg(feature = "hydrate")]
    pub(super) fn with<R>(lang: Lang, f: impl FnOnce(&Bundle) -> R) -> Option<R> {
        LOADED.with(|loaded| loaded[lang.index()].get().map(f))
    }

    /// Fetches a language's sentences, unless they are here already. The address is the one the
    /// page's head names (`link#strings`), with the language changed.
    #[cfg(feature = "hydrate")]
    pub async fn load(lang: Lang) -> Result<(), String> {
        use leptos::prelude::document;
        use wasm_bindgen::JsCast;
        use wasm_bindgen_futures::JsFuture;

        if LOADED.with(|loaded| loaded[lang.index()].get().is_some()) {
            return Ok(());
        }
        let href = document()
            .get_element_by_id("strings")
            .and_then(|link| link.get_attribute("href"))
            .ok_or("the page names no sentences")?;
        let (dir, name) = href.rsplit_once('/').ok_or("a strange address")?;
        let (_, version) = name.split_once('.').ok_or("a strange address")?;
        let url = format!("{dir}/{}.{version}", lang.id());
        let failed = |e: wasm_bindgen::JsValue| format!("{url}: {e:?}");
        let response: web_sys::Response =
            JsFuture::from(leptos::prelude::window().fetch_with_str(&url))
                .await
                .map_err(failed)?
                .dyn_into()
                .map_err(failed)?;
        if !response.ok() {
            return Err(format!("{url}: {}", response.status()));
        }
        let text = JsFuture::from(response.text().map_err(failed)?)
            .await
            .map_err(failed)?
            .as_string()
            .ok_or("the sentences are not text")?;
        let bundle = build(lang, text)?;
        LOADED.with(|loaded| {
            let _ = loaded[lang.index()].set(bundle);
        });
        Ok(())
    }
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

    #[test]
    fn every_locale_file_is_joined_and_both_languages_parse() {
        for lang in [Lang::Bn, Lang::En] {
            let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("locales")
                .join(lang.id());
            let mut on_disk: Vec<String> = std::fs::read_dir(dir)
                .unwrap()
                .map(|e| e.unwrap().file_name().into_string().unwrap())
                .filter(|name| name.ends_with(".ftl"))
                .collect();
            on_disk.sort();
            let mut joined: Vec<String> = strings::FILES.iter().map(|f| f.to_string()).collect();
            joined.sort();
            assert_eq!(on_disk, joined, "{}", lang.id());
            let title = strings::with(lang, |b| {
                let pattern = b.get_message("app-title")?.value()?;
                Some(
                    b.format_pattern(pattern, None, &mut Vec::new())
                        .into_owned(),
                )
            });
            assert!(title.flatten().is_some_and(|t| !t.is_empty()));
        }
        assert_eq!(strings::version().len(), 22);
        assert!(strings::href(Lang::En).starts_with("/strings/en."));
    }

    #[test]
    fn the_cookie_names_the_language() {
        use axum::http::{header::COOKIE, HeaderMap, HeaderValue};
        let with = |value: &'static str| {
            let mut headers = HeaderMap::new();
            headers.insert(COOKIE, HeaderValue::from_static(value));
            lang_from_cookies(&headers)
        };
        assert_eq!(with("pocketpay_lang=en"), Some(Lang::En));
        assert_eq!(with("a=b; pocketpay_lang=bn; c=d"), Some(Lang::Bn));
        assert_eq!(with("pocketpay_lang=fr"), None);
        assert_eq!(with("xpocketpay_lang=en"), None);
        assert_eq!(lang_from_cookies(&HeaderMap::new()), None);
    }
}
