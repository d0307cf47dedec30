//! The HTTP API of docs/reference.md §8: thin handlers that parse, call the sandbox, and answer
//! JSON or problem+json.

pub mod edge;
pub mod openapi;
pub mod problem;
pub mod sse;

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{DefaultBodyLimit, FromRequestParts, RawPathParams, State};
use axum::http::request::Parts;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post, put};
use axum::{Json, Router};
use serde_json::json;

use crate::domain::generals::Generals;
use crate::domain::natural::{NaturalOp, NaturalReport};
use crate::domain::run::{check_replay, Run};
use crate::domain::scenario;
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
        .route("/api/sandboxes/{id}/scenario/{n}", post(scenario))
        .route("/api/sandboxes/{id}/natural", post(natural))
        .route("/api/sandboxes/{id}/generals", post(generals))
        .route("/api/sandboxes/{id}/events", get(sse::events))
        .route("/api/sandboxes/{id}/transfers", post(transfer))
        .route("/api/sandboxes/{id}/app-events", post(app_event))
        .route("/api/sandboxes/{id}/replay", post(replay))
        .route("/api/sandboxes/{id}/run", get(export_run))
        .route("/api/sandboxes/{id}/check", get(check))
        .route("/api/sandboxes/{id}/state-at/{event}", get(state_at))
        .route("/api/runs", post(import_run))
        .route("/api/measure/drop-vs-delete", post(measure_drop_vs_delete))
        .route("/api/openapi.json", get(openapi_json))
        .route("/api/{*rest}", axum::routing::any(no_such_route))
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
        .route_layer(axum::middleware::from_fn_with_state(
            lab.clone(),
            rate_limit,
        ))
        .layer(axum::middleware::from_fn(edge::guard))
}

/// The `{id}` of a sandbox route, as text: whether it names a sandbox is [`Lab::get`]'s
/// question, so a malformed id and an unknown one both answer 404 `unknown-sandbox`, even one
/// that is not UTF-8 once percent-decoded.
pub struct SandboxId(pub String);

impl<S: Send + Sync> FromRequestParts<S> for SandboxId {
    type Rejection = LabError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, LabError> {
        let params = RawPathParams::from_request_parts(parts, state)
            .await
            .map_err(|_| LabError::NotFound)?;
        let id = params
            .iter()
            .find(|(name, _)| *name == "id")
            .map(|(_, value)| value.to_owned())
            .ok_or(LabError::NotFound)?;
        Ok(SandboxId(id))
    }
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
    request_body(content = openapi::CreateBody, description = "May be left out (no body, no Content-Type): `{}`"),
    responses(
        (status = 201, description = "Made, at the lesson's start", body = openapi::Created,
            headers(("Location" = String, description = "`/api/sandboxes/{id}`"))),
        (status = 400, response = openapi::BadRequest),
        (status = 403, response = openapi::ForeignOrigin),
        (status = 413, response = openapi::TooLarge),
        (status = 415, response = openapi::NotJson),
        (status = 503, response = openapi::Full),
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
    params(openapi::SandboxPath),
    responses(
        (status = 200, body = SandboxState),
        (status = 404, response = openapi::NotFound),
        (status = 429, response = openapi::TooFast),
        (status = 503, response = openapi::Unavailable),
    ))]
async fn state(
    State(lab): State<Lab>,
    SandboxId(id): SandboxId,
) -> Result<Json<SandboxState>, LabError> {
    Ok(Json(lab.get(&id).await?.state().await?))
}

/// Switches safeguards (any subset of the ids of docs/reference.md §3); all or nothing.
#[utoipa::path(put, path = "/api/sandboxes/{id}/safeguards", tag = "controls",
    params(openapi::SandboxPath),
    request_body = openapi::SafeguardsBody,
    responses(
        (status = 200, description = "Every safeguard after the change", body = openapi::Safeguards),
        (status = 400, response = openapi::BadRequest),
        (status = 403, response = openapi::ForeignOrigin),
        (status = 404, response = openapi::NotFound),
        (status = 413, response = openapi::TooLarge),
        (status = 415, response = openapi::NotJson),
        (status = 429, response = openapi::TooFast),
        (status = 503, response = openapi::Unavailable),
    ))]
