//! The HTTP API of PRODUCT.md section 8: thin handlers that parse, call the sandbox, and answer
//! JSON or problem+json.

pub mod openapi;
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

use crate::domain::pipeline::Consumer;
use crate::domain::run::Run;
use crate::domain::{
    expect_object, transfer, ClockCommand, ClockMode, ClockState, FieldError, Receipt,
    SandboxState, TransferBody,
};
use crate::server::error::LabError;
use crate::server::lab::Lab;
use crate::server::payments::TransferRequest;
use problem::{json_body, BODY_LIMIT};

/// Every `/api` route, over the lab, each sandbox's requests rate-limited.
pub fn router(lab: &Lab) -> Router<Lab> {
    Router::new()
        .route("/api/sandboxes", post(create))
        .route("/api/sandboxes/{id}/state", get(state))
        .route("/api/sandboxes/{id}/safeguards", put(safeguards))
        .route("/api/sandboxes/{id}/faults", put(faults))
        .route("/api/sandboxes/{id}/clock", post(clock))
        .route("/api/sandboxes/{id}/reset", post(reset))
        .route("/api/sandboxes/{id}/events", get(sse::events))
        .route("/api/sandboxes/{id}/transfers", post(transfer))
        .route("/api/sandboxes/{id}/app-events", post(app_event))
        .route("/api/sandboxes/{id}/replay", post(replay))
        .route("/api/sandboxes/{id}/run", get(export_run))
        .route("/api/sandboxes/{id}/check", get(check))
        .route("/api/sandboxes/{id}/state-at/{event}", get(state_at))
        .route("/api/runs", post(import_run))
        .route("/api/openapi.json", get(openapi_json))
        .route("/api/{*rest}", axum::routing::any(no_such_route))
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
        .route_layer(axum::middleware::from_fn_with_state(
            lab.clone(),
            rate_limit,
        ))
}

/// Each sandbox's requests pass its token bucket; past it, 429 with Retry-After.
async fn rate_limit(
    State(lab): State<Lab>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    let sandbox = request
        .uri()
        .path()
        .strip_prefix("/api/sandboxes/")
        .and_then(|rest| rest.split('/').next())
        .map(str::to_owned);
    if let Some(id) = sandbox {
        if let Err(e) = lab.admit(&id) {
            return e.into_response();
        }
    }
    next.run(request).await
}

/// `POST /api/sandboxes` `{"seed"?: u64, "paused"?: bool}` → 201 `{"id"}`. A sandbox starts live
/// at ×1; `"paused": true` starts it paused at 09:00 on day 1, so that a scripted run (a test, a
/// replay) begins at an exact virtual time.
#[utoipa::path(post, path = "/api/sandboxes", tag = "sandboxes",
    request_body(content = Object, description = "`{\"seed\"?: u64, \"paused\"?: bool}`; may be empty"),
    responses(
        (status = 201, description = "Made, at the lesson's start", body = openapi::Created),
        (status = 400, description = "A bad field", body = openapi::Problem, content_type = "application/problem+json"),
        (status = 503, description = "The server holds its limit of sandboxes (Retry-After)", body = openapi::Problem, content_type = "application/problem+json"),
    ))]
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

/// The whole sandbox: clock, safeguards, faults, balances, every table, damage.
#[utoipa::path(get, path = "/api/sandboxes/{id}/state", tag = "sandboxes",
    params(("id" = String, Path, description = "Sandbox id (UUID)")),
    responses(
        (status = 200, body = SandboxState),
        (status = 404, body = openapi::Problem, content_type = "application/problem+json"),
    ))]
async fn state(
    State(lab): State<Lab>,
    Path(id): Path<String>,
) -> Result<Json<SandboxState>, LabError> {
    Ok(Json(lab.get(&id).await?.state().await?))
}

