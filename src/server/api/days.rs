//! A day at PocketPay, fast-forwarded (`server::day`): start one, follow it.

use axum::extract::{RawPathParams, State};
use axum::http::{header, StatusCode};
use axum::response::IntoResponse;
use axum::Json;

use super::body::StrictJson;
use super::shapes;
use crate::domain::day::{parse_scale, scale_error, DayReport, DayRequest, DayStatus};
use crate::server::error::LabError;
use crate::server::sandboxes::Sandboxes;

/// Starts the day at a scale, or answers the one already running or run: the runs are
/// deterministic, so the server runs each scale once and every caller follows the same day.
/// One day runs at a time on a server.
#[utoipa::path(post, path = "/api/days", tag = "calculators",
    request_body(content = DayRequest, description = "May be left out: `{}` (scale 1:10)"),
    responses(
        (status = 200, description = "The day at this scale has run: its report", body = DayReport),
        (status = 202, description = "The day is running (just started, or already): its report so far; follow it at Location",
            body = DayReport, headers(("Location" = String, description = "`/api/days/{scale}`"))),
        (status = 503, response = shapes::DayBusy),
    ))]
pub(super) async fn start_day(
    State(sandboxes): State<Sandboxes>,
    StrictJson(request): StrictJson<DayRequest>,
) -> Result<impl IntoResponse, LabError> {
    let report = sandboxes.days().start(request.scale.get())?;
    Ok(answer(report))
}

/// The day at a scale as it stands: running (with its progress) or done (with what each run
/// found).
#[utoipa::path(get, path = "/api/days/{scale}", tag = "calculators",
    params(("scale" = u32, Path, description = "The N of 1:N: 10, 100, 1000 or 10000")),
    responses(
        (status = 200, description = "The day has run (or failed: `status`, `error`)", body = DayReport),
        (status = 202, description = "The day is running: its report so far", body = DayReport),
        (status = 400, description = "Not one of the scales (`invalid-field`)", body = shapes::Problem, content_type = "application/problem+json"),
        (status = 404, description = "This scale has not been run on this server (`unknown-day`)", body = shapes::Problem, content_type = "application/problem+json"),
    ))]
pub(super) async fn day_report(
    State(sandboxes): State<Sandboxes>,
    params: RawPathParams,
) -> Result<impl IntoResponse, LabError> {
    let text = params
        .iter()
        .find(|(name, _)| *name == "scale")
        .map(|(_, value)| value)
        .unwrap_or_default();
    let scale = parse_scale(text).ok_or_else(scale_error)?;
    let report = sandboxes
        .days()
        .get(scale)
        .ok_or(LabError::UnknownDay(scale))?;
    Ok(answer(report))
}

fn answer(report: DayReport) -> impl IntoResponse {
    let status = if report.status == DayStatus::Running {
        StatusCode::ACCEPTED
    } else {
        StatusCode::OK
    };
    let location = format!("/api/days/{}", report.scale);
    (status, [(header::LOCATION, location)], Json(report))
}
