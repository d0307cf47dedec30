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

/// Browser entry point: hydrates the server-rendered page, once the code of the screen it shows
/// has arrived (each screen's code is a file of its own in the release build; see `app::App`).
#[cfg(feature = "hydrate")]
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn hydrate() {
    console_error_panic_hook::set_once();
    leptos::mount::hydrate_lazy(app::App);
}
