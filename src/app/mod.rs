//! The UI: the page shell, the router, and one folder of components per screen.

pub mod class;
pub mod course;
pub mod error;
mod format;
mod home;
pub mod i18n;
pub mod lab;
mod run;
pub mod storage;

use crate::tr;
use leptos::prelude::*;
use leptos_meta::{provide_meta_context, HashedStylesheet, Link, MetaTags, Title};
use leptos_router::components::{Route, Router, Routes, A};
use leptos_router::{lazy_route, path, Lazy, LazyRoute};

/// The pages nothing changes on once drawn: the front page, the glossary and the summary. The
/// server renders them whole and sends them without code (no wasm, no sentences file): their
/// links are plain links, the language switch a plain form (`POST /lang`, server/web.rs), the
/// front page's class code a plain `GET /join` form; a page opens in the time its HTML and style
/// take (BENCHMARKS.md, "What a phone downloads").
pub const SERVER_ONLY: [&str; 3] = ["/", "/glossary", "/summary"];

/// Whether the page at `path` is one of [`SERVER_ONLY`], as the router matches it: it takes
/// `/glossary/` for `/glossary` too, and a page it draws must be sent as its route says.
pub fn server_only(path: &str) -> bool {
    let path = match path.strip_suffix('/') {
        Some("") | None => path,
        Some(bare) => bare,
    };
    SERVER_ONLY.contains(&path)
}

/// The message (`locales/*/head.ftl`) that describes the page at `path` in its head, for search
/// engines and link previews: one per screen, by the path's first part.
#[cfg(feature = "ssr")]
pub fn description_id(path: &str) -> &'static str {
    match path.trim_start_matches('/').split('/').next().unwrap_or("") {
        "lab" => "head-lab",
        "watch" => "head-watch",
        "run" => "head-run",
        "quiz" => "head-quiz",
        "glossary" => "head-glossary",
        "summary" => "head-summary",
        "calculators" => "head-calculators",
        "day" => "head-day",
        "teach" => "head-teach",
        "join" => "head-join",
        "show" => "head-show",
        "take" => "head-take",
        _ => "head-home",
    }
}

/// The Bangla web font's files (style/main.css), regular and bold.
const FONTS: [&str; 2] = [
    "/fonts/noto-sans-bengali-bengali-400-normal.woff2",
    "/fonts/noto-sans-bengali-bengali-700-normal.woff2",
];

/// Whether the page at `path` fetches the Bangla font only once its code works: the lab and
/// its mirror, where the font must not hold up Send on a slow phone (BENCHMARKS.md, "A
/// phone's first visit"). Every other page asks for the font with its HTML.
#[cfg(feature = "ssr")]
pub fn late_font(path: &str) -> bool {
    path.starts_with("/lab") || path.starts_with("/watch/")
}

