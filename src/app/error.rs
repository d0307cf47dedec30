//! What a server function answers instead of its result, as a type both sides share: the kind
//! of the lab's error (the kinds the REST API's problem types name, docs/reference.md §8), or
//! the browser's own failure to reach the server or read its answer. The page picks the
//! sentence for a kind from the locale files, so a Bangla page explains in Bangla, and a
//! failed read is never called a refused change.

use leptos::server_fn::codec::JsonEncoding;
use leptos::server_fn::error::{FromServerFnError, ServerFnErrorErr};
use serde::{Deserialize, Serialize};

use crate::app::i18n::{digits, tr_args, tr_id};

/// A server function's error.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum FnError {
    /// No sandbox has this id (it expired, or the address is wrong).
    #[error("there is no sandbox with this id")]
    UnknownSandbox,
    /// The sandbox's log has no such event (a rewind past its start).
    #[error("the sandbox's log has no such event")]
    UnknownEvent,
    /// No such scenario or variant.
    #[error("there is no such scenario")]
    UnknownScenario,
    /// A value the server does not take; `field` names it as the API does.
    #[error("the value of {field} was refused")]
    InvalidField { field: String },
    /// The server or this sandbox is at a limit for now; try again after `retry_after` s.
    #[error("busy: try again in {retry_after} s")]
    Busy { retry_after: u64 },
    /// Another scale's fast-forwarded day is running: one at a time.
    #[error("the day at 1:{scale} is running: try again in {retry_after} s")]
    DayBusy { scale: u32, retry_after: u64 },
    /// A run replayed to a different log than it was recorded with.
    #[error("the run did not replay to the same log")]
    RunDiverged,
    /// The server failed (a store, a file); its log has the cause.
    #[error("the server failed")]
    Internal,
    /// No class has this code (or it expired).
    #[error("there is no class with this code")]
    UnknownClass,
    /// Only the class's instructor may do this.
    #[error("this browser does not hold the class's key")]
    NotYourClass,
    /// Another student of the class has the name.
    #[error("the name is taken in this class")]
    NameTaken,
    /// The class's instructor has locked the student's controls for a demo.
    #[error("the lab is locked by the class's instructor")]
    Locked,
    /// A classmate's name reads the same (it differs only in case, spacing or characters a
    /// reader cannot see).
    #[error("the name looks the same as a classmate's")]
    NameLookAlike,
    /// The class's instructor froze every clock; only their thaw moves it.
    #[error("the clock is frozen by the class's instructor")]
    Frozen,
    /// A hand-over link already taken or withdrawn.
    #[error("the hand-over link was used already or withdrawn")]
    HandOverSpent,
    /// The browser could not reach the server, or could not read its answer.
    #[error("the server could not be reached")]
    Unreachable,
}

impl FnError {
    /// Every kind's message id, for the translation test.
    pub const MESSAGE_IDS: [&'static str; 16] = [
        "fn-error-unknown-sandbox",
        "fn-error-unknown-event",
        "fn-error-unknown-scenario",
        "fn-error-invalid-field",
        "fn-error-busy",
        "fn-error-run-diverged",
        "fn-error-internal",
        "fn-error-unreachable",
        "fn-error-day-busy",
        "fn-error-unknown-class",
        "fn-error-not-your-class",
        "fn-error-name-taken",
        "fn-error-locked",
        "fn-error-name-look-alike",
        "fn-error-frozen",
        "fn-error-hand-over-spent",
    ];