/// Switches safeguards (any subset of the ids of PRODUCT.md section 3); all or nothing.
#[utoipa::path(put, path = "/api/sandboxes/{id}/safeguards", tag = "controls",
    params(("id" = String, Path, description = "Sandbox id (UUID)")),
    request_body(content = Object, description = "e.g. `{\"atomic_claim\": false, \"window_hours\": 24}`"),
    responses(
        (status = 200, description = "Every safeguard after the change", body = Object),
        (status = 400, body = openapi::Problem, content_type = "application/problem+json"),
        (status = 404, body = openapi::Problem, content_type = "application/problem+json"),
    ))]
async fn safeguards(
    State(lab): State<Lab>,
    Path(id): Path<String>,
    body: Result<Bytes, BytesRejection>,
) -> Result<impl IntoResponse, LabError> {
    let sandbox = lab.get(&id).await?;
    let body = json_body(body, false)?;
    Ok(Json(sandbox.set_safeguards(body).await?))
}

/// Sets faults (any subset of the ids of PRODUCT.md section 4); all or nothing.
#[utoipa::path(put, path = "/api/sandboxes/{id}/faults", tag = "controls",
    params(("id" = String, Path, description = "Sandbox id (UUID)")),
    request_body(content = Object, description = "e.g. `{\"response_loss_pct\": 100, \"crash\": {\"api_after_claim\": \"once\"}}`"),
    responses(
        (status = 200, description = "Every fault after the change", body = Object),
        (status = 400, body = openapi::Problem, content_type = "application/problem+json"),
        (status = 404, body = openapi::Problem, content_type = "application/problem+json"),
    ))]
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
#[utoipa::path(post, path = "/api/sandboxes/{id}/clock", tag = "controls",
    params(("id" = String, Path, description = "Sandbox id (UUID)")),
    request_body(content = Object, description = "Any of `{\"mode\": \"live\"|\"paused\", \"speed\": 0.1–10, \"step\": true, \"advance_seconds\": n}`"),
    responses(
        (status = 200, body = ClockState),
        (status = 400, body = openapi::Problem, content_type = "application/problem+json"),
        (status = 404, body = openapi::Problem, content_type = "application/problem+json"),
    ))]
async fn clock(
    State(lab): State<Lab>,
    Path(id): Path<String>,
    body: Result<Bytes, BytesRejection>,
) -> Result<impl IntoResponse, LabError> {
    let sandbox = lab.get(&id).await?;
    let commands = ClockCommand::parse_body(&json_body(body, false)?)?;
    Ok(Json(sandbox.clock(commands).await?))
}

/// Back to the lesson's start: Shimul ৳2,000, Tithi ৳0, empty tables, default settings.
#[utoipa::path(post, path = "/api/sandboxes/{id}/reset", tag = "controls",
    params(("id" = String, Path, description = "Sandbox id (UUID)")),
    responses(
        (status = 204, description = "Reset"),
        (status = 404, body = openapi::Problem, content_type = "application/problem+json"),
    ))]
async fn reset(State(lab): State<Lab>, Path(id): Path<String>) -> Result<StatusCode, LabError> {
    lab.get(&id).await?.reset().await?;
    Ok(StatusCode::NO_CONTENT)
}

/// `POST …/transfers`: the payment API, through the sandbox's network and load balancer.
/// Everything checked here is refused before anything is claimed.
#[utoipa::path(post, path = "/api/sandboxes/{id}/transfers", tag = "payments",
    params(
        ("id" = String, Path, description = "Sandbox id (UUID)"),
        ("Authorization" = String, Header, description = "`Bearer shimul` (the key is scoped to this user)"),
        ("Idempotency-Key" = String, Header, description = "1–255 printable ASCII characters"),
        ("Lab-Intent" = Option<String>, Header, description = "UUID of the decision to pay, unchanged across retries (ground truth for the damage meter)"),
    ),
    request_body = TransferBody,
    responses(
        (status = 201, description = "Sent; a replay carries `Idempotent-Replayed: true` and the stored body byte for byte", body = Receipt),
        (status = 400, description = "Bad key or body; nothing claimed", body = openapi::Problem, content_type = "application/problem+json"),
        (status = 401, description = "Unknown user", body = openapi::Problem, content_type = "application/problem+json"),
        (status = 404, description = "Unknown sandbox", body = openapi::Problem, content_type = "application/problem+json"),
        (status = 409, description = "The same key is in progress", body = openapi::Problem, content_type = "application/problem+json"),
        (status = 413, description = "Body over 64 KiB", body = openapi::Problem, content_type = "application/problem+json"),
        (status = 422, description = "The same key with another body, or insufficient funds (stored and replayed)", body = openapi::Problem, content_type = "application/problem+json"),
        (status = 429, description = "This sandbox sends too fast (Retry-After)", body = openapi::Problem, content_type = "application/problem+json"),
        (status = 504, description = "No answer in time: the outcome is unknown", body = openapi::Problem, content_type = "application/problem+json"),
    ))]
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

