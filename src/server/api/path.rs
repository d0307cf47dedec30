//! What a route's path names, each its extractor: the sandbox (looked up, so an unknown one is
//! refused before anything else of the request is read) and the scenario of a preset.

use axum::extract::{FromRequestParts, RawPathParams};
use axum::http::request::Parts;

use crate::domain::scenario;
use crate::server::error::LabError;
use crate::server::sandbox::SandboxHandle;
use crate::server::sandboxes::Sandboxes;

/// The `{id}` of a sandbox route, read as a sandbox id (a UUID in its 36-character form). A
/// malformed id and an unknown one both answer 404 `unknown-sandbox`, even one that is not
/// UTF-8 once percent-decoded: to the caller, neither names a sandbox.
pub struct SandboxId(pub uuid::Uuid);

impl<S: Send + Sync> FromRequestParts<S> for SandboxId {
    type Rejection = LabError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, LabError> {
        let id = param(parts, state, "id")
            .await
            .and_then(|value| crate::server::sandboxes::sandbox_id(&value))
            .ok_or(LabError::NotFound)?;
        Ok(SandboxId(id))
    }
}

/// The sandbox the path names, found (and loaded if it was not running). A handler takes it
/// first, so an unknown sandbox is 404 `unknown-sandbox` whatever else is wrong with the
/// request, on every route alike.
pub struct Sandbox(pub SandboxHandle);

impl FromRequestParts<Sandboxes> for Sandbox {
    type Rejection = LabError;

    async fn from_request_parts(
        parts: &mut Parts,
        sandboxes: &Sandboxes,
    ) -> Result<Self, LabError> {
        let SandboxId(id) = SandboxId::from_request_parts(parts, sandboxes).await?;
        Ok(Sandbox(sandboxes.by_id(id).await?))
    }
}

/// The `{n}` of `POST …/scenario/{n}`: one of the scenarios (docs/reference.md §7), or 404
/// `unknown-scenario`, before the body is read, as a missing one would be.
pub struct Scenario(pub u8);

impl<S: Send + Sync> FromRequestParts<S> for Scenario {
    type Rejection = LabError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, LabError> {
        let n = param(parts, state, "n").await.unwrap_or_default();
        scenario_number(&n).map(Scenario)
    }
}

/// Scenario `n` as the path or a query spells it: decimal digits naming one of the scenarios.
pub fn scenario_number(n: &str) -> Result<u8, LabError> {
    (!n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        .then(|| n.parse::<u8>().ok())
        .flatten()
        .filter(|n| scenario::SCENARIOS.contains(n))
        .ok_or_else(|| LabError::UnknownScenario(n.to_owned()))
}

/// The path parameter `name` as the URL spells it, percent-decoded; `None` if the path has
/// none, or one that is not UTF-8.
async fn param<S: Send + Sync>(parts: &mut Parts, state: &S, name: &str) -> Option<String> {
    let params = RawPathParams::from_request_parts(parts, state).await.ok()?;
    params
        .iter()
        .find(|(param, _)| *param == name)
        .map(|(_, value)| value.to_owned())
}