    /// The id of this kind's message in `locales/*/main.ftl`.
    pub fn message_id(&self) -> &'static str {
        let i = match self {
            FnError::UnknownSandbox => 0,
            FnError::UnknownEvent => 1,
            FnError::UnknownScenario => 2,
            FnError::InvalidField { .. } => 3,
            FnError::Busy { .. } => 4,
            FnError::RunDiverged => 5,
            FnError::Internal => 6,
            FnError::Unreachable => 7,
            FnError::DayBusy { .. } => 8,
            FnError::UnknownClass => 9,
            FnError::NotYourClass => 10,
            FnError::NameTaken => 11,
            FnError::Locked => 12,
            FnError::NameLookAlike => 13,
            FnError::Frozen => 14,
            FnError::HandOverSpent => 15,
        };
        Self::MESSAGE_IDS[i]
    }

    /// The kind of problem this is, as the REST API names it (docs/reference.md §8): its HTTP
    /// status comes from there (`ProblemKind::status`), so both adapters answer a refusal
    /// alike. The browser's own failure has no status; it is never sent.
    pub fn kind(&self) -> crate::domain::ProblemKind {
        use crate::domain::ProblemKind as K;
        match self {
            FnError::UnknownSandbox => K::UnknownSandbox,
            FnError::UnknownEvent => K::UnknownEvent,
            FnError::UnknownScenario => K::UnknownScenario,
            FnError::InvalidField { .. } => K::InvalidField,
            FnError::Busy { .. } => K::TooManyRequests,
            FnError::DayBusy { .. } => K::DayBusy,
            FnError::RunDiverged => K::RunDiverged,
            FnError::Internal | FnError::Unreachable => K::Internal,
            FnError::UnknownClass => K::UnknownClass,
            FnError::NotYourClass => K::NotYourClass,
            FnError::NameTaken => K::NameTaken,
            FnError::NameLookAlike => K::NameLookAlike,
            FnError::Locked => K::LockedByClass,
            FnError::Frozen => K::FrozenByClass,
            FnError::HandOverSpent => K::HandOverSpent,
        }
    }

    /// How long to wait before asking again, for the kinds that are "not now".
    pub fn retry_after(&self) -> Option<u64> {
        match self {
            FnError::Busy { retry_after } | FnError::DayBusy { retry_after, .. } => {
                Some(*retry_after)
            }
            _ => None,
        }
    }

    /// The error as a sentence of the page's language.
    pub fn text(&self) -> String {
        match self {
            FnError::InvalidField { field } => {
                tr_args(self.message_id(), &[("field", field.clone())])
            }
            FnError::Busy { retry_after } => tr_args(
                self.message_id(),
                &[("seconds", digits(&retry_after.to_string()))],
            ),
            FnError::DayBusy { scale, retry_after } => tr_args(
                self.message_id(),
                &[
                    ("scale", digits(&scale.to_string())),
                    ("seconds", digits(&retry_after.to_string())),
                ],
            ),
            _ => tr_id(self.message_id()),
        }
    }
}

/// What the error line under a control says: the sentence for its action's last call, if that
/// call failed (and nothing while it has not, or once a later call went through).
pub fn failed<I, T>(
    action: leptos::prelude::Action<I, Result<T, FnError>>,
) -> impl Fn() -> Option<String> + Copy + Send + Sync + 'static
where
    I: Send + Sync + 'static,
    T: Clone + Send + Sync + 'static,
{
    use leptos::prelude::Get;
    move || action.value().get().and_then(Result::err).map(|e| e.text())
}

impl FromServerFnError for FnError {
    type Encoder = JsonEncoding;

    /// The transport's own failures: what the browser could not send, receive or read is
    /// `Unreachable`; what the server could not do with a call is `Internal`.
    fn from_server_fn_error(value: ServerFnErrorErr) -> Self {
        match value {
            ServerFnErrorErr::Request(_)
            | ServerFnErrorErr::Response(_)
            | ServerFnErrorErr::Deserialization(_) => FnError::Unreachable,
            ServerFnErrorErr::Args(_) | ServerFnErrorErr::MissingArg(_) => FnError::InvalidField {
                field: "arguments".to_owned(),
            },
            _ => FnError::Internal,
        }
    }
}

