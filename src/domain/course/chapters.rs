//! The nine chapters as data: for each, the scenario it loads, its steps (what each waits for
//! and the control it points at) and the panels it keeps in view. The words are in the locale
//! files; `mod.rs` says what a check means.

use super::{Chapter, Check, Panel, Step};
use crate::domain::clock::{HOUR_MS, MINUTE_MS};
use crate::domain::fault::NumberFault::{RequestLossPct, ResponseLossPct};
use crate::domain::scenario::Variant;
use crate::domain::{EventKind, Outcome};

const fn step(check: Check, points_at: Option<&'static str>) -> Step {
    Step {
        check,
        points_at,
        then: None,
        unfolds: &[],
    }
}

/// A step that loads another preset (`load`, its button) and then asks for something done
/// with the control `then`.
const fn load_then(check: Check, load: &'static str, then: &'static str) -> Step {
    Step {
        check,
        points_at: Some(load),
        then: Some(then),
        unfolds: &[],
    }
}

/// The replay trap's controls beyond Send: the day jump and the consumer replay.
const TRAP: &[&str] = &["jump-day", "replay-start"];

/// A step that also keeps these controls unfolded while it is current.
const fn unfolding(step: Step, unfolds: &'static [&'static str]) -> Step {
    Step { unfolds, ..step }
}

use Check::*;
use EventKind as K;
use Outcome as O;

