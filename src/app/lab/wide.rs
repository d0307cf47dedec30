//! Sections a phone shows folded and a wider screen shows open. The server renders them
//! folded (it cannot know the width), so a phone never draws the long version first; once the
//! page is live, a screen at least [`WIDE`] wide opens them.

use leptos::prelude::*;

/// The narrowest screen, in CSS pixels, that shows folded sections open (the two-column
/// layout's breakpoint in the style sheet).
#[cfg_attr(not(feature = "hydrate"), allow(dead_code))]
pub const WIDE: f64 = 900.0;
/// The widest screen, in CSS pixels, that shows the timeline as a list (the style sheet's
/// `max-width: 600px` rule).
#[cfg_attr(not(feature = "hydrate"), allow(dead_code))]
pub const NARROW: f64 = 600.0;

/// The window's width in CSS pixels, once the page is live.
#[cfg(feature = "hydrate")]
pub fn width() -> f64 {
    window()
        .inner_width()
        .ok()
        .and_then(|w| w.as_f64())
        .unwrap_or(WIDE)
}

/// Opens a `<details>` once the page is live, if the screen is wide.
pub fn open_when_wide(node: NodeRef<leptos::html::Details>) {
    #[cfg(feature = "hydrate")]
    Effect::new(move |done: Option<bool>| {
        if done == Some(true) {
            return true;
        }
        let Some(el) = node.get() else {
            return false;
        };
        if width() >= WIDE {
            el.set_open(true);
        }
        true
    });
    #[cfg(not(feature = "hydrate"))]
    let _ = node;
}

/// On a phone, where the chapter's drawer covers the lower part of the lab while it is open:
/// scrolls the page so Shimul's Send button and the app's answer under it sit above the drawer.
/// Called when the app's screen changes and when the drawer opens, after that turn's drawing.
pub fn keep_phone_above_drawer() {
    #[cfg(feature = "hydrate")]
    leptos::task::spawn_local(async {
        let _ = wasm_bindgen_futures::JsFuture::from(js_sys::Promise::resolve(
            &wasm_bindgen::JsValue::NULL,
        ))
        .await;
        if width() >= WIDE {
            return;
        }
        let Some(doc) = window().document() else {
            return;
        };
        let find = |selector: &str| doc.query_selector(selector).ok().flatten();
        let (Some(drawer), Some(send), Some(answer)) = (
            find(".lab-chapter .chapter:not(.collapsed)"),
            find("[data-testid=\"send-button\"]"),
            find("[data-testid=\"phone-message\"]"),
        ) else {
            return;
        };
        const GAP: f64 = 8.0;
        let limit = drawer.get_bounding_client_rect().top() - GAP;
        let top = send.get_bounding_client_rect().top() - GAP;
        let bottom = answer.get_bounding_client_rect().bottom();
        let by = if bottom > limit {
            // Down, but never so far that Send leaves the top of the screen.
            (bottom - limit).min(top)
        } else if top < 0.0 {
            top
        } else {
            return;
        };
        window().scroll_by_with_x_and_y(0.0, by);
    });
}
