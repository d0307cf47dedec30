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

use std::collections::HashSet;

use leptos::prelude::*;
use leptos_fluent::tr;

#[cfg(feature = "hydrate")]
use super::clock_control;
use super::stream::{LabStream, View};
use super::{export_run, state_at};
use crate::app::format::{clock_text, event_time_text, row_time_text, speed_text};
use crate::app::i18n::{digits, num, taka, tr_args, tr_count, tr_id};
use crate::domain::explain::{status_message, Explanation};
#[cfg(feature = "hydrate")]
use crate::domain::{ClockCommand, ClockMode};
use crate::domain::{EventKind, Layer, Outcome, TimelineEvent};

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

/// The lanes, in the order a transfer meets them, then the lab's own.
pub const LANES: [Layer; 14] = Layer::ALL;

fn lane_index(layer: Layer) -> usize {
    LANES
        .iter()
        .position(|l| *l == layer)
        .unwrap_or(LANES.len() - 1)
}

/// The shape of a mark: colour is never the only signal.
fn glyph(outcome: Outcome) -> &'static str {
    match outcome {
        Outcome::Ok => "●",
        Outcome::Caught => "◆",
        Outcome::Escaped => "▲",
        Outcome::Lost => "✕",
        Outcome::Unknown => "?",
    }
}

/// The strings that tie an event to others of its chain.
fn links(e: &TimelineEvent) -> Vec<&str> {
    let mut out: Vec<&str> = Vec::new();
    if e.layer == Layer::Lab {
        return out;
    }
    if let Some(c) = e.correlation.as_deref() {
        out.push(c);
    }
    for field in ["event_id", "transfer_id"] {
        if let Some(v) = e.details.get(field).and_then(|v| v.as_str()) {
            out.push(v);
        }
    }
    out
}

/// Every event of the selected one's causal chain: the closure of shared keys and ids.
pub fn chain_of(list: &[TimelineEvent], selected: i64) -> HashSet<i64> {
    let Some(start) = list.iter().find(|e| e.id == selected) else {
        return HashSet::new();
    };
    let mut ids: HashSet<&str> = links(start).into_iter().collect();
    if ids.is_empty() {
        return HashSet::from([selected]);
    }
    loop {
        let before = ids.len();
        for e in list {
            let l = links(e);
            if l.iter().any(|x| ids.contains(x)) {
                ids.extend(l);
            }
        }
        if ids.len() == before {
            break;
        }
    }
    list.iter()
        .filter(|e| e.id == selected || links(e).iter().any(|x| ids.contains(x)))
        .map(|e| e.id)
        .collect()
}

/// One row of the list: an event, or a run of routine jobs folded into one row.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Entry {
    /// The event with this id.
    Event(i64),
    /// Routine jobs from the event `first` to the event `last` (ids), `count` of them.
    Fold { first: i64, last: i64, count: usize },
}

impl Entry {
    fn first_id(self) -> i64 {
        match self {
            Entry::Event(id) => id,
            Entry::Fold { first, .. } => first,
        }
    }

    /// A key that changes when the row must be drawn again (a fold that grew).
    fn key(self) -> (i64, usize) {
        match self {
            Entry::Event(id) => (id, 0),
            Entry::Fold { first, count, .. } => (first, count),
        }
    }
}

/// The rows of the list, oldest first: every event, except that two or more routine jobs in a
/// row fold into one, unless routine jobs are shown or that run was opened (`opened` holds
/// the id of each opened run's first event).
pub fn entries(list: &[TimelineEvent], show_routine: bool, opened: &HashSet<i64>) -> Vec<Entry> {
    let mut out = Vec::with_capacity(list.len());
    let mut i = 0;
    while i < list.len() {
        let mut j = i;
        if !show_routine && list[i].kind.is_routine() {
            while j + 1 < list.len() && list[j + 1].kind.is_routine() {
                j += 1;
            }
        }
        if j > i && !opened.contains(&list[i].id) {
            out.push(Entry::Fold {
                first: list[i].id,
                last: list[j].id,
                count: j - i + 1,
            });
        } else {
            out.extend(list[i..=j].iter().map(|e| Entry::Event(e.id)));
        }
        i = j + 1;
    }
    out
}

/// A row to draw: its entry, and the event itself for an event row.
#[derive(Clone)]
struct Item {
    entry: Entry,
    event: Option<TimelineEvent>,
}