async fn safeguards(
    State(lab): State<Lab>,
    SandboxId(id): SandboxId,
    body: Result<Bytes, BytesRejection>,
) -> Result<impl IntoResponse, LabError> {
    let sandbox = lab.get(&id).await?;
    let body = json_body(body, false)?;
    Ok(Json(sandbox.set_safeguards(body).await?))
}

/// Sets faults (any subset of the ids of docs/reference.md §4); all or nothing.
#[utoipa::path(put, path = "/api/sandboxes/{id}/faults", tag = "controls",
    params(openapi::SandboxPath),
    request_body = openapi::FaultsBody,
    responses(
        (status = 200, description = "Every fault after the change", body = openapi::Faults),
        (status = 400, response = openapi::BadRequest),
        (status = 403, response = openapi::ForeignOrigin),
        (status = 404, response = openapi::NotFound),
        (status = 413, response = openapi::TooLarge),
        (status = 415, response = openapi::NotJson),
        (status = 429, response = openapi::TooFast),
        (status = 503, response = openapi::Unavailable),
    ))]
async fn faults(
    State(lab): State<Lab>,
    SandboxId(id): SandboxId,
    body: Result<Bytes, BytesRejection>,
) -> Result<impl IntoResponse, LabError> {
    let sandbox = lab.get(&id).await?;
    let body = json_body(body, false)?;
    Ok(Json(sandbox.set_faults(body).await?))
}

/// `POST …/clock` with any of `mode`, `speed`, `step`, `advance_seconds` → the clock after.
#[utoipa::path(post, path = "/api/sandboxes/{id}/clock", tag = "controls",
    params(openapi::SandboxPath),
    request_body = openapi::ClockBody,
    responses(
        (status = 200, body = ClockState),
        (status = 400, response = openapi::BadRequest),
        (status = 403, response = openapi::ForeignOrigin),
        (status = 404, response = openapi::NotFound),
        (status = 413, response = openapi::TooLarge),
        (status = 415, response = openapi::NotJson),
        (status = 429, response = openapi::TooFast),
        (status = 503, response = openapi::Unavailable),
    ))]
async fn clock(
    State(lab): State<Lab>,
    SandboxId(id): SandboxId,
    body: Result<Bytes, BytesRejection>,
) -> Result<impl IntoResponse, LabError> {
    let sandbox = lab.get(&id).await?;
    let commands = ClockCommand::parse_body(&json_body(body, false)?)?;
    Ok(Json(sandbox.clock(commands).await?))
}

/// Back to the lesson's start: Shimul ৳2,000, Tithi ৳0, empty tables, default settings.
/// It takes no body (one in JSON is ignored).
#[utoipa::path(post, path = "/api/sandboxes/{id}/reset", tag = "controls",
    params(openapi::SandboxPath),
    responses(
        (status = 204, description = "Reset"),
        (status = 403, response = openapi::ForeignOrigin),
        (status = 404, response = openapi::NotFound),
        (status = 415, response = openapi::NotJson),
        (status = 429, response = openapi::TooFast),
        (status = 503, response = openapi::Unavailable),
    ))]
async fn reset(State(lab): State<Lab>, SandboxId(id): SandboxId) -> Result<StatusCode, LabError> {
    lab.get(&id).await?.reset().await?;
    Ok(StatusCode::NO_CONTENT)
}

