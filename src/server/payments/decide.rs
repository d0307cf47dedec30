//! The payment API's decision about a request's key, as values (ARCHITECTURE.md, "Where each
//! guard lives"): what to do first from the safeguards alone, and what the key's row, once
//! read, means for this request. Pure functions, unit-tested without SQLite;
//! `payments::receive` carries them out (the claim, the look-up, the events, the answer).

use super::idempotency::{KeyRow, KeyStatus};
use crate::domain::{Safeguard, Safeguards};

/// What the API does first with a request's key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum First {
    /// The idempotency table is off: run the transfer without looking.
    RunUnchecked,
    /// One INSERT claims the key; the read after it only reads what won, to answer from it.
    Claim,
    /// Look the key up, and write only after: the race chapter 03 shows.
    LookThenWrite,
}

/// What to do first under these safeguards.
pub fn first(safeguards: &Safeguards) -> First {
    if !safeguards.is_on(Safeguard::IdempotencyTable) {
        First::RunUnchecked
    } else if safeguards.is_on(Safeguard::AtomicClaim) {
        First::Claim
    } else {
        First::LookThenWrite
    }
}

/// What the key's row means for this request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Decision {
    /// No row inside the window holds the key: run the transfer.
    Run,
    /// The same request finished: send its stored answer again, byte for byte.
    Replay { status: u16, body: String },
    /// Another body's request finished and the fingerprint check is off: its stored answer
    /// goes to this one, a receipt for a transfer that never ran. Harm, not a catch.
    WrongReplay { status: u16, body: String },
    /// The same key is still being worked on: 409.
    InProgress,
    /// The key came with another body: 422.
    OtherBody,
}

/// Decides from the row found for the key (inside the window), the request's body hash and the
/// safeguards. The fingerprint is checked first, so a different body is refused even while the
/// first request still runs.
pub fn decide(found: Option<&KeyRow>, request_hash: &str, safeguards: &Safeguards) -> Decision {
    match found {
        None => Decision::Run,
        Some(row)
            if safeguards.is_on(Safeguard::FingerprintCheck)
                && row.request_hash != request_hash =>
        {
            Decision::OtherBody
        }
        Some(row) if row.status == KeyStatus::Completed => {
            // A COMPLETED row always has its answer (the invariants check it); 500 names the
            // impossible case instead of inventing a success.
            let status = row
                .response_status
                .and_then(|s| u16::try_from(s).ok())
                .unwrap_or(500);
            let body = row.response_body.clone().unwrap_or_default();
            if row.request_hash == request_hash {
                Decision::Replay { status, body }
            } else {
                Decision::WrongReplay { status, body }
            }
        }
        Some(_) => Decision::InProgress,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn guards(changes: serde_json::Value) -> Safeguards {
        Safeguards::default().apply(&crate::domain::typed::read_body(&changes).unwrap())
    }

    fn row(status: KeyStatus, hash: &str) -> KeyRow {
        KeyRow {
            partition_day: 0,
            status,
            request_hash: hash.to_owned(),
            response_status: (status == KeyStatus::Completed).then_some(201),
            response_body: (status == KeyStatus::Completed)
                .then(|| "{\"txn\":\"TXN-88412\"}".to_owned()),
            created_ms: 0,
            updated_ms: 0,
        }
    }

    #[test]
    fn the_safeguards_pick_the_first_move() {
        assert_eq!(first(&Safeguards::default()), First::Claim);
        assert_eq!(
            first(&guards(json!({"atomic_claim": false}))),
            First::LookThenWrite
        );
        assert_eq!(
            first(&guards(json!({"idempotency_table": false}))),
            First::RunUnchecked
        );
        assert_eq!(
            first(&guards(
                json!({"idempotency_table": false, "atomic_claim": false})
            )),
            First::RunUnchecked
        );
    }

    #[test]
    fn a_row_decides_replay_409_or_422_and_no_row_runs() {
        let on = Safeguards::default();
        assert_eq!(decide(None, "h", &on), Decision::Run);
        assert_eq!(
            decide(Some(&row(KeyStatus::Completed, "h")), "h", &on),
            Decision::Replay {
                status: 201,
                body: "{\"txn\":\"TXN-88412\"}".to_owned()
            }
        );
        assert_eq!(
            decide(Some(&row(KeyStatus::InProgress, "h")), "h", &on),
            Decision::InProgress
        );
        // Another body: 422 whether the first request finished or not.
        for status in [KeyStatus::Completed, KeyStatus::InProgress] {
            assert_eq!(
                decide(Some(&row(status, "h")), "other", &on),
                Decision::OtherBody
            );
        }
    }

    #[test]
    fn without_the_fingerprint_another_body_gets_the_first_answer_and_it_is_wrong() {
        let off = guards(json!({"fingerprint_check": false}));
        assert_eq!(
            decide(Some(&row(KeyStatus::Completed, "h")), "other", &off),
            Decision::WrongReplay {
                status: 201,
                body: "{\"txn\":\"TXN-88412\"}".to_owned()
            }
        );
        // The same body is still a true replay with the check off.
        assert!(matches!(
            decide(Some(&row(KeyStatus::Completed, "h")), "h", &off),
            Decision::Replay { status: 201, .. }
        ));
        assert_eq!(
            decide(Some(&row(KeyStatus::InProgress, "h")), "other", &off),
            Decision::InProgress
        );
    }

    #[test]
    fn a_completed_row_without_its_answer_is_not_a_success() {
        let mut r = row(KeyStatus::Completed, "h");
        r.response_status = None;
        assert!(matches!(
            decide(Some(&r), "h", &Safeguards::default()),
            Decision::Replay { status: 500, .. }
        ));
    }
}
