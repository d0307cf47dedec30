//! An event in words: what it means for the story, which guard caught it, or which guard would
//! have caught a copy that got through. The timeline's details panel says this instead of
//! showing raw JSON; the sentences themselves are in the locale files, named by the ids here.
//!
//! Which guard would have caught an escaped copy depends on the settings at that moment, so
//! the service that saw it decides ([`debit_escape_guards`], [`inbox_escape_guards`]) and
//! records the answer in the event's `would_catch`; [`Explanation::of`] only reads it back.

use crate::domain::{EventKind, Outcome, Safeguard, Safeguards, TimelineEvent};

/// The HTTP statuses the lab's events carry, each with its words in the locale files
/// (`status-201` …); any other reads `status-other`.
pub const STATUS_WORDS: [u16; 11] = [201, 400, 401, 404, 409, 422, 429, 500, 502, 503, 504];

/// The locale message with the words for a status code.
pub fn status_message(code: i64) -> String {
    match u16::try_from(code) {
        Ok(c) if STATUS_WORDS.contains(&c) => format!("status-{c}"),
        _ => "status-other".to_owned(),
    }
}

/// What the details panel says about one event, as ids of locale messages and safeguards.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Explanation {
    /// `explain-<id>`: the sentence on what this event means, if the kind has one beyond its
    /// timeline line.
    pub meaning: Option<&'static str>,
    /// The guard that stopped this copy (outcome `caught`).
    pub caught_by: Option<Safeguard>,
    /// The guards that would have stopped this copy (outcome `escaped`), in the order a request
    /// meets them; empty when no switch of the lab stops it (the audit row outside the log).
    pub would_catch: Vec<Safeguard>,
    /// The HTTP status this event carries, for its words (`status-409`).
    pub status: Option<u16>,
}

impl Explanation {
    pub fn of(e: &TimelineEvent) -> Explanation {
        let guards = |field: &str| -> Vec<Safeguard> {
            e.details
                .get(field)
                .and_then(|v| v.as_array())
                .map(|a| {
                    a.iter()
                        .filter_map(|g| g.as_str().and_then(Safeguard::from_id))
                        .collect()
                })
                .unwrap_or_default()
        };
        let caught_by = (e.outcome == Outcome::Caught)
            .then(|| e.facts().guard.or_else(|| default_catcher(e.kind)))
            .flatten();
        let would_catch = if e.outcome == Outcome::Escaped {
            let recorded = guards("would_catch");
            if recorded.is_empty() {
                default_would_catch(e.kind)
            } else {
                recorded
            }
        } else {
            Vec::new()
        };
        Explanation {
            meaning: meaning(e.kind, e.outcome),
            caught_by,
            would_catch,
            status: e.facts().status,
        }
    }
}

/// The guard behind a caught event whose details do not name one.
fn default_catcher(kind: EventKind) -> Option<Safeguard> {
    match kind {
        EventKind::TapIgnored => Some(Safeguard::ButtonGuard),
        EventKind::KeyKept => Some(Safeguard::KeyPersistence),
        EventKind::ResponseReplayed => Some(Safeguard::IdempotencyTable),
        EventKind::KeyInProgress => Some(Safeguard::AtomicClaim),
        EventKind::KeyReused => Some(Safeguard::FingerprintCheck),
        EventKind::LedgerDuplicate => Some(Safeguard::LedgerUnique),
        EventKind::ResendDropped => Some(Safeguard::IdempotentProducer),
        EventKind::StuckKeyCompleted | EventKind::StuckKeyReleased => {
            Some(Safeguard::StuckRecovery)
        }
        _ => None,
    }
}

/// The guard for an escaped event whose details do not name one.
fn default_would_catch(kind: EventKind) -> Vec<Safeguard> {
    match kind {
        EventKind::ResendAppended => vec![Safeguard::IdempotentProducer],
        EventKind::Credited => vec![Safeguard::WalletInbox],
        EventKind::SmsSent => vec![Safeguard::SmsInbox],
        _ => Vec::new(),
    }
}

/// The `explain-…` message for an event, where its timeline line is not the whole story.
fn meaning(kind: EventKind, outcome: Outcome) -> Option<&'static str> {
    Some(match (kind, outcome) {
        (EventKind::Debited, Outcome::Escaped) => "debited-escaped",
        (EventKind::Credited, Outcome::Escaped) => "credited-escaped",
        (EventKind::SmsSent, Outcome::Escaped) => "sms-escaped",
        (EventKind::FraudApproved, Outcome::Escaped) => "fraud-escaped",
        (EventKind::ResponseReplayed, Outcome::Escaped) => "replayed-escaped",
        (EventKind::KeyInProgress, Outcome::Lost) => "key-stuck",
        (EventKind::ResendAppended, _) => "resend-appended",
        (EventKind::RequestLost, _) => "request-lost",
        (EventKind::ResponseLost, _) => "response-lost",
        (EventKind::CallerTimedOut, _) => "caller-timed-out",
        (EventKind::ResponseTooLate, _) => "response-too-late",
        (EventKind::EventLost, _) => "event-lost",
        (EventKind::AckLost, _) => "ack-lost",
        (EventKind::InstanceCrashed, _) => "instance-crashed",
        (EventKind::RelayCrashed, _) => "relay-crashed",
        (EventKind::FraudCrashed, _) => "fraud-crashed",
        (EventKind::ConsumerCrashed, _) => "consumer-crashed",
        (EventKind::KeyClaimed, _) => "key-claimed",
        (EventKind::KeyNotChecked, _) => "key-not-checked",
        (EventKind::KeyLookupEmpty, _) => "key-lookup-empty",
        (EventKind::OutboxWritten, _) => "outbox-written",
        (EventKind::Debited, _) => "debited",
        (EventKind::LbRetried, _) => "lb-retried",
        (EventKind::KeyMade, _) => "key-made",
        (EventKind::PartitionsDropped, _) => "partitions-dropped",
        (EventKind::InboxCleaned | EventKind::LogRetentionApplied, _) => "routine",
        (EventKind::ReplayStarted, _) => "replay-started",
        _ => return None,
    })
}