/// `POST …/scenario/{n}`: resets the sandbox and loads scenario n's preset (docs/reference.md
/// §7): its seed, safeguards, faults and clock, with a "scenario loaded" event on the
/// timeline. The body is optional: `{"variant": "guarded"}` (the default) or `"unguarded"`.
/// An unknown scenario or variant changes nothing.
#[utoipa::path(post, path = "/api/sandboxes/{id}/scenario/{n}", tag = "controls",
    params(
        openapi::SandboxPath,
        ("n" = u8, Path, description = "The scenario, 1 to 12 (docs/reference.md §7); any other text answers 404 `unknown-scenario`"),
    ),
    request_body(content = openapi::ScenarioBody, description = "Optional; `{}` or nothing reads as the guarded variant"),
    responses(
        (status = 200, description = "The scenario is loaded", body = openapi::ScenarioLoaded),
        (status = 400, response = openapi::BadRequest),
        (status = 403, response = openapi::ForeignOrigin),
        (status = 404, description = "No such sandbox (`unknown-sandbox`), or no such scenario or variant of it (`unknown-scenario`; only scenario 8 has `at_most_once`); nothing changed", body = openapi::Problem, content_type = "application/problem+json"),
        (status = 413, response = openapi::TooLarge),
        (status = 415, response = openapi::NotJson),
        (status = 429, response = openapi::TooFast),
        (status = 503, response = openapi::Unavailable),
    ))]
async fn scenario(
    State(lab): State<Lab>,
    SandboxId(id): SandboxId,
    params: RawPathParams,
    body: Result<Bytes, BytesRejection>,
) -> Result<impl IntoResponse, LabError> {
    let sandbox = lab.get(&id).await?;
    let n = params
        .iter()
        .find(|(name, _)| *name == "n")
        .map(|(_, value)| value.to_owned())
        .unwrap_or_default();
    // An unknown scenario is refused before the body is read, as a missing one would be.
    preset_for(&n, scenario::Variant::Guarded)?;
    let variant = scenario::Variant::parse_body(&json_body(body, true)?)?;
    let preset = preset_for(&n, variant)?;
    let answer = json!({"scenario": preset.n, "variant": variant.id(), "seed": preset.seed});
    sandbox.load_scenario(preset).await?;
    Ok(Json(answer))
}

/// Scenario `n` (as the path or a query spells it) in `variant`: an unknown scenario, or a
/// variant the scenario does not have, is 404 `unknown-scenario`. The preset route and the
/// lab's entrance (`/lab?scenario=N`) both read presets through it.
pub fn preset_for(n: &str, variant: scenario::Variant) -> Result<scenario::Preset, LabError> {
    let number = (!n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        .then(|| n.parse::<u8>().ok())
        .flatten()
        .filter(|n| scenario::SCENARIOS.contains(n))
        .ok_or_else(|| LabError::UnknownScenario(n.to_owned()))?;
    scenario::preset(number, variant).ok_or(LabError::UnknownVariant(number, variant.id()))
}

/// `POST /api/measure/drop-vs-delete` `{"days"?, "rows_per_day"?}`: the partition-drop
/// calculator's live measurement on a scratch SQLite file (`server::measure`). Belongs to no
/// sandbox; one runs at a time.
#[utoipa::path(post, path = "/api/measure/drop-vs-delete", tag = "calculators",
    request_body(content = openapi::MeasureBody, description = "May be left out: `{}` (7 days of 5,000 rows)"),
    responses(
        (status = 200, description = "After each day added, the time to drop one day's table and to delete one day's rows", body = crate::domain::calc::DropReport),
        (status = 400, response = openapi::BadRequest),
        (status = 403, response = openapi::ForeignOrigin),
        (status = 413, response = openapi::TooLarge),
        (status = 415, response = openapi::NotJson),
    ))]
async fn measure_drop_vs_delete(
    State(lab): State<Lab>,
    body: Result<Bytes, BytesRejection>,
) -> Result<impl IntoResponse, LabError> {
    let m = crate::domain::calc::DropVsDelete::parse(&json_body(body, true)?)?;
    let report = crate::server::measure::drop_vs_delete(&lab.config().data_dir, m).await?;
    Ok(Json(report))
}

