//! The payment API (`POST …/transfers`, through the sandbox's network and load balancer) and
//! the app's signals (`POST …/app-events`).

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::State;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use std::time::Duration;

use super::problem::json_body;
use super::{shapes, SandboxId};
use crate::domain::transfer::IdempotencyKey;
use crate::domain::ClockMode;
use crate::domain::{transfer, FieldError, Receipt, TransferBody};
use crate::server::calls::{ApiReply, TransferRequest};
use crate::server::error::LabError;
use crate::server::sandboxes::Sandboxes;

/// `POST …/transfers`: the payment API, through the sandbox's network and load balancer.
/// Everything checked here is refused before anything is claimed.
#[utoipa::path(post, path = "/api/sandboxes/{id}/transfers", tag = "payments",
    params(
        shapes::SandboxPath,
        ("Authorization" = String, Header, description = "`Bearer shimul` or `Bearer tithi` (the key is scoped to this user)"),
        ("Idempotency-Key" = String, Header, description = "1–255 printable ASCII characters, neither first nor last a space (HTTP drops those)"),
        ("Lab-Intent" = Option<String>, Header, description = "UUID of the decision to pay, unchanged across retries (ground truth for the damage meter)"),
        ("Prefer" = Option<String>, Header, description = "Exactly `wait=N` (RFC 7240): wait up to N s of wall time (1–86400) for the answer instead of the server's bound (LAB_TRANSFER_WAIT_SECS, default 10 s); anything else is 400"),
    ),
    request_body = shapes::TransferBody,
    responses(
        (status = 201, description = "Sent; a replay carries `Idempotent-Replayed: true` and the stored body byte for byte", body = Receipt,
            headers(("Idempotent-Replayed" = String, description = "`true` on a replay of a stored answer"))),
        (status = 400, description = "Bad key, intent, Prefer or body (`invalid-idempotency-key`, `invalid-field`, `invalid-json`, `duplicate-field` for a body member named twice), or Authorization, Idempotency-Key, Lab-Intent or Prefer sent twice (`duplicate-header`); each names what in `field`; nothing claimed", body = shapes::Problem, content_type = "application/problem+json"),
        (status = 401, description = "Unknown user", body = shapes::Problem, content_type = "application/problem+json"),
        (status = 409, description = "The same key is in progress, or the ledger already holds this transfer", body = shapes::Problem, content_type = "application/problem+json",
            headers(("Idempotent-Replayed" = String, description = "`true` on a replay of a stored answer"))),
        (status = 422, description = "Well formed but refused: to the sender itself (nothing claimed), the same key with another body, or insufficient funds (stored and replayed)", body = shapes::Problem, content_type = "application/problem+json",
            headers(("Idempotent-Replayed" = String, description = "`true` on a replay of a stored answer"))),
        (status = 504, description = "No answer in time (`no-response`): the sandbox's network lost the request or the answer, or the server stopped waiting after Prefer's wait or its bound (then `waited_seconds` says how long, and `clock_paused` whether the sandbox's clock is paused, so the transfer waits for it); the outcome is unknown and the transfer may go on: retry with the same key", body = shapes::Problem, content_type = "application/problem+json"),
    ))]