/// The guards that would have stopped a second debit for one decision to pay, given whether it
/// came with the same Idempotency-Key as the first and the settings when it ran. With another
/// key only the app could have helped: the server saw a new transfer. With the same key, the
/// table's guards (the first of them that was off, or the window that let the key go), and the
/// ledger's UNIQUE, which must have been off for the same key to debit twice.
pub fn debit_escape_guards(same_key: bool, s: &Safeguards) -> Vec<Safeguard> {
    if !same_key {
        let mut out = Vec::new();
        if !s.is_on(Safeguard::ButtonGuard) {
            out.push(Safeguard::ButtonGuard);
        }
        out.push(Safeguard::KeyPersistence);
        return out;
    }
    let table = [
        Safeguard::IdempotencyTable,
        Safeguard::AtomicClaim,
        Safeguard::StuckRecovery,
    ]
    .into_iter()
    .find(|g| !s.is_on(*g))
    .unwrap_or(Safeguard::WindowHours);
    vec![table, Safeguard::LedgerUnique]
}

/// The guard that would have stopped a second credit or SMS: the consumer's inbox, or, with the
/// inbox on, its window (the inbox had already forgotten the event).
pub fn inbox_escape_guards(inbox: Safeguard, s: &Safeguards) -> Vec<Safeguard> {
    if s.is_on(inbox) {
        vec![Safeguard::InboxWindowHours]
    } else {
        vec![inbox]
    }
}

/// The ids of a list of guards, for an event's details.
pub fn ids(guards: &[Safeguard]) -> Vec<&'static str> {
    guards.iter().map(|g| g.id()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::Layer;
    use serde_json::json;

    fn off(guards: &[Safeguard]) -> Safeguards {
        Safeguards::default().apply(&crate::domain::SafeguardsPatch::off(guards))
    }

    fn event(kind: EventKind, outcome: Outcome, details: serde_json::Value) -> TimelineEvent {
        TimelineEvent {
            id: 1,
            at_ms: 0,
            layer: Layer::Api,
            kind,
            correlation: None,
            outcome,
            details,
        }
    }

    #[test]
    fn a_second_debit_with_a_new_key_is_the_apps_to_stop() {
        let s = off(&[Safeguard::KeyPersistence, Safeguard::IdempotencyTable]);
        assert_eq!(
            debit_escape_guards(false, &s),
            vec![Safeguard::KeyPersistence]
        );
        let s = off(&[Safeguard::KeyPersistence, Safeguard::ButtonGuard]);
        assert_eq!(
            debit_escape_guards(false, &s),
            vec![Safeguard::ButtonGuard, Safeguard::KeyPersistence]
        );
    }

    #[test]
    fn a_second_debit_with_the_same_key_names_the_table_guard_that_was_off_and_the_ledger() {
        let s = off(&[Safeguard::IdempotencyTable, Safeguard::LedgerUnique]);
        assert_eq!(
            debit_escape_guards(true, &s),
            vec![Safeguard::IdempotencyTable, Safeguard::LedgerUnique]
        );
        let s = off(&[Safeguard::AtomicClaim, Safeguard::LedgerUnique]);
        assert_eq!(
            debit_escape_guards(true, &s),
            vec![Safeguard::AtomicClaim, Safeguard::LedgerUnique]
        );
        // Every table guard on: the key had left the window.
        let s = off(&[Safeguard::LedgerUnique]);
        assert_eq!(
            debit_escape_guards(true, &s),
            vec![Safeguard::WindowHours, Safeguard::LedgerUnique]
        );
    }

    #[test]
    fn a_second_credit_is_the_inbox_or_its_window() {
        let s = off(&[Safeguard::WalletInbox]);
        assert_eq!(
            inbox_escape_guards(Safeguard::WalletInbox, &s),
            vec![Safeguard::WalletInbox]
        );
        assert_eq!(
            inbox_escape_guards(Safeguard::WalletInbox, &Safeguards::default()),
            vec![Safeguard::InboxWindowHours]
        );
    }

    #[test]
    fn an_explanation_reads_the_guard_the_status_and_what_would_have_caught_it() {
        let e = event(
            EventKind::KeyInProgress,
            Outcome::Caught,
            json!({"guard": "atomic_claim", "status": 409}),
        );
        let x = Explanation::of(&e);
        assert_eq!(x.caught_by, Some(Safeguard::AtomicClaim));
        assert_eq!(x.status, Some(409));
        assert!(x.would_catch.is_empty());

        let e = event(
            EventKind::Debited,
            Outcome::Escaped,
            json!({"would_catch": ["key_persistence"], "txn": "TXN-88413"}),
        );
        let x = Explanation::of(&e);
        assert_eq!(x.would_catch, vec![Safeguard::KeyPersistence]);
        assert_eq!(x.meaning, Some("debited-escaped"));
        assert_eq!(x.caught_by, None);

        // Events from before `would_catch` was recorded still name a guard.
        let e = event(EventKind::Credited, Outcome::Escaped, json!({}));
        assert_eq!(
            Explanation::of(&e).would_catch,
            vec![Safeguard::WalletInbox]
        );
        let e = event(EventKind::LedgerDuplicate, Outcome::Caught, json!({}));
        assert_eq!(Explanation::of(&e).caught_by, Some(Safeguard::LedgerUnique));
    }
}