/// `POST …/natural`: scenario 7. Sends `times` copies (default 10) of one write over the
/// sandbox's network to the payment API's database: a SET of the display name, an INCREMENT of
/// the savings balance, or one INSERT keyed by a transfer id. A lost request never arrives.
#[utoipa::path(post, path = "/api/sandboxes/{id}/natural", tag = "controls",
    params(openapi::SandboxPath),
    request_body = openapi::NaturalBody,
    responses(
        (status = 200, description = "The copies sent, those that arrived, and the tables after", body = NaturalReport),
        (status = 400, response = openapi::BadRequest),
        (status = 403, response = openapi::ForeignOrigin),
        (status = 404, response = openapi::NotFound),
        (status = 413, response = openapi::TooLarge),
        (status = 415, response = openapi::NotJson),
        (status = 429, response = openapi::TooFast),
        (status = 503, response = openapi::Unavailable),
    ))]
async fn natural(
    State(lab): State<Lab>,
    SandboxId(id): SandboxId,
    body: Result<Bytes, BytesRejection>,
) -> Result<impl IntoResponse, LabError> {
    let sandbox = lab.get(&id).await?;
    let (op, times) = NaturalOp::parse_body(&json_body(body, false)?)?;
    Ok(Json(sandbox.natural(op, times).await?))
}

/// `POST …/generals`: scenario 8's Two Generals. Messengers go back and forth, each caught with
/// `loss_pct` percent chance (default 30), until one is caught or eight have crossed.
#[utoipa::path(post, path = "/api/sandboxes/{id}/generals", tag = "controls",
    params(openapi::SandboxPath),
    request_body(content = openapi::GeneralsBody, description = "Optional; nothing reads as a 30 % chance"),
    responses(
        (status = 200, description = "When the messengers set out, and each one", body = Generals),
        (status = 400, response = openapi::BadRequest),
        (status = 403, response = openapi::ForeignOrigin),
        (status = 404, response = openapi::NotFound),
        (status = 413, response = openapi::TooLarge),
        (status = 415, response = openapi::NotJson),
        (status = 429, response = openapi::TooFast),
        (status = 503, response = openapi::Unavailable),
    ))]
async fn generals(
    State(lab): State<Lab>,
    SandboxId(id): SandboxId,
    body: Result<Bytes, BytesRejection>,
) -> Result<impl IntoResponse, LabError> {
    let sandbox = lab.get(&id).await?;
    let loss = Generals::parse_body(&json_body(body, true)?)?;
    Ok(Json(sandbox.generals(loss).await?))
}

/// `POST …/transfers`: the payment API, through the sandbox's network and load balancer.
/// Everything checked here is refused before anything is claimed.
#[utoipa::path(post, path = "/api/sandboxes/{id}/transfers", tag = "payments",
    params(
        openapi::SandboxPath,
        ("Authorization" = String, Header, description = "`Bearer shimul` or `Bearer tithi` (the key is scoped to this user)"),
        ("Idempotency-Key" = String, Header, description = "1–255 printable ASCII characters, neither first nor last a space (HTTP drops those)"),
        ("Lab-Intent" = Option<String>, Header, description = "UUID of the decision to pay, unchanged across retries (ground truth for the damage meter)"),
    ),
    request_body = openapi::TransferBody,
    responses(
        (status = 201, description = "Sent; a replay carries `Idempotent-Replayed: true` and the stored body byte for byte", body = Receipt,
            headers(("Idempotent-Replayed" = String, description = "`true` on a replay of a stored answer"))),
        (status = 400, description = "Bad key, intent or body; nothing claimed", body = openapi::Problem, content_type = "application/problem+json"),
        (status = 401, description = "Unknown user", body = openapi::Problem, content_type = "application/problem+json"),
        (status = 403, response = openapi::ForeignOrigin),
        (status = 404, response = openapi::NotFound),
        (status = 409, description = "The same key is in progress, or the ledger already holds this transfer", body = openapi::Problem, content_type = "application/problem+json",
            headers(("Idempotent-Replayed" = String, description = "`true` on a replay of a stored answer"))),
        (status = 413, response = openapi::TooLarge),
        (status = 415, response = openapi::NotJson),
        (status = 422, description = "Well formed but refused: to the sender itself (nothing claimed), the same key with another body, or insufficient funds (stored and replayed)", body = openapi::Problem, content_type = "application/problem+json",
            headers(("Idempotent-Replayed" = String, description = "`true` on a replay of a stored answer"))),
        (status = 429, response = openapi::TooFast),
        (status = 503, response = openapi::Unavailable),
        (status = 504, description = "No answer in time: the outcome is unknown", body = openapi::Problem, content_type = "application/problem+json"),
    ))]