pub(super) async fn transfer(
    State(sandboxes): State<Sandboxes>,
    SandboxId(id): SandboxId,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, LabError> {
    let sandbox = sandboxes.by_id(id).await?;
    let authorization = once(&headers, "Authorization")?;
    let user = transfer::user_from_authorization(authorization.and_then(|v| v.to_str().ok()))
        .ok_or(LabError::Unauthorized)?;
    let key = match once(&headers, "Idempotency-Key")? {
        Some(v) => {
            let text = v
                .to_str()
                .map_err(|_| FieldError::new("Idempotency-Key", "must be printable ASCII"))?;
            // HTTP drops a header value's first and last spaces on the way, so a key that has
            // them cannot be the key its client meant.
            if text.trim_matches(' ') != text {
                return Err(FieldError::new(
                    "Idempotency-Key",
                    "must not begin or end with a space",
                )
                .into());
            }
            IdempotencyKey::parse(Some(text))?
        }
        None => IdempotencyKey::parse(None)?,
    };
    let intent = match once(&headers, "Lab-Intent")? {
        None => key.to_string(),
        Some(v) => v
            .to_str()
            .ok()
            .and_then(crate::server::sandboxes::sandbox_id)
            .map(|u| u.to_string())
            .ok_or_else(|| FieldError::new("Lab-Intent", "expected a UUID (8-4-4-4-12 hex)"))?,
    };
    let wait = match once(&headers, "Prefer")? {
        Some(v) => {
            Some(wait_preference(v.to_str().map_err(|_| {
                FieldError::new("Prefer", "must be printable ASCII")
            })?)?)
        }
        None => None,
    }
    .or(sandboxes.config().transfer_wait);
    let body = TransferBody::parse_shape(&json_body(body, false)?)?;
    body.sent_by(user)?;
    let clock = sandbox.watch_clock();
    let answer = sandbox
        .start_transfer(TransferRequest::new(user, key, body, intent))
        .await?;
    let reply = match wait {
        None => answer.await?,
        Some(wait) => match tokio::time::timeout(wait, answer).await {
            Ok(reply) => reply?,
            Err(_) => no_answer_in_time(wait, clock.borrow().mode == ClockMode::Paused),
        },
    };
    let mut response = (
        StatusCode::from_u16(reply.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
        [(header::CONTENT_TYPE, reply.content_type())],
        reply.body,
    )
        .into_response();
    if reply.replayed {
        response
            .headers_mut()
            .insert("idempotent-replayed", HeaderValue::from_static("true"));
    }
    Ok(response)
}

/// The value of a header the request may carry once: a second one would leave the request
/// meaning two things (two keys, two users), so it is refused, naming the header.
pub(super) fn once<'h>(
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

/// What a caller gets when the server stops waiting (`Prefer: wait`, else
/// `LAB_TRANSFER_WAIT_SECS`): the same `no-response` a lost answer gives, for the outcome is
/// just as unknown, saying how long it waited and, if so, that the sandbox's clock is paused
/// (nothing moves until it runs or steps).
pub(super) fn no_answer_in_time(waited: Duration, paused: bool) -> ApiReply {
    let secs = waited.as_secs_f64();
    let detail = if paused {
        format!(
            "no answer after {secs} s of waiting, because the sandbox's clock is paused: the \
             transfer goes on when the clock runs or steps (POST …/clock); retry with the same \
             Idempotency-Key for its answer, or send Prefer: wait=N to wait longer"
        )
    } else {
        format!(
            "no answer after {secs} s of waiting: the transfer goes on in the sandbox and may or \
             may not happen; retry with the same Idempotency-Key for its answer, or send \
             Prefer: wait=N to wait longer"
        )
    };
    ApiReply::no_response(&detail, Some((secs, paused)))
}

/// What Shimul's app did with a tap, for the button and app lanes of the timeline:
/// `{"signal": "tap", "key": "…", "key_kept": false}` or `{"signal": "tap_ignored", "key"?: "…"}`.
#[utoipa::path(post, path = "/api/sandboxes/{id}/app-events", tag = "payments",
    params(shapes::SandboxPath),
    request_body = shapes::AppEventBody,
    responses(
        (status = 204, description = "On the timeline"),
    ))]
pub(super) async fn app_event(
    State(sandboxes): State<Sandboxes>,
    SandboxId(id): SandboxId,
    body: Result<Bytes, BytesRejection>,
) -> Result<StatusCode, LabError> {
    let sandbox = sandboxes.by_id(id).await?;
    let signal = crate::domain::phone::AppSignal::parse(&json_body(body, false)?)?;
    sandbox.app_signal(signal).await?;
    Ok(StatusCode::NO_CONTENT)
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
