//! The lab's vocabulary: pure types shared by the server, the browser and the tests.
//!
//! Nothing here does I/O or knows about Leptos or sqlx, so it compiles for the server and for
//! wasm32 alike. Every id matches docs/reference.md: a layer, a safeguard, a fault or an outcome has one
//! name everywhere.

pub mod calc;
pub mod class;
pub mod clock;
pub mod course;
pub mod day;
pub mod event;
pub mod explain;
pub mod fault;
pub mod generals;
pub mod glossary;
pub mod layer;
pub mod natural;
pub mod phone;
pub mod phone_app;
pub mod pipeline;
pub mod problem;
pub mod quiz;
pub mod realworld;
pub mod run;
pub mod safeguard;
pub mod scenario;
pub mod state;
pub mod transfer;
pub mod typed;

pub use clock::{ClockCommand, ClockMode, ClockState};
pub use event::{EventKind, Outcome, TimelineEvent};
pub use fault::{CrashMode, CrashPoint, Faults, FaultsPatch};
pub use layer::Layer;
pub use problem::{problem_body, ProblemKind};
pub use safeguard::{Promise, Safeguard, SafeguardValue, Safeguards, SafeguardsPatch, SwitchGroup};
pub use state::{Balances, Damage, SandboxState, Verdict};
pub use transfer::{Receipt, TransferBody};

/// A request body field that failed validation: which field, and why.
///
/// Nothing is applied when any field of a body fails, so a caller can fix the one field named
/// and send the whole body again.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {message}")]
pub struct FieldError {
    /// The JSON field, dotted for nested maps (`crash.api_after_claim`).
    pub field: String,
    pub message: String,
}

impl FieldError {
    pub fn new(field: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            field: field.into(),
            message: message.into(),
        }
    }
}

/// A typed number's digits as ASCII: Bangla digits (০–৯) become 0–9, everything else stays,
/// for the parsers of amounts, quiz answers and calculator fields to read either script.
pub fn ascii_digits(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            '০'..='৯' => char::from(b'0' + (c as u32 - '০' as u32) as u8),
            _ => c,
        })
        .collect()
}

/// Parses a JSON body that must be an object, naming the problem when it is not.
pub fn expect_object(
    body: &serde_json::Value,
) -> Result<&serde_json::Map<String, serde_json::Value>, FieldError> {
    body.as_object()
        .ok_or_else(|| FieldError::new("(body)", "expected a JSON object"))
}

/// Reads a whole number in `min..=max` from a JSON value.
pub fn int_in(
    field: &str,
    value: &serde_json::Value,
    min: i64,
    max: i64,
) -> Result<i64, FieldError> {
    let n = value.as_i64().ok_or_else(|| {
        FieldError::new(
            field,
            format!("expected a whole number from {min} to {max}"),
        )
    })?;
    if (min..=max).contains(&n) {
        Ok(n)
    } else {
        Err(FieldError::new(
            field,
            format!("{n} is out of range: expected {min} to {max}"),
        ))
    }
}

/// Reads a boolean from a JSON value.
pub fn boolean(field: &str, value: &serde_json::Value) -> Result<bool, FieldError> {
    value
        .as_bool()
        .ok_or_else(|| FieldError::new(field, "expected true or false"))
}
