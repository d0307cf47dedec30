//! What can go wrong at the lab's boundary, each with its HTTP status and problem type.

use crate::domain::{FieldError, ProblemKind};

#[derive(Debug, thiserror::Error)]
pub enum LabError {
    #[error("there is no sandbox with this id")]
    NotFound,
    #[error("this sandbox's log has no event {0}")]
    UnknownEvent(i64),
    #[error("there is no scenario {0:?}: the scenarios are 1 to 12")]
    UnknownScenario(String),
    #[error("scenario {0} has no {1} variant (only scenario 8 has at_most_once)")]
    UnknownVariant(u8, &'static str),
    #[error(
        "a page of another site may not change a sandbox: the Origin {0:?} is not this server's"
    )]
    ForeignOrigin(String),
    #[error("the request body must be application/json (the /lang form: application/x-www-form-urlencoded), not {0:?}")]
    UnsupportedMediaType(String),
    #[error("{0}")]
    Invalid(#[from] FieldError),
    #[error("the request body is not valid JSON: {0}")]
    BadJson(String),
    #[error("{0}: the body names this member twice; a JSON member may be given once")]
    DuplicateField(String),
    #[error("{0}: the request carries this header more than once; send it once")]
    DuplicateHeader(&'static str),
    #[error("the request body is larger than {0} bytes")]
    BodyTooLarge(usize),
    #[error("the Last-Event-ID header must be a whole number")]
    BadLastEventId,
    #[error("this server already holds its limit of {0} sandboxes; try again later")]
    TooManySandboxes(usize),
    #[error("this server already serves its limit of {0} event streams; try again later")]
    TooManyStreams(usize),
    #[error("the sandbox was stopped or reset while this request was in flight; try again")]
    Unavailable,
    #[error("unknown user: send Authorization: Bearer shimul (or tithi)")]
    Unauthorized,
    #[error("to: cannot send money to yourself")]
    SelfTransfer,
    #[error("this sandbox is sending requests faster than the lab allows; retry in {0} s")]
    TooManyRequests(u64),
    #[error(
        "the day at 1:{scale} is running; one day runs at a time: try again in {retry_after} s"
    )]
    DayBusy { scale: u32, retry_after: u64 },
    #[error("the day at 1:{0} has not been run on this server; POST /api/days starts it")]
    UnknownDay(u32),
    #[error("a sandbox with the id {0} exists already")]
    SandboxExists(uuid::Uuid),
    #[error("there is no class with this code or id (it may have expired)")]
    UnknownClass,
    #[error("only the class's instructor may do this: this browser does not hold the class's key")]
    NotYourClass,
    #[error("name: a student of this class has this name already; choose another")]
    NameTaken,
    /// The name differs from a classmate's only in what a reader cannot see: case, spacing,
    /// invisible characters or another way of writing the same letters.
    #[error("name: {0:?} looks the same as a classmate's name; choose one that can be told apart")]
    NameLookAlike(String),
    /// A hand-over link already taken, withdrawn, or of a class that ended.
    #[error("this hand-over link was used already or withdrawn; ask the class's instructor for a new one")]
    HandOverSpent,
    #[error("the class's instructor has locked this lab's controls for a demo; they unlock it when it ends")]
    Locked,
    /// The class's instructor froze every clock; only their thaw moves it again.
    #[error("the class's instructor has frozen the clock; it runs again when they thaw it")]
    Frozen,
    #[error("the run could not be replayed: {0}")]
    RunDiverged(String),
    #[error("a store failed")]
    Store(#[from] sqlx::Error),
    /// The broker refused a step (a fenced producer, a sequence out of order …): the lab's own
    /// bug, named as the broker named it.
    #[error("the broker refused a step: {0}")]
    Broker(crate::server::broker::BrokerError),
    #[error("a file operation failed")]
    Io(#[from] std::io::Error),
}

impl From<crate::server::world::StepError> for LabError {
    fn from(e: crate::server::world::StepError) -> Self {
        match e {
            crate::server::world::StepError::Store(e) => LabError::Store(e),
            crate::server::world::StepError::Broker(e) => LabError::Broker(e),
        }
    }
}

impl From<crate::domain::transfer::SelfTransfer> for LabError {
    fn from(_: crate::domain::transfer::SelfTransfer) -> Self {
        LabError::SelfTransfer
    }
}

impl LabError {
    /// The HTTP status this error answers with: its kind's (`ProblemKind::status`), the same
    /// on the REST API and on the server functions.
    pub fn status(&self) -> u16 {
        self.kind().status()
    }

    pub fn kind(&self) -> ProblemKind {
        match self {
            LabError::NotFound => ProblemKind::UnknownSandbox,
            LabError::UnknownEvent(_) => ProblemKind::UnknownEvent,
            LabError::UnknownClass => ProblemKind::UnknownClass,
            LabError::NotYourClass => ProblemKind::NotYourClass,
            LabError::NameTaken => ProblemKind::NameTaken,
            LabError::HandOverSpent => ProblemKind::HandOverSpent,
            LabError::Locked => ProblemKind::LockedByClass,
            LabError::Frozen => ProblemKind::FrozenByClass,
            LabError::NameLookAlike(_) => ProblemKind::NameLookAlike,
            LabError::UnknownScenario(_) | LabError::UnknownVariant(..) => {
                ProblemKind::UnknownScenario
            }
            LabError::ForeignOrigin(_) => ProblemKind::ForeignOrigin,
            LabError::UnsupportedMediaType(_) => ProblemKind::UnsupportedMediaType,
            LabError::Unauthorized => ProblemKind::UnknownUser,
            LabError::TooManyRequests(_) => ProblemKind::TooManyRequests,
            LabError::RunDiverged(_) => ProblemKind::RunDiverged,
            LabError::SandboxExists(_) => ProblemKind::SandboxExists,
            LabError::SelfTransfer => ProblemKind::SelfTransfer,
            LabError::Invalid(e) if e.field == "Idempotency-Key" => {
                ProblemKind::InvalidIdempotencyKey
            }
            LabError::Invalid(_) => ProblemKind::InvalidField,
            LabError::BadJson(_) => ProblemKind::InvalidJson,
            LabError::DuplicateField(_) => ProblemKind::DuplicateField,
            LabError::DuplicateHeader(_) => ProblemKind::DuplicateHeader,
            LabError::BodyTooLarge(_) => ProblemKind::BodyTooLarge,
            LabError::BadLastEventId => ProblemKind::InvalidLastEventId,
            LabError::TooManySandboxes(_) => ProblemKind::TooManySandboxes,
            LabError::TooManyStreams(_) => ProblemKind::TooManyStreams,
            LabError::Unavailable => ProblemKind::SandboxUnavailable,
            LabError::DayBusy { .. } => ProblemKind::DayBusy,
            LabError::UnknownDay(_) => ProblemKind::UnknownDay,
            LabError::Broker(_) => ProblemKind::BrokerRefused,
            LabError::Store(_) | LabError::Io(_) => ProblemKind::Internal,
        }
    }

    /// Writes the cause of an internal error (a store's or a file's) to the log, as `error`;
    /// the caller is only told that it happened. Other errors are the caller's to read.
    pub fn log_cause(&self) {
        match self {
            LabError::Store(e) => tracing::error!("store error: {e}"),
            LabError::Io(e) => tracing::error!("io error: {e}"),
            LabError::Broker(e) => tracing::error!("broker refused: {e}"),
            _ => {}
        }
    }

    /// Seconds a client should wait before trying again, for the errors that pass.
    pub fn retry_after(&self) -> Option<u64> {
        match self {
            LabError::TooManySandboxes(_) => Some(60),
            LabError::TooManyStreams(_) => Some(10),
            LabError::Unavailable => Some(1),
            LabError::TooManyRequests(secs) => Some(*secs),
            LabError::DayBusy { retry_after, .. } => Some(*retry_after),
            _ => None,
        }
    }
}
