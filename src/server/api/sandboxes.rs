//! The sandbox routes: make one, read its whole state, check its invariants.

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::IntoResponse;
use axum::Json;
use serde_json::json;

use super::body::StrictJson;
use super::headers::NewSandboxId;
use super::path::Sandbox;
use super::shapes;
use crate::domain::{ClockMode, SandboxState};
use crate::server::error::LabError;
use crate::server::sandboxes::Sandboxes;

/// `POST /api/sandboxes`: `{"seed"?, "paused"?}`; nothing reads as `{}` (a random seed, the
/// clock running).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateBody {
    /// The seed of every chance in the sandbox: the same seed and the same inputs give the
    /// same timeline.
    #[serde(default, deserialize_with = "crate::domain::typed::present")]
    #[schema(schema_with = any_seed)]
    pub seed: Option<u64>,
    /// Start with the clock paused.
    #[serde(default)]
    pub paused: bool,
}

super::body::typed_bodies!(optional: true, CreateBody);

/// Any u64: a whole number from 0 to 18446744073709551615 (a plain integer with no `int64`
/// format, which would cap it at 2^63 - 1).
fn any_seed() -> utoipa::openapi::schema::Object {
    use utoipa::openapi::schema::{ObjectBuilder, Type};
    ObjectBuilder::new()
        .schema_type(Type::Integer)
        .minimum(Some(0))
        .maximum(Some(u64::MAX))
        .build()
}

/// `POST /api/sandboxes` `{"seed"?: u64, "paused"?: bool}` → 201 `{"id"}`. A sandbox starts live
/// at ×1; `"paused": true` starts it paused at 09:00 on day 1, so that a scripted run (a test, a
/// replay) begins at an exact virtual time.
#[utoipa::path(post, path = "/api/sandboxes", tag = "sandboxes",
    request_body(content = CreateBody, description = "May be left out (no body, no Content-Type): `{}`"),
    responses(
        (status = 201, description = "Made, at the lesson's start", body = shapes::Created,
            headers(("Location" = String, description = "`/api/sandboxes/{id}`"))),
        (status = 409, description = "Behind a balancer (LAB_NEW_SANDBOX_HEADER), the id it named is taken already", body = shapes::Problem, content_type = "application/problem+json"),
        (status = 503, response = shapes::Full),
    ))]
pub(super) async fn create(
    State(sandboxes): State<Sandboxes>,
    NewSandboxId(id): NewSandboxId,
    StrictJson(CreateBody { seed, paused }): StrictJson<CreateBody>,
) -> Result<impl IntoResponse, LabError> {
    let mode = if paused {
        ClockMode::Paused
    } else {
        ClockMode::Live
    };
    let sandbox = sandboxes.create(id, seed, mode).await?;
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
    params(shapes::SandboxPath),
    responses(
        (status = 200, body = SandboxState),
    ))]
pub(super) async fn state(Sandbox(sandbox): Sandbox) -> Result<Json<SandboxState>, LabError> {
    Ok(Json(sandbox.state().await?))
}

/// Checks the sandbox's invariants now, between two steps: what must hold whatever the faults
/// did (a COMPLETED key has its answer, offsets are contiguous, no read_committed reader is past
/// the last stable offset, nothing is negative) and, while their safeguards have been on since
/// the last reset, at most one debit per intent and money conserved once nothing is in flight.
#[utoipa::path(get, path = "/api/sandboxes/{id}/check", tag = "sandboxes",
    params(shapes::SandboxPath),
    responses(
        (status = 200, body = crate::server::invariants::Report),
    ))]
pub(super) async fn check(
    Sandbox(sandbox): Sandbox,
) -> Result<Json<crate::server::invariants::Report>, LabError> {
    Ok(Json(sandbox.check().await?))
}
