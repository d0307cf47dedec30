//! The glossary (lesson section 11): every term the course uses, in Bangla with its English
//! name, each linked to the place in the lab that shows it.
//!
//! A term's words are Fluent messages under `gloss-<id>…` (`locales/*/glossary.ftl`): `-term`
//! its name in the page's language, `-means` what it means, `-where` what to look at in the lab
//! (the lane, the table, the panel). The English name below is shown beside the Bangla one.

/// One term.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Term {
    /// Also the message id stem and the anchor on `/glossary`: `#gloss-<id>`.
    pub id: &'static str,
    /// The term as engineers write it in English, shown in both languages.
    pub english: &'static str,
    /// The chapter (1 to 9) whose lab shows it.
    pub chapter: u8,
}

impl Term {
    /// The lab link that shows this term: its chapter.
    pub fn href(&self) -> String {
        format!("/lab?chapter={}", self.chapter)
    }
}

/// Whether a term whose words are `words` is found by the query `q`: every query matches the
/// words as typed, case aside, in either script (an empty query matches all). The glossary's
/// script does the same in the browser.
pub fn matches(words: &str, q: &str) -> bool {
    let q = q.trim().to_lowercase();
    q.is_empty() || words.to_lowercase().contains(&q)
}

/// Every term, in alphabetical order of its English name.
pub const TERMS: &[Term] = &[
    Term {
        id: "ack",
        english: "Acknowledgement (ack)",
        chapter: 6,
    },
    Term {
        id: "at_least_once",
        english: "At-least-once",
        chapter: 6,
    },
    Term {
        id: "at_most_once",
        english: "At-most-once",
        chapter: 6,
    },
    Term {
        id: "atomic_claim",
        english: "Atomic claim",
        chapter: 3,
    },
    Term {
        id: "dedup_table",
        english: "Dedup table",
        chapter: 4,
    },
    Term {
        id: "dual_write",
        english: "Dual write",
        chapter: 6,
    },
    Term {
        id: "effectively_once",
        english: "Effectively-once",
        chapter: 6,
    },
    Term {
        id: "epoch_fencing",
        english: "Epoch and fencing",
        chapter: 7,
    },
    Term {
        id: "exactly_once",
        english: "Exactly-once delivery",
        chapter: 6,
    },
    Term {
        id: "fingerprint",
        english: "Fingerprint (request hash)",
        chapter: 3,
    },
    Term {
        id: "idempotency",
        english: "Idempotency",
        chapter: 9,
    },
    Term {
        id: "idempotency_key",
        english: "Idempotency key",
        chapter: 2,
    },
    Term {
        id: "idempotency_window",
        english: "Idempotency window",
        chapter: 4,
    },
    Term {
        id: "idempotent_replayed",
        english: "Idempotent-Replayed",
        chapter: 2,
    },
    Term {
        id: "in_progress",
        english: "IN_PROGRESS",
        chapter: 3,
    },
    Term {
        id: "inbox",
        english: "Inbox",
        chapter: 8,
    },
    Term {
        id: "lso",
        english: "Last stable offset (LSO)",
        chapter: 7,
    },
    Term {
        id: "ledger_unique",
        english: "Ledger UNIQUE constraint",
        chapter: 4,
    },
    Term {
        id: "load_balancer",
        english: "Load balancer",
        chapter: 5,
    },
    Term {
        id: "natural_idempotency",
        english: "Natural idempotency",
        chapter: 5,
    },
    Term {
        id: "offset",
        english: "Offset",
        chapter: 7,
    },
    Term {
        id: "outbox",
        english: "Outbox",
        chapter: 6,
    },
    Term {
        id: "partition_drop",
        english: "Partition drop",
        chapter: 4,
    },
    Term {
        id: "primary_key",
        english: "Primary key (unique constraint)",
        chapter: 3,
    },
    Term {
        id: "producer_id",
        english: "Producer id",
        chapter: 7,
    },
    Term {
        id: "read_committed",
        english: "read_committed",
        chapter: 7,
    },
    Term {
        id: "relay",
        english: "Relay",
        chapter: 8,
    },
    Term {
        id: "replay",
        english: "Replay",
        chapter: 8,
    },
    Term {
        id: "retention",
        english: "Retention",
        chapter: 8,
    },
    Term {
        id: "retry",
        english: "Retry",
        chapter: 1,
    },
    Term {
        id: "sequence_number",
        english: "Sequence number",
        chapter: 7,
    },
    Term {
        id: "stored_response",
        english: "Stored response",
        chapter: 4,
    },
    Term {
        id: "stuck_recovery",
        english: "Stuck-request recovery",
        chapter: 3,
    },
    Term {
        id: "broker_transaction",
        english: "Transaction (broker)",
        chapter: 7,
    },
    Term {
        id: "two_generals",
        english: "Two Generals problem",
        chapter: 6,
    },
    Term {
        id: "unknown_outcome",
        english: "Unknown outcome (timeout)",
        chapter: 1,
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn at_least_25_terms_each_once_each_in_a_chapter_that_exists() {
        assert!(TERMS.len() >= 25, "{} terms", TERMS.len());
        let mut ids: Vec<_> = TERMS.iter().map(|t| t.id).collect();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), TERMS.len(), "term ids are unique");
        for t in TERMS {
            assert!(
                crate::domain::course::chapter(t.chapter).is_some(),
                "{}",
                t.id
            );
            assert!(
                t.id.chars()
                    .all(|c| c.is_ascii_lowercase() || c == '_' || c.is_ascii_digit()),
                "{}",
                t.id
            );
        }
        let mut english: Vec<_> = TERMS.iter().map(|t| t.english.to_lowercase()).collect();
        let sorted = {
            let mut s = english.clone();
            s.sort();
            s
        };
        assert_eq!(english, sorted, "alphabetical by English name");
        english.dedup();
        assert_eq!(english.len(), TERMS.len());
    }
}
