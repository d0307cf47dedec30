//! Every kind of problem the lab answers (RFC 9457, docs/reference.md §8), each named once:
//! the refusals at the API's edge, the lab's own errors and the payment API's answers inside a
//! sandbox. A problem's `type` is `urn:pocketpay-lab:problem:<id>`.

/// One kind of problem.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ProblemKind {
    // The lab's own errors (`server::error::LabError`).
    UnknownSandbox,
    UnknownEvent,
    UnknownClass,
    NotYourClass,
    NameTaken,
    NameLookAlike,
    HandOverSpent,
    LockedByClass,
    FrozenByClass,
    UnknownScenario,
    ForeignOrigin,
    UnsupportedMediaType,
    UnknownUser,
    TooManyRequests,
    RunDiverged,
    SandboxExists,
    SelfTransfer,
    InvalidIdempotencyKey,
    InvalidField,
    InvalidJson,
    DuplicateField,
    DuplicateHeader,
    BodyTooLarge,
    InvalidLastEventId,
    TooManySandboxes,
    TooManyStreams,
    SandboxUnavailable,
    DayBusy,
    UnknownDay,
    BrokerRefused,
    Internal,
    // Refusals of the router before a handler runs.
    MethodNotAllowed,
    NoSuchRoute,
    BadRequest,
    Refused,
    // The payment API's answers inside a sandbox, and the network's.
    IdempotencyKeyReused,
    IdempotencyKeyInProgress,
    InsufficientFunds,
    DuplicateTransfer,
    UpstreamTimeout,
    NoResponse,
}

impl ProblemKind {
    pub const ALL: [ProblemKind; 41] = [
        ProblemKind::UnknownSandbox,
        ProblemKind::UnknownEvent,
        ProblemKind::UnknownClass,
        ProblemKind::NotYourClass,
        ProblemKind::NameTaken,
        ProblemKind::NameLookAlike,
        ProblemKind::HandOverSpent,
        ProblemKind::LockedByClass,
        ProblemKind::FrozenByClass,
        ProblemKind::UnknownScenario,
        ProblemKind::ForeignOrigin,
        ProblemKind::UnsupportedMediaType,
        ProblemKind::UnknownUser,
        ProblemKind::TooManyRequests,
        ProblemKind::RunDiverged,
        ProblemKind::SandboxExists,
        ProblemKind::SelfTransfer,
        ProblemKind::InvalidIdempotencyKey,
        ProblemKind::InvalidField,
        ProblemKind::InvalidJson,
        ProblemKind::DuplicateField,
        ProblemKind::DuplicateHeader,
        ProblemKind::BodyTooLarge,
        ProblemKind::InvalidLastEventId,
        ProblemKind::TooManySandboxes,
        ProblemKind::TooManyStreams,
        ProblemKind::SandboxUnavailable,
        ProblemKind::DayBusy,
        ProblemKind::UnknownDay,
        ProblemKind::BrokerRefused,
        ProblemKind::Internal,
        ProblemKind::MethodNotAllowed,
        ProblemKind::NoSuchRoute,
        ProblemKind::BadRequest,
        ProblemKind::Refused,
        ProblemKind::IdempotencyKeyReused,
        ProblemKind::IdempotencyKeyInProgress,
        ProblemKind::InsufficientFunds,
        ProblemKind::DuplicateTransfer,
        ProblemKind::UpstreamTimeout,
        ProblemKind::NoResponse,
    ];

