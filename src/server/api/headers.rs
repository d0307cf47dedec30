//! The request headers the API reads, each its extractor: the payment API's bearer user
//! (`Authorization`), `Idempotency-Key`, `Lab-Intent` and `Prefer: wait=N`, and the id a
//! balancer names for a new sandbox (docs/reference.md §8). Each is refused as the contract
//! says (a header sent twice 400 `duplicate-header`, naming it), and a handler lists them in
//! the order their refusals take precedence (see `api/mod.rs`).

use std::time::Duration;

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue};

use crate::domain::transfer::{user_from_authorization, IdempotencyKey};
use crate::domain::FieldError;
use crate::server::error::LabError;
use crate::server::sandboxes::Sandboxes;

/// The value of a header the request may carry once: a second one would leave the request
/// meaning two things (two keys, two users), so it is refused, naming the header.
pub fn once<'h>(
    headers: &'h HeaderMap,
    name: &'static str,
) -> Result<Option<&'h HeaderValue>, LabError> {
    let mut values = headers.get_all(name).iter();
    let first = values.next();
    match values.next() {
        Some(_) => Err(LabError::DuplicateHeader(name)),
        None => Ok(first),
    }
}

/// The user a bearer token stands for (`Authorization: Bearer shimul`): none, or one that is
/// not a user of the sandbox, is 401 `unknown-user`.
pub struct User(pub &'static str);

impl<S: Send + Sync> FromRequestParts<S> for User {
    type Rejection = LabError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, LabError> {
        let authorization = once(&parts.headers, "Authorization")?;
        user_from_authorization(authorization.and_then(|v| v.to_str().ok()))
            .map(User)
            .ok_or(LabError::Unauthorized)
    }
}

/// The `Idempotency-Key` header, checked as the domain checks every key
/// ([`IdempotencyKey::parse`]): missing or malformed is 400 `invalid-idempotency-key`.
impl<S: Send + Sync> FromRequestParts<S> for IdempotencyKey {
    type Rejection = LabError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, LabError> {
        let Some(value) = once(&parts.headers, "Idempotency-Key")? else {
            return Ok(IdempotencyKey::parse(None)?);
        };
        let text = value
            .to_str()
            .map_err(|_| FieldError::new("Idempotency-Key", "must be printable ASCII"))?;
        // HTTP drops a header value's first and last spaces on the way, so a key that has them
        // cannot be the key its client meant.
        if text.trim_matches(' ') != text {
            return Err(
                FieldError::new("Idempotency-Key", "must not begin or end with a space").into(),
            );
        }
        Ok(IdempotencyKey::parse(Some(text))?)
    }
}

/// `Lab-Intent`: the UUID of one decision to pay, the same on every retry (ground truth for the
/// damage meter only), in its hyphenated form; `None` when the request has none, and then the
/// key stands for the intent.
pub struct Intent(pub Option<String>);

impl<S: Send + Sync> FromRequestParts<S> for Intent {
    type Rejection = LabError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, LabError> {
        let Some(value) = once(&parts.headers, "Lab-Intent")? else {
            return Ok(Intent(None));
        };
        value
            .to_str()
            .ok()
            .and_then(crate::server::sandboxes::sandbox_id)
            .map(|uuid| Intent(Some(uuid.to_string())))
            .ok_or_else(|| FieldError::new("Lab-Intent", "expected a UUID (8-4-4-4-12 hex)").into())
    }
}

/// How long the caller waits for a transfer's answer, in wall time: `Prefer: wait=N` if sent,
/// else the server's bound (`LAB_TRANSFER_WAIT_SECS`); `None`, until the answer comes.
pub struct Wait(pub Option<Duration>);

impl FromRequestParts<Sandboxes> for Wait {
    type Rejection = LabError;

    async fn from_request_parts(
        parts: &mut Parts,
        sandboxes: &Sandboxes,
    ) -> Result<Self, LabError> {
        let preferred = match once(&parts.headers, "Prefer")? {
            Some(v) => {
                Some(wait_preference(v.to_str().map_err(|_| {
                    FieldError::new("Prefer", "must be printable ASCII")
                })?)?)
            }
            None => None,
        };
        Ok(Wait(preferred.or(sandboxes.config().transfer_wait)))
    }
}

/// The id the balancer named for the sandbox this request makes (`LAB_NEW_SANDBOX_HEADER`,
/// ARCHITECTURE.md "Many servers"): `None` without one, a random id then. A malformed one is
/// 400 `invalid-field`; one already taken is refused when the sandbox is made (409).
pub struct NewSandboxId(pub Option<uuid::Uuid>);

impl FromRequestParts<Sandboxes> for NewSandboxId {
    type Rejection = LabError;

    async fn from_request_parts(
        parts: &mut Parts,
        sandboxes: &Sandboxes,
    ) -> Result<Self, LabError> {
        sandboxes.new_id(&parts.headers).map(NewSandboxId)
    }
}

/// The longest a caller may ask to wait, `Prefer: wait=86400`: a day of wall time.
pub const MAX_WAIT_SECS: u64 = 86_400;

/// `Prefer: wait=N` (RFC 7240 §4.3): the caller will wait up to N seconds of wall time for the
/// answer, 1 to [`MAX_WAIT_SECS`]. It is the one preference this API knows, so the header must
/// be exactly that: anything else (another preference beside it, `wait` twice, a number out of
/// range) is refused rather than half understood.
pub fn wait_preference(value: &str) -> Result<Duration, FieldError> {
    let secs = value
        .trim()
        .strip_prefix("wait=")
        .filter(|n| !n.starts_with('0') && !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        .and_then(|n| n.parse::<u64>().ok())
        .filter(|n| (1..=MAX_WAIT_SECS).contains(n))
        .ok_or_else(|| {
            FieldError::new(
                "Prefer",
                format!(
                    "expected wait=N, N a whole number of seconds from 1 to {MAX_WAIT_SECS} (the one preference this API knows)"
                ),
            )
        })?;
    Ok(Duration::from_secs(secs))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefer_is_exactly_wait_in_range() {
        for (value, secs) in [("wait=1", 1), ("wait=86400", 86_400), (" wait=30 ", 30)] {
            assert_eq!(
                wait_preference(value).unwrap(),
                Duration::from_secs(secs),
                "{value}"
            );
        }
        for value in [
            "wait=0",
            "wait=05",
            "wait=86401",
            "wait=",
            "wait=1.5",
            "wait=-1",
            "wait=99999999999999999999",
            "respond-async, wait=5",
            "wait=5, wait=50",
            "WAIT=5",
            "",
        ] {
            assert_eq!(
                wait_preference(value).unwrap_err().field,
                "Prefer",
                "{value}"
            );
        }
    }
}
