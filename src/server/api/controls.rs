//! The instructor's and the chapters' controls: safeguards, faults, the clock, reset, a
//! scenario's preset, scenario 7's natural writes, scenario 8's messengers, a consumer replay.

use axum::http::StatusCode;
use axum::response::IntoResponse;
use axum::Json;
use serde_json::json;

use super::body::StrictJson;
use super::path::{scenario_number, Sandbox, Scenario};
use super::shapes;
use crate::domain::generals::{Generals, GeneralsBody};
use crate::domain::natural::{NaturalBody, NaturalReport};
use crate::domain::run::ReplayBody;
use crate::domain::scenario;
use crate::domain::{ClockCommand, ClockState};
use crate::domain::{FaultsPatch, SafeguardsPatch};
use crate::server::error::LabError;

/// Switches safeguards (any subset of the ids of docs/reference.md §3); all or nothing.
#[utoipa::path(put, path = "/api/sandboxes/{id}/safeguards", tag = "controls",
    params(shapes::SandboxPath),
    request_body = SafeguardsPatch,
    responses(
        (status = 200, description = "Every safeguard after the change", body = shapes::Safeguards),
    ))]
pub(super) async fn safeguards(
    Sandbox(sandbox): Sandbox,
    StrictJson(patch): StrictJson<SafeguardsPatch>,
) -> Result<impl IntoResponse, LabError> {
    Ok(Json(sandbox.unlocked()?.set_safeguards(patch).await?))
}

/// Sets faults (any subset of the ids of docs/reference.md §4); all or nothing.
#[utoipa::path(put, path = "/api/sandboxes/{id}/faults", tag = "controls",
    params(shapes::SandboxPath),
    request_body = FaultsPatch,
    responses(
        (status = 200, description = "Every fault after the change", body = crate::domain::Faults),
    ))]
pub(super) async fn faults(
    Sandbox(sandbox): Sandbox,
    StrictJson(patch): StrictJson<FaultsPatch>,
) -> Result<impl IntoResponse, LabError> {
    Ok(Json(sandbox.unlocked()?.set_faults(patch).await?))
}

/// `POST …/clock` with any of `mode`, `speed`, `step`, `advance_seconds` → the clock after.
#[utoipa::path(post, path = "/api/sandboxes/{id}/clock", tag = "controls",
    params(shapes::SandboxPath),
    request_body = shapes::ClockBody,
    responses(
        (status = 200, body = ClockState),
        (status = 423, response = shapes::Held),
    ))]
pub(super) async fn clock(
    Sandbox(sandbox): Sandbox,
    StrictJson(commands): StrictJson<Vec<ClockCommand>>,
) -> Result<impl IntoResponse, LabError> {
    Ok(Json(sandbox.unfrozen()?.clock(commands).await?))
}

/// Back to the lesson's start: Shimul ৳2,000, Tithi ৳0, empty tables, default settings.
/// It takes no body (one in JSON is ignored).
#[utoipa::path(post, path = "/api/sandboxes/{id}/reset", tag = "controls",
    params(shapes::SandboxPath),
    responses(
        (status = 204, description = "Reset"),
    ))]
pub(super) async fn reset(Sandbox(sandbox): Sandbox) -> Result<StatusCode, LabError> {
    sandbox.unlocked()?.reset().await?;
    Ok(StatusCode::NO_CONTENT)
}

/// `POST …/scenario/{n}`: resets the sandbox and loads scenario n's preset (docs/reference.md
/// §7): its seed, safeguards, faults and clock, with a "scenario loaded" event on the
/// timeline. The body is optional: `{"variant": "guarded"}` (the default) or `"unguarded"`.
/// An unknown scenario or variant changes nothing.
#[utoipa::path(post, path = "/api/sandboxes/{id}/scenario/{n}", tag = "controls",
    params(
        shapes::SandboxPath,
        ("n" = u8, Path, description = "The scenario, 1 to 12 (docs/reference.md §7); any other text answers 404 `unknown-scenario`"),
    ),
    request_body(content = scenario::ScenarioBody, description = "Optional; `{}` or nothing reads as the guarded variant"),
    responses(
        (status = 200, description = "The scenario is loaded", body = shapes::ScenarioLoaded),
        (status = 404, description = "No such sandbox (`unknown-sandbox`), or no such scenario or variant of it (`unknown-scenario`; only scenario 8 has `at_most_once`); nothing changed", body = shapes::Problem, content_type = "application/problem+json"),
    ))]
