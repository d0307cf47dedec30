//! The timeline's keyboard shortcuts (space pauses or resumes, → runs one step, ? opens the
//! help, Esc closes it and clears the selection) as a hook, the arrow keys that move between
//! the rows of the list, and the dialog that lists them.

use crate::tr;
use leptos::prelude::*;

#[cfg(feature = "hydrate")]
use crate::app::lab::rpc::clock_control;
use crate::app::lab::stream::LabStream;
#[cfg(feature = "hydrate")]
use crate::domain::{ClockCommand, ClockMode};

/// Listens for the shortcuts on the whole window while the timeline is on the page; keys typed
/// into a field, and keys pressed on a control the keyboard moved to, are left to it; Space on
/// a control a click left focused is the clock's (the control is let go, never pressed).
/// Nothing happens during server rendering.
#[cfg_attr(not(feature = "hydrate"), allow(unused_variables))]
pub fn use_shortcuts(live: &LabStream, help: RwSignal<bool>, selected: RwSignal<Option<i64>>) {
    #[cfg(feature = "hydrate")]
    {
        let live = live.clone();
        // Whether the focus came with the pointer (a click or a tap) rather than the keyboard:
        // the browser's own `:focus-visible` turns true at the first key, too late to tell.
        let by_pointer = StoredValue::new(false);
        let pointer = window_event_listener(leptos::ev::pointerdown, move |_| {
            by_pointer.set_value(true);
        });
        let handle = window_event_listener(leptos::ev::keydown, move |ev| {
            use wasm_bindgen::JsCast;
            let target = ev
                .target()
                .and_then(|t| t.dyn_into::<web_sys::Element>().ok());
            let focus = target
                .as_ref()
                .map_or(Focus::Page, |el| Focus::of(el, by_pointer.get_value()));
            if ev.key() != " " {
                by_pointer.set_value(false);
            }
            let typing = focus != Focus::Page;
            if ev.ctrl_key() || ev.meta_key() || ev.alt_key() {
                return;
            }
            let command = match ev.key().as_str() {
                // Space is the clock's, unless a field takes text or the keyboard brought the
                // focus to a control (then Space presses it, as everywhere). A control the
                // mouse left focused, Send after a click, is let go first, so it is not pressed.
                " " if focus != Focus::Typing && focus != Focus::KeyboardControl => {
                    ev.prevent_default();
                    if let Some(el) = target.and_then(|t| t.dyn_into::<web_sys::HtmlElement>().ok())
                    {
                        if focus == Focus::ClickedControl {
                            let _ = el.blur();
                        }
                    }
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
                        live.answered_clock(c);
                    }
                });
            }
        });
        on_cleanup(move || {
            handle.remove();
            pointer.remove();
        });
    }
}

/// Where a key lands: the page itself, a field that takes text, or a control the keyboard or
/// the mouse put the focus on.
#[cfg(feature = "hydrate")]
#[derive(Clone, Copy, PartialEq, Eq)]
enum Focus {
    Page,
    Typing,
    KeyboardControl,
    ClickedControl,
}

#[cfg(feature = "hydrate")]
impl Focus {
    fn of(el: &web_sys::Element, by_pointer: bool) -> Focus {
        let tag = el.tag_name().to_lowercase();
        let kind = el.get_attribute("type").unwrap_or_default();
        let text = match tag.as_str() {
            "textarea" | "select" => true,
            "input" => !matches!(
                kind.as_str(),
                "checkbox" | "radio" | "range" | "button" | "submit" | "reset"
            ),
            _ => false,
        };
        let control = matches!(tag.as_str(), "input" | "button" | "summary");
        if text {
            Focus::Typing
        } else if !control {
            Focus::Page
        } else if by_pointer {
            Focus::ClickedControl
        } else {
            Focus::KeyboardControl
        }
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
