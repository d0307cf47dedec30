//! Every timeline event in a sentence of the page's language, from its kind and its facts.

use crate::tr;

use crate::app::format::{clock_text, event_time_text, speed_text};
use crate::app::i18n::{digits, num, taka, tr_args, tr_count, tr_id};
use crate::domain::event::{self as ev, Details};
use crate::domain::explain::status_message;
use crate::domain::scenario::Variant;
use crate::domain::{ClockMode, Outcome, TimelineEvent};

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
    let again = |id: &str| {
        if e.outcome == Outcome::Escaped {
            tr_id(id)
        } else {
            String::new()
        }
    };
    let plain = |n: i64| digits(&n.to_string());
    let args: Vec<(&'static str, String)> = match &e.details {
        Details::SafeguardsChanged(_) | Details::FaultsChanged(_) => {
            vec![(
                "what",
                settings(&e.details.to_json(), (&tr!("on"), &tr!("off")), digits),
            )]
        }
        Details::ClockChanged(d) => {
            let id = match d.mode {
                Some(ClockMode::Paused) => "ev-clock_paused",
                Some(_) => "ev-clock_resumed",
                None => "ev-clock_speed",
            };
            return tr_args(id, &[("speed", speed_text(d.speed.unwrap_or(1.0)))]);
        }
        Details::ClockStepped(d) => vec![("to", event_time_text(d.to_ms))],
        Details::ClockJumped(d) => vec![("to", clock_text(d.to_ms))],
        Details::InboxCleaned(d) => vec![
            ("hours", num(d.window_hours)),
            ("wallet", num(d.deleted.wallet as i64)),
            ("sms", num(d.deleted.sms as i64)),
        ],
        Details::LogRetentionApplied(d) => {
            let deleted = d.deleted as i64;
            return tr_count(
                "ev-log_retention_applied",
                deleted,
                &[("count", num(deleted))],
            );
        }
        Details::KeyInProgress(_) if e.outcome == Outcome::Lost => {
            return tr_id("ev-key_in_progress-stuck");
        }
        Details::RequestSent(d) => vec![("amount", taka(d.amount))],
        Details::LbRouted(d) => vec![("instance", num(i64::from(d.instance)))],
        Details::LbRetried(d) => vec![("attempt", num(i64::from(d.attempt)))],
        Details::ResponseReplayed(ev::ResponseReplayed { status, .. })
        | Details::ResponseDelivered(ev::ResponseDelivered { status, .. }) => {
            let status = i64::from(*status);
            vec![(
                "status",
                tr_args(
                    "status-line",
                    &[
                        ("code", plain(status)),
                        ("words", tr_id(&status_message(status))),
                    ],
                ),
            )]
        }
        Details::Debited(d) => vec![
            ("amount", taka(d.amount)),
            ("txn", d.txn.clone()),
            ("again", again("ev-debited-again")),
        ],
        Details::InsufficientFunds(d) => vec![("balance", taka(d.balance))],
        Details::InstanceCrashed(d) => vec![("crash", d.crash.id().to_owned())],
        Details::StuckKeyCompleted(d) => vec![("txn", d.txn.clone())],
        Details::PartitionsDropped(d) => {
            let rows = d.rows as i64;
            return tr_count("ev-partitions_dropped", rows, &[("rows", num(rows))]);
        }
        Details::EventPublished(d) => vec![("by", d.by.clone())],
        Details::RecordAppended(d) => vec![
            ("topic", d.topic.clone()),
            ("partition", plain(d.partition)),
            ("offset", plain(d.offset)),
        ],
        Details::ResendAppended(d) => vec![("offset", plain(d.offset))],
        Details::FraudApproved(d) => {
            let audit = d.audit_rows as i64;
            return tr_count("ev-fraud_approved", audit, &[("audit", num(audit))]);
        }
        Details::Credited(d) | Details::SmsSent(d) => {
            vec![("amount", taka(d.amount)), ("again", again("ev-again"))]
        }
        Details::ReplayStarted(d) => vec![("consumer", d.consumer.id().to_owned())],
        Details::NaturalApplied(ev::NaturalApplied { op, effect, .. }) => vec![
            ("op", tr_id(&format!("natural-op-{}", op.id()))),
            ("effect", tr_id(&format!("natural-effect-{}", effect.id()))),
        ],
        Details::NaturalLost(d) => vec![("op", tr_id(&format!("natural-op-{}", d.op.id())))],
        Details::GeneralsTrip(d) => vec![
            ("n", num(d.n)),
            (
                "what",
                if e.outcome == Outcome::Lost {
                    tr_id("generals-caught-word")
                } else {
                    tr_id("generals-crossed")
                },
            ),
        ],
        Details::ScenarioLoaded(d) => vec![
            ("n", num(i64::from(d.n))),
            (
                "variant",
                if d.variant == Variant::Unguarded {
                    tr_id("variant-unguarded")
                } else {
                    tr_id("variant-guarded")
                },
            ),
        ],
        _ => vec![],
    };
    tr_args(&format!("ev-{}", e.kind().id()), &args)
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
