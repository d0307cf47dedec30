//! The live timeline: one lane per layer, every event a mark on its lane in the order of
//! virtual time (newest on top), shaped and coloured by its outcome; a caught duplicate wears
//! the badge of the lane that caught it. Selecting a mark lights up its causal chain (every
//! event sharing its idempotency key, transfer id or event id). Per-lane counters of duplicates
//! caught and escaped; a scrubber that rewinds the inspector to any past event; a link that
//! replays this run elsewhere; keyboard shortcuts. Only the rows in view (and a margin) are in
//! the page, so thousands of events stay smooth.

use std::collections::HashSet;

use leptos::prelude::*;
use leptos_fluent::tr;

#[cfg(feature = "hydrate")]
use super::clock_control;
use super::stream::{LabStream, View};
use super::{export_run, state_at};
use crate::app::format::{clock_text, event_time_text, row_time_text, speed_text};
use crate::app::i18n::{digits, num, taka, tr_args, tr_count, tr_id};
#[cfg(feature = "hydrate")]
use crate::domain::{ClockCommand, ClockMode};
use crate::domain::{EventKind, Layer, Outcome, TimelineEvent};

/// Height of one event row, px (matches `.lane-row` in the style sheet).
const ROW_H: f64 = 30.0;
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
    // The list is as tall as all its rows. Set through the DOM, not as a style attribute in
    // the server's HTML, which the page's Content-Security-Policy would refuse.
    Effect::new(move |_| {
        let height = format!("{}px", count.get() as f64 * ROW_H);
        if let Some(el) = rows_box.get() {
            let _ = leptos::web_sys::HtmlElement::style(&el).set_property("height", &height);
        }
    });
    let rewound_to = Memo::new(move |_| match view.get() {
        View::Now => None,
        View::Loading(id) | View::At(id, _) | View::Failed(id, _) => Some(id),
    });

    // New events above a reader who scrolled down do not move what they are reading.
    Effect::watch(
        move || last_id.get(),
        move |now, before, _| {
            if let (Some(before), Some(el)) = (before, scroller.get_untracked()) {
                let top = el.scroll_top() as f64;
                if top > 0.0 && *now > *before && *before > 0 {
                    el.set_scroll_top((top + (*now - *before) as f64 * ROW_H) as i32);
                }
            }
        },
        false,
    );

    let rows = move || {
        let top = scroll_top.get();
        let first_row = ((top / ROW_H) as usize).saturating_sub(OVERSCAN);
        let last_row = (top / ROW_H) as usize + VIEW_ROWS + OVERSCAN;
        events.with(|list| {
            let n = list.len();
            (first_row..last_row.min(n))
                .map(|i| list[n - 1 - i].clone())
                .collect::<Vec<_>>()
        })
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
                <p class="visually-hidden" aria-live="polite">
                    {move || {
                        let counts = live.counts.get();
                        let caught: u32 = counts.values().map(|c| c.caught).sum();
                        let escaped: u32 = counts.values().map(|c| c.escaped).sum();
                        tr!("counts-summary", { "caught" => digits(&caught.to_string()), "escaped" => digits(&escaped.to_string()) })
                    }}
                </p>
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
                            key=|e| e.id
                            children={
                                let live = live.clone();
                                move |e| {
                                let live = live.clone();
                                view! { <Row live event=e last_id selected chain rewound_to /> }
                            }}
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
                        let id = e.id;
                        let text = describe(&e);
                        let chain_len = chain.with(HashSet::len);
                        let details = serde_json::to_string_pretty(&e.details).unwrap_or_default();
                        view! {
                            <p class="details-title">
                                <span class=format!("glyph outcome-{}", e.outcome.id()) aria-hidden="true">{glyph(e.outcome)}</span>
                                " " {text}
                            </p>
                            <dl class="details-list">
                                <dt>{move || tr!("details-time")}</dt><dd>{move || event_time_text(e.at_ms)}</dd>
                                <dt>{move || tr!("details-lane")}</dt><dd>{move || tr_id(&format!("layer-{}", e.layer.id()))}</dd>
                                <dt>{move || tr!("details-outcome")}</dt><dd>{move || tr_id(&format!("outcome-{}", e.outcome.id()))}</dd>
                                <dt>{move || tr!("details-chain")}</dt><dd><code>{e.correlation.clone().unwrap_or_else(|| "—".into())}</code> {move || tr!("details-chain-size", { "n" => chain_len as i64, "count" => num(chain_len as i64) })}</dd>
                            </dl>
                            <pre class="details-json">{details}</pre>
                            <button type="button" data-testid="rewind-here" on:click=move |_| rewind(id)>{move || tr!("rewind-here")}</button>
                        }
                        .into_any()
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

/// One event: its time, and its mark on its lane with what happened beside it.
#[component]
fn Row(
    live: LabStream,
    event: TimelineEvent,
    last_id: Memo<i64>,
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
            style:top=move || format!("{}px", (last_id.get() - id) as f64 * ROW_H)
        >
            <span class="lane-time">{move || row_time_text(at)}</span>
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
                on:click=move |_| selected.update(|s| *s = if *s == Some(id) { None } else { Some(id) })
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
            vec![("status", n("status").to_string())]
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
            ("partition", n("partition").to_string()),
            ("offset", n("offset").to_string()),
        ],
        EventKind::ResendAppended => vec![("offset", n("offset").to_string())],
        EventKind::FraudApproved => {
            let audit = n("audit_rows");
            return tr_count("ev-fraud_approved", audit, &[("audit", num(audit))]);
        }
        EventKind::Credited | EventKind::SmsSent => {
            vec![("amount", taka(n("amount"))), ("again", again("ev-again"))]
        }
        EventKind::ReplayStarted => vec![("consumer", word("consumer"))],
        _ => vec![],
    };
    tr_args(&format!("ev-{}", e.kind.id()), &args)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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
