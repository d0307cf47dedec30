//! The HTTP API of PRODUCT.md section 8: thin handlers that parse, call the sandbox, and answer
//! JSON or problem+json.

pub mod problem;
pub mod sse;

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{DefaultBodyLimit, Path, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post, put};
use axum::{Json, Router};
use serde_json::json;

use crate::domain::{
    expect_object, transfer, ClockCommand, ClockMode, FieldError, SandboxState, TransferBody,
};
use crate::server::error::LabError;
use crate::server::lab::Lab;
use crate::server::payments::TransferRequest;
use problem::{json_body, BODY_LIMIT};

/// Every `/api` route, over the lab.
pub fn router() -> Router<Lab> {
    Router::new()
        .route("/api/sandboxes", post(create))
        .route("/api/sandboxes/{id}/state", get(state))
        .route("/api/sandboxes/{id}/safeguards", put(safeguards))
        .route("/api/sandboxes/{id}/faults", put(faults))
        .route("/api/sandboxes/{id}/clock", post(clock))
        .route("/api/sandboxes/{id}/reset", post(reset))
        .route("/api/sandboxes/{id}/events", get(sse::events))
        .route("/api/sandboxes/{id}/transfers", post(transfer))
        .route("/api/{*rest}", axum::routing::any(no_such_route))
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
}

/// `POST /api/sandboxes` `{"seed"?: u64, "paused"?: bool}` → 201 `{"id"}`. A sandbox starts live
/// at ×1; `"paused": true` starts it paused at 09:00 on day 1, so that a scripted run (a test, a
/// replay) begins at an exact virtual time.
async fn create(
    State(lab): State<Lab>,
    body: Result<Bytes, BytesRejection>,
) -> Result<impl IntoResponse, LabError> {
    let body = json_body(body, true)?;
    let mut seed = None;
    let mut paused = false;
    for (key, value) in expect_object(&body)? {
        match key.as_str() {
            "paused" => paused = crate::domain::boolean("paused", value)?,
            "seed" => {
                seed = Some(value.as_u64().ok_or_else(|| {
                    FieldError::new(
                        "seed",
                        "expected a whole number from 0 to 18446744073709551615",
                    )
                })?)
            }
            _ => {
                return Err(
                    FieldError::new(key.clone(), "unknown field: expected seed or paused").into(),
                )
            }
        }
    }
    let mode = if paused {
        ClockMode::Paused
    } else {
        ClockMode::Live
    };
    let sandbox = lab.create(seed, mode).await?;
    Ok((
        StatusCode::CREATED,
        [(
            axum::http::header::LOCATION,
            format!("/api/sandboxes/{}", sandbox.id),
        )],
        Json(json!({"id": sandbox.id})),
    ))
}

async fn state(
    State(lab): State<Lab>,
    Path(id): Path<String>,
) -> Result<Json<SandboxState>, LabError> {
    Ok(Json(lab.get(&id).await?.state().await?))
}

async fn safeguards(
    State(lab): State<Lab>,
    Path(id): Path<String>,
    body: Result<Bytes, BytesRejection>,
) -> Result<impl IntoResponse, LabError> {
    let sandbox = lab.get(&id).await?;
    let body = json_body(body, false)?;
    Ok(Json(sandbox.set_safeguards(body).await?))
}

async fn faults(
    State(lab): State<Lab>,
    Path(id): Path<String>,
    body: Result<Bytes, BytesRejection>,
) -> Result<impl IntoResponse, LabError> {
    let sandbox = lab.get(&id).await?;
    let body = json_body(body, false)?;
    Ok(Json(sandbox.set_faults(body).await?))
}

/// `POST …/clock` with any of `mode`, `speed`, `step`, `advance_seconds` → the clock after.
async fn clock(
    State(lab): State<Lab>,
    Path(id): Path<String>,
    body: Result<Bytes, BytesRejection>,
) -> Result<impl IntoResponse, LabError> {
    let sandbox = lab.get(&id).await?;
    let commands = ClockCommand::parse_body(&json_body(body, false)?)?;
    Ok(Json(sandbox.clock(commands).await?))
}

async fn reset(State(lab): State<Lab>, Path(id): Path<String>) -> Result<StatusCode, LabError> {
    lab.get(&id).await?.reset().await?;
    Ok(StatusCode::NO_CONTENT)
}

/// `POST …/transfers`: the payment API, through the sandbox's network and load balancer.
/// Everything checked here is refused before anything is claimed.
async fn transfer(
    State(lab): State<Lab>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, LabError> {
    let sandbox = lab.get(&id).await?;
    let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    let user =
        transfer::user_from_authorization(header("authorization")).ok_or(LabError::Unauthorized)?;
    let key = match headers.get("idempotency-key") {
        Some(v) => transfer::parse_idempotency_key(Some(
            v.to_str()
                .map_err(|_| FieldError::new("Idempotency-Key", "must be printable ASCII"))?,
        ))?,
        None => transfer::parse_idempotency_key(None)?,
    };
    let intent = match headers.get("lab-intent") {
        None => key.clone(),
        Some(v) => v
            .to_str()
            .ok()
            .and_then(|s| uuid::Uuid::parse_str(s.trim()).ok())
            .map(|u| u.to_string())
            .ok_or_else(|| FieldError::new("Lab-Intent", "expected a UUID"))?,
    };
    let body = TransferBody::parse(&json_body(body, false)?, user)?;
    let reply = sandbox
        .transfer(TransferRequest::new(user, key, body, intent))
        .await?;
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

async fn no_such_route() -> impl IntoResponse {
    let mut r = LabError::NotFound.into_response();
    *r.body_mut() = json!({
        "type": problem::problem_type("no-such-route"),
        "title": "Not Found",
        "status": 404,
        "detail": "there is no API route at this path",
    })
    .to_string()
    .into();
    r
}
