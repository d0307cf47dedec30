//! What the timeline shows: one event per thing that happened, at a virtual time, on a lane.

use serde::{Deserialize, Serialize};

use super::Layer;

/// How a step turned out, as the timeline marks it (PRODUCT.md section 9, `data-outcome`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
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
#[serde(rename_all = "snake_case")]
pub enum EventKind {
    /// The sandbox was made, with its seed.
    SandboxCreated,
    /// The sandbox went back to the lesson's start.
    SandboxReset,
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
}

impl EventKind {
    pub fn id(self) -> String {
        serde_json::to_value(self)
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_default()
    }
}

/// One mark on the timeline, as stored in the sandbox's event log and sent on its event stream.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
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
    pub details: serde_json::Value,
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
}
