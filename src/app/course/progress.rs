//! Where a student is in the course, as this browser remembers it: the chapters finished and
//! each chapter's ticked steps per sandbox (`localStorage`, read only after hydration, see
//! `app/storage.rs`), and the chapter last open with its sandbox and step (a cookie, so the
//! front page, sent without code, can offer the way back: `course-continue`).

use crate::tr;
use leptos::prelude::*;

use crate::app::i18n::digits;
use crate::app::storage;
use crate::domain::course::{self, CHAPTERS};

/// Where finished chapters are remembered in the browser.
const DONE_KEY: &str = "pocketpay-lab:chapters-done";
/// Where a chapter's ticked steps are remembered, per sandbox: `…:<sandbox>:<chapter>`.
const LATCH_KEY: &str = "pocketpay-lab:chapter-steps";
/// The cookie of the chapter open last: `<sandbox>.<chapter>.<step>`, the step the first not
/// ticked (from 1), 0 once every step is.
pub const AT_COOKIE: &str = "pocketpay_course";
/// How long the place is kept: a month, as long as a course may be paused.
const AT_MAX_AGE: u32 = 30 * 24 * 3_600;

/// The key of one chapter's ticks in one sandbox.
pub fn latch_key(sandbox: &str, n: u8) -> String {
    format!("{LATCH_KEY}:{sandbox}:{n}")
}

/// The ticks saved under `key`, `steps` long.
pub fn load_latch(key: &str, steps: usize) -> Vec<bool> {
    let mut done: Vec<bool> = storage::get(key)
        .unwrap_or_default()
        .chars()
        .map(|c| c == '1')
        .collect();
    done.resize(steps, false);
    done
}

pub fn save_latch(key: &str, done: &[bool]) {
    let text: String = done.iter().map(|d| if *d { '1' } else { '0' }).collect();
    storage::set(key, &text);
}

/// Chapters finished in this browser.
pub fn done_chapters() -> Vec<u8> {
    storage::get(DONE_KEY)
        .map(|v| v.split(',').filter_map(|n| n.parse().ok()).collect())
        .unwrap_or_default()
}

pub fn remember_done(n: u8) {
    let mut done = done_chapters();
    if !done.contains(&n) {
        done.push(n);
        done.sort_unstable();
        let list: Vec<String> = done.iter().map(u8::to_string).collect();
        storage::set(DONE_KEY, &list.join(","));
    }
}

/// Notes that chapter `n` is open in `sandbox` at step `step` (`None`: all ticked): where
/// "continue" leads.
pub fn remember_at(sandbox: &str, n: u8, step: Option<usize>) {
    #[cfg(feature = "hydrate")]
    {
        use wasm_bindgen::JsCast;
        if let Ok(doc) = document().dyn_into::<web_sys::HtmlDocument>() {
            let k = step.map_or(0, |k| k + 1);
            let _ = doc.set_cookie(&format!(
                "{AT_COOKIE}={sandbox}.{n}.{k}; Path=/; Max-Age={AT_MAX_AGE}; SameSite=Lax"
            ));
        }
    }
    #[cfg(not(feature = "hydrate"))]
    let _ = (sandbox, n, step, AT_MAX_AGE);
}

/// Where the student was, if this browser started the course: from the request's cookie on
/// the server, from `document.cookie` in the browser (the same text, so hydration agrees).
pub fn at() -> Option<Place> {
    #[cfg(feature = "ssr")]
    let cookies = use_context::<axum::http::request::Parts>()
        .and_then(|parts| crate::server::http::cookie(&parts.headers, AT_COOKIE));
    #[cfg(not(feature = "ssr"))]
    let cookies = {
        use wasm_bindgen::JsCast;
        document()
            .dyn_into::<web_sys::HtmlDocument>()
            .ok()
            .and_then(|d| d.cookie().ok())
            .and_then(|all| storage::cookie_in(&all, AT_COOKIE))
    };
    Place::parse(&cookies?)
}

/// A place in the course: a chapter in a sandbox, at its first unticked step (`None`: every
/// step ticked).
#[derive(Clone, Debug, PartialEq)]
pub struct Place {
    pub sandbox: String,
    pub chapter: u8,
    pub step: Option<usize>,
}

