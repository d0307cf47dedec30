//! The lab's server functions (`POST /rpc/…`): thin adapters over the sandbox's service layer,
//! called by the lab's panels and by the other screens that need a sandbox. A leaf: it imports
//! the domain, the server and the error type, never a panel (ARCHITECTURE.md, "The shape").

use leptos::prelude::*;
use leptos::server_fn;

use crate::app::error::FnError;
use crate::domain::phone::{Attack, AttackAnswer};
use crate::domain::run::{Rerun, Run};
use crate::domain::scenario::Variant;
use crate::domain::{ClockCommand, ClockState, Faults, Safeguards, SandboxState};

/// Rows per table the screen reads; the newest ones.
pub const ROWS_PER_TABLE: i64 = crate::domain::state::SCREEN_ROWS;

/// The sandboxes every server function serves (the ones `main.rs` started; `server::web::app`
/// provides them).
#[cfg(feature = "ssr")]
pub fn sandboxes() -> crate::server::sandboxes::Sandboxes {
    expect_context::<crate::server::sandboxes::Sandboxes>()
}

#[cfg(feature = "ssr")]
async fn sandbox_of(id: &str) -> Result<crate::server::sandbox::SandboxHandle, FnError> {
    Ok(sandboxes().get(id).await?)
}

/// The whole sandbox (each table cut to its newest [`ROWS_PER_TABLE`] rows), or `None` when
/// there is no sandbox with that id.
#[server(prefix = "/rpc", input = server_fn::codec::Json)]
pub async fn get_state(sandbox: String) -> Result<Option<SandboxState>, FnError> {
    use crate::server::error::LabError;
    match sandboxes().get(&sandbox).await {
        Ok(s) => Ok(Some(s.state_rows(ROWS_PER_TABLE).await?)),
        Err(LabError::NotFound) => Ok(None),
        Err(e) => Err(e.into()),
    }
}

/// Applies one clock control to a sandbox and returns the clock after it.
#[server(prefix = "/rpc", input = server_fn::codec::Json)]
pub async fn clock_control(sandbox: String, command: ClockCommand) -> Result<ClockState, FnError> {
    Ok(sandbox_of(&sandbox)
        .await?
        .unfrozen()?
        .clock(vec![command])
        .await?)
}

/// Switches safeguards (as `PUT …/safeguards` does) and returns them all.
#[server(prefix = "/rpc", input = server_fn::codec::Json)]
pub async fn change_safeguards(
    sandbox: String,
    changes: crate::domain::SafeguardsPatch,
) -> Result<Safeguards, FnError> {
    Ok(sandbox_of(&sandbox)
        .await?
        .unlocked()?
        .set_safeguards(changes)
        .await?)
}

/// Sets faults (as `PUT …/faults` does) and returns them all.
#[server(prefix = "/rpc", input = server_fn::codec::Json)]
pub async fn change_faults(
    sandbox: String,
    changes: crate::domain::FaultsPatch,
) -> Result<Faults, FnError> {
    Ok(sandbox_of(&sandbox)
        .await?
        .unlocked()?
        .set_faults(changes)
        .await?)
}

/// Back to the lesson's start; returns the sandbox as it stands after the reset, each table cut
/// like [`get_state`]'s.
#[server(prefix = "/rpc", input = server_fn::codec::Json)]
pub async fn reset_sandbox(sandbox: String) -> Result<SandboxState, FnError> {
    let s = sandbox_of(&sandbox).await?;
    s.unlocked()?.reset().await?;
    Ok(s.state_rows(ROWS_PER_TABLE).await?)
}

/// Loads a scenario's preset (a reset, then its settings) and returns the sandbox after it,
/// each table cut like [`get_state`]'s.
#[server(prefix = "/rpc", input = server_fn::codec::Json)]
pub async fn load_scenario(
    sandbox: String,
    scenario: u8,
    variant: Variant,
) -> Result<SandboxState, FnError> {
    let preset =
        crate::domain::scenario::preset(scenario, variant).ok_or(FnError::UnknownScenario)?;
    let s = sandbox_of(&sandbox).await?;
    s.unlocked()?.load_scenario(preset).await?;
    Ok(s.state_rows(ROWS_PER_TABLE).await?)
}

/// Scenario 7: sends copies of one natural-idempotency write and returns what they did.
#[server(prefix = "/rpc", input = server_fn::codec::Json)]
pub async fn send_natural(
    sandbox: String,
    op: crate::domain::natural::NaturalOp,
    times: crate::domain::natural::Times,
) -> Result<crate::domain::natural::NaturalReport, FnError> {
    Ok(sandbox_of(&sandbox).await?.natural(op, times).await?)
}

