//! The live timeline: one lane per layer, every event a mark on its lane in the order of
//! virtual time (newest on top), shaped and coloured by its outcome; a caught duplicate wears
//! the badge of the lane that caught it. Selecting a mark lights up its causal chain (every
//! event sharing its idempotency key, transfer id or event id). Per-lane counters of duplicates
//! caught and escaped; a scrubber that rewinds the inspector to any past event; a link that
//! replays this run elsewhere; keyboard shortcuts. Runs of routine jobs (the inbox cleaner,
//! the log's retention) fold into one row that opens on a tap, so a transfer's story is not
//! buried under housekeeping. The selected event is explained in words (what it means, which
//! guard caught it or would have). At a phone's width the lanes become a list: time, lane and
//! sentence on each row. Only the rows in view (and a margin) are in the page, so thousands of
//! events stay smooth.

mod describe;
pub(crate) use describe::describe;
mod details;
mod entries;
mod row;
mod run_link;
mod shortcuts;

use std::collections::HashSet;

use crate::tr;
use leptos::prelude::*;

use super::rpc::state_at;
use super::stream::{LabStream, View};
use crate::app::i18n::{digits, num, tr_id};
use crate::domain::{Layer, Outcome};
use details::Details;
use entries::{chain_of, entries, find, Entry};
use row::{glyph, FoldRow, Row};
use run_link::RunLink;
use shortcuts::ShortcutHelp;

/// Height of one event row, px (matches `.lane-row` in the style sheet).
const ROW_H: f64 = 30.0;
/// Height of a row at a phone's width, where it holds two lines (matches the style sheet's
/// `max-width: 600px` rule).
#[cfg_attr(not(feature = "hydrate"), allow(dead_code))]
const ROW_H_NARROW: f64 = 46.0;
/// Rows the scroll box shows at once.
const VIEW_ROWS: usize = 16;
/// Rows kept in the page above and below the ones in view.
const OVERSCAN: usize = 150;
/// Rows below the kept ones leave the page this many at a time (see `rows` in `Timeline`).
const DROP_EVERY: usize = 50;

/// The lanes, in the order a transfer meets them, then the lab's own.
pub const LANES: [Layer; 14] = Layer::ALL;

