//! The newest timeline events as a list, newest first: what just happened, on which lane.

use leptos::prelude::*;

use leptos_fluent::tr;

use super::stream::LabStream;
use crate::app::format::{clock_text, event_time_text, speed_text};
use crate::app::i18n::{digits, num, taka, tr_args, tr_id};
use crate::domain::{EventKind, Outcome, TimelineEvent};

#[component]
pub fn EventList(live: LabStream) -> impl IntoView {
    let events = live.events;
    view! {
        <section class="panel events" aria-labelledby="events-title">
            <h2 id="events-title">{move || tr!("events-title")}</h2>
            <p class="hint">
                {move || if live.connected.get() { tr!("stream-connected") } else { tr!("stream-waiting") }}
            </p>
            <ol class="event-list" data-testid="timeline" aria-live="polite" tabindex="0" aria-labelledby="events-title">
                <For
                    each=move || events.get().into_iter().rev()
                    key=|e| e.id
                    children=move |e| view! { <EventRow event=e /> }
                />
            </ol>
            <Show when=move || events.with(Vec::is_empty)>
                <p class="hint">{move || tr!("events-none")}</p>
            </Show>
        </section>
    }
}

#[component]
fn EventRow(event: TimelineEvent) -> impl IntoView {
    let outcome = event.outcome;
    let layer = event.layer;
    let at = event.at_ms;
    let text = {
        let event = event.clone();
        move || describe(&event)
    };
    view! {
        <li
            class=format!("event outcome-{}", event.outcome.id())
            data-testid="timeline-event"
            data-event-id=event.id
            data-layer=event.layer.id()
            data-outcome=event.outcome.id()
            data-kind=event.kind.id()
            data-at-ms=event.at_ms
        >
            <span class="event-time">{move || event_time_text(at)}</span>
            <span class="event-lane">{move || tr_id(&format!("layer-{}", layer.id()))}</span>
            <span class="event-text">{text}</span>
            <span class="event-outcome">{move || tr_id(&format!("outcome-{}", outcome.id()))}</span>
        </li>
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
fn describe(e: &TimelineEvent) -> String {
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
        EventKind::LogRetentionApplied => vec![("count", num(n("deleted")))],
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
        EventKind::PartitionsDropped => vec![("rows", num(n("rows")))],
        EventKind::EventPublished => vec![("by", word("by"))],
        EventKind::RecordAppended => vec![
            ("topic", word("topic")),
            ("partition", n("partition").to_string()),
            ("offset", n("offset").to_string()),
        ],
        EventKind::ResendAppended => vec![("offset", n("offset").to_string())],
        EventKind::FraudApproved => vec![("audit", num(n("audit_rows")))],
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
