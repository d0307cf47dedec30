//! Every timeline event in a sentence of the page's language, from its kind and its facts.

use crate::tr;

use crate::app::format::{clock_text, event_time_text, speed_text};
use crate::app::i18n::{digits, num, taka, tr_args, tr_count, tr_id};
use crate::domain::explain::status_message;
use crate::domain::{EventKind, Outcome, TimelineEvent};

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
///
/// Reads best whole: one arm per kind of event, each its sentence's words.
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
        EventKind::KeyInProgress if e.outcome == Outcome::Lost => {
            return tr_id("ev-key_in_progress-stuck");
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
