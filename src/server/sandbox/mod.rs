//! One sandbox: its owner task, which alone holds the clock, the queue and the stores' writers,
//! and the handle everyone else talks to it through.
//!
//! The owner runs one thing at a time: a command from outside (a request, a clock control) or a
//! due step. In live mode it sleeps until the wall clock reaches the next step's virtual time;
//! before any command it first runs everything that became due, so a command always lands
//! between two steps at a well-defined virtual time.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use serde_json::json;
use tokio::sync::{broadcast, mpsc, oneshot, watch};
use uuid::Uuid;

use super::broker;
use super::calls::NetStep;
use super::calls::{ApiReply, TransferRequest};
use super::error::LabError;
use super::invariants::{self, Promises};
use super::lanes;
use super::natural;
use super::network::Network;
use super::payments::ledger;
use super::pipeline::{self, Pipeline};
use super::sim::{NewEvent, Sim, SimCounters};
use super::store::{StoreName, Stores, SNAPSHOT_ROWS};
use super::world::{LabWorld, Step};
use crate::domain::clock::START_MS;
use crate::domain::fault::Percent;
use crate::domain::generals::Generals;
use crate::domain::natural::Times;
use crate::domain::natural::{NaturalOp, NaturalReport};
use crate::domain::phone::AppSignal;
use crate::domain::phone_app::{PhoneView, Presence};
use crate::domain::run::{Input, ReplayBody, Run, RunInput};
use crate::domain::scenario::Preset;
use crate::domain::{
    Balances, ClockCommand, ClockMode, ClockState, EventKind, Faults, FaultsPatch, Layer, Outcome,
    Safeguard, Safeguards, SafeguardsPatch, SandboxState, TimelineEvent,
};

mod checkpoint;
mod events;
mod handle;
mod inputs;
mod live_clock;
mod owner;
mod persist;
mod rerun;
mod scratch;
mod snapshot;

pub(crate) use scratch::Scratch;

use live_clock::sleep_until;

/// How many timeline events a slow stream may fall behind before it re-reads from the store.
const EVENT_BUFFER: usize = 256;
/// State deltas a stream may fall behind by before it is told to read the state again.
const DELTA_BUFFER: usize = 16;

/// How many commands may wait for the owner.
const COMMAND_QUEUE: usize = 64;

enum Command {
    Clock(
        Vec<ClockCommand>,
        oneshot::Sender<Result<ClockState, LabError>>,
    ),
    Safeguards(
        SafeguardsPatch,
        oneshot::Sender<Result<Safeguards, LabError>>,
    ),
    Faults(FaultsPatch, oneshot::Sender<Result<Faults, LabError>>),
    Reset(oneshot::Sender<Result<(), LabError>>),
    Scenario(Box<Preset>, oneshot::Sender<Result<(), LabError>>),
    Generals(Percent, oneshot::Sender<Result<Generals, LabError>>),
    Natural(
        NaturalOp,
        Times,
        oneshot::Sender<Result<NaturalReport, LabError>>,
    ),
    State(i64, oneshot::Sender<Result<SandboxState, LabError>>),
    Damage(oneshot::Sender<Result<crate::domain::Damage, LabError>>),
    Transfer(TransferRequest, oneshot::Sender<ApiReply>),
    App(AppSignal, oneshot::Sender<Result<(), LabError>>),
    StepTimes(oneshot::Sender<Result<Vec<StepTime>, LabError>>),
    ExportRun(oneshot::Sender<Result<Run, LabError>>),
    Rerun(Box<Run>, oneshot::Sender<Result<Run, LabError>>),
    RerunTo(
        Box<Run>,
        i64,
        i64,
        oneshot::Sender<Result<SandboxState, LabError>>,
    ),
    RewindSource(i64, oneshot::Sender<Result<checkpoint::Source, LabError>>),
    Replay(
        ReplayBody,
        oneshot::Sender<Result<Vec<(i64, i64)>, LabError>>,
    ),
    Check(oneshot::Sender<Result<invariants::Report, LabError>>),
    Shutdown(oneshot::Sender<()>),
}

/// Where a sandbox's time went, per kind of work, since it was opened.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StepTime {
    pub name: &'static str,
    pub count: u64,
    pub total: std::time::Duration,
}

/// What [`SandboxHandle::rewind_from_checkpoint`] got to.
pub enum Rewind {
    /// The sandbox as it stood at the event.
    Done(Box<SandboxState>),
    /// No checkpoint precedes the event: the run, to rerun from its start.
    FromStart(Run),
}