/// What Shimul's app did with a tap, for the button and app lanes of the timeline:
/// `{"signal": "tap", "key": "…", "key_kept": false}` or `{"signal": "tap_ignored", "key"?: "…"}`.
#[utoipa::path(post, path = "/api/sandboxes/{id}/app-events", tag = "payments",
    params(("id" = String, Path, description = "Sandbox id (UUID)")),
    request_body(content = Object, description = "`{\"signal\": \"tap\", \"key\": \"…\", \"key_kept\": false}`"),
    responses(
        (status = 204, description = "On the timeline"),
        (status = 400, body = openapi::Problem, content_type = "application/problem+json"),
        (status = 404, body = openapi::Problem, content_type = "application/problem+json"),
    ))]
async fn app_event(
    State(lab): State<Lab>,
    Path(id): Path<String>,
    body: Result<Bytes, BytesRejection>,
) -> Result<StatusCode, LabError> {
    let sandbox = lab.get(&id).await?;
    let signal = crate::domain::phone::AppSignal::parse(&json_body(body, false)?)?;
    sandbox.app_signal(signal).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// Rewinds a consumer group by time: `{"consumer": "wallet"|"sms"|"fraud", "from_seconds_ago": n}`.
#[utoipa::path(post, path = "/api/sandboxes/{id}/replay", tag = "controls",
    params(("id" = String, Path, description = "Sandbox id (UUID)")),
    request_body(content = Object, description = "`{\"consumer\": \"wallet\", \"from_seconds_ago\": 432000}`"),
    responses(
        (status = 200, description = "The group's new offset per partition", body = Object),
        (status = 400, body = openapi::Problem, content_type = "application/problem+json"),
        (status = 404, body = openapi::Problem, content_type = "application/problem+json"),
    ))]
async fn replay(
    State(lab): State<Lab>,
    Path(id): Path<String>,
    body: Result<Bytes, BytesRejection>,
) -> Result<impl IntoResponse, LabError> {
    let sandbox = lab.get(&id).await?;
    let body = json_body(body, false)?;
    let map = expect_object(&body)?;
    if let Some(extra) = map
        .keys()
        .find(|k| *k != "consumer" && *k != "from_seconds_ago")
    {
        return Err(FieldError::new(
            extra.clone(),
            "unknown field: expected consumer and from_seconds_ago",
        )
        .into());
    }
    let consumer = map
        .get("consumer")
        .and_then(|v| v.as_str())
        .and_then(Consumer::from_id)
        .ok_or_else(|| FieldError::new("consumer", "expected \"wallet\", \"sms\" or \"fraud\""))?;
    let seconds = crate::domain::int_in(
        "from_seconds_ago",
        map.get("from_seconds_ago")
            .unwrap_or(&serde_json::Value::Null),
        0,
        crate::domain::clock::MAX_ADVANCE_SECONDS,
    )?;
    let offsets = sandbox.replay(consumer, seconds).await?;
    let offsets: serde_json::Map<String, serde_json::Value> = offsets
        .into_iter()
        .map(|(p, o)| (p.to_string(), o.into()))
        .collect();
    Ok(Json(json!({"consumer": consumer, "offsets": offsets})))
}

