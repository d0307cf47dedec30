//! What the timeline shows: one event per thing that happened, at a virtual time, on a lane.

use serde::{Deserialize, Serialize};

use super::{CrashPoint, Layer, Safeguard};

/// How a step turned out, as the timeline marks it (docs/reference.md §9, `data-outcome`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// Did what it should.
    Ok,
    /// A duplicate stopped by the guard of this event's layer.
    Caught,
    /// A duplicate that got through: damage.
    Escaped,
    /// A message the network or a crash destroyed.
    Lost,
    /// The caller cannot know what happened (Jepsen's `info`), which is not the same as failed.
    Unknown,
}

impl Outcome {
    pub const ALL: [Outcome; 5] = [
        Outcome::Ok,
        Outcome::Caught,
        Outcome::Escaped,
        Outcome::Lost,
        Outcome::Unknown,
    ];

    pub fn id(self) -> &'static str {
        match self {
            Outcome::Ok => "ok",
            Outcome::Caught => "caught",
            Outcome::Escaped => "escaped",
            Outcome::Lost => "lost",
            Outcome::Unknown => "unknown",
        }
    }

    pub fn from_id(id: &str) -> Option<Outcome> {
        Outcome::ALL.into_iter().find(|o| o.id() == id)
    }
}

/// What kind of thing happened. The services of later layers add their own kinds here, so the
/// timeline, the tests and the event store share one list.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum EventKind {
    /// The sandbox was made, with its seed.
    SandboxCreated,
    /// The sandbox went back to the lesson's start.
    SandboxReset,
    /// A scenario's preset was loaded (`POST …/scenario/{n}`): the sandbox was reset and set up.
    ScenarioLoaded,
    /// The instructor changed safeguards (details: the new settings of those changed).
    SafeguardsChanged,
    /// The instructor changed faults (details: what changed).
    FaultsChanged,
    /// The clock was paused, resumed or given a new speed.
    ClockChanged,
    /// One scheduled step was run by hand.
    ClockStepped,
    /// The clock jumped ahead, running everything due on the way.
    ClockJumped,
    /// The inbox cleaner deleted inbox rows older than the inbox window.
    InboxCleaned,
    /// The log retention cleaner deleted records older than the retention and moved the log start.
    LogRetentionApplied,

    // The payment path: caller, network, load balancer, API instance, ledger.
    /// The caller sent a transfer request (details: attempt, intent).
    RequestSent,
    /// The network lost the request on its way in.
    RequestLost,
    /// The load balancer passed the request to an instance.
    LbRouted,
    /// The load balancer gave up waiting on an instance and sent the request to another one.
    LbRetried,
    /// The load balancer gave up for good and answered 504.
    LbGaveUp,
    /// An instance answered after the load balancer stopped waiting for it; the answer is dropped.
    LbLateAnswerDropped,
    /// The API claimed the key: an IN_PROGRESS row committed before the work.
    KeyClaimed,
    /// Look-then-write: the look-up found no row (the write comes after the work).
    KeyLookupEmpty,
    /// The idempotency table is off: the API runs every request it gets.
    KeyNotChecked,
    /// The key is in progress: 409.
    KeyInProgress,
    /// The key is completed: the stored response is replayed.
    ResponseReplayed,
    /// The key came with another body: 422.
    KeyReused,
    /// Money left the sender's account (escaped when the intent was already debited).
    Debited,
    /// The ledger's UNIQUE(transfer_id) refused a second debit.
    LedgerDuplicate,
    /// Not enough money: 422, stored like a success.
    InsufficientFunds,
    /// An API instance died at a crash point; its work in flight is gone.
    InstanceCrashed,
    /// The network lost the response on its way out.
    ResponseLost,
    /// The response reached the caller.
    ResponseDelivered,
    /// The response arrived after the caller had given up.
    ResponseTooLate,
    /// The caller's timeout ran out: it cannot know what happened.
    CallerTimedOut,
    /// Recovery found a stuck IN_PROGRESS key whose debit is in the ledger and completed it.
    StuckKeyCompleted,
    /// Recovery found a stuck IN_PROGRESS key with no debit and released it for a retry.
    StuckKeyReleased,
    /// The nightly job dropped whole daily partitions older than the window.
    PartitionsDropped,

    // The event pipeline: outbox, relay, broker, fraud check, wallet, SMS.
    /// The TransferDone event was written to the outbox in the debit's transaction.
    OutboxWritten,
    /// The event was published to the log (by the relay, or by the API itself in a dual write).
    EventPublished,
    /// The event of a committed debit was never published: the process died before it.
    EventLost,
    /// The relay died after publishing and before marking the row sent.
    RelayCrashed,
    /// The broker appended a record.
    RecordAppended,
    /// The broker's acknowledgement was lost; the producer sends the batch again.
    AckLost,
    /// The idempotent producer's resend was recognised and not appended again.
    ResendDropped,
    /// A resend was appended a second time (no idempotent producer).
    ResendAppended,
    /// The fraud check approved a transfer (and wrote its audit row).
    FraudApproved,
    /// The fraud check died after writing and before committing.
    FraudCrashed,
    /// A transaction left open by a dead instance was aborted when its successor started.
    TransactionAborted,
    /// The wallet credited the recipient.
    Credited,
    /// The SMS service sent the "money received" message.
    SmsSent,
    /// An inbox recognised an event it had already applied.
    InboxDuplicate,
    /// A consumer died after its local commit and before committing its offset.
    ConsumerCrashed,
    /// The instructor rewound a consumer group by time.
    ReplayStarted,

    // Scenario 7, natural idempotency.
    /// A copy of a SET, an INCREMENT or a keyed INSERT reached the payment API and ran.
    NaturalApplied,
    /// A copy of one of those was lost on the network.
    NaturalLost,

    // Scenario 8, the Two Generals.
    /// A messenger crossed the valley, or was caught (`lost`).
    GeneralsTrip,

    // Shimul's phone, as the app reports it.
    /// A tap on Send that the app acted on.
    Tapped,
    /// A tap the guarded button let fall: a double tap, or a tap while a request is out.
    TapIgnored,
    /// The app made a new Idempotency-Key at the confirm tap.
    KeyMade,
    /// The app sent its kept key again: a retry that looks like the same attempt.
    KeyKept,
}