#[cfg(feature = "ssr")]
impl From<crate::server::error::LabError> for FnError {
    /// A lab error as a server function's: its kind, never a store's internals, which go to
    /// the log as they do on the REST path.
    fn from(e: crate::server::error::LabError) -> FnError {
        use crate::server::error::LabError;
        e.log_cause();
        let retry_after = e.retry_after();
        match e {
            LabError::NotFound => FnError::UnknownSandbox,
            LabError::UnknownEvent(_) => FnError::UnknownEvent,
            LabError::UnknownScenario(_) | LabError::UnknownVariant(..) => FnError::UnknownScenario,
            LabError::Invalid(f) => FnError::InvalidField { field: f.field },
            LabError::DuplicateField(field) => FnError::InvalidField { field },
            LabError::DuplicateHeader(name) => FnError::InvalidField {
                field: name.to_owned(),
            },
            LabError::BadJson(_) | LabError::BodyTooLarge(_) => FnError::InvalidField {
                field: "body".to_owned(),
            },
            LabError::RunDiverged(_) => FnError::RunDiverged,
            LabError::UnknownClass => FnError::UnknownClass,
            LabError::NotYourClass => FnError::NotYourClass,
            LabError::NameTaken => FnError::NameTaken,
            LabError::Locked => FnError::Locked,
            LabError::Frozen => FnError::Frozen,
            LabError::HandOverSpent => FnError::HandOverSpent,
            LabError::NameLookAlike(_) => FnError::NameLookAlike,
            LabError::SandboxExists(_) => FnError::InvalidField {
                field: "id".to_owned(),
            },
            LabError::DayBusy { scale, retry_after } => FnError::DayBusy { scale, retry_after },
            LabError::UnknownDay(_) => FnError::InvalidField {
                field: "scale".to_owned(),
            },
            LabError::TooManySandboxes(_)
            | LabError::TooManyStreams(_)
            | LabError::TooManyRequests(_)
            | LabError::Unavailable => FnError::Busy {
                retry_after: retry_after.unwrap_or(1),
            },
            LabError::ForeignOrigin(_)
            | LabError::UnsupportedMediaType(_)
            | LabError::BadLastEventId
            | LabError::Unauthorized
            | LabError::SelfTransfer
            | LabError::Store(_)
            | LabError::Broker(_)
            | LabError::Io(_) => FnError::Internal,
        }
    }
}

impl From<crate::domain::FieldError> for FnError {
    fn from(e: crate::domain::FieldError) -> FnError {
        FnError::InvalidField { field: e.field }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_has_its_own_message_and_survives_the_wire() {
        let all = [
            FnError::UnknownSandbox,
            FnError::UnknownEvent,
            FnError::UnknownScenario,
            FnError::InvalidField {
                field: "auto_retries".into(),
            },
            FnError::Busy { retry_after: 10 },
            FnError::RunDiverged,
            FnError::Internal,
            FnError::Unreachable,
            FnError::DayBusy {
                scale: 10,
                retry_after: 60,
            },
            FnError::UnknownClass,
            FnError::NotYourClass,
            FnError::NameTaken,
            FnError::Locked,
            FnError::NameLookAlike,
            FnError::Frozen,
            FnError::HandOverSpent,
        ];
        let ids: std::collections::BTreeSet<_> = all.iter().map(FnError::message_id).collect();
        assert_eq!(ids.len(), all.len());
        for e in all {
            let bytes = e.ser();
            assert_eq!(FnError::de(bytes), e);
        }
    }

    #[test]
    fn the_browsers_own_failures_are_unreachable() {
        let e = FnError::from_server_fn_error(ServerFnErrorErr::Request("offline".into()));
        assert_eq!(e, FnError::Unreachable);
        let e = FnError::from_server_fn_error(ServerFnErrorErr::ServerError("x".into()));
        assert_eq!(e, FnError::Internal);
    }

    #[cfg(feature = "ssr")]
    #[test]
    fn a_lab_error_keeps_its_kind_and_never_its_cause() {
        use crate::server::error::LabError;
        assert_eq!(FnError::from(LabError::NotFound), FnError::UnknownSandbox);
        assert_eq!(
            FnError::from(LabError::TooManyRequests(3)),
            FnError::Busy { retry_after: 3 }
        );
        let e = FnError::from(LabError::Store(sqlx::Error::PoolTimedOut));
        assert_eq!(e, FnError::Internal);
        let wire = String::from_utf8(e.ser().to_vec()).unwrap();
        assert!(!wire.contains("pool timed out"), "{wire}");
    }
}