/// The chapters, in the lesson's order.
pub const CHAPTERS: [Chapter; 9] = [
    // 01: the train; the answer is lost; the second tap charges again.
    Chapter {
        n: 1,
        scenario: 1,
        variant: Variant::Unguarded,
        steps: &[
            step(Loaded(1, Variant::Unguarded), Some("preset-load")),
            step(Seen(K::CallerTimedOut, None, 1), Some("send-button")),
            // Look at the meter: the debit is in the ledger while the phone knows nothing.
            step(
                All(&[Looked("damage-meter"), FigureAtLeast("debits", 1)]),
                Some("damage-meter"),
            ),
            step(Loss(ResponseLossPct, 0), Some("fault-response_loss_pct")),
            step(FigureAtLeast("double_charges", 1), Some("send-button")),
        ],
        panels: &[
            Panel::Phone,
            Panel::Switches,
            Panel::Network,
            Panel::Damage,
            Panel::Timeline,
        ],
    },
    // 02: the key made at the tap, kept, and the server's stored answer.
    Chapter {
        n: 2,
        scenario: 1,
        variant: Variant::Guarded,
        steps: &[
            step(Loaded(1, Variant::Guarded), Some("preset-load")),
            step(Seen(K::CallerTimedOut, None, 1), Some("send-button")),
            step(Loss(ResponseLossPct, 0), Some("fault-response_loss_pct")),
            step(
                Seen(K::ResponseReplayed, Some(O::Caught), 1),
                Some("send-button"),
            ),
            step(FigureSettled("credits", 1), Some("tithi-balance")),
            // Scenario 2: the library's own retries and the load balancer's, first with no
            // table to catch them, then with it.
            load_then(
                All(&[
                    Loaded(2, Variant::Unguarded),
                    FigureAtLeast("double_charges", 1),
                ]),
                "preset-load-2-unguarded",
                "send-button",
            ),
            load_then(
                All(&[
                    Loaded(2, Variant::Guarded),
                    Seen(K::LbRetried, None, 1),
                    FigureSettled("debits", 1),
                ]),
                "preset-load-2-guarded",
                "send-button",
            ),
        ],
        panels: &[
            Panel::Phone,
            Panel::Switches,
            Panel::Network,
            Panel::Damage,
            Panel::Timeline,
            Panel::Inspector,
        ],
    },
    // 03: two requests with one key together; look-then-write against the claim.
    Chapter {
        n: 3,
        scenario: 3,
        variant: Variant::Unguarded,
        steps: &[
            step(Loaded(3, Variant::Unguarded), Some("preset-load")),
            step(FigureAtLeast("double_charges", 1), Some("attack-race")),
            step(Loaded(3, Variant::Guarded), Some("preset-load-guarded")),
            step(
                Seen(K::KeyInProgress, Some(O::Caught), 1),
                Some("attack-race"),
            ),
            // Scenario 4: one key, another body; the stored answer sent to it, then a 422.
            load_then(
                All(&[
                    Loaded(4, Variant::Unguarded),
                    Seen(K::ResponseReplayed, Some(O::Escaped), 1),
                ]),
                "preset-load-4-unguarded",
                "attack-reused-key",
            ),
            load_then(
                All(&[
                    Loaded(4, Variant::Guarded),
                    Seen(K::KeyReused, Some(O::Caught), 1),
                ]),
                "preset-load-4-guarded",
                "attack-reused-key",
            ),
            // Scenario 5: the instance dies after its claim; with no recovery the key answers
            // 409 however long one waits; with it, a minute on, the key is released.
            load_then(
                All(&[
                    Loaded(5, Variant::Unguarded),
                    Jumped(MINUTE_MS),
                    Seen(K::KeyInProgress, None, 2),
                ]),
                "preset-load-5-unguarded",
                "send-button",
            ),
            load_then(
                All(&[
                    Loaded(5, Variant::Guarded),
                    Seen(K::StuckKeyReleased, None, 1),
                    Answered(201),
                ]),
                "preset-load-5-guarded",
                "send-button",
            ),
        ],
        panels: &[
            Panel::Phone,
            Panel::Switches,
            Panel::Network,
            Panel::Damage,
            Panel::Timeline,
            Panel::Inspector,
            Panel::Instructor,
        ],
    },
    // 04: how long keys are kept; a retry after the window, with the ledger's UNIQUE and
    // without it.
    Chapter {
        n: 4,
        scenario: 6,
        variant: Variant::Guarded,
        steps: &[
            step(Loaded(6, Variant::Guarded), Some("preset-load")),
            step(Seen(K::CallerTimedOut, None, 1), Some("send-button")),
            step(Loss(ResponseLossPct, 0), Some("fault-response_loss_pct")),
            step(TimeAtLeast(49 * HOUR_MS), Some("jump-day")),
            step(
                Seen(K::LedgerDuplicate, Some(O::Caught), 1),
                Some("send-button"),
            ),
            // The same late retry with the ledger's UNIQUE off.
            step(
                FigureAtLeast("double_charges", 1),
                Some("preset-load-unguarded"),
            ),
        ],
        panels: &[
            Panel::Phone,
            Panel::Network,
            Panel::Damage,
            Panel::Timeline,
            Panel::Inspector,
            Panel::Instructor,
        ],
    },
    // 05: SET against INCREMENT, and the ledger's keyed INSERT.
    Chapter {
        n: 5,
        scenario: 7,
        variant: Variant::Guarded,
        steps: &[
            step(Loaded(7, Variant::Guarded), Some("preset-load")),
            step(
                SeenOp(K::NaturalApplied, "set_name"),
                Some("natural-set_name"),
            ),
            step(SeenOp(K::NaturalApplied, "add"), Some("natural-add")),
            step(SeenOp(K::NaturalApplied, "insert"), Some("natural-insert")),
        ],
        panels: &[
            Panel::Natural,
            Panel::Network,
            Panel::Timeline,
            Panel::Inspector,
        ],
    },
    // 06: the Two Generals, then at-most-once, at-least-once and effectively-once.
    Chapter {
        n: 6,
        scenario: 8,
        variant: Variant::AtMostOnce,
        steps: &[
            step(Loaded(8, Variant::AtMostOnce), Some("preset-load")),
            step(Crossed, Some("generals-send")),
            step(FigureAtLeast("lost_events", 1), Some("send-button")),
            step(
                FigureAtLeast("double_credits", 1),
                Some("preset-load-unguarded"),
            ),
            step(
                Seen(K::InboxDuplicate, Some(O::Caught), 2),
                Some("preset-load-guarded"),
            ),
        ],
        panels: &[
            Panel::Generals,
            Panel::Phone,
            Panel::Tithi,
            Panel::Damage,
            Panel::Timeline,
        ],
    },
    // 07: the broker: a lost ack's resend, and a crash inside the fraud check; then the resend
    // without the idempotent producer.
    Chapter {
        n: 7,
        scenario: 9,
        variant: Variant::Guarded,
        steps: &[
            step(Loaded(9, Variant::Guarded), Some("preset-load")),
            step(
                Seen(K::ResendDropped, Some(O::Caught), 1),
                Some("send-button"),
            ),
            // The same first Send crashed the fraud check before its commit.
            step(
                All(&[
                    Seen(K::FraudCrashed, None, 1),
                    Looked("event-fraud_crashed"),
                ]),
                Some("timeline"),
            ),
            // Its audit row, written outside the log, was written again after the restart.
            step(
                All(&[Looked("table-fraud.audit"), Rows("fraud.audit", 2)]),
                Some("table-fraud.audit"),
            ),
            // The same lost ack without the idempotent producer: the log keeps the copy.
            step(
                Seen(K::ResendAppended, Some(O::Escaped), 1),
                Some("preset-load-unguarded"),
            ),
        ],
        panels: &[
            Panel::Phone,
            Panel::Switches,
            Panel::Tithi,
            Panel::Damage,
            Panel::Timeline,
            Panel::Inspector,
        ],
    },
    // 08: the consumer's inbox: a relay that publishes twice; then the replay trap (scenario
    // 11): the wallet replayed from 5 days back, against a 24-hour inbox window and a 7-day one.
    Chapter {
        n: 8,
        scenario: 10,
        variant: Variant::Unguarded,
        steps: &[
            step(Loaded(10, Variant::Unguarded), Some("preset-load")),
            step(FigureAtLeast("double_credits", 1), Some("send-button")),
            step(Loaded(10, Variant::Guarded), Some("preset-load-guarded")),
            step(
                Seen(K::InboxDuplicate, Some(O::Caught), 2),
                Some("send-button"),
            ),
            // Send, two days on, replay: the 24-hour window has forgotten the event.
            unfolding(
                load_then(
                    Replayed(11, Variant::Unguarded, O::Escaped),
                    "preset-load-11-unguarded",
                    "send-button",
                ),
                TRAP,
            ),
            // The same with the window as long as the log's retention: caught.
            unfolding(
                load_then(
                    Replayed(11, Variant::Guarded, O::Caught),
                    "preset-load-11-guarded",
                    "send-button",
                ),
                TRAP,
            ),
        ],
        panels: &[
            Panel::Phone,
            Panel::Switches,
            Panel::Tithi,
            Panel::Damage,
            Panel::Timeline,
            Panel::Instructor,
        ],
    },
    // 09: every guard at once, against every fault; then no guard at all.
    Chapter {
        n: 9,
        scenario: 12,
        variant: Variant::Guarded,
        steps: &[
            step(Loaded(12, Variant::Guarded), Some("preset-load")),
            step(Answered(201), Some("send-button")),
            step(Loss(RequestLossPct, 0), Some("fault-request_loss_pct")),
            step(Loss(ResponseLossPct, 0), Some("fault-response_loss_pct")),
            step(
                All(&[Jumped(HOUR_MS), FigureSettled("credits", 1)]),
                Some("jump-hour"),
            ),
            // The same storm with every guard off.
            step(Harmed, Some("preset-load-unguarded")),
        ],
        panels: &[
            Panel::Phone,
            Panel::Switches,
            Panel::Network,
            Panel::Tithi,
            Panel::Damage,
            Panel::Timeline,
            Panel::Instructor,
        ],
    },
];