/// The sandbox as it stood at one of its timeline events (rewind): the run is replayed into a
/// scratch sandbox until that event, so the present is untouched.
#[utoipa::path(get, path = "/api/sandboxes/{id}/state-at/{event}", tag = "runs",
    params(
        ("id" = String, Path, description = "Sandbox id (UUID)"),
        ("event" = i64, Path, description = "A timeline event id of this sandbox"),
    ),
    responses(
        (status = 200, body = SandboxState),
        (status = 400, description = "No such event in this sandbox's log", body = openapi::Problem, content_type = "application/problem+json"),
        (status = 404, body = openapi::Problem, content_type = "application/problem+json"),
    ))]
async fn state_at(
    State(lab): State<Lab>,
    Path((id, event)): Path<(String, String)>,
) -> Result<Json<SandboxState>, LabError> {
    let event: i64 = event
        .parse()
        .map_err(|_| FieldError::new("event", "expected a timeline event id"))?;
    Ok(Json(
        lab.state_at(&id, event, crate::server::store::SNAPSHOT_ROWS)
            .await?,
    ))
}

/// The run so far: seed, timed inputs, clock, and the event log's hash.
#[utoipa::path(get, path = "/api/sandboxes/{id}/run", tag = "runs",
    params(("id" = String, Path, description = "Sandbox id (UUID)")),
    responses(
        (status = 200, body = Run),
        (status = 404, body = openapi::Problem, content_type = "application/problem+json"),
    ))]
async fn export_run(State(lab): State<Lab>, Path(id): Path<String>) -> Result<Json<Run>, LabError> {
    Ok(Json(lab.get(&id).await?.export_run().await?))
}

/// Checks the sandbox's invariants now, between two steps: what must hold whatever the faults
/// did (a COMPLETED key has its answer, offsets are contiguous, no read_committed reader is past
/// the last stable offset, nothing is negative) and, while their safeguards have been on since
/// the last reset, at most one debit per intent and money conserved once nothing is in flight.
#[utoipa::path(get, path = "/api/sandboxes/{id}/check", tag = "sandboxes",
    params(("id" = String, Path, description = "Sandbox id (UUID)")),
    responses(
        (status = 200, body = crate::server::invariants::Report),
        (status = 404, body = openapi::Problem, content_type = "application/problem+json"),
    ))]
async fn check(
    State(lab): State<Lab>,
    Path(id): Path<String>,
) -> Result<Json<crate::server::invariants::Report>, LabError> {
    Ok(Json(lab.get(&id).await?.check().await?))
}

/// Replays a run into a new sandbox (paused when done): the same seed and inputs give the same
/// timeline, and the answer's `log_hash` says so.
#[utoipa::path(post, path = "/api/runs", tag = "runs",
    request_body = Run,
    responses(
        (status = 201, description = "The new sandbox and the run it produced", body = Object),
        (status = 400, body = openapi::Problem, content_type = "application/problem+json"),
        (status = 422, description = "The run cannot be replayed as recorded", body = openapi::Problem, content_type = "application/problem+json"),
        (status = 503, body = openapi::Problem, content_type = "application/problem+json"),
    ))]
async fn import_run(
    State(lab): State<Lab>,
    body: Result<Bytes, BytesRejection>,
) -> Result<impl IntoResponse, LabError> {
    let run: Run = serde_json::from_value(json_body(body, false)?)
        .map_err(|e| LabError::BadJson(format!("not a run: {e}")))?;
    let sandbox = lab.create(Some(run.seed), ClockMode::Paused).await?;
    let replayed = sandbox.rerun(run).await?;
    Ok((
        StatusCode::CREATED,
        Json(json!({"id": sandbox.id, "log_hash": replayed.log_hash})),
    ))
}

/// This document.
#[utoipa::path(get, path = "/api/openapi.json", tag = "meta",
    responses((status = 200, description = "The OpenAPI 3.1 document of every /api route", body = Object)))]
async fn openapi_json() -> impl IntoResponse {
    use utoipa::OpenApi;
    Json(openapi::ApiDoc::openapi())
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
