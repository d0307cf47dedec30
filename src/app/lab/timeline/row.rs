//! One row of the timeline: an event as a mark on its lane with its sentence beside it, or a
//! run of routine jobs folded into one row that opens on a tap.

use std::collections::HashSet;

use crate::tr;
use leptos::prelude::*;

use super::describe::describe;
use super::LANES;
use crate::app::format::{event_time_text, row_time_text};
use crate::app::i18n::{num, tr_id};
use crate::app::lab::stream::LabStream;
use crate::domain::{Layer, Outcome, TimelineEvent};

fn lane_index(layer: Layer) -> usize {
    LANES
        .iter()
        .position(|l| *l == layer)
        .unwrap_or(LANES.len() - 1)
}

/// The shape of a mark: colour is never the only signal.
pub fn glyph(outcome: Outcome) -> &'static str {
    match outcome {
        Outcome::Ok => "●",
        Outcome::Caught => "◆",
        Outcome::Escaped => "▲",
        Outcome::Lost => "✕",
        Outcome::Unknown => "?",
    }
}

/// One event: its time, and its mark on its lane with what happened beside it. The whole row
/// selects it; the mark is the button a keyboard reaches (with the arrow keys: the list is one
/// stop for Tab, `shortcuts::step_focus`).
#[component]
pub fn Row(
    live: LabStream,
    event: TimelineEvent,
    top: Signal<String>,
    selected: RwSignal<Option<i64>>,
    chain: Memo<HashSet<i64>>,
    rewound_to: Memo<Option<i64>>,
    looks: Option<crate::app::lab::context::Looks>,
) -> impl IntoView {
    let id = event.id;
    let kind = event.kind.id();
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
            on:click=move |_| {
                selected.update(|s| *s = if *s == Some(id) { None } else { Some(id) });
                // Selecting a mark is looking at its event (a chapter's step may ask for it).
                if let Some(l) = looks {
                    l.saw(&format!("event-{kind}"));
                }
            }
        >
            <span class="lane-time">{move || row_time_text(at)}</span>
            <span class="lane-chip" aria-hidden="true">{move || tr_id(&format!("lane-short-{}", layer.id()))}</span>
            <button
                type="button"
                class=format!("mark outcome-{}", outcome.id())
                tabindex="-1"
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
pub fn FoldRow(
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
                tabindex="-1"
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