/// What a sandbox tells the screens that follow its state (`GET …/events?state=1`).
#[derive(Debug)]
pub enum StateNews {
    /// What changed since the last news.
    Delta(Box<crate::domain::state::StateDelta>),
    /// Too much changed, or something the change list cannot name (a reset): read it all.
    Gap,
}

/// How long at least between two deltas of one sandbox: a burst of steps is one delta, and a
/// screen takes in at most two a second. Each one a page applies re-runs every panel that reads
/// the state, so at 200 ms a slow laptop's main thread was busier than with the full reads it
/// replaced (BENCHMARKS.md, "The timeline in a browser"). The first change after a quiet spell
/// goes at once.
const DELTA_GAP: std::time::Duration = std::time::Duration::from_millis(500);

/// The owner's side of the state's changes: the channel, the version the next delta starts
/// from, and when it is due.
struct DeltaFeed {
    tx: broadcast::Sender<Arc<StateNews>>,
    /// Starts at the wall clock's microseconds when the owner starts, so the versions of a
    /// sandbox opened again (after a restart or an idle unload) are above every earlier one
    /// and a screen still holding an old version sees a gap.
    version: u64,
    due: Option<tokio::time::Instant>,
    last: Option<tokio::time::Instant>,
}

impl DeltaFeed {
    fn new(tx: broadcast::Sender<Arc<StateNews>>) -> DeltaFeed {
        let version = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(1, |d| d.as_micros() as u64);
        DeltaFeed {
            tx,
            version,
            due: None,
            last: None,
        }
    }
}

/// How the rest of the server reaches a sandbox. Cheap to clone.
#[derive(Clone)]
pub struct SandboxHandle {
    pub id: Uuid,
    commands: mpsc::Sender<Command>,
    events: broadcast::Sender<Arc<TimelineEvent>>,
    /// What changed in the state, for the screens that follow it.
    deltas: broadcast::Sender<Arc<StateNews>>,
    clock: watch::Receiver<ClockState>,
    /// The sandbox's stores, for reading the event log without a command.
    log: Stores,
    last_used: Arc<Mutex<Instant>>,
    /// The phone as its app's browser last showed it, and the class's lock: memory only
    /// (`handle.rs`, "presence").
    presence: Arc<watch::Sender<Presence>>,
}

/// A row of the event log as stored.
#[derive(sqlx::FromRow)]
struct EventRow {
    id: i64,
    at_ms: i64,
    layer: String,
    kind: String,
    correlation: Option<String>,
    outcome: String,
    details: String,
}

/// The owner task's state.
struct Owner {
    id: Uuid,
    seed: u64,
    sim: Sim<Step>,
    world: LabWorld,
    mode: ClockMode,
    speed: f64,
    /// In live mode: the wall instant and the virtual time it corresponds to.
    anchor: Option<live_clock::LiveClock>,
    events: broadcast::Sender<Arc<TimelineEvent>>,
    deltas: DeltaFeed,
    clock: watch::Sender<ClockState>,
    step_times: std::collections::HashMap<&'static str, StepTime>,
    /// The id of the newest event in the log.
    last_event: i64,
    /// Events of steps already run, not yet in the log: a run of due steps stores its events
    /// together, always before a command, a checkpoint or the owner's sleep
    /// (`Owner::run_until`).
    pending: Vec<NewEvent>,
    /// When to close the stores that have been idle since ([`Stores::close_idle`]).
    idle_check: Option<tokio::time::Instant>,
    /// While rebuilding the past (rewind): stop running steps once this event is logged.
    stop_at: Option<i64>,
    /// What the invariants may hold the sandbox to, given its safeguards since the last reset.
    promises: Promises,
    /// Check the invariants after every step and command (see `server::invariants`).
    check_every_step: bool,
    /// Rewind checkpoints taken as the run goes; `None` in a sandbox built for a rewind.
    checkpoints: Option<checkpoint::Checkpoints>,
}

/// How a new sandbox starts: a student's, or one the server makes for itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NewSandbox {
    /// Takes rewind checkpoints as it runs. A sandbox built for one rewind, or for a
    /// fast-forwarded day, is never rewound.
    pub checkpoints: bool,
    /// Paying customers beside Shimul and Tithi (`customer-00001` …), each opening with
    /// `customer_opening` taka: a fast-forwarded day's payers. A balance is the sum of the
    /// account's ledger rows, so a day paid from one account would sum a longer ledger at every
    /// debit; spread over many, each sums a few.
    pub customers: u32,
    pub customer_opening: i64,
    /// Checks the invariants after every step when [`invariants::every_step`] says so. A day's
    /// sandbox is checked once, at its end: after every step, the check reads tables that grow
    /// all day.
    pub check_every_step: bool,
}