/// Scenario 8: the Two Generals' messengers, each caught with this chance (percent).
#[server(prefix = "/rpc", input = server_fn::codec::Json)]
pub async fn send_generals(
    sandbox: String,
    loss_pct: crate::domain::fault::Percent,
) -> Result<crate::domain::generals::Generals, FnError> {
    Ok(sandbox_of(&sandbox).await?.generals(loss_pct).await?)
}

/// Runs one of the network panel's crafted attacks and returns what each request got back.
#[server(prefix = "/rpc", input = server_fn::codec::Json)]
pub async fn crafted_attack(sandbox: String, attack: Attack) -> Result<Vec<AttackAnswer>, FnError> {
    let s = sandbox_of(&sandbox).await?;
    Ok(crate::server::attacks::run(&s, attack).await?)
}

/// Rewinds a consumer group by time: a consumer replay.
#[server(prefix = "/rpc", input = server_fn::codec::Json)]
pub async fn replay_consumer(
    sandbox: String,
    replay: crate::domain::run::ReplayBody,
) -> Result<(), FnError> {
    sandbox_of(&sandbox)
        .await?
        .unlocked()?
        .replay(replay)
        .await?;
    Ok(())
}

/// The sandbox as it stood at one of its timeline events (rewind), each table cut like
/// [`get_state`]'s.
#[server(prefix = "/rpc", input = server_fn::codec::Json)]
pub async fn state_at(sandbox: String, event_id: i64) -> Result<SandboxState, FnError> {
    Ok(sandboxes()
        .state_at(&sandbox, event_id, ROWS_PER_TABLE)
        .await?)
}

/// The run so far (seed, timed inputs, the event log's hash), for a link.
#[server(prefix = "/rpc", input = server_fn::codec::Json)]
pub async fn export_run(sandbox: String) -> Result<Run, FnError> {
    Ok(sandbox_of(&sandbox).await?.export_run().await?)
}

/// Reruns a run into a new sandbox; answers as `POST /api/runs` does (the new sandbox, its
/// event log's hash, and whether that is the hash the run claimed).
#[server(prefix = "/rpc", input = server_fn::codec::Json)]
pub async fn import_run(run: Run) -> Result<Rerun, FnError> {
    let id = sandboxes().new_id(&expect_context::<axum::http::request::Parts>().headers)?;
    Ok(sandboxes().import_run(id, run).await?)
}

/// The sandbox a read-only mirror shows (`None` for a token that names none), under the
/// token's name: nothing of it gives control.
#[server(prefix = "/rpc", input = server_fn::codec::Json)]
pub async fn mirror_state(token: String) -> Result<Option<SandboxState>, FnError> {
    use crate::server::error::LabError;
    let Some(id) = sandboxes().classes().mirrored(&token).await? else {
        return Ok(None);
    };
    match sandboxes().get(&id).await {
        Ok(s) => {
            // The id is the key to the sandbox: wherever a table holds it, the token stands.
            let state = s.state_rows(ROWS_PER_TABLE).await?;
            let text = serde_json::to_string(&state)
                .map_err(|_| FnError::Internal)?
                .replace(&id, &token);
            Ok(Some(
                serde_json::from_str(&text).map_err(|_| FnError::Internal)?,
            ))
        }
        Err(LabError::NotFound) => Ok(None),
        Err(e) => Err(e.into()),
    }
}

/// The token of a read-only mirror of this sandbox (`/watch/{token}`), for a projector.
#[server(prefix = "/rpc", input = server_fn::codec::Json)]
pub async fn mirror_link(sandbox: String) -> Result<String, FnError> {
    let s = sandbox_of(&sandbox).await?;
    Ok(sandboxes().classes().mirror(&s.id).await?)
}

/// Shimul's phone as the app's browser shows it now, for the sandbox's stream.
#[server(prefix = "/rpc", input = server_fn::codec::Json)]
pub async fn show_phone(
    sandbox: String,
    phone: crate::domain::phone_app::PhoneView,
) -> Result<(), FnError> {
    let phone = phone.check()?;
    sandbox_of(&sandbox).await?.show_phone(phone);
    Ok(())
}

/// Makes a new sandbox with the given seed (or a random one) and returns its id.
#[server(prefix = "/rpc", input = server_fn::codec::Json)]
pub async fn new_sandbox(seed: Option<u64>) -> Result<String, FnError> {
    let id = sandboxes().new_id(&expect_context::<axum::http::request::Parts>().headers)?;
    let s = sandboxes()
        .create(id, seed, crate::domain::ClockMode::Live)
        .await?;
    Ok(s.id.to_string())
}
