//! Runs: the sandbox at one of its events (rewind), a run's export, and a run's rerun into a new
//! sandbox.

use axum::extract::{RawPathParams, State};
use axum::http::StatusCode;
use axum::response::IntoResponse;
use axum::Json;

use super::body::StrictJson;
use super::headers::NewSandboxId;
use super::path::Sandbox;
use super::shapes;
use crate::domain::run::{Rerun, Run};
use crate::domain::{FieldError, SandboxState};
use crate::server::error::LabError;
use crate::server::sandboxes::Sandboxes;

/// The sandbox as it stood at one of its timeline events (rewind): the run is rerun in a
/// scratch sandbox, from the newest checkpoint before that event, until that event, so the
/// present is untouched.
#[utoipa::path(get, path = "/api/sandboxes/{id}/state-at/{event}", tag = "runs",
    params(
        shapes::SandboxPath,
        ("event" = i64, Path, description = "A timeline event id of this sandbox: decimal digits only"),
    ),
    responses(
        (status = 200, body = SandboxState),
        (status = 400, description = "The event is not a number", body = shapes::Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such sandbox (`unknown-sandbox`), or no such event in its log (`unknown-event`)", body = shapes::Problem, content_type = "application/problem+json"),
    ))]
pub(super) async fn state_at(
    State(sandboxes): State<Sandboxes>,
    Sandbox(sandbox): Sandbox,
    params: RawPathParams,
) -> Result<Json<SandboxState>, LabError> {
    let event = params
        .iter()
        .find(|(name, _)| *name == "event")
        .map(|(_, value)| value)
        .unwrap_or_default();
    let event = parse_event_id(event)
        .ok_or_else(|| FieldError::new("event", "expected a timeline event id (digits)"))?;
    Ok(Json(
        sandboxes
            .state_at(
                &sandbox.id.to_string(),
                event,
                crate::server::store::SNAPSHOT_ROWS,
            )
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
    params(shapes::SandboxPath),
    responses(
        (status = 200, body = Run),
    ))]
pub(super) async fn export_run(Sandbox(sandbox): Sandbox) -> Result<Json<Run>, LabError> {
    Ok(Json(sandbox.export_run().await?))
}

/// Reruns a run in a new sandbox (paused when done): the same seed and inputs give the same
/// timeline, and the answer's `log_hash` says so; given the run's own `log_hash`, the answer
/// names both and says whether they are the same (`log_hash_matches`), as the `/run` page does. Every input is checked as the API checks it
/// (400 naming the field) before any sandbox is made.
#[utoipa::path(post, path = "/api/runs", tag = "runs",
    request_body = shapes::RunBody,
    responses(
        (status = 201, description = "The new sandbox, its event log's hash and, when the run named one, the hash it claimed and whether the two match", body = Rerun),
        (status = 409, description = "Behind a balancer (LAB_NEW_SANDBOX_HEADER), the id it named is taken already", body = shapes::Problem, content_type = "application/problem+json"),
        (status = 422, description = "Well formed, but the run cannot be rerun as recorded (inputs out of order, at steps that never ran, a transfer to its own sender)", body = shapes::Problem, content_type = "application/problem+json"),
        (status = 503, response = shapes::Full),
    ))]
pub(super) async fn import_run(
    State(sandboxes): State<Sandboxes>,
    NewSandboxId(id): NewSandboxId,
    StrictJson(run): StrictJson<Run>,
) -> Result<impl IntoResponse, LabError> {
    Ok((
        StatusCode::CREATED,
        Json(sandboxes.import_run(id, run).await?),
    ))
}