impl NewSandbox {
    pub const STUDENT: NewSandbox = NewSandbox {
        checkpoints: true,
        customers: 0,
        customer_opening: 0,
        check_every_step: true,
    };
    pub const SCRATCH: NewSandbox = NewSandbox {
        checkpoints: false,
        ..NewSandbox::STUDENT
    };
}

/// Makes a new sandbox in `dir` (which must not hold one yet) and starts its owner, on a lane
/// of its own ([`lanes`]).
pub async fn create(
    dir: &Path,
    id: Uuid,
    seed: u64,
    mode: ClockMode,
    new: NewSandbox,
) -> Result<SandboxHandle, LabError> {
    let dir = dir.to_path_buf();
    on_a_lane(async move { create_here(&dir, id, seed, mode, new).await }).await
}

/// Runs a sandbox's opening (or a rewind) on the next lane and waits for it there: its owner
/// task and its connections' threads then stay on that lane's processor ([`lanes`]).
async fn on_a_lane<T: Send + 'static>(
    work: impl std::future::Future<Output = Result<T, LabError>> + Send + 'static,
) -> Result<T, LabError> {
    lanes::spawn(work)
        .await
        .map_err(|_| LabError::Unavailable)?
}

async fn create_here(
    dir: &Path,
    id: Uuid,
    seed: u64,
    mode: ClockMode,
    new: NewSandbox,
) -> Result<SandboxHandle, LabError> {
    tokio::fs::create_dir_all(dir).await?;
    let stores = Stores::open(dir).await?;
    stores.reset_services().await?;
    if new.customers > 0 {
        sqlx::query(
            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?1)
             INSERT INTO accounts (user_id, opening_balance)
             SELECT printf('customer-%05d', i), ?2 FROM n",
        )
        .bind(new.customers)
        .bind(new.customer_opening)
        .execute(&mut *stores.conn(StoreName::Payments).await?)
        .await?;
    }
    persist::SandboxRow::insert_new(&mut *stores.conn(StoreName::Lab).await?, id, seed, mode)
        .await?;
    start(dir, stores, new).await
}

/// Opens a sandbox saved in `dir` and starts its owner. The clock resumes where it was saved;
/// work that was in flight when the server stopped is gone, as after a crash.
pub async fn open(dir: &Path) -> Result<SandboxHandle, LabError> {
    if !dir.join(StoreName::Lab.file()).exists() {
        return Err(LabError::NotFound);
    }
    let dir = dir.to_path_buf();
    on_a_lane(async move {
        let stores = Stores::open(&dir).await?;
        start(&dir, stores, NewSandbox::STUDENT).await
    })
    .await
}

/// A row of a sandbox's own store this version cannot read: the sandbox does not load (a 500
/// on every request for it, the row named in the server's log) rather than go on with
/// defaults or without the row.
fn unreadable(what: String) -> LabError {
    LabError::Store(sqlx::Error::Decode(
        format!("{what} cannot be read by this version").into(),
    ))
}

