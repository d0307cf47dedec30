//! The payment API (`POST …/transfers`, through the sandbox's network and load balancer) and
//! the app's signals (`POST …/app-events`).

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use std::time::Duration;

use super::body::StrictJson;
use super::headers::{Intent, User, Wait};
use super::path::Sandbox;
use super::shapes;
use crate::domain::phone::AppSignal;
use crate::domain::transfer::IdempotencyKey;
use crate::domain::ClockMode;
use crate::domain::{Receipt, TransferBody};
use crate::server::calls::{ApiReply, TransferRequest};
use crate::server::error::LabError;

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
// Checked in this order: the sandbox, the user, the key, the intent, the wait, the body, then
// whether the user may send it.
pub(super) async fn transfer(
    Sandbox(sandbox): Sandbox,
    User(user): User,
    key: IdempotencyKey,
    Intent(intent): Intent,
    Wait(wait): Wait,
    StrictJson(body): StrictJson<TransferBody>,
) -> Result<Response, LabError> {
    body.sent_by(user)?;
    let intent = intent.unwrap_or_else(|| key.to_string());
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
    Sandbox(sandbox): Sandbox,
    StrictJson(signal): StrictJson<AppSignal>,
) -> Result<StatusCode, LabError> {
    sandbox.app_signal(signal).await?;
    Ok(StatusCode::NO_CONTENT)
}