async fn transfer(
    State(lab): State<Lab>,
    SandboxId(id): SandboxId,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, LabError> {
    let sandbox = lab.get(&id).await?;
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
            transfer::parse_idempotency_key(Some(text))?
        }
        None => transfer::parse_idempotency_key(None)?,
    };
    let intent = match headers.get("lab-intent") {
        None => key.clone(),
        Some(v) => v
            .to_str()
            .ok()
            .and_then(crate::server::lab::sandbox_id)
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
    let reply = match lab.config().transfer_wait {
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
fn no_answer_in_time() -> crate::server::payments::ApiReply {
    crate::server::payments::ApiReply::problem(
        504,
        "no-response",
        "no answer came back in time: the transfer may or may not have happened",
    )
}

/// What Shimul's app did with a tap, for the button and app lanes of the timeline:
/// `{"signal": "tap", "key": "…", "key_kept": false}` or `{"signal": "tap_ignored", "key"?: "…"}`.
#[utoipa::path(post, path = "/api/sandboxes/{id}/app-events", tag = "payments",
    params(openapi::SandboxPath),
    request_body = openapi::AppEventBody,
    responses(
        (status = 204, description = "On the timeline"),
        (status = 400, response = openapi::BadRequest),
        (status = 403, response = openapi::ForeignOrigin),
        (status = 404, response = openapi::NotFound),
        (status = 413, response = openapi::TooLarge),
        (status = 415, response = openapi::NotJson),
        (status = 429, response = openapi::TooFast),
        (status = 503, response = openapi::Unavailable),
    ))]
async fn app_event(
    State(lab): State<Lab>,
    SandboxId(id): SandboxId,
    body: Result<Bytes, BytesRejection>,
) -> Result<StatusCode, LabError> {
    let sandbox = lab.get(&id).await?;
    let signal = crate::domain::phone::AppSignal::parse(&json_body(body, false)?)?;
    sandbox.app_signal(signal).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// Rewinds a consumer group by time: `{"consumer": "wallet"|"sms"|"fraud", "from_seconds_ago": n}`.
#[utoipa::path(post, path = "/api/sandboxes/{id}/replay", tag = "controls",
    params(openapi::SandboxPath),
    request_body = openapi::ReplayBody,
    responses(
        (status = 200, description = "The group's new offset per partition", body = openapi::Replayed),
        (status = 400, response = openapi::BadRequest),
        (status = 403, response = openapi::ForeignOrigin),
        (status = 404, response = openapi::NotFound),
        (status = 413, response = openapi::TooLarge),
        (status = 415, response = openapi::NotJson),
        (status = 429, response = openapi::TooFast),
        (status = 503, response = openapi::Unavailable),
    ))]
async fn replay(
    State(lab): State<Lab>,
    SandboxId(id): SandboxId,
    body: Result<Bytes, BytesRejection>,
) -> Result<impl IntoResponse, LabError> {
    let sandbox = lab.get(&id).await?;
    let (consumer, seconds) = check_replay(&json_body(body, false)?)?;
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
        openapi::SandboxPath,
        ("event" = i64, Path, description = "A timeline event id of this sandbox: decimal digits only"),
    ),
    responses(
        (status = 200, body = SandboxState),
        (status = 400, description = "The event is not a number", body = openapi::Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such sandbox (`unknown-sandbox`), or no such event in its log (`unknown-event`)", body = openapi::Problem, content_type = "application/problem+json"),
        (status = 429, response = openapi::TooFast),
        (status = 503, response = openapi::Unavailable),
    ))]
