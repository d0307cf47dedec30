//! What the instructor puts on every student's screen: the cue (a pushed preset and a message)
//! and what a push did.

use serde::{Deserialize, Serialize};

use super::*;

/// A one-line message to every student, at most this many characters.
pub const MESSAGE_MAX: usize = 200;

/// What the instructor last put on every student's screen (docs/reference.md §10): the chapter
/// a pushed preset opens, at the step that loads it, and a one-line message. Each carries when
/// it was sent (server wall clock, ms), so a screen acts on each one once.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cue {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open: Option<CueOpen>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<CueMessage>,
}

impl Cue {
    /// Nothing said: a sandbox in no class, or a class that has not spoken.
    pub fn is_empty(&self) -> bool {
        self.open.is_none() && self.message.is_none()
    }
}

/// A chapter to open at a step (0-based), after a push of `scenario` in `variant`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CueOpen {
    pub chapter: u8,
    pub step: u8,
    pub scenario: u8,
    pub variant: Variant,
    pub at_ms: i64,
}

impl CueOpen {
    /// The chapter that teaches this preset, at its step, if one does.
    pub fn of(scenario: u8, variant: Variant, at_ms: i64) -> Option<CueOpen> {
        let (chapter, step) = course::opening(scenario, variant)?;
        Some(CueOpen {
            chapter,
            step: step as u8,
            scenario,
            variant,
            at_ms,
        })
    }
}

/// The instructor's words to the class, as typed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CueMessage {
    pub text: String,
    pub at_ms: i64,
}

/// Reads a message to the class: one line, trimmed, 1 to [`MESSAGE_MAX`] characters, no
/// control characters; refused naming the field `text`.
pub fn message_text(text: &str) -> Result<String, FieldError> {
    let text = text.trim();
    if text.is_empty() {
        return Err(FieldError::new("text", "write the message first"));
    }
    if text.chars().count() > MESSAGE_MAX {
        return Err(FieldError::new(
            "text",
            format!("a message is at most {MESSAGE_MAX} characters"),
        ));
    }
    if text.chars().any(char::is_control) {
        return Err(FieldError::new("text", "a message is one line"));
    }
    Ok(text.to_owned())
}

/// One line of the class's history: what the instructor sent, when, and how many of the
/// class's sandboxes took it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sent {
    pub at_ms: i64,
    pub what: SentWhat,
    pub took: usize,
    pub of: usize,
}

/// What was sent: a push, a message, or both at once.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SentWhat {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub push: Option<Push>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// What a push did: how many of the class's sandboxes took it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PushReport {
    pub took: usize,
    pub of: usize,
}