impl EventKind {
    /// A housekeeping job that runs on a timer whatever the student does (the inbox cleaner,
    /// the log's retention): the timeline folds runs of them so a transfer's story stays in
    /// view.
    pub fn is_routine(self) -> bool {
        matches!(
            self,
            EventKind::InboxCleaned | EventKind::LogRetentionApplied
        )
    }

    pub fn id(self) -> String {
        serde_json::to_value(self)
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_default()
    }
}

/// One mark on the timeline, as stored in the sandbox's event log and sent on its event stream.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct TimelineEvent {
    /// Position in the sandbox's event log, counting up from 1; the SSE `id`.
    pub id: i64,
    /// Virtual time, milliseconds since day 1 00:00.
    pub at_ms: i64,
    pub layer: Layer,
    pub kind: EventKind,
    /// The idempotency key or event id that links this event to its causal chain, if any.
    pub correlation: Option<String>,
    pub outcome: Outcome,
    /// Kind-specific facts (row counts, settings, amounts), for the details panel.
    #[cfg_attr(feature = "ssr", schema(value_type = Object))]
    pub details: serde_json::Value,
}

/// The facts of an event that something reads back, typed: the safeguard that caught it, the
/// crash point that fired, the HTTP status answered. They travel inside the event's `details`
/// as `guard`, `crash` (ids) and `status` (a number), beside its other facts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Facts {
    pub guard: Option<Safeguard>,
    pub crash: Option<CrashPoint>,
    pub status: Option<u16>,
}

impl Facts {
    /// An event a safeguard caught.
    pub fn caught_by(guard: Safeguard) -> Facts {
        Facts {
            guard: Some(guard),
            ..Facts::default()
        }
    }

    /// A task that died at a crash point.
    pub fn crashed_at(point: CrashPoint) -> Facts {
        Facts {
            crash: Some(point),
            ..Facts::default()
        }
    }

    /// An answer with this HTTP status.
    pub fn answered(status: u16) -> Facts {
        Facts::default().status(status)
    }

    pub fn status(self, status: u16) -> Facts {
        Facts {
            status: Some(status),
            ..self
        }
    }

    /// The event's details: these facts, and `more` (an object of its other facts).
    pub fn with(self, mut more: serde_json::Value) -> serde_json::Value {
        let details = more
            .as_object_mut()
            .expect("an event's details are an object");
        if let Some(guard) = self.guard {
            details.insert("guard".into(), guard.id().into());
        }
        if let Some(crash) = self.crash {
            details.insert("crash".into(), crash.id().into());
        }
        if let Some(status) = self.status {
            details.insert("status".into(), status.into());
        }
        more
    }

    /// The event's details when these are all its facts.
    pub fn details(self) -> serde_json::Value {
        self.with(serde_json::Value::Object(serde_json::Map::new()))
    }
}

impl TimelineEvent {
    /// The typed facts its details carry; one absent, or not of its type (the `crash` of a
    /// faults change is the settings, not a point), is `None`.
    pub fn facts(&self) -> Facts {
        let text = |name: &str| self.details.get(name).and_then(serde_json::Value::as_str);
        Facts {
            guard: text("guard").and_then(Safeguard::from_id),
            crash: text("crash").and_then(CrashPoint::from_id),
            status: self
                .details
                .get("status")
                .and_then(serde_json::Value::as_u64)
                .and_then(|s| u16::try_from(s).ok()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outcomes_and_kinds_use_snake_case_ids() {
        for o in Outcome::ALL {
            assert_eq!(Outcome::from_id(o.id()), Some(o));
            assert_eq!(serde_json::to_value(o).unwrap(), serde_json::json!(o.id()));
        }
        assert_eq!(EventKind::LogRetentionApplied.id(), "log_retention_applied");
    }

    #[test]
    fn facts_travel_in_the_details_and_read_back_typed() {
        let facts = Facts::caught_by(Safeguard::AtomicClaim).status(409);
        let details = facts.with(serde_json::json!({"call": 3}));
        assert_eq!(
            details,
            serde_json::json!({"guard": "atomic_claim", "status": 409, "call": 3})
        );
        let event = TimelineEvent {
            id: 1,
            at_ms: 0,
            layer: Layer::Api,
            kind: EventKind::KeyInProgress,
            correlation: None,
            outcome: Outcome::Caught,
            details,
        };
        assert_eq!(event.facts(), facts);
        let crash = Facts::crashed_at(CrashPoint::RelayAfterPublish).details();
        assert_eq!(crash, serde_json::json!({"crash": "relay_after_publish"}));
        // A faults change names its crash settings, not a crash point.
        let change = TimelineEvent {
            details: serde_json::json!({"crash": {"api_after_claim": "once"}}),
            ..event
        };
        assert_eq!(change.facts(), Facts::default());
    }
}
