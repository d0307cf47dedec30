//! What the timeline shows: one event per thing that happened, at a virtual time, on a lane.

use serde::{Deserialize, Serialize};

use super::Layer;

mod details;
pub use details::*;

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

/// One mark on the timeline, as stored in the sandbox's event log and sent on its event stream:
/// `{"id", "at_ms", "layer", "kind", "correlation", "outcome", "details"}`, the kind named
/// beside its facts.
#[derive(Clone, Debug, PartialEq)]
pub struct TimelineEvent {
    /// Position in the sandbox's event log, counting up from 1; the SSE `id`.
    pub id: i64,
    /// Virtual time, milliseconds since day 1 00:00.
    pub at_ms: i64,
    pub layer: Layer,
    /// The idempotency key or event id that links this event to its causal chain, if any.
    pub correlation: Option<String>,
    pub outcome: Outcome,
    /// What happened, with its kind-specific facts (row counts, settings, amounts).
    pub details: Details,
}

impl TimelineEvent {
    pub fn kind(&self) -> EventKind {
        self.details.kind()
    }

    /// The facts every reader may ask of any event.
    pub fn facts(&self) -> Facts {
        self.details.facts()
    }
}

/// The event as it travels: its kind beside its facts as a plain object.
#[derive(Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ssr", schema(as = TimelineEvent))]
struct Wire<D> {
    id: i64,
    at_ms: i64,
    layer: Layer,
    kind: EventKind,
    correlation: Option<String>,
    outcome: Outcome,
    /// Kind-specific facts (row counts, settings, amounts), for the details panel.
    #[cfg_attr(feature = "ssr", schema(value_type = Object))]
    details: D,
}

impl Serialize for TimelineEvent {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        Wire {
            id: self.id,
            at_ms: self.at_ms,
            layer: self.layer,
            kind: self.kind(),
            correlation: self.correlation.clone(),
            outcome: self.outcome,
            details: self.details.to_json(),
        }
        .serialize(s)
    }
}

impl<'de> Deserialize<'de> for TimelineEvent {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let w = Wire::<serde_json::Value>::deserialize(d)?;
        Ok(TimelineEvent {
            id: w.id,
            at_ms: w.at_ms,
            layer: w.layer,
            correlation: w.correlation,
            outcome: w.outcome,
            details: Details::read(w.kind, w.details).map_err(serde::de::Error::custom)?,
        })
    }
}

#[cfg(feature = "ssr")]
impl utoipa::PartialSchema for TimelineEvent {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        <Wire<serde_json::Value> as utoipa::PartialSchema>::schema()
    }
}

#[cfg(feature = "ssr")]
impl utoipa::ToSchema for TimelineEvent {
    fn name() -> std::borrow::Cow<'static, str> {
        "TimelineEvent".into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::Safeguard;

    #[test]
    fn outcomes_and_kinds_use_snake_case_ids() {
        for o in Outcome::ALL {
            assert_eq!(Outcome::from_id(o.id()), Some(o));
            assert_eq!(serde_json::to_value(o).unwrap(), serde_json::json!(o.id()));
        }
        assert_eq!(EventKind::LogRetentionApplied.id(), "log_retention_applied");
    }

    #[test]
    fn an_event_travels_as_its_kind_beside_its_facts_and_reads_back_typed() {
        let event = TimelineEvent {
            id: 1,
            at_ms: 0,
            layer: Layer::Api,
            correlation: Some("k".into()),
            outcome: Outcome::Caught,
            details: Details::KeyInProgress(KeyInProgress {
                instance: 2,
                attempt: 1,
                call: 3,
                status: 409,
                guard: Some(Safeguard::AtomicClaim),
                stuck: None,
                would_finish: None,
            }),
        };
        let text = serde_json::to_string(&event).unwrap();
        assert_eq!(
            text,
            r#"{"id":1,"at_ms":0,"layer":"api","kind":"key_in_progress","correlation":"k","outcome":"caught","details":{"attempt":1,"call":3,"guard":"atomic_claim","instance":2,"status":409}}"#
        );
        assert_eq!(serde_json::from_str::<TimelineEvent>(&text).unwrap(), event);
        assert_eq!(
            event.facts(),
            Facts {
                guard: Some(Safeguard::AtomicClaim),
                status: Some(409),
                ..Facts::default()
            }
        );
        // Facts that do not fit their kind are refused, naming the field.
        let wrong = text.replace(r#""guard":"atomic_claim""#, r#""guard":"moat""#);
        let e = serde_json::from_str::<TimelineEvent>(&wrong).unwrap_err();
        assert!(e.to_string().starts_with("guard: "), "{e}");
        // An event with nothing beyond its kind carries an empty object.
        let tap = Details::Tapped(NoFacts {});
        assert_eq!(tap.to_json(), serde_json::json!({}));
        assert_eq!(
            Details::read(EventKind::Tapped, serde_json::json!({})),
            Ok(tap)
        );
    }

    #[test]
    fn every_kind_is_in_the_list_once() {
        let ids: std::collections::HashSet<String> =
            EventKind::ALL.iter().map(|k| k.id()).collect();
        assert_eq!(ids.len(), EventKind::ALL.len());
        assert!(ids.contains("generals_trip"));
    }
}