/// Reads best whole: the lanes, the list and the details panel share the selection and follow
/// signals it makes.
#[component]
pub fn Timeline(live: LabStream) -> impl IntoView {
    let events = live.events;
    let view = live.view;
    let selected = RwSignal::new(None::<i64>);
    let help = RwSignal::new(false);
    let scroll_top = RwSignal::new(0.0f64);
    let scroller = NodeRef::<leptos::html::Div>::new();
    let rows_box = NodeRef::<leptos::html::Ol>::new();
    let count = Memo::new(move |_| events.with(Vec::len));
    let last_id = Memo::new(move |_| events.with(|l| l.last().map_or(0, |e| e.id)));
    let first_id = Memo::new(move |_| events.with(|l| l.first().map_or(0, |e| e.id)));
    let show_routine = RwSignal::new(false);
    let opened = RwSignal::new(HashSet::<i64>::new());
    // A reset (or a preset load) starts a new timeline: nothing of the old one stays selected,
    // so nothing of the new one is dimmed around it.
    let looks = super::context::Looks::here();
    let resets = live.resets;
    Effect::watch(
        move || resets.get(),
        move |_, _, _| {
            selected.set(None);
            opened.set(HashSet::new());
        },
        false,
    );
    let list = Memo::new(move |_| {
        let show = show_routine.get();
        opened.with(|o| events.with(|l| entries(l, show, o)))
    });
    let rows_count = Memo::new(move |_| list.with(Vec::len));
    let folded = Memo::new(move |_| {
        list.with(|l| {
            l.iter()
                .map(|e| match e {
                    Entry::Fold { count, .. } => *count,
                    Entry::Event(_) => 0,
                })
                .sum::<usize>()
        })
    });
    // Two-line rows at a phone's width; the server draws the laptop's.
    let row_h = RwSignal::new(ROW_H);
    #[cfg(feature = "hydrate")]
    if super::wide::width() <= super::wide::NARROW {
        row_h.set(ROW_H_NARROW);
    }
    shift_rows_box(rows_box, row_h, rows_count);
    let rewound_to = Memo::new(move |_| match view.get() {
        View::Now => None,
        View::Loading(id) | View::At(id, _) | View::Failed(id, _) => Some(id),
    });

    keep_reader_in_place(scroller, scroll_top, row_h, last_id, rows_count);

    // The rows kept in the page, oldest first: new ones are added after the rest, and old ones
    // leave from the front DROP_EVERY at a time, so a burst of events adds its rows and moves
    // none (the keyed list moves every row after a change at both of its ends, or after two
    // rows or more added at its front). On the screen the newest is on top (`place`); a screen
    // reader reads the kept rows in the order they happened. Only the entries: a row's event
    // is looked up (and copied) once, when the row is made, not for every kept row each burst.
    let rows = move || {
        let h = row_h.get();
        let from_top = (scroll_top.get() / h) as usize;
        list.with(|entries| {
            let n = entries.len();
            let newest = n.saturating_sub(from_top.saturating_sub(OVERSCAN));
            let oldest =
                n.saturating_sub(from_top + VIEW_ROWS + OVERSCAN) / DROP_EVERY * DROP_EVERY;
            entries[oldest..newest].to_vec()
        })
    };
    // A row's place counted from the oldest, which new rows do not change.
    let place = move |first: i64| list.with(|l| l.partition_point(|e| e.first_id() < first)) as f64;
    let chain = Memo::new(move |_| match selected.get() {
        Some(sel) => events.with(|l| chain_of(l, sel)),
        None => HashSet::new(),
    });
    let selected_event = move || {
        selected
            .get()
            .and_then(|id| events.with(|l| l.iter().find(|e| e.id == id).cloned()))
    };

    let rewind = rewinder(&live, selected);
    shortcuts::use_shortcuts(&live, help, selected);

    view! {
        <section class="panel timeline" aria-labelledby="events-title">
            <div class="timeline-head">
                <h2 id="events-title">{move || tr!("events-title")}</h2>
                <button type="button" class="linkish" data-testid="shortcuts" aria-haspopup="dialog" on:click=move |_| help.set(true)>
                    {move || tr!("shortcuts-button")}
                </button>
            </div>
            <p class="hint">
                {move || if live.connected.get() { tr!("stream-connected") } else { tr!("stream-waiting") }}
                " · "
                <span data-testid="events-count">
                    {move || tr!("events-count", { "n" => count.get() as i64, "count" => num(count.get() as i64) })}
                </span>
            </p>
            <Legend />
            <CountsLine live=live.clone() />
            <RoutineToggle show_routine opened folded />
            <RewindBar live=live.clone() rewind=rewind.clone() first_id last_id count rewound_to />
            <div class="lanes" role="group" aria-label=move || tr!("lanes-label")>
                <LaneHead live=live.clone() />
                <div
                    class="lane-scroll"
                    node_ref=scroller
                    tabindex="0"
                    aria-label=move || tr!("events-title")
                    on:scroll=move |ev| {
                        let el = event_target::<leptos::web_sys::Element>(&ev);
                        scroll_top.set(el.scroll_top() as f64);
                    }
                    on:keydown=move |ev| {
                        #[cfg(feature = "hydrate")]
                        if let Some(list) = rows_box.get_untracked() {
                            if shortcuts::step_focus(&list, &ev.key()) {
                                ev.prevent_default();
                            }
                        }
                        #[cfg(not(feature = "hydrate"))]
                        let _ = ev;
                    }
                >
                    <ol
                        class="lane-rows"
                        data-testid="timeline"
                        data-count=move || count.get()
                        node_ref=rows_box
                    >
                        <For
                            each=rows
                            key=|entry| entry.key()
                            children={
                                let live = live.clone();
                                move |entry: Entry| {
                                    let first = entry.first_id();
                                    let top = Memo::new(move |_| format!("{}px", -place(first) * row_h.get()));
                                    let top = Signal::from(top);
                                    let event = match entry {
                                        Entry::Event(id) => events.with_untracked(|all| find(all, id).cloned()),
                                        Entry::Fold { .. } => None,
                                    };
                                    match (entry, event) {
                                        (_, Some(e)) => view! { <Row live=live.clone() event=e top selected chain rewound_to looks /> }.into_any(),
                                        (Entry::Fold { first, last, count }, None) => view! { <FoldRow first last count top opened rewound_to /> }.into_any(),
                                        (Entry::Event(_), None) => ().into_any(),
                                    }
                                }
                            }
                        />
                    </ol>
                </div>
            </div>
            <Show when=move || count.get() == 0>
                <p class="hint">{move || tr!("events-none")}</p>
            </Show>
            <div class="event-details" data-testid="event-details" role="region" aria-live="polite" aria-label=move || tr!("details-label")>
                {move || match selected_event() {
                    None => view! { <p class="hint">{move || tr!("details-none")}</p> }.into_any(),
                    Some(e) => {
                        let rewind = rewind.clone();
                        let chain_len = chain.with(HashSet::len);
                        view! { <Details event=e chain_len rewind /> }.into_any()
                    }
                }}
            </div>
            <RunLink live=live.clone() />
        </section>
        // Outside the panel: a panel's paint is contained (style sheet), which would hold a
        // fixed backdrop inside it.
        <Show when=move || help.get()>
            <ShortcutHelp help />
        </Show>
    }
}