async fn state_at(
    State(lab): State<Lab>,
    SandboxId(id): SandboxId,
    params: RawPathParams,
) -> Result<Json<SandboxState>, LabError> {
    // The sandbox first, like every other route: an unknown one is 404 whatever the event.
    lab.get(&id).await?;
    let event = params
        .iter()
        .find(|(name, _)| *name == "event")
        .map(|(_, value)| value)
        .unwrap_or_default();
    let event = parse_event_id(event)
        .ok_or_else(|| FieldError::new("event", "expected a timeline event id (digits)"))?;
    Ok(Json(
        lab.state_at(&id, event, crate::server::store::SNAPSHOT_ROWS)
            .await?,
    ))
}

/// A timeline event id as a URL spells it: decimal digits, no sign, within `i64`.
pub(crate) fn parse_event_id(text: &str) -> Option<i64> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

/// The run so far: seed, timed inputs, clock, and the event log's hash.
#[utoipa::path(get, path = "/api/sandboxes/{id}/run", tag = "runs",
    params(openapi::SandboxPath),
    responses(
        (status = 200, body = Run),
        (status = 404, response = openapi::NotFound),
        (status = 429, response = openapi::TooFast),
        (status = 503, response = openapi::Unavailable),
    ))]
async fn export_run(
    State(lab): State<Lab>,
    SandboxId(id): SandboxId,
) -> Result<Json<Run>, LabError> {
    Ok(Json(lab.get(&id).await?.export_run().await?))
}

/// Checks the sandbox's invariants now, between two steps: what must hold whatever the faults
/// did (a COMPLETED key has its answer, offsets are contiguous, no read_committed reader is past
/// the last stable offset, nothing is negative) and, while their safeguards have been on since
/// the last reset, at most one debit per intent and money conserved once nothing is in flight.
#[utoipa::path(get, path = "/api/sandboxes/{id}/check", tag = "sandboxes",
    params(openapi::SandboxPath),
    responses(
        (status = 200, body = crate::server::invariants::Report),
        (status = 404, response = openapi::NotFound),
        (status = 429, response = openapi::TooFast),
        (status = 503, response = openapi::Unavailable),
    ))]
async fn check(
    State(lab): State<Lab>,
    SandboxId(id): SandboxId,
) -> Result<Json<crate::server::invariants::Report>, LabError> {
    Ok(Json(lab.get(&id).await?.check().await?))
}

/// Replays a run into a new sandbox (paused when done): the same seed and inputs give the same
/// timeline, and the answer's `log_hash` says so. Every input is checked as the API checks it
/// (400 naming the field) before any sandbox is made.
#[utoipa::path(post, path = "/api/runs", tag = "runs",
    request_body = openapi::RunBody,
    responses(
        (status = 201, description = "The new sandbox and the run it produced", body = openapi::Imported),
        (status = 400, response = openapi::BadRequest),
        (status = 403, response = openapi::ForeignOrigin),
        (status = 413, response = openapi::TooLarge),
        (status = 415, response = openapi::NotJson),
        (status = 422, description = "Well formed, but the run cannot be replayed as recorded (inputs out of order, at steps that never ran, a transfer to its own sender)", body = openapi::Problem, content_type = "application/problem+json"),
        (status = 503, response = openapi::Full),
    ))]
async fn import_run(
    State(lab): State<Lab>,
    body: Result<Bytes, BytesRejection>,
) -> Result<impl IntoResponse, LabError> {
    let run: Run = serde_json::from_value(json_body(body, false)?)
        .map_err(|e| LabError::BadJson(format!("not a run: {e}")))?;
    run.check()?;
    if let Some(why) = run.impossible() {
        return Err(LabError::RunDiverged(why));
    }
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
    Json(openapi::document())
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