/// Reads best whole: a restart in its order (the row, the queue, recovery's checks, the owner);
/// each step needs those before it.
async fn start(dir: &Path, stores: Stores, new: NewSandbox) -> Result<SandboxHandle, LabError> {
    let row = persist::SandboxRow::read(&mut *stores.conn(StoreName::Lab).await?).await?;
    let Some(persist::SandboxRow {
        sandbox_id,
        seed,
        rng_state,
        now_ms,
        mode,
        speed,
        seq,
        steps_run,
        safeguards,
        faults,
    }) = row
    else {
        stores.close().await;
        return Err(LabError::NotFound);
    };
    let id = Uuid::parse_str(&sandbox_id).map_err(|_| LabError::NotFound)?;
    let fresh = steps_run == 0 && seq == 0;
    let mut sim = Sim::resume(SimCounters {
        now_ms,
        seq: seq as u64,
        steps_run: steps_run as u64,
        rng_state: rng_state as u64,
    });
    for (at, step) in LabWorld::standing_steps(now_ms) {
        sim.schedule_at(at, step);
    }
    // Each claim's recovery check lived in the queue, which a restart empties: arm one again
    // for every key still in progress (one per claim time), so none stays stuck.
    let claims = crate::server::payments::idempotency::claim_times_in_progress(
        &mut *stores.conn(StoreName::Payments).await?,
    )
    .await?;
    for claimed in claims {
        sim.schedule_at(
            super::payments::recovery::look_at(claimed),
            Step::STUCK_RECOVERY,
        );
    }

    let mode = ClockMode::parse(&mode)
        .ok_or_else(|| unreadable(format!("the saved clock mode {mode:?}")))?;
    let promises = promises_since_reset(&stores).await?;
    let log = stores.clone();
    let last_event = events::event_log::last_id(&mut *log.conn(StoreName::Lab).await?).await?;
    let (events, _) = broadcast::channel(EVENT_BUFFER);
    let (deltas, _) = broadcast::channel(DELTA_BUFFER);
    let (clock_tx, clock_rx) = watch::channel(ClockState {
        now_ms,
        mode,
        speed,
        next_due_ms: sim.next_due(),
        busy: false,
        report: 0,
    });
    let mut owner = Owner {
        id,
        seed: seed as u64,
        sim,
        world: LabWorld {
            stores,
            safeguards: serde_json::from_str(&safeguards)
                .map_err(|e| unreadable(format!("the saved safeguards {safeguards:?}: {e}")))?,
            faults: serde_json::from_str(&faults)
                .map_err(|e| unreadable(format!("the saved faults {faults:?}: {e}")))?,
            net: Network::default(),
            pipeline: Pipeline::default(),
        },
        mode,
        speed,
        anchor: (mode == ClockMode::Live)
            .then(|| live_clock::LiveClock::new(Instant::now(), now_ms)),
        events: events.clone(),
        deltas: DeltaFeed::new(deltas.clone()),
        clock: clock_tx,
        step_times: Default::default(),
        last_event,
        pending: Vec::new(),
        idle_check: None,
        stop_at: None,
        promises,
        check_every_step: new.check_every_step && invariants::every_step(),
        checkpoints: if new.checkpoints {
            Some(checkpoint::Checkpoints::start(dir, last_event).await?)
        } else {
            None
        },
    };
    // The pipeline's processes start with the sandbox and pick up whatever was left undone.
    for step in pipeline::pending(&owner.world).await? {
        owner.sim.schedule_at(now_ms, step);
        owner.report_clock();
    }
    if fresh {
        owner
            .publish(vec![owner.lab_event(
                EventKind::SandboxCreated,
                json!({"seed": owner.seed}),
            )])
            .await?;
        owner.save().await?;
    } else if last_event > 0 {
        // What was in flight is gone: rewinds past this point rerun from here, not from a start
        // whose rerun would still have it.
        owner.take_checkpoint().await?;
    }
    let (commands, rx) = mpsc::channel(COMMAND_QUEUE);
    let dir: PathBuf = dir.to_path_buf();
    tokio::spawn(async move {
        if let Err(e) = owner.run(rx).await {
            tracing::error!(sandbox = %owner.id, dir = %dir.display(), "sandbox owner stopped: {e}");
        }
        owner.drop_checkpoints();
        owner.world.stores.close().await;
    });
    Ok(SandboxHandle {
        id,
        commands,
        events,
        deltas,
        clock: clock_rx,
        log,
        last_used: Arc::new(Mutex::new(Instant::now())),
        presence: Arc::new(watch::Sender::new(Presence::default())),
    })
}

/// The promises still standing, from the safeguard changes recorded since the last reset (the
/// inputs table is emptied on reset, so it holds exactly those).
async fn promises_since_reset(stores: &Stores) -> Result<Promises, LabError> {
    // Only the safeguard changes matter; SQLite's JSON functions find them without reading
    // every transfer of a long run.
    let changes: Vec<(i64, String)> = sqlx::query_as(
        "SELECT id, input FROM inputs WHERE json_type(input, '$.safeguards') IS NOT NULL \
         ORDER BY id",
    )
    .fetch_all(&mut *stores.conn(StoreName::Lab).await?)
    .await?;
    let mut guards = Safeguards::default();
    let mut promises = Promises::all();
    for (id, change) in changes {
        match serde_json::from_str::<Input>(&change) {
            Ok(Input::Safeguards(patch)) => {
                guards = guards.apply(&patch);
                promises = promises.after(&guards);
            }
            _ => return Err(unreadable(format!("input {id}"))),
        }
    }
    Ok(promises)
}
