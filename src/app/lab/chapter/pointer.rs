//! The ring that points at the control the current step needs: moved from control to control,
//! opening the folded section that holds it and scrolling it into clear view.

use leptos::prelude::*;

/// Moves the ring from one control to another (by `data-testid`), opening a folded section
/// that holds the new one.
#[cfg(feature = "hydrate")]
pub(super) fn point_at(before: Option<&str>, target: Option<&str>, open: bool) {
    let Some(doc) = window().document() else {
        return;
    };
    if let Some(before) = before {
        if let Ok(Some(el)) = doc.query_selector(&format!("[data-testid=\"{before}\"]")) {
            let _ = el.class_list().remove_1("pointed");
        }
    }
    if let Some(target) = target {
        if let Ok(Some(el)) = doc.query_selector(&format!("[data-testid=\"{target}\"]")) {
            let _ = el.class_list().add_1("pointed");
            if open {
                open_folds_around(&el);
            }
        }
    }
}

/// Opens the folded sections holding these controls (by `data-testid`); whether every one
/// of them is drawn yet.
#[cfg(feature = "hydrate")]
pub(super) fn unfold(ids: &[&str]) -> bool {
    let Some(doc) = window().document() else {
        return false;
    };
    let mut all = true;
    for id in ids {
        match doc.query_selector(&format!("[data-testid=\"{id}\"]")) {
            Ok(Some(el)) => open_folds_around(&el),
            _ => all = false,
        }
    }
    all
}

#[cfg(feature = "hydrate")]
pub(super) fn open_folds_around(el: &web_sys::Element) {
    use wasm_bindgen::JsCast;
    let mut node = el.parent_element();
    while let Some(parent) = node {
        if let Some(details) = parent.dyn_ref::<web_sys::HtmlDetailsElement>() {
            details.set_open(true);
        }
        node = parent.parent_element();
    }
}

/// Scrolls the chapter so the first element matching `selector` is in its view, once the page
/// has drawn it.
pub(super) fn reveal(selector: &'static str) {
    #[cfg(feature = "hydrate")]
    leptos::task::spawn_local(async move {
        // After this turn's rendering.
        let _ = wasm_bindgen_futures::JsFuture::from(js_sys::Promise::resolve(
            &wasm_bindgen::JsValue::NULL,
        ))
        .await;
        if let Some(el) = window()
            .document()
            .and_then(|d| d.query_selector(selector).ok().flatten())
        {
            let options = web_sys::ScrollIntoViewOptions::new();
            options.set_block(web_sys::ScrollLogicalPosition::Nearest);
            el.scroll_into_view_with_scroll_into_view_options(&options);
        }
    });
    #[cfg(not(feature = "hydrate"))]
    let _ = selector;
}

/// Brings the control a step needs into view, ringed; on a phone the drawer folds down to its
/// head so the control is free to tap (unless the control is in the drawer). Once the fold has been drawn, the control is scrolled
/// fully into the part of the screen nothing covers ([`into_clear_view`]).
pub(super) fn show(target: &'static str, collapsed: RwSignal<bool>) {
    #[cfg(feature = "hydrate")]
    {
        // A control inside the drawer itself (the chapter's start) needs it open, not folded.
        let in_drawer = window()
            .document()
            .and_then(|d| {
                d.query_selector(&format!(".lab-chapter [data-testid=\"{target}\"]"))
                    .ok()
                    .flatten()
            })
            .is_some();
        if crate::app::lab::wide::width() < crate::app::lab::wide::WIDE && !in_drawer {
            collapsed.set(true);
        }
        point_at(None, Some(target), true);
        set_timeout(
            move || {
                if let Some(el) = window().document().and_then(|d| {
                    d.query_selector(&format!("[data-testid=\"{target}\"]"))
                        .ok()
                        .flatten()
                }) {
                    into_clear_view(&el, false);
                }
            },
            SETTLE,
        );
    }
    #[cfg(not(feature = "hydrate"))]
    let _ = (target, collapsed);
}

/// How long a fold or a new chapter takes to be drawn before the page is scrolled to it.
#[cfg(feature = "hydrate")]
pub(super) const SETTLE: std::time::Duration = std::time::Duration::from_millis(80);

/// Scrolls `el` (inside any scrolling box, then the window) so all of it sits in the part of
/// the screen nothing covers: below the sticky summary bar and, on a phone, above the
/// chapter's drawer. `at_top`: its top at the top of that part, as a page opens.
#[cfg(feature = "hydrate")]
pub(super) fn into_clear_view(el: &web_sys::Element, at_top: bool) {
    let options = web_sys::ScrollIntoViewOptions::new();
    options.set_block(web_sys::ScrollLogicalPosition::Nearest);
    el.scroll_into_view_with_scroll_into_view_options(&options);
    let Some(doc) = window().document() else {
        return;
    };
    let find = |selector: &str| doc.query_selector(selector).ok().flatten();
    let height = window()
        .inner_height()
        .ok()
        .and_then(|h| h.as_f64())
        .unwrap_or(800.0);
    const GAP: f64 = 8.0;
    let top =
        find(".summary-bar").map_or(0.0, |b| b.get_bounding_client_rect().bottom().max(0.0)) + GAP;
    let drawer = (crate::app::lab::wide::width() < crate::app::lab::wide::WIDE)
        .then(|| find(".lab-chapter"))
        .flatten()
        .filter(|d| !d.contains(Some(el)))
        .map(|d| d.get_bounding_client_rect().top());
    let bottom = drawer.unwrap_or(height).min(height) - GAP;
    let r = el.get_bounding_client_rect();
    let by = if at_top || r.top() < top || r.height() > bottom - top {
        r.top() - top
    } else if r.bottom() > bottom {
        r.bottom() - bottom
    } else {
        return;
    };
    window().scroll_by_with_x_and_y(0.0, by);
}

/// A chapter just opened (a link, a chip, "next"): its column or drawer back at its top, and on
/// a laptop the page scrolled so the chapter's title is in view.
#[cfg(feature = "hydrate")]
pub(super) fn open_at_top() {
    set_timeout(
        || {
            let Some(doc) = window().document() else {
                return;
            };
            if let Ok(Some(col)) = doc.query_selector(".lab-chapter") {
                col.set_scroll_top(0);
            }
            if crate::app::lab::wide::width() >= crate::app::lab::wide::WIDE {
                if let Ok(Some(head)) = doc.query_selector(".lab-chapter .chapter-head") {
                    let r = head.get_bounding_client_rect();
                    let height = window()
                        .inner_height()
                        .ok()
                        .and_then(|h| h.as_f64())
                        .unwrap_or(800.0);
                    if r.top() < 0.0 || r.bottom() > height {
                        into_clear_view(&head, true);
                    }
                }
            }
        },
        SETTLE,
    );
}