pub(super) async fn scenario(
    Sandbox(sandbox): Sandbox,
    Scenario(n): Scenario,
    StrictJson(scenario::ScenarioBody { variant }): StrictJson<scenario::ScenarioBody>,
) -> Result<impl IntoResponse, LabError> {
    let preset = preset_of(n, variant)?;
    let answer = json!({"scenario": preset.n, "variant": variant.id(), "seed": preset.seed});
    sandbox.unlocked()?.load_scenario(preset).await?;
    Ok(Json(answer))
}

/// Scenario `n` (as the path or a query spells it) in `variant`: an unknown scenario, or a
/// variant the scenario does not have, is 404 `unknown-scenario`. The preset route and the
/// lab's entrance (`/lab?scenario=N`) both read presets through it.
pub fn preset_for(n: &str, variant: scenario::Variant) -> Result<scenario::Preset, LabError> {
    preset_of(scenario_number(n)?, variant)
}

/// Scenario `n`'s preset in `variant`, or 404 `unknown-scenario` for a variant it lacks.
fn preset_of(n: u8, variant: scenario::Variant) -> Result<scenario::Preset, LabError> {
    scenario::preset(n, variant).ok_or(LabError::UnknownVariant(n, variant.id()))
}

/// `POST …/natural`: scenario 7. Sends `times` copies (default 10) of one write over the
/// sandbox's network to the payment API's database: a SET of the display name, an INCREMENT of
/// the savings balance, or one INSERT keyed by a transfer id. A lost request never arrives.
#[utoipa::path(post, path = "/api/sandboxes/{id}/natural", tag = "controls",
    params(shapes::SandboxPath),
    request_body = NaturalBody,
    responses(
        (status = 200, description = "The copies sent, those that arrived, and the tables after", body = NaturalReport),
    ))]
pub(super) async fn natural(
    Sandbox(sandbox): Sandbox,
    StrictJson(NaturalBody { op, times }): StrictJson<NaturalBody>,
) -> Result<impl IntoResponse, LabError> {
    Ok(Json(sandbox.natural(op, times).await?))
}

/// `POST …/generals`: scenario 8's Two Generals. Messengers go back and forth, each caught with
/// `loss_pct` percent chance (default 30), until one is caught or eight have crossed.
#[utoipa::path(post, path = "/api/sandboxes/{id}/generals", tag = "controls",
    params(shapes::SandboxPath),
    request_body(content = GeneralsBody, description = "Optional; nothing reads as a 30 % chance"),
    responses(
        (status = 200, description = "When the messengers set out, and each one", body = Generals),
    ))]
pub(super) async fn generals(
    Sandbox(sandbox): Sandbox,
    StrictJson(GeneralsBody { loss_pct }): StrictJson<GeneralsBody>,
) -> Result<impl IntoResponse, LabError> {
    Ok(Json(sandbox.generals(loss_pct).await?))
}

/// Rewinds a consumer group by time: `{"consumer": "wallet"|"sms"|"fraud", "from_seconds_ago": n}`.
#[utoipa::path(post, path = "/api/sandboxes/{id}/replay", tag = "controls",
    params(shapes::SandboxPath),
    request_body = ReplayBody,
    responses(
        (status = 200, description = "The group's new offset per partition", body = shapes::Replayed),
    ))]
pub(super) async fn replay(
    Sandbox(sandbox): Sandbox,
    StrictJson(body): StrictJson<ReplayBody>,
) -> Result<impl IntoResponse, LabError> {
    let consumer = body.consumer.id();
    let offsets = sandbox.unlocked()?.replay(body).await?;
    let offsets: serde_json::Map<String, serde_json::Value> = offsets
        .into_iter()
        .map(|(p, o)| (p.to_string(), o.into()))
        .collect();
    Ok(Json(json!({"consumer": consumer, "offsets": offsets})))
}
