//! PocketPay Idempotency Lab: a payment system whose every layer can produce a duplicate, and a
//! guard at each layer that catches it.
//!
//! `domain` is shared by the server and the browser; `app` is the Leptos UI (SSR + hydration);
//! `server` (feature `ssr`) is the simulation and its HTTP adapters.
// The lab screen is one deep view type; the compiler needs room to lay it out.
#![recursion_limit = "512"]

pub mod app;
pub mod domain;
#[cfg(feature = "ssr")]
pub mod server;

/// Browser entry point: hydrates the server-rendered page once the sentences of its language
/// and the code of the screen it shows have arrived (each screen's code is a file of its own in
/// the release build; see `app::App` and `app::i18n`).
#[cfg(feature = "hydrate")]
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn hydrate() {
    console_error_panic_hook::set_once();
    wasm_bindgen_futures::spawn_local(async {
        let lang = app::i18n::page_lang();
        if let Err(error) = app::i18n::strings::load(lang).await {
            // The page stays as the server rendered it, links and forms working; its buttons
            // wait for a reload.
            leptos::logging::error!("the page's sentences did not load: {error}");
            return;
        }
        leptos::mount::hydrate_lazy(app::App);
    });
}
