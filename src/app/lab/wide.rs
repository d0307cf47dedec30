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