/// A row keeps its place in the list for good: the oldest at 0, each newer one a row higher
/// (`place` in [`Timeline`]), and the list as a whole is moved down by all but one of its
/// rows, so the newest is on top. A burst of new rows then changes one transform instead of
/// every row's position, and the browser lays out only the new rows (the latency benchmark
/// found the layout of every kept row, each burst, the page's largest cost: BENCHMARKS.md,
/// "The timeline in a browser"). Set through the DOM, not as a style attribute in the
/// server's HTML, which the page's Content-Security-Policy would refuse.
fn shift_rows_box(
    rows_box: NodeRef<leptos::html::Ol>,
    row_h: RwSignal<f64>,
    rows_count: Memo<usize>,
) {
    Effect::new(move |_| {
        let h = row_h.get();
        let shift = format!(
            "translateY({}px)",
            rows_count.get().saturating_sub(1) as f64 * h
        );
        if let Some(el) = rows_box.get() {
            let style = leptos::web_sys::HtmlElement::style(&el);
            let _ = style.set_property("height", &format!("{h}px"));
            let _ = style.set_property("transform", &shift);
        }
    });
}

/// New rows above a reader who scrolled down do not move what they are reading. Where the
/// reader stands comes from the last scroll event, not from the element: reading `scrollTop`
/// right after new rows went in would make the browser lay out the whole page again for
/// every burst of events (the latency benchmark found it the page's largest cost).
fn keep_reader_in_place(
    scroller: NodeRef<leptos::html::Div>,
    scroll_top: RwSignal<f64>,
    row_h: RwSignal<f64>,
    last_id: Memo<i64>,
    rows_count: Memo<usize>,
) {
    Effect::watch(
        move || (last_id.get(), rows_count.get()),
        move |now, before, _| {
            if let (Some(before), Some(el)) = (before, scroller.get_untracked()) {
                let top = scroll_top.get_untracked();
                if top > 0.0 && now.0 > before.0 && before.0 > 0 && now.1 > before.1 {
                    let grown = (now.1 - before.1) as f64 * row_h.get_untracked();
                    el.set_scroll_top((top + grown) as i32);
                    scroll_top.set(top + grown);
                }
            }
        },
        false,
    );
}

/// Rewinds the lab to one event: the sandbox as it stood then, read from the server, while
/// the timeline marks the event. A later rewind (or "now") wins over this one.
fn rewinder(live: &LabStream, selected: RwSignal<Option<i64>>) -> impl Fn(i64) + Clone {
    let live = live.clone();
    move |id: i64| {
        let live = live.clone();
        live.view.set(View::Loading(id));
        selected.set(Some(id));
        let hold = live.hold();
        leptos::task::spawn_local(async move {
            let _hold = hold;
            let result = state_at(live.sandbox(), id).await;
            if live.view.get_untracked() != View::Loading(id) {
                return;
            }
            live.view.set(match result {
                Ok(state) => View::At(id, Box::new(state)),
                Err(e) => View::Failed(id, e),
            });
        });
    }
}

/// How many duplicates the guards caught, and how many escaped, in all.
#[component]
fn CountsLine(live: LabStream) -> impl IntoView {
    view! {
        <p class="counts-line" aria-live="polite" data-testid="counts-summary">
            {move || {
                let counts = live.counts.get();
                let caught: u32 = counts.values().map(|c| c.caught).sum();
                let escaped: u32 = counts.values().map(|c| c.escaped).sum();
                tr!("counts-summary", { "caught" => digits(&caught.to_string()), "escaped" => digits(&escaped.to_string()) })
            }}
        </p>
    }
}