/// The HTML document around the app, rendered on the server. A page of [`SERVER_ONLY`] is sent
/// without the hydration scripts and with `data-send-ready` and `data-hydrated` already on
/// `<html>`: it can be used as it arrives ([`ready`]).
pub fn shell(options: LeptosOptions) -> impl IntoView {
    let lang = i18n::page_lang();
    #[cfg(not(feature = "hydrate"))]
    let strings = i18n::strings::href(lang);
    #[cfg(feature = "hydrate")]
    let strings = String::new();
    #[cfg(feature = "ssr")]
    let path = use_context::<axum::http::request::Parts>()
        .map(|parts| parts.uri.path().to_owned())
        .unwrap_or_default();
    #[cfg(feature = "ssr")]
    let (still, description, late) = (
        server_only(&path),
        i18n::tr_in(lang, description_id(&path)),
        late_font(&path),
    );
    #[cfg(not(feature = "ssr"))]
    let (still, description, late) = (false, String::new(), false);
    // The Bangla font, both weights, asked for with the page so that it is there when the text
    // is first laid out and nothing moves when it arrives; on the lab it comes after the code
    // instead, so as not to hold up Send (style/main.css, `data-late-font`).
    let fonts = (lang == i18n::Lang::Bn && !late).then(|| {
        FONTS
            .map(|href| view! { <link rel="preload" r#as="font" r#type="font/woff2" crossorigin="anonymous" href=href /> })
            .collect_view()
    });
    let ready = still.then_some("");
    view! {
        <!DOCTYPE html>
        <html lang=lang.id() data-send-ready=ready data-hydrated=ready data-late-font=late.then_some("")>
            <head>
                <meta charset="utf-8" />
                <meta name="viewport" content="width=device-width, initial-scale=1" />
                <meta name="description" content=description />
                {fonts}
                // The page's language's sentences, which the browser needs before it hydrates:
                // fetched beside the wasm, not after it (app/i18n.rs).
                {(!still).then(|| view! {
                    <link id="strings" rel="preload" r#as="fetch" crossorigin="anonymous" href=strings />
                })}
                <AutoReload options=options.clone() />
                // The style sheet under the name the build gave it (its hash in it, when built
                // with hashed names).
                <HashedStylesheet options=options.clone() id="leptos" />
                {(!still).then(|| view! { <HydrationScripts options /> })}
                <MetaTags />
            </head>
            <body>
                <App />
            </body>
        </html>
    }
}

/// The page's Content-Security-Policy: scripts only from this site or carrying this response's
/// nonce (the hydration script), WebAssembly allowed to compile, nothing framed, nothing else
/// from elsewhere.
pub fn content_security_policy(nonce: &str) -> String {
    format!(
        "default-src 'self'; script-src 'self' 'nonce-{nonce}' 'wasm-unsafe-eval'; \
         style-src 'self'; img-src 'self' data:; font-src 'self'; connect-src 'self'; \
         object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'"
    )
}

/// When a page may be used, written on `<html>` for tests and benches to wait for (a click
/// before hydration is lost): `data-send-ready` once the page's first code has hydrated (on the
/// lab: Shimul's phone, his switches and the bar above them), `data-hydrated` once every part
/// is live, the parts drawn later included (`lab::later`).
pub mod ready {
    #[cfg(feature = "hydrate")]
    thread_local! {
        /// (hydrated, parts still to come)
        static STATE: std::cell::Cell<(bool, usize)> = const { std::cell::Cell::new((false, 0)) };
    }

    /// One more part to come before the page is all live.
    pub fn wait() {
        #[cfg(feature = "hydrate")]
        STATE.with(|s| s.set((s.get().0, s.get().1 + 1)));
    }

    /// A part has come.
    pub fn arrived() {
        #[cfg(feature = "hydrate")]
        {
            STATE.with(|s| s.set((s.get().0, s.get().1.saturating_sub(1))));
            mark();
        }
    }

    /// Whether the page's first code has hydrated (false while it hydrates).
    #[cfg(feature = "hydrate")]
    pub fn is_hydrated() -> bool {
        STATE.with(|s| s.get().0)
    }

    /// The page's first code has hydrated.
    pub fn hydrated() {
        #[cfg(feature = "hydrate")]
        {
            STATE.with(|s| s.set((true, s.get().1)));
            set("data-send-ready");
            mark();
        }
    }

    #[cfg(feature = "hydrate")]
    fn mark() {
        if STATE.with(|s| s.get()) == (true, 0) {
            set("data-hydrated");
        }
    }

    #[cfg(feature = "hydrate")]
    fn set(name: &str) {
        if let Some(root) = leptos::prelude::document().document_element() {
            let _ = root.set_attribute(name, "");
        }
    }
}

/// The app: header, navigation and the routes.
#[component]
pub fn App() -> impl IntoView {
    provide_meta_context();
    // Every server-rendered page carries a CSP bound to the nonce its inline scripts use.
    #[cfg(feature = "ssr")]
    if let (Some(nonce), Some(response)) = (
        leptos::nonce::use_nonce(),
        use_context::<leptos_axum::ResponseOptions>(),
    ) {
        if let Ok(value) =
            axum::http::HeaderValue::from_str(&content_security_policy(&nonce.to_string()))
        {
            response.insert_header(axum::http::header::CONTENT_SECURITY_POLICY, value);
        }
    }
    // Effects run only in the browser, so this marks the moment hydration has happened.
    Effect::new(move |_| ready::hydrated());
    view! {
        <Link rel="icon" href="/favicon.ico" />
        <i18n::I18nProvider>
            <AppTitle />
            <Router>
                <a class="skip-link" href="#main">{move || tr!("skip-to-content")}</a>
                <header class="topbar">
                    // The pages sent without code are loaded from the server, never drawn here.
                    <A href="/" attr:class="brand" attr:rel="external">
                        <span class="brand-mark" aria-hidden="true">"৳"</span>
                        <span>{move || tr!("app-name")}</span>
                    </A>
                    <nav aria-label=move || tr!("nav-label")>
                        <A href="/" attr:rel="external">{move || tr!("nav-home")}</A>
                        // A full page load: /lab is answered by the server, which finds or makes
                        // this browser's sandbox.
                        <a href="/lab" rel="external">{move || tr!("nav-lab")}</a>
                        <A href="/summary" attr:rel="external">{move || tr!("nav-summary")}</A>
                        <A href="/quiz">{move || tr!("nav-quiz")}</A>
                        <A href="/glossary" attr:rel="external">{move || tr!("nav-glossary")}</A>
                        <A href="/calculators">{move || tr!("nav-calculators")}</A>
                        <LangSwitch />
                    </nav>
                </header>
                <main id="main" tabindex="-1">
                    <Routes fallback=|| view! { <NotFound /> }>
                        <Route path=path!("/") view=|| server_page(|| view! { <home::Home /> }) />
                        <Route path=path!("/lab/:id") view=lab::LabPage />
                        <Route path=path!("/watch/:token") view=lab::MirrorPage />
                        <Route path=path!("/run") view={Lazy::<RunRoute>::new()} />
                        <Route path=path!("/quiz") view={Lazy::<QuizRoute>::new()} />
                        <Route
                            path=path!("/glossary")
                            view=|| server_page(|| view! { <course::glossary::GlossaryPage /> })
                        />
                        <Route
                            path=path!("/summary")
                            view=|| server_page(|| view! { <course::summary::SummaryPage /> })
                        />
                        <Route path=path!("/calculators") view={Lazy::<CalculatorsRoute>::new()} />
                        <Route path=path!("/day") view={Lazy::<DayRoute>::new()} />
                        <Route path=path!("/teach") view={Lazy::<TeachRoute>::new()} />
                        <Route path=path!("/teach/:id") view={Lazy::<ClassRoute>::new()} />
                        <Route path=path!("/join/:code") view={Lazy::<JoinRoute>::new()} />
                        <Route path=path!("/show/:code") view={Lazy::<ShowRoute>::new()} />
                        <Route path=path!("/take/:token") view={Lazy::<TakeRoute>::new()} />
                    </Routes>
                </main>
            </Router>
        </i18n::I18nProvider>
    }
}

/// Each screen is a route of its own whose code the release build puts in a file of its own
/// (`cargo leptos build --split`): a browser downloads the code every page shares and then the
/// screen it opened, and fetches another screen's code when the student first goes there. A
/// server-rendered page names its screen's files in its head, so they download alongside the
/// rest (BENCHMARKS.md, "What a phone downloads").
macro_rules! lazy_screen {
    ($route:ident, $page:path) => {
        struct $route;

        #[lazy_route]
        impl LazyRoute for $route {
            fn data() -> Self {
                Self
            }

            fn view(_this: Self) -> AnyView {
                view! { <$page /> }.into_any()
            }
        }
    };
}

lazy_screen!(RunRoute, run::RunPage);
lazy_screen!(QuizRoute, course::quiz::QuizPage);
lazy_screen!(CalculatorsRoute, course::calc::CalculatorsPage);
lazy_screen!(DayRoute, course::day::DayPage);
lazy_screen!(TeachRoute, class::teach::TeachPage);
lazy_screen!(ClassRoute, class::teach::ClassPage);
lazy_screen!(JoinRoute, class::join::JoinPage);
lazy_screen!(ShowRoute, class::show::ShowPage);
lazy_screen!(TakeRoute, class::hand_over::TakePage);

/// The view of a page of [`SERVER_ONLY`]: on the server the page itself. In the browser, reached
/// by a link the router took after all, the page is loaded again from the server at the address
/// the router went to: the browser has none of its code (the menu's links to these pages are
/// `rel="external"`, so this is a fallback).
fn server_page<V: IntoView + 'static>(page: impl FnOnce() -> V) -> AnyView {
    #[cfg(not(feature = "hydrate"))]
    return page().into_any();
    #[cfg(feature = "hydrate")]
    {
        let _ = page;
        // Only after a page with code has hydrated: a page sent with code for this route by
        // mistake must not be loaded again and again.
        if ready::is_hydrated() {
            // Once the router has written the new address (just after it draws the route), so
            // the page comes from the server at that address and Back returns to this one.
            Effect::new(|_| {
                set_timeout(
                    || {
                        let _ = window().location().reload();
                    },
                    std::time::Duration::ZERO,
                );
            });
        }
        ().into_any()
    }
}

/// The document's title. Its text is read again when the head is drawn, which for a page that
/// waits for its data (a class, a join code) is after the rest, outside the translations'
/// context: so the title holds the translations itself.
#[component]
fn AppTitle() -> impl IntoView {
    let i18n = i18n::i18n();
    view! { <Title text=move || i18n.tr("app-title") /> }
}

/// The language switch: names the other language in that language, so a reader of either
/// finds it. A form: where the page has its code, the switch happens in place
/// (`i18n::toggle_language`); on a page sent without code the browser posts it (`POST /lang`)
/// and comes back to the same address in the other language.
#[component]
fn LangSwitch() -> impl IntoView {
    let location = leptos_router::hooks::use_location();
    let back = move || format!("{}{}", location.pathname.get(), location.search.get());
    let other = move || if i18n::is_bn() { "en" } else { "bn" };
    view! {
        <form
            class="lang-form"
            method="post"
            action="/lang"
            on:submit=move |ev| {
                ev.prevent_default();
                i18n::toggle_language();
            }
        >
            <input type="hidden" name="lang" value=other />
            <input type="hidden" name="back" value=back />
            <button
                type="submit"
                class="lang-switch"
                data-testid="lang-switch"
                lang=other
                aria-label=move || tr!("lang-switch-label")
            >
                {move || tr!("lang-switch")}
            </button>
        </form>
    }
}

#[component]
fn NotFound() -> impl IntoView {
    #[cfg(feature = "ssr")]
    if let Some(response) = use_context::<leptos_axum::ResponseOptions>() {
        response.set_status(axum::http::StatusCode::NOT_FOUND);
    }
    view! {
        <section class="panel">
            <h1>{move || tr!("not-found-title")}</h1>
            <p>{move || tr!("not-found-text")} " " <A href="/">{move || tr!("not-found-home")}</A></p>
        </section>
    }
}