fn find(list: &[TimelineEvent], id: i64) -> Option<&TimelineEvent> {
    list.binary_search_by_key(&id, |e| e.id)
        .ok()
        .map(|i| &list[i])
}

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
    // The list is as tall as all its rows. Set through the DOM, not as a style attribute in
    // the server's HTML, which the page's Content-Security-Policy would refuse.
    Effect::new(move |_| {
        let height = format!("{}px", rows_count.get() as f64 * row_h.get());
        if let Some(el) = rows_box.get() {
            let _ = leptos::web_sys::HtmlElement::style(&el).set_property("height", &height);
        }
    });
    let rewound_to = Memo::new(move |_| match view.get() {
        View::Now => None,
        View::Loading(id) | View::At(id, _) | View::Failed(id, _) => Some(id),
    });

    // New rows above a reader who scrolled down do not move what they are reading.
    Effect::watch(
        move || (last_id.get(), rows_count.get()),
        move |now, before, _| {
            if let (Some(before), Some(el)) = (before, scroller.get_untracked()) {
                let top = el.scroll_top() as f64;
                if top > 0.0 && now.0 > before.0 && before.0 > 0 && now.1 > before.1 {
                    let grown = (now.1 - before.1) as f64 * row_h.get_untracked();
                    el.set_scroll_top((top + grown) as i32);
                }
            }
        },
        false,
    );

    let rows = move || {
        let h = row_h.get();
        let top = scroll_top.get();
        let first_row = ((top / h) as usize).saturating_sub(OVERSCAN);
        let last_row = (top / h) as usize + VIEW_ROWS + OVERSCAN;
        list.with(|entries| {
            events.with(|all| {
                let n = entries.len();
                (first_row..last_row.min(n))
                    .map(|i| {
                        let entry = entries[n - 1 - i];
                        let event = match entry {
                            Entry::Event(id) => find(all, id).cloned(),
                            Entry::Fold { .. } => None,
                        };
                        Item { entry, event }
                    })
                    .collect::<Vec<_>>()
            })
        })
    };
    // A row's place counted from the top: newest first.
    let rank = move |first: i64| {
        list.with(|l| l.len() - 1 - l.partition_point(|e| e.first_id() < first)) as f64
    };
    let chain = Memo::new(move |_| match selected.get() {
        Some(sel) => events.with(|l| chain_of(l, sel)),
        None => HashSet::new(),
    });
    let selected_event = move || {
        selected
            .get()
            .and_then(|id| events.with(|l| l.iter().find(|e| e.id == id).cloned()))
    };

    let rewind = {
        let live = live.clone();
        move |id: i64| {
            let live = live.clone();
            view.set(View::Loading(id));
            selected.set(Some(id));
            leptos::task::spawn_local(async move {
                let result = state_at(live.sandbox(), id).await;
                // A later rewind (or "now") wins over this one.
                if live.view.get_untracked() != View::Loading(id) {
                    return;
                }
                live.view.set(match result {
                    Ok(state) => View::At(id, Box::new(state)),
                    Err(e) => View::Failed(id, super::controls::server_error(&e.to_string())),
                });
            });
        }
    };
    let on_scrub = {
        let rewind = rewind.clone();
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

    // Keyboard: space pauses or resumes, → runs one step, ? opens the help, Esc closes it.
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
            <p class="counts-line" aria-live="polite" data-testid="counts-summary">
                {move || {
                    let counts = live.counts.get();
                    let caught: u32 = counts.values().map(|c| c.caught).sum();
                    let escaped: u32 = counts.values().map(|c| c.escaped).sum();
                    tr!("counts-summary", { "caught" => digits(&caught.to_string()), "escaped" => digits(&escaped.to_string()) })
                }}
            </p>
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
            <div class="lanes" role="group" aria-label=move || tr!("lanes-label")>
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
                <div
                    class="lane-scroll"
                    node_ref=scroller
                    tabindex="0"
                    aria-label=move || tr!("events-title")
                    on:scroll=move |ev| {
                        let el = event_target::<leptos::web_sys::Element>(&ev);
                        scroll_top.set(el.scroll_top() as f64);
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
                            key=|item| item.entry.key()
                            children={
                                let live = live.clone();
                                move |item: Item| {
                                    let first = item.entry.first_id();
                                    let top = Signal::derive(move || format!("{}px", rank(first) * row_h.get()));
                                    match (item.entry, item.event) {
                                        (_, Some(e)) => view! { <Row live=live.clone() event=e top selected chain rewound_to /> }.into_any(),
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
            <Show when=move || help.get()>
                <ShortcutHelp help />
            </Show>
        </section>
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

/// One event: its time, and its mark on its lane with what happened beside it. The whole row
/// selects it; the mark is the button a keyboard reaches.
#[component]
fn Row(
    live: LabStream,
    event: TimelineEvent,
    top: Signal<String>,
    selected: RwSignal<Option<i64>>,
    chain: Memo<HashSet<i64>>,
    rewound_to: Memo<Option<i64>>,
) -> impl IntoView {
    let id = event.id;
    let lane = lane_index(event.layer);
    let outcome = event.outcome;
    let at = event.at_ms;
    let layer = event.layer;
    let sent = live.sent_ms.with_value(|m| m.get(&id).copied());
    let text = {
        let event = event.clone();
        Memo::new(move |_| describe(&event))
    };
    let label = move || {
        format!(
            "{} · {} · {} · {}",
            event_time_text(at),
            tr_id(&format!("layer-{}", layer.id())),
            text.get(),
            tr_id(&format!("outcome-{}", outcome.id()))
        )
    };
    // The text sits beside the mark, on whichever side has room.
    let text_columns = if lane < 8 {
        format!("{} / -1", lane + 3)
    } else {
        format!("2 / {}", lane + 2)
    };
    view! {
        <li
            class="lane-row"
            class:in-chain=move || chain.with(|c| c.contains(&id))
            class:dimmed=move || selected.get().is_some() && !chain.with(|c| c.contains(&id))
            class:future=move || rewound_to.get().is_some_and(|r| id > r)
            class:selected=move || selected.get() == Some(id)
            style:top=move || top.get()
            on:click=move |_| selected.update(|s| *s = if *s == Some(id) { None } else { Some(id) })
        >
            <span class="lane-time">{move || row_time_text(at)}</span>
            <span class="lane-chip" aria-hidden="true">{move || tr_id(&format!("lane-short-{}", layer.id()))}</span>
            <button
                type="button"
                class=format!("mark outcome-{}", outcome.id())
                style:grid-column=format!("{}", lane + 2)
                data-testid="timeline-event"
                data-event-id=id
                data-layer=layer.id()
                data-outcome=outcome.id()
                data-kind=event.kind.id()
                data-at-ms=at
                data-sent-ms=sent.map(|s| format!("{s:.1}"))
                aria-label=label
                title=label
                aria-pressed=move || (selected.get() == Some(id)).to_string()
            >
                <span class="glyph" aria-hidden="true">{glyph(outcome)}</span>
                {(outcome == Outcome::Caught).then(|| view! {
                    <span class="badge" aria-hidden="true">{move || tr_id(&format!("lane-short-{}", layer.id()))}</span>
                })}
            </button>
            <span class="lane-text" class:right={lane >= 8} style:grid-column=text_columns aria-hidden="true">{move || text.get()}</span>
        </li>
    }
}

/// Routine jobs folded into one row; a tap opens them.
#[component]
fn FoldRow(
    first: i64,
    last: i64,
    count: usize,
    top: Signal<String>,
    opened: RwSignal<HashSet<i64>>,
    rewound_to: Memo<Option<i64>>,
) -> impl IntoView {
    let text = move || tr!("routine-fold", { "n" => count as i64, "count" => num(count as i64) });
    view! {
        <li
            class="lane-row fold-row"
            class:future=move || rewound_to.get().is_some_and(|r| first > r)
            style:top=move || top.get()
            on:click=move |_| opened.update(|o| { o.insert(first); })
        >
            <button
                type="button"
                class="fold"
                data-testid="timeline-fold"
                data-count=count
                data-first=first
                data-last=last
                aria-expanded="false"
            >
                <span aria-hidden="true">"⋯ "</span>{text}
            </button>
        </li>
    }
}

/// The selected event in words: what happened, what it means for the story, the guard that
/// caught it or the one that would have, its status code in words; the raw facts folded below.
#[component]
fn Details<R>(event: TimelineEvent, chain_len: usize, rewind: R) -> impl IntoView
where
    R: Fn(i64) + Clone + Send + Sync + 'static,
{
    let e = event;
    let id = e.id;
    let text = describe(&e);
    let why = Explanation::of(&e);
    let facts = serde_json::to_string_pretty(&e.details).unwrap_or_default();
    let guard_name = |g: crate::domain::Safeguard| {
        format!(
            "{} ({})",
            tr_id(&format!("safeguard-{}-name", g.id())),
            g.id()
        )
    };
    let outcome = e.outcome;
    let layer = e.layer;
    let at = e.at_ms;
    let correlation = e.correlation.clone().unwrap_or_else(|| "—".into());
    let meaning = why
        .meaning
        .map(|m| view! { <p class="explain-meaning" data-testid="event-meaning">{move || tr_id(&format!("explain-{m}"))}</p> });
    let status = why.status.map(|code| {
        view! {
            <p class="explain-status" data-testid="event-status" data-status=code>
                {move || tr_args("status-line", &[("code", digits(&code.to_string())), ("words", tr_id(&status_message(code.into())))])}
            </p>
        }
    });
    let caught = why.caught_by.map(|g| {
        view! {
            <p class="explain-guard caught" data-testid="event-guard" data-guard=g.id() data-role="caught">
                <strong>{move || tr!("explain-caught-by")}</strong> " " {move || guard_name(g)} ": "
                {move || tr_id(&format!("safeguard-{}-catches", g.id()))}
            </p>
        }
    });
    let escaped = (outcome == Outcome::Escaped).then(|| {
        let guards = why.would_catch.clone();
        let ids = guards.iter().map(|g| g.id()).collect::<Vec<_>>().join(" ");
        if guards.is_empty() {
            view! {
                <p class="explain-guard escaped" data-testid="event-guard" data-role="none">
                    {move || tr!("explain-no-switch")}
                </p>
            }
            .into_any()
        } else {
            view! {
                <div class="explain-guard escaped" data-testid="event-guard" data-guard=ids data-role="would-catch">
                    <strong>{move || tr!("explain-would-catch")}</strong>
                    <ul>
                        {guards
                            .into_iter()
                            .map(|g| view! {
                                <li>{move || guard_name(g)} ": " {move || tr_id(&format!("safeguard-{}-catches", g.id()))}</li>
                            })
                            .collect_view()}
                    </ul>
                </div>
            }
            .into_any()
        }
    });
    view! {
        <p class="details-title" data-testid="event-what">
            <span class=format!("glyph outcome-{}", outcome.id()) aria-hidden="true">{glyph(outcome)}</span>
            " " {text}
        </p>
        {meaning}
        {status}
        {caught}
        {escaped}
        <dl class="details-list">
            <dt>{move || tr!("details-time")}</dt><dd>{move || event_time_text(at)}</dd>
            <dt>{move || tr!("details-lane")}</dt><dd>{move || tr_id(&format!("layer-{}", layer.id()))}</dd>
            <dt>{move || tr!("details-outcome")}</dt><dd>{move || tr_id(&format!("outcome-{}", outcome.id()))}</dd>
            <dt>{move || tr!("details-chain")}</dt><dd><code>{correlation}</code> {move || tr!("details-chain-size", { "n" => chain_len as i64, "count" => num(chain_len as i64) })}</dd>
        </dl>
        <details class="details-facts">
            <summary>{move || tr!("details-facts")}</summary>
            <pre class="details-json">{facts}</pre>
        </details>
        <button type="button" data-testid="rewind-here" on:click=move |_| rewind(id)>{move || tr!("rewind-here")}</button>
    }
}

/// The keyboard shortcuts, in a dialog.
#[component]
fn ShortcutHelp(help: RwSignal<bool>) -> impl IntoView {
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
                </dl>
                <button type="button" node_ref=close on:click=move |_| help.set(false)>{move || tr!("close")}</button>
            </div>
        </div>
    }
}

/// A link that replays this run (seed and timed inputs) into a new sandbox elsewhere.
#[component]
fn RunLink(live: LabStream) -> impl IntoView {
    let link = RwSignal::new(None::<Result<String, String>>);
    let make = move |_| {
        let live = live.clone();
        leptos::task::spawn_local(async move {
            link.set(Some(match export_run(live.sandbox()).await {
                Ok(run) => {
                    let json = serde_json::to_string(&run).unwrap_or_default();
                    Ok(format!("{}/run#{}", origin(), encode(&json)))
                }
                Err(e) => Err(super::controls::server_error(&e.to_string())),
            }));
        });
    };
    view! {
        <div class="run-link">
            <button type="button" data-testid="run-link-make" on:click=make>{move || tr!("run-link-make")}</button>
            {move || link.get().map(|l| match l {
                Ok(url) => view! {
                    <label for="run-link">{move || tr!("run-link-label")}</label>
                    <input id="run-link" data-testid="run-link" type="text" readonly=true prop:value=url />
                    <p class="hint">{move || tr!("run-link-hint")}</p>
                }.into_any(),
                Err(e) => view! { <p class="error" role="alert">{e}</p> }.into_any(),
            })}
        </div>
    }
}

/// This page's origin (`http://host:port`), or nothing during server rendering.
fn origin() -> String {
    #[cfg(feature = "hydrate")]
    {
        window().location().origin().unwrap_or_default()
    }
    #[cfg(not(feature = "hydrate"))]
    {
        String::new()
    }
}

/// A run's JSON as a URL fragment.
fn encode(json: &str) -> String {
    #[cfg(feature = "hydrate")]
    {
        String::from(js_sys::encode_uri_component(json))
    }
    #[cfg(not(feature = "hydrate"))]
    {
        json.to_owned()
    }
}

/// A settings change as `atomic_claim off, window_hours = 24, crash.api_after_claim = once`,
/// with the words for on and off and the digits of the page's language.
fn settings(
    details: &serde_json::Value,
    words: (&str, &str),
    digits: fn(&str) -> String,
) -> String {
    let walk_words = words;
    fn walk(
        prefix: &str,
        value: &serde_json::Value,
        out: &mut Vec<String>,
        words: (&str, &str),
        digits: fn(&str) -> String,
    ) {
        match value {
            serde_json::Value::Object(map) => {
                for (k, v) in map {
                    let name = if prefix.is_empty() {
                        k.clone()
                    } else {
                        format!("{prefix}.{k}")
                    };
                    walk(&name, v, out, words, digits);
                }
            }
            serde_json::Value::Bool(b) => {
                let word = if *b { words.0 } else { words.1 };
                out.push(format!("{prefix} {word}"))
            }
            serde_json::Value::String(s) => out.push(format!("{prefix} = {s}")),
            other => out.push(format!("{prefix} = {}", digits(&other.to_string()))),
        }
    }
    let mut out = Vec::new();
    walk("", details, &mut out, walk_words, digits);
    out.join(", ")
}

/// The event in a sentence of the page's language.
pub fn describe(e: &TimelineEvent) -> String {
    let n = |key: &str| e.details.get(key).and_then(|v| v.as_i64()).unwrap_or(0);
    let word = |key: &str| {
        e.details
            .get(key)
            .and_then(|v| v.as_str())
            .unwrap_or_default()
            .to_owned()
    };
    let again = |id: &str| {
        if e.outcome == Outcome::Escaped {
            tr_id(id)
        } else {
            String::new()
        }
    };
    let args: Vec<(&'static str, String)> = match e.kind {
        EventKind::SafeguardsChanged | EventKind::FaultsChanged => {
            vec![(
                "what",
                settings(&e.details, (&tr!("on"), &tr!("off")), digits),
            )]
        }
        EventKind::ClockChanged => {
            let id = match e.details.get("mode").and_then(|m| m.as_str()) {
                Some("paused") => "ev-clock_paused",
                Some(_) => "ev-clock_resumed",
                None => "ev-clock_speed",
            };
            return tr_args(
                id,
                &[(
                    "speed",
                    speed_text(e.details["speed"].as_f64().unwrap_or(1.0)),
                )],
            );
        }
        EventKind::ClockStepped => vec![("to", event_time_text(n("to_ms")))],
        EventKind::ClockJumped => vec![("to", clock_text(n("to_ms")))],
        EventKind::InboxCleaned => {
            let d = &e.details["deleted"];
            vec![
                ("hours", num(n("window_hours"))),
                ("wallet", num(d["wallet"].as_i64().unwrap_or(0))),
                ("sms", num(d["sms"].as_i64().unwrap_or(0))),
            ]
        }
        EventKind::LogRetentionApplied => {
            let deleted = n("deleted");
            return tr_count(
                "ev-log_retention_applied",
                deleted,
                &[("count", num(deleted))],
            );
        }
        EventKind::RequestSent => vec![("amount", taka(n("amount")))],
        EventKind::LbRouted => vec![("instance", num(n("instance")))],
        EventKind::LbRetried => vec![("attempt", num(n("attempt")))],
        EventKind::ResponseReplayed | EventKind::ResponseDelivered => {
            let status = n("status");
            vec![(
                "status",
                tr_args(
                    "status-line",
                    &[
                        ("code", digits(&status.to_string())),
                        ("words", tr_id(&status_message(status))),
                    ],
                ),
            )]
        }
        EventKind::Debited => vec![
            ("amount", taka(n("amount"))),
            ("txn", word("txn")),
            ("again", again("ev-debited-again")),
        ],
        EventKind::InsufficientFunds => vec![("balance", taka(n("balance")))],
        EventKind::InstanceCrashed => vec![("crash", word("crash"))],
        EventKind::StuckKeyCompleted => vec![("txn", word("txn"))],
        EventKind::PartitionsDropped => {
            let rows = n("rows");
            return tr_count("ev-partitions_dropped", rows, &[("rows", num(rows))]);
        }
        EventKind::EventPublished => vec![("by", word("by"))],
        EventKind::RecordAppended => vec![
            ("topic", word("topic")),
            ("partition", digits(&n("partition").to_string())),
            ("offset", digits(&n("offset").to_string())),
        ],
        EventKind::ResendAppended => vec![("offset", digits(&n("offset").to_string()))],
        EventKind::FraudApproved => {
            let audit = n("audit_rows");
            return tr_count("ev-fraud_approved", audit, &[("audit", num(audit))]);
        }
        EventKind::Credited | EventKind::SmsSent => {
            vec![("amount", taka(n("amount"))), ("again", again("ev-again"))]
        }
        EventKind::ReplayStarted => vec![("consumer", word("consumer"))],
        EventKind::NaturalApplied | EventKind::NaturalLost => vec![
            ("op", tr_id(&format!("natural-op-{}", word("op")))),
            (
                "effect",
                tr_id(&format!("natural-effect-{}", word("effect"))),
            ),
        ],
        EventKind::GeneralsTrip => vec![
            ("n", num(n("n"))),
            (
                "what",
                if e.outcome == Outcome::Lost {
                    tr_id("generals-caught-word")
                } else {
                    tr_id("generals-crossed")
                },
            ),
        ],
        EventKind::ScenarioLoaded => vec![
            ("n", num(n("n"))),
            (
                "variant",
                if word("variant") == "unguarded" {
                    tr_id("variant-unguarded")
                } else {
                    tr_id("variant-guarded")
                },
            ),
        ],
        _ => vec![],
    };
    tr_args(&format!("ev-{}", e.kind.id()), &args)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ev(id: i64, kind: EventKind) -> TimelineEvent {
        TimelineEvent {
            id,
            at_ms: id * 1_000,
            layer: if kind.is_routine() {
                Layer::Jobs
            } else {
                Layer::Ledger
            },
            kind,
            correlation: None,
            outcome: Outcome::Ok,
            details: json!({}),
        }
    }

    #[test]
    fn runs_of_routine_jobs_fold_into_one_row_unless_shown_or_opened() {
        use EventKind::{Debited, InboxCleaned as Clean, LogRetentionApplied as Retain};
        let list = vec![
            ev(1, Debited),
            ev(2, Clean),
            ev(3, Retain),
            ev(4, Clean),
            ev(5, Debited),
            ev(6, Clean),
            ev(7, Debited),
        ];
        let none = HashSet::new();
        assert_eq!(
            entries(&list, false, &none),
            vec![
                Entry::Event(1),
                Entry::Fold {
                    first: 2,
                    last: 4,
                    count: 3
                },
                Entry::Event(5),
                // One routine job alone stays a row of its own.
                Entry::Event(6),
                Entry::Event(7),
            ]
        );
        assert_eq!(entries(&list, true, &none).len(), 7);
        let opened = HashSet::from([2]);
        assert_eq!(entries(&list, false, &opened).len(), 7);
    }

    #[test]
    fn settings_changes_read_as_words() {
        assert_eq!(
            settings(
                &json!({"atomic_claim": false, "outbox": true, "window_hours": 24}),
                ("চালু", "বন্ধ"),
                crate::app::i18n::bn_digits
            ),
            "atomic_claim বন্ধ, outbox চালু, window_hours = ২৪"
        );
        assert_eq!(
            settings(
                &json!({"crash": {"api_after_claim": "once", "relay_after_publish": 0.5}}),
                ("on", "off"),
                str::to_owned
            ),
            "crash.api_after_claim = once, crash.relay_after_publish = 0.5"
        );
    }
}