/// What the shapes mean.
#[component]
fn Legend() -> impl IntoView {
    view! {
        <ul class="legend" aria-label=move || tr!("legend-label")>
            {Outcome::ALL
                .into_iter()
                .map(|o| view! {
                    <li><span class=format!("glyph outcome-{}", o.id()) aria-hidden="true">{glyph(o)}</span> " " {move || tr_id(&format!("outcome-{}", o.id()))}</li>
                })
                .collect_view()}
        </ul>
    }
}

/// Whether runs of routine jobs fold, and how many events are folded now.
#[component]
fn RoutineToggle(
    show_routine: RwSignal<bool>,
    opened: RwSignal<HashSet<i64>>,
    folded: Memo<usize>,
) -> impl IntoView {
    view! {
        <label class="routine-toggle">
            <input
                type="checkbox"
                data-testid="show-routine"
                prop:checked=move || show_routine.get()
                on:change=move |ev| {
                    let on = event_target_checked(&ev);
                    show_routine.set(on);
                    if !on {
                        opened.update(HashSet::clear);
                    }
                }
            />
            " " {move || tr!("routine-show")}
            <span class="hint" data-testid="routine-folded" data-count=move || folded.get()>
                " " {move || tr!("routine-folded", { "n" => folded.get() as i64, "count" => num(folded.get() as i64) })}
            </span>
        </label>
    }
}

/// The scrubber that rewinds the inspector to any past event, and the way back to now.
#[component]
fn RewindBar<R>(
    live: LabStream,
    rewind: R,
    first_id: Memo<i64>,
    last_id: Memo<i64>,
    count: Memo<usize>,
    rewound_to: Memo<Option<i64>>,
) -> impl IntoView
where
    R: Fn(i64) + Clone + Send + Sync + 'static,
{
    let view = live.view;
    let on_scrub = {
        move |ev: leptos::ev::Event| {
            if let Ok(i) = event_target_value(&ev).parse::<i64>() {
                let id = first_id.get_untracked() + i;
                if id >= last_id.get_untracked() {
                    view.set(View::Now);
                } else {
                    rewind(id);
                }
            }
        }
    };
    view! {
        <div class="rewind">
            <label for="rewind">{move || tr!("rewind-label")}</label>
            <input
                id="rewind"
                type="range"
                data-testid="rewind"
                min="0"
                max=move || count.get().saturating_sub(1).to_string()
                step="1"
                prop:value=move || match rewound_to.get() {
                    Some(id) => (id - first_id.get()).to_string(),
                    None => count.get().saturating_sub(1).to_string(),
                }
                on:change=on_scrub
                aria-valuetext=move || match rewound_to.get() {
                    Some(id) => tr!("rewind-at", { "event" => digits(&id.to_string()) }),
                    None => tr!("rewind-now"),
                }
            />
            <button type="button" data-testid="rewind-now" disabled=move || rewound_to.get().is_none() on:click=move |_| view.set(View::Now)>
                {move || tr!("rewind-back")}
            </button>
        </div>
    }
}

/// The lanes' names, each with its counters of duplicates caught and escaped.
#[component]
fn LaneHead(live: LabStream) -> impl IntoView {
    view! {
        <div class="lane-head" aria-hidden="true">
            <span class="lane-time">{move || tr!("lane-time")}</span>
            {LANES
                .into_iter()
                .map(|layer| {
                    let counts = live.counts;
                    let c = move || counts.with(|m| m.get(&layer).copied().unwrap_or_default());
                    view! {
                        <span class="lane-name" data-lane=layer.id() title=move || tr_id(&format!("layer-{}", layer.id()))>
                            <span class="lane-label">{move || tr_id(&format!("lane-short-{}", layer.id()))}</span>
                            <span class="lane-count" data-testid=format!("lane-count-{}", layer.id()) data-caught=move || c().caught data-escaped=move || c().escaped>
                                <span class="count-caught">"◆" {move || digits(&c().caught.to_string())}</span>
                                <span class="count-escaped">"▲" {move || digits(&c().escaped.to_string())}</span>
                            </span>
                        </span>
                    }
                })
                .collect_view()}
        </div>
    }
}
