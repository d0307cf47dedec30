//! The HTTP API of docs/reference.md §8: thin handlers that call the sandbox and answer JSON or
//! problem+json.
//!
//! What a request carries is read by extractors before a handler runs, each refusing as the
//! contract says: the sandbox the path names (`path.rs`), the headers (`headers.rs`) and the
//! body (`body.rs`, `StrictJson`). When several things are wrong, the first refusal is the
//! answer, and axum runs a handler's extractors in the order of its arguments, the body's
//! last of all. So the order of a handler's arguments is part of the contract: the sandbox
//! first (404), then the path's other parts and the headers as the handler lists them, then
//! the body (400, 413); what the sandbox itself refuses (a class's lock, 423) comes after, in
//! the handler. `tests/edge.rs` (`the_first_refusal_is_the_answer`) holds the order.

mod body;
mod controls;
mod days;
pub use controls::preset_for;
pub mod edge;
mod headers;
pub mod openapi;
mod path;
pub mod problem;
mod runs;
mod sandboxes;
mod schemas;
pub mod shapes;
pub mod sse;
mod transfers;

use axum::extract::{DefaultBodyLimit, State};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post, put};
use axum::{Json, Router};

use crate::server::error::LabError;
use crate::server::sandboxes::Sandboxes;
use body::{StrictJson, BODY_LIMIT};

/// Every `/api` route, over the lab, each sandbox's requests rate-limited.
pub fn router(sandboxes: &Sandboxes) -> Router<Sandboxes> {
    Router::new()
        .route("/api/sandboxes", post(sandboxes::create))
        .route("/api/sandboxes/{id}/state", get(sandboxes::state))
        .route("/api/sandboxes/{id}/safeguards", put(controls::safeguards))
        .route("/api/sandboxes/{id}/faults", put(controls::faults))
        .route("/api/sandboxes/{id}/clock", post(controls::clock))
        .route("/api/sandboxes/{id}/reset", post(controls::reset))
        .route("/api/sandboxes/{id}/scenario/{n}", post(controls::scenario))
        .route("/api/sandboxes/{id}/natural", post(controls::natural))
        .route("/api/sandboxes/{id}/generals", post(controls::generals))
        .route("/api/sandboxes/{id}/events", get(sse::events))
        .route("/api/sandboxes/{id}/transfers", post(transfers::transfer))
        .route("/api/sandboxes/{id}/app-events", post(transfers::app_event))
        .route("/api/sandboxes/{id}/replay", post(controls::replay))
        .route("/api/sandboxes/{id}/run", get(runs::export_run))
        .route("/api/sandboxes/{id}/check", get(sandboxes::check))
        .route("/api/sandboxes/{id}/state-at/{event}", get(runs::state_at))
        .route("/api/runs", post(runs::import_run))
        .route("/api/measure/drop-vs-delete", post(measure_drop_vs_delete))
        .route("/api/days", post(days::start_day))
        .route("/api/days/{scale}", get(days::day_report))
        .route("/api/openapi.json", get(openapi_json))
        .route("/api/{*rest}", axum::routing::any(no_such_route))
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
        .route_layer(axum::middleware::from_fn_with_state(
            sandboxes.clone(),
            rate_limit,
        ))
        .layer(axum::middleware::from_fn(edge::guard))
}

/// Each sandbox's requests pass its token bucket; past it, 429 with Retry-After.
async fn rate_limit(
    State(sandboxes): State<Sandboxes>,
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
        if let Err(e) = sandboxes.admit(&id) {
            return e.into_response();
        }
    }
    next.run(request).await
}

/// `POST /api/measure/drop-vs-delete` `{"days"?, "rows_per_day"?}`: the partition-drop
/// calculator's live measurement on a scratch SQLite file (`server::measure`). Belongs to no
/// sandbox; one runs at a time.
#[utoipa::path(post, path = "/api/measure/drop-vs-delete", tag = "calculators",
    request_body(content = crate::domain::calc::DropVsDelete, description = "May be left out: `{}` (7 days of 5,000 rows)"),
    responses(
        (status = 200, description = "After each day added, the time to drop one day's table and to delete one day's rows", body = crate::domain::calc::DropReport),
    ))]
async fn measure_drop_vs_delete(
    State(sandboxes): State<Sandboxes>,
    StrictJson(m): StrictJson<crate::domain::calc::DropVsDelete>,
) -> Result<impl IntoResponse, LabError> {
    let report = crate::server::measure::drop_vs_delete(&sandboxes.config().data_dir, m).await?;
    Ok(Json(report))
}

/// This document.
#[utoipa::path(get, path = "/api/openapi.json", tag = "meta",
    responses((status = 200, description = "The OpenAPI 3.1 document of every /api route", body = Object)))]
async fn openapi_json() -> impl IntoResponse {
    Json(openapi::document())
}

async fn no_such_route() -> impl IntoResponse {
    let mut r = LabError::NotFound.into_response();
    *r.body_mut() = crate::domain::problem_body(
        404,
        crate::domain::ProblemKind::NoSuchRoute,
        "there is no API route at this path",
    )
    .to_string()
    .into();
    r
}