impl Place {
    /// Reads `<sandbox>.<chapter>.<step>`; anything else (an edited cookie) is no place.
    pub fn parse(text: &str) -> Option<Place> {
        let mut parts = text.split('.');
        let (sandbox, n, k) = (parts.next()?, parts.next()?, parts.next()?);
        let id_like = !sandbox.is_empty()
            && sandbox.len() <= 64
            && sandbox.chars().all(|c| c.is_ascii_hexdigit() || c == '-');
        let chapter = course::chapter(n.parse().ok()?)?;
        let k: usize = k.parse().ok()?;
        (id_like && parts.next().is_none() && k <= chapter.steps.len()).then(|| Place {
            sandbox: sandbox.to_owned(),
            chapter: chapter.n,
            step: k.checked_sub(1),
        })
    }

    /// Where "continue" leads: this chapter at its step, or the next chapter once it is done.
    /// `None` once the last chapter is done: the course is finished.
    pub fn next(&self) -> Option<(u8, usize)> {
        match self.step {
            Some(k) => Some((self.chapter, k)),
            None => course::neighbours(self.chapter).1.map(|n| (n, 0)),
        }
    }

    pub fn href(&self, chapter: u8) -> String {
        format!("/lab/{}?chapter={chapter}", self.sandbox)
    }
}

/// "Continue: chapter 08, step 3" for a browser that started the course (nothing for a first
/// visit); once the last chapter is done, a way back to the course's end.
#[component]
pub fn ContinueCourse() -> impl IntoView {
    // Only where no chapter is open: in a chapter the student is where they are.
    let query = leptos_router::hooks::use_query_map();
    let place = at();
    move || {
        if query.with(|q| q.get("chapter").is_some()) {
            return None;
        }
        place.clone().map(continue_link)
    }
}

fn continue_link(p: Place) -> AnyView {
    match p.next() {
        Some((n, k)) => {
            let href = p.href(n);
            view! {
                    <a class="button primary" href=href rel="external" data-testid="course-continue" data-chapter=n data-step=k + 1>
                        {move || tr!("course-continue", {
                            "n" => digits(&format!("{n:02}")),
                            "k" => digits(&(k + 1).to_string())
                        })}
                    </a>
                }
                .into_any()
        }
        None => {
            let last = CHAPTERS.last().map_or(9, |c| c.n);
            view! {
                    <a class="button" href=p.href(last) rel="external" data-testid="course-continue" data-chapter=last data-finished="true">
                        {move || tr!("course-continue-finished")}
                    </a>
                }
                .into_any()
        }
    }
}

/// The front page's way into the course: "start the course" for a first visit; for a browser
/// that started it, "continue" first and a start over that asks before it leaves the place
/// (a `<details>`: the front page works without code).
#[component]
pub fn StartCourse() -> impl IntoView {
    if at().is_none() {
        return view! {
            <a class="button primary" href="/lab?chapter=1" rel="external" data-testid="start-course">
                {move || tr!("home-start-course")}
            </a>
        }
        .into_any();
    }
    view! {
        <ContinueCourse />
        <details class="start-over" data-testid="start-over">
            <summary class="button" data-testid="start-course">{move || tr!("course-start-over")}</summary>
            <p>{move || tr!("course-start-over-ask")}</p>
            <p class="controls">
                <a class="button danger" href="/lab?fresh=1&chapter=1" rel="external" data-testid="start-over-confirm">
                    {move || tr!("course-start-over-yes")}
                </a>
                " "
                <a class="button" href="/" data-testid="start-over-cancel">{move || tr!("course-start-over-no")}</a>
            </p>
        </details>
    }
    .into_any()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_place_is_read_from_its_cookie_and_nothing_else() {
        let p = Place::parse("0b9c-77aa.8.3").unwrap();
        assert_eq!((p.chapter, p.step, p.next()), (8, Some(2), Some((8, 2))));
        assert_eq!(p.href(8), "/lab/0b9c-77aa?chapter=8");
        // Every step ticked: on to the next chapter; after the last, the course is done.
        assert_eq!(Place::parse("ab.8.0").unwrap().next(), Some((9, 0)));
        assert_eq!(Place::parse("ab.9.0").unwrap().next(), None);
        for bad in [
            "", "ab.8", "ab.99.1", "ab.8.1.2", "../x.8.1", "ab.8.42", "ab.8.-1", "<a>.8.1",
        ] {
            assert_eq!(Place::parse(bad), None, "{bad:?}");
        }
    }
}
