//! The payment API (`POST …/transfers`, through the sandbox's network and load balancer) and
//! the app's signals (`POST …/app-events`).

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::State;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};

use super::problem::json_body;
use super::{shapes, SandboxId};
use crate::domain::transfer::IdempotencyKey;
use crate::domain::{transfer, FieldError, Receipt, TransferBody};
use crate::server::calls::TransferRequest;
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
    ),
    request_body = shapes::TransferBody,
    responses(
        (status = 201, description = "Sent; a replay carries `Idempotent-Replayed: true` and the stored body byte for byte", body = Receipt,
            headers(("Idempotent-Replayed" = String, description = "`true` on a replay of a stored answer"))),
        (status = 400, description = "Bad key, intent or body; nothing claimed", body = shapes::Problem, content_type = "application/problem+json"),
        (status = 401, description = "Unknown user", body = shapes::Problem, content_type = "application/problem+json"),
        (status = 403, response = shapes::ForeignOrigin),
        (status = 404, response = shapes::NotFound),
        (status = 409, description = "The same key is in progress, or the ledger already holds this transfer", body = shapes::Problem, content_type = "application/problem+json",
            headers(("Idempotent-Replayed" = String, description = "`true` on a replay of a stored answer"))),
        (status = 413, response = shapes::TooLarge),
        (status = 415, response = shapes::NotJson),
        (status = 422, description = "Well formed but refused: to the sender itself (nothing claimed), the same key with another body, or insufficient funds (stored and replayed)", body = shapes::Problem, content_type = "application/problem+json",
            headers(("Idempotent-Replayed" = String, description = "`true` on a replay of a stored answer"))),
        (status = 429, response = shapes::TooFast),
        (status = 503, response = shapes::Unavailable),
        (status = 504, description = "No answer in time: the outcome is unknown", body = shapes::Problem, content_type = "application/problem+json"),
    ))]
pub(super) async fn transfer(
    State(sandboxes): State<Sandboxes>,
    SandboxId(id): SandboxId,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, LabError> {
    let sandbox = sandboxes.get(&id).await?;
    let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    let user =
        transfer::user_from_authorization(header("authorization")).ok_or(LabError::Unauthorized)?;
    let key = match headers.get("idempotency-key") {
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
    let intent = match headers.get("lab-intent") {
        None => key.to_string(),
        Some(v) => v
            .to_str()
            .ok()
            .and_then(crate::server::sandboxes::sandbox_id)
            .map(|u| u.to_string())
            .ok_or_else(|| FieldError::new("Lab-Intent", "expected a UUID (8-4-4-4-12 hex)"))?,
    };
    let body = TransferBody::parse_shape(&json_body(body, false)?)?;
    if body.to == user {
        return Err(LabError::SelfTransfer);
    }
    let answer = sandbox
        .start_transfer(TransferRequest::new(user, key, body, intent))
        .await?;
    let reply = match sandboxes.config().transfer_wait {
        None => answer.await?,
        Some(wait) => tokio::time::timeout(wait, answer)
            .await
            .unwrap_or_else(|_| Ok(no_answer_in_time()))?,
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

/// What a caller gets when the server stops waiting (`LAB_TRANSFER_WAIT_SECS`): the same
/// `no-response` a lost answer gives, for the outcome is just as unknown.
pub(super) fn no_answer_in_time() -> crate::server::calls::ApiReply {
    crate::server::calls::ApiReply::problem(
        504,
        "no-response",
        "no answer came back in time: the transfer may or may not have happened",
    )
}

/// What Shimul's app did with a tap, for the button and app lanes of the timeline:
/// `{"signal": "tap", "key": "…", "key_kept": false}` or `{"signal": "tap_ignored", "key"?: "…"}`.
#[utoipa::path(post, path = "/api/sandboxes/{id}/app-events", tag = "payments",
    params(shapes::SandboxPath),
    request_body = shapes::AppEventBody,
    responses(
        (status = 204, description = "On the timeline"),
        (status = 400, response = shapes::BadRequest),
        (status = 403, response = shapes::ForeignOrigin),
        (status = 404, response = shapes::NotFound),
        (status = 413, response = shapes::TooLarge),
        (status = 415, response = shapes::NotJson),
        (status = 429, response = shapes::TooFast),
        (status = 503, response = shapes::Unavailable),
    ))]
pub(super) async fn app_event(
    State(sandboxes): State<Sandboxes>,
    SandboxId(id): SandboxId,
    body: Result<Bytes, BytesRejection>,
) -> Result<StatusCode, LabError> {
    let sandbox = sandboxes.get(&id).await?;
    let signal = crate::domain::phone::AppSignal::parse(&json_body(body, false)?)?;
    sandbox.app_signal(signal).await?;
    Ok(StatusCode::NO_CONTENT)
}
