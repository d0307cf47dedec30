//! The timeline's keyboard shortcuts (space pauses or resumes, → runs one step, ? opens the
//! help, Esc closes it and clears the selection) as a hook, the arrow keys that move between
//! the rows of the list, and the dialog that lists them.

use leptos::prelude::*;
use leptos_fluent::tr;

#[cfg(feature = "hydrate")]
use crate::app::lab::clock_control;
use crate::app::lab::stream::LabStream;
#[cfg(feature = "hydrate")]
use crate::domain::{ClockCommand, ClockMode};

/// Listens for the shortcuts on the whole window while the timeline is on the page; keys typed
/// into a field or pressed on a control are left to it. Nothing happens during server rendering.
#[cfg_attr(not(feature = "hydrate"), allow(unused_variables))]
pub fn use_shortcuts(live: &LabStream, help: RwSignal<bool>, selected: RwSignal<Option<i64>>) {
    #[cfg(feature = "hydrate")]
    {
        let live = live.clone();
        let handle = window_event_listener(leptos::ev::keydown, move |ev| {
            let typing = ev
                .target()
                .and_then(|t| {
                    use wasm_bindgen::JsCast;
                    t.dyn_into::<web_sys::Element>().ok()
                })
                .map(|el| {
                    let tag = el.tag_name().to_lowercase();
                    matches!(
                        tag.as_str(),
                        "input" | "select" | "textarea" | "button" | "summary"
                    )
                })
                .unwrap_or(false);
            if ev.ctrl_key() || ev.meta_key() || ev.alt_key() {
                return;
            }
            let command = match ev.key().as_str() {
                " " if !typing => {
                    ev.prevent_default();
                    Some(
                        if live.clock.with_untracked(|c| c.mode == ClockMode::Paused) {
                            ClockCommand::Resume
                        } else {
                            ClockCommand::Pause
                        },
                    )
                }
                "ArrowRight" if !typing => {
                    ev.prevent_default();
                    Some(ClockCommand::Step)
                }
                "?" => {
                    help.update(|h| *h = !*h);
                    None
                }
                "Escape" => {
                    help.set(false);
                    selected.set(None);
                    None
                }
                _ => None,
            };
            if let Some(command) = command {
                let live = live.clone();
                leptos::task::spawn_local(async move {
                    if let Ok(c) = clock_control(live.sandbox(), command).await {
                        live.set_clock(c);
                    }
                });
            }
        });
        on_cleanup(move || handle.remove());
    }
}

/// The keyboard shortcuts, in a dialog.
#[component]
pub fn ShortcutHelp(help: RwSignal<bool>) -> impl IntoView {
    let close = NodeRef::<leptos::html::Button>::new();
    Effect::new(move |_| {
        if let Some(b) = close.get() {
            let _ = b.focus();
        }
    });
    view! {
        <div class="help-backdrop" on:click=move |_| help.set(false)>
            <div class="help" role="dialog" aria-modal="true" aria-labelledby="help-title" data-testid="shortcut-help" on:click=|ev| ev.stop_propagation()>
                <h3 id="help-title">{move || tr!("shortcuts-title")}</h3>
                <dl>
                    <dt><kbd>"Space"</kbd></dt><dd>{move || tr!("shortcut-space")}</dd>
                    <dt><kbd>"→"</kbd></dt><dd>{move || tr!("shortcut-step")}</dd>
                    <dt><kbd>"?"</kbd></dt><dd>{move || tr!("shortcut-help")}</dd>
                    <dt><kbd>"Esc"</kbd></dt><dd>{move || tr!("shortcut-escape")}</dd>
                    <dt><kbd>"↑ ↓"</kbd></dt><dd>{move || tr!("shortcut-rows")}</dd>
                </dl>
                <button type="button" node_ref=close on:click=move |_| help.set(false)>{move || tr!("close")}</button>
            </div>
        </div>
    }
}

/// Moves the focus between the rows of the timeline's list (`list`, its `<ol>`) for an arrow
/// key, Home or End pressed in the list; says whether it did. The list is one stop for Tab; the
/// arrows go from row to row in the screen's order, newest on top, which is the reverse of the
/// page's (the page keeps the rows oldest first, `Timeline`): down is the row before in the page.
#[cfg(feature = "hydrate")]
pub fn step_focus(list: &web_sys::Element, key: &str) -> bool {
    use wasm_bindgen::JsCast;
    let current = document()
        .active_element()
        .and_then(|a| a.closest("li").ok().flatten())
        .filter(|li| li.parent_element().as_ref() == Some(list));
    let row = match (key, current) {
        ("ArrowDown", Some(li)) => li.previous_element_sibling(),
        ("ArrowUp", Some(li)) => li.next_element_sibling(),
        ("ArrowDown" | "ArrowUp" | "Home", _) => list.last_element_child(),
        ("End", _) => list.first_element_child(),
        _ => return false,
    };
    let button = row
        .and_then(|r| r.query_selector("button").ok().flatten())
        .and_then(|b| b.dyn_into::<web_sys::HtmlElement>().ok());
    match button {
        Some(b) => b.focus().is_ok(),
        None => false,
    }
}