    pub fn id(self) -> &'static str {
        match self {
            ProblemKind::UnknownSandbox => "unknown-sandbox",
            ProblemKind::UnknownEvent => "unknown-event",
            ProblemKind::UnknownClass => "unknown-class",
            ProblemKind::NotYourClass => "not-your-class",
            ProblemKind::NameTaken => "name-taken",
            ProblemKind::NameLookAlike => "name-look-alike",
            ProblemKind::HandOverSpent => "hand-over-spent",
            ProblemKind::LockedByClass => "locked-by-class",
            ProblemKind::FrozenByClass => "frozen-by-class",
            ProblemKind::UnknownScenario => "unknown-scenario",
            ProblemKind::ForeignOrigin => "foreign-origin",
            ProblemKind::UnsupportedMediaType => "unsupported-media-type",
            ProblemKind::UnknownUser => "unknown-user",
            ProblemKind::TooManyRequests => "too-many-requests",
            ProblemKind::RunDiverged => "run-diverged",
            ProblemKind::SandboxExists => "sandbox-exists",
            ProblemKind::SelfTransfer => "self-transfer",
            ProblemKind::InvalidIdempotencyKey => "invalid-idempotency-key",
            ProblemKind::InvalidField => "invalid-field",
            ProblemKind::InvalidJson => "invalid-json",
            ProblemKind::DuplicateField => "duplicate-field",
            ProblemKind::DuplicateHeader => "duplicate-header",
            ProblemKind::BodyTooLarge => "body-too-large",
            ProblemKind::InvalidLastEventId => "invalid-last-event-id",
            ProblemKind::TooManySandboxes => "too-many-sandboxes",
            ProblemKind::TooManyStreams => "too-many-streams",
            ProblemKind::SandboxUnavailable => "sandbox-unavailable",
            ProblemKind::DayBusy => "day-busy",
            ProblemKind::UnknownDay => "unknown-day",
            ProblemKind::BrokerRefused => "broker-refused",
            ProblemKind::Internal => "internal",
            ProblemKind::MethodNotAllowed => "method-not-allowed",
            ProblemKind::NoSuchRoute => "no-such-route",
            ProblemKind::BadRequest => "bad-request",
            ProblemKind::Refused => "refused",
            ProblemKind::IdempotencyKeyReused => "idempotency-key-reused",
            ProblemKind::IdempotencyKeyInProgress => "idempotency-key-in-progress",
            ProblemKind::InsufficientFunds => "insufficient-funds",
            ProblemKind::DuplicateTransfer => "duplicate-transfer",
            ProblemKind::UpstreamTimeout => "upstream-timeout",
            ProblemKind::NoResponse => "no-response",
        }
    }

    /// The HTTP status every answer of this kind carries, on the REST API and on the server
    /// functions alike: one mapping, so a refusal is never a 5xx on one path and a 4xx on the
    /// other. A 5xx is a failure of the server or of what stands behind it, never a refusal.
    pub fn status(self) -> u16 {
        use ProblemKind::*;
        match self {
            UnknownSandbox | UnknownEvent | UnknownClass | UnknownScenario | UnknownDay
            | NoSuchRoute => 404,
            NotYourClass | ForeignOrigin => 403,
            NameTaken
            | NameLookAlike
            | SandboxExists
            | IdempotencyKeyInProgress
            | DuplicateTransfer => 409,
            LockedByClass | FrozenByClass => 423,
            HandOverSpent => 410,
            UnsupportedMediaType => 415,
            UnknownUser => 401,
            TooManyRequests => 429,
            RunDiverged | SelfTransfer | IdempotencyKeyReused | InsufficientFunds => 422,
            InvalidIdempotencyKey
            | InvalidField
            | InvalidJson
            | DuplicateField
            | DuplicateHeader
            | InvalidLastEventId
            | BadRequest => 400,
            BodyTooLarge => 413,
            MethodNotAllowed => 405,
            Refused => 400,
            TooManySandboxes | TooManyStreams | SandboxUnavailable | DayBusy => 503,
            BrokerRefused | Internal => 500,
            UpstreamTimeout | NoResponse => 504,
        }
    }

    /// The kind a `type` URI (or a bare id) names.
    pub fn from_id(id: &str) -> Option<ProblemKind> {
        let id = id.strip_prefix("urn:pocketpay-lab:problem:").unwrap_or(id);
        ProblemKind::ALL.into_iter().find(|k| k.id() == id)
    }

    /// The problem's `type`.
    pub fn uri(self) -> String {
        format!("urn:pocketpay-lab:problem:{}", self.id())
    }
}

/// A problem+json body: `type` names the error, `detail` says what happened in words.
pub fn problem_body(status: u16, kind: ProblemKind, detail: &str) -> serde_json::Value {
    let title = match status {
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        409 => "Conflict",
        410 => "Gone",
        413 => "Payload Too Large",
        415 => "Unsupported Media Type",
        422 => "Unprocessable Content",
        423 => "Locked",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        _ => "Error",
    };
    serde_json::json!({
        "type": kind.uri(),
        "title": title,
        "status": status,
        "detail": detail,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_has_its_own_id() {
        let mut ids: Vec<&str> = ProblemKind::ALL.iter().map(|k| k.id()).collect();
        ids.sort();
        ids.dedup();
        assert_eq!(ids.len(), ProblemKind::ALL.len());
        assert_eq!(
            problem_body(404, ProblemKind::NoSuchRoute, "none")["type"],
            "urn:pocketpay-lab:problem:no-such-route"
        );
        for k in ProblemKind::ALL {
            assert_eq!(ProblemKind::from_id(&k.uri()), Some(k));
            assert!((400..600).contains(&k.status()), "{k:?}");
        }
    }

    #[test]
    fn a_refusal_is_a_4xx_and_only_a_failure_a_5xx() {
        for k in [
            ProblemKind::NotYourClass,
            ProblemKind::LockedByClass,
            ProblemKind::FrozenByClass,
            ProblemKind::TooManyRequests,
            ProblemKind::InvalidField,
            ProblemKind::NameLookAlike,
        ] {
            assert!((400..500).contains(&k.status()), "{k:?}");
        }
        assert_eq!(ProblemKind::NotYourClass.status(), 403);
        assert_eq!(ProblemKind::LockedByClass.status(), 423);
        assert_eq!(ProblemKind::Internal.status(), 500);
    }
}
