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
use sqlx::sqlite::SqlitePool;
use tokio::sync::{broadcast, mpsc, oneshot, watch};
use uuid::Uuid;

use super::broker;
use super::error::LabError;
use super::invariants::{self, Promises};
use super::jobs::Job;
use super::natural;
use super::network::{NetStep, Network};
use super::payments::{ledger, ApiReply, TransferRequest};
use super::pipeline::{self, Pipeline};
use super::sim::{NewEvent, Sim, SimCounters};
use super::store::{StoreName, Stores, SNAPSHOT_ROWS};
use super::world::{LabWorld, Step};
use crate::domain::clock::START_MS;
use crate::domain::generals::Generals;
use crate::domain::natural::{NaturalOp, NaturalReport};
use crate::domain::phone::AppSignal;
use crate::domain::pipeline::Consumer;
use crate::domain::run::{Run, RunInput};
use crate::domain::scenario::Preset;
use crate::domain::TransferBody;
use crate::domain::{
    Balances, ClockCommand, ClockMode, ClockState, EventKind, Faults, Layer, Outcome, Safeguard,
    Safeguards, SandboxState, TimelineEvent,
};

/// How many timeline events a slow stream may fall behind before it re-reads from the store.
const EVENT_BUFFER: usize = 256;
/// How many commands may wait for the owner.
const COMMAND_QUEUE: usize = 64;

enum Command {
    Clock(
        Vec<ClockCommand>,
        oneshot::Sender<Result<ClockState, LabError>>,
    ),
    Safeguards(
        serde_json::Value,
        oneshot::Sender<Result<Safeguards, LabError>>,
    ),
    Faults(serde_json::Value, oneshot::Sender<Result<Faults, LabError>>),
    Reset(oneshot::Sender<Result<(), LabError>>),
    Scenario(Box<Preset>, oneshot::Sender<Result<(), LabError>>),
    Generals(i64, oneshot::Sender<Result<Generals, LabError>>),
    Natural(
        NaturalOp,
        i64,
        oneshot::Sender<Result<NaturalReport, LabError>>,
    ),
    State(i64, oneshot::Sender<Result<SandboxState, LabError>>),
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
    Replay(
        Consumer,
        i64,
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

/// How the rest of the server reaches a sandbox. Cheap to clone.
#[derive(Clone)]
pub struct SandboxHandle {
    pub id: Uuid,
    commands: mpsc::Sender<Command>,
    events: broadcast::Sender<Arc<TimelineEvent>>,
    clock: watch::Receiver<ClockState>,
    log: SqlitePool,
    last_used: Arc<Mutex<Instant>>,
}

impl SandboxHandle {
    async fn ask<T>(
        &self,
        make: impl FnOnce(oneshot::Sender<Result<T, LabError>>) -> Command,
    ) -> Result<T, LabError> {
        self.touch();
        let (tx, rx) = oneshot::channel();
        self.commands
            .send(make(tx))
            .await
            .map_err(|_| LabError::Unavailable)?;
        rx.await.map_err(|_| LabError::Unavailable)?
    }

    /// Applies clock commands in order and returns the clock after them.
    pub async fn clock(&self, commands: Vec<ClockCommand>) -> Result<ClockState, LabError> {
        self.ask(|tx| Command::Clock(commands, tx)).await
    }

    /// Validates and applies a `PUT …/safeguards` body; nothing changes if any field is bad.
    pub async fn set_safeguards(&self, body: serde_json::Value) -> Result<Safeguards, LabError> {
        self.ask(|tx| Command::Safeguards(body, tx)).await
    }

    /// Validates and applies a `PUT …/faults` body; nothing changes if any field is bad.
    pub async fn set_faults(&self, body: serde_json::Value) -> Result<Faults, LabError> {
        self.ask(|tx| Command::Faults(body, tx)).await
    }

    /// Returns the sandbox to the lesson's start.
    pub async fn reset(&self) -> Result<(), LabError> {
        self.ask(Command::Reset).await
    }

    /// Resets the sandbox and loads a scenario's preset (docs/reference.md §7).
    pub async fn load_scenario(&self, preset: Preset) -> Result<(), LabError> {
        self.ask(|tx| Command::Scenario(Box::new(preset), tx)).await
    }

    /// Scenario 8: the Two Generals' messengers, each caught with this chance (percent).
    pub async fn generals(&self, loss_pct: i64) -> Result<Generals, LabError> {
        self.ask(|tx| Command::Generals(loss_pct, tx)).await
    }

    /// Scenario 7: sends `times` copies of one natural-idempotency write over the sandbox's
    /// network and reports what the table says after them.
    pub async fn natural(&self, op: NaturalOp, times: i64) -> Result<NaturalReport, LabError> {
        self.ask(|tx| Command::Natural(op, times, tx)).await
    }

    /// Sends a transfer through the sandbox's network to its payment API and waits for what
    /// comes back: the answer, or the caller's timeout (virtual time, so a paused clock waits).
    pub async fn transfer(&self, request: TransferRequest) -> Result<ApiReply, LabError> {
        self.start_transfer(request).await?.await
    }

    /// Notes what Shimul's app did with a tap (the button and app lanes).
    pub async fn app_signal(&self, signal: AppSignal) -> Result<(), LabError> {
        self.ask(|tx| Command::App(signal, tx)).await
    }

    /// Hands a transfer to the sandbox and returns, once it is queued behind every command sent
    /// before it, the future of its answer: a script can queue transfers and clock moves in an
    /// exact order.
    pub async fn start_transfer(
        &self,
        request: TransferRequest,
    ) -> Result<impl std::future::Future<Output = Result<ApiReply, LabError>>, LabError> {
        self.touch();
        let (tx, rx) = oneshot::channel();
        self.commands
            .send(Command::Transfer(request, tx))
            .await
            .map_err(|_| LabError::Unavailable)?;
        Ok(async move { rx.await.map_err(|_| LabError::Unavailable) })
    }

    /// Rewinds a consumer group to the records of the last `seconds_ago` virtual seconds and
    /// wakes it: a replay. Returns the new offset of each partition.
    pub async fn replay(
        &self,
        consumer: Consumer,
        seconds_ago: i64,
    ) -> Result<Vec<(i64, i64)>, LabError> {
        self.ask(|tx| Command::Replay(consumer, seconds_ago, tx))
            .await
    }

    /// Wall time spent per kind of step (and on the event log) since the sandbox was opened,
    /// most first: where the time goes.
    pub async fn step_times(&self) -> Result<Vec<StepTime>, LabError> {
        self.ask(Command::StepTimes).await
    }

    /// The run so far: seed, timed inputs, where the clock stands, and the event log's hash.
    pub async fn export_run(&self) -> Result<Run, LabError> {
        self.ask(Command::ExportRun).await
    }

    /// Replays a run into this (new, paused) sandbox and returns the run it produced.
    pub async fn rerun(&self, run: Run) -> Result<Run, LabError> {
        self.ask(|tx| Command::Rerun(Box::new(run), tx)).await
    }

    /// Replays a run into this (new, paused) sandbox only until the event log has reached
    /// `event_id`, and returns the sandbox as it stood then: the tables as they were at that
    /// event (after the step that wrote it, steps being atomic).
    /// Each table carries at most `rows` rows.
    pub async fn rerun_to(
        &self,
        run: Run,
        event_id: i64,
        rows: i64,
    ) -> Result<SandboxState, LabError> {
        self.ask(|tx| Command::RerunTo(Box::new(run), event_id, rows, tx))
            .await
    }

    /// Where an event stands in the log since the sandbox's start or last reset (1 for the
    /// first), or `None` when the log has no such event.
    pub async fn event_position(&self, event_id: i64) -> Result<Option<i64>, LabError> {
        let (exists, position): (i64, i64) = sqlx::query_as(
            "SELECT (SELECT COUNT(*) FROM events WHERE id = ?1), COUNT(*) FROM events WHERE id <= ?1",
        )
        .bind(event_id)
        .fetch_one(&self.log)
        .await?;
        Ok((exists == 1).then_some(position))
    }

    /// The whole sandbox, between two steps, each table's newest [`SNAPSHOT_ROWS`] rows.
    pub async fn state(&self) -> Result<SandboxState, LabError> {
        self.state_rows(SNAPSHOT_ROWS).await
    }

    /// The whole sandbox with at most `rows` rows per table (the screen reads fewer, often).
    pub async fn state_rows(&self, rows: i64) -> Result<SandboxState, LabError> {
        self.ask(|tx| Command::State(rows, tx)).await
    }

    /// Checks the sandbox's invariants between two steps (see `server::invariants`).
    pub async fn check(&self) -> Result<invariants::Report, LabError> {
        self.ask(Command::Check).await
    }

    /// Whether the owner task is still running (it stops on shutdown, or when a store fails).
    pub fn is_alive(&self) -> bool {
        !self.commands.is_closed()
    }

    /// Watches the clock: a new value after every change of mode, speed or time.
    pub fn watch_clock(&self) -> watch::Receiver<ClockState> {
        self.clock.clone()
    }

    /// Every timeline event from now on, as it is stored.
    pub fn subscribe(&self) -> broadcast::Receiver<Arc<TimelineEvent>> {
        self.touch();
        self.events.subscribe()
    }

    /// Event streams open on this sandbox.
    pub fn subscribers(&self) -> usize {
        self.events.receiver_count()
    }

    /// Up to `limit` stored timeline events with an id above `after_id`, oldest first. Reads the
    /// event log directly, so a stream catching up never waits for a step.
    pub async fn events_after(
        &self,
        after_id: i64,
        limit: i64,
    ) -> Result<Vec<TimelineEvent>, LabError> {
        let rows: Vec<EventRow> = sqlx::query_as(
            "SELECT id, at_ms, layer, kind, correlation, outcome, details FROM events
             WHERE id > ?1 ORDER BY id LIMIT ?2",
        )
        .bind(after_id)
        .bind(limit)
        .fetch_all(&self.log)
        .await?;
        Ok(rows.into_iter().filter_map(EventRow::into_event).collect())
    }

    fn touch(&self) {
        if let Ok(mut t) = self.last_used.lock() {
            *t = Instant::now();
        }
    }

    /// How long since anyone used this sandbox.
    pub fn idle_for(&self) -> std::time::Duration {
        self.last_used
            .lock()
            .map(|t| t.elapsed())
            .unwrap_or_default()
    }

    /// Stops the owner after it saves its clock, and closes the stores.
    pub async fn shutdown(&self) {
        let (tx, rx) = oneshot::channel();
        if self.commands.send(Command::Shutdown(tx)).await.is_ok() {
            let _ = rx.await;
        }
    }
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

impl EventRow {
    /// The event, or `None` for a row this version cannot read (never written by it).
    fn into_event(self) -> Option<TimelineEvent> {
        Some(TimelineEvent {
            id: self.id,
            at_ms: self.at_ms,
            layer: Layer::from_id(&self.layer)?,
            kind: serde_json::from_value(serde_json::Value::String(self.kind)).ok()?,
            correlation: self.correlation,
            outcome: Outcome::from_id(&self.outcome)?,
            details: serde_json::from_str(&self.details).unwrap_or(serde_json::Value::Null),
        })
    }
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
    anchor: Option<(Instant, i64)>,
    events: broadcast::Sender<Arc<TimelineEvent>>,
    clock: watch::Sender<ClockState>,
    step_times: std::collections::HashMap<&'static str, StepTime>,
    /// The id of the newest event in the log.
    last_event: i64,
    /// While rebuilding the past (rewind): stop running steps once this event is logged.
    stop_at: Option<i64>,
    /// What the invariants may hold the sandbox to, given its safeguards since the last reset.
    promises: Promises,
    /// Check the invariants after every step and command (see `server::invariants`).
    check_every_step: bool,
}

/// Makes a new sandbox in `dir` (which must not hold one yet) and starts its owner.
pub async fn create(
    dir: &Path,
    id: Uuid,
    seed: u64,
    mode: ClockMode,
) -> Result<SandboxHandle, LabError> {
    tokio::fs::create_dir_all(dir).await?;
    let stores = Stores::open(dir).await?;
    stores.reset_services().await?;
    let safeguards = Safeguards::default();
    let faults = Faults::default();
    let counters = Sim::<Step>::new(START_MS, seed).counters();
    sqlx::query(
        "INSERT INTO sandbox (id, sandbox_id, seed, rng_state, now_ms, mode, speed, seq, steps_run, safeguards, faults)
         VALUES (1, ?1, ?2, ?3, ?4, ?5, 1.0, 0, 0, ?6, ?7)",
    )
    .bind(id.to_string())
    .bind(seed as i64)
    .bind(counters.rng_state as i64)
    .bind(counters.now_ms)
    .bind(mode_id(mode))
    .bind(serde_json::to_string(&safeguards).expect("safeguards serialise"))
    .bind(serde_json::to_string(&faults).expect("faults serialise"))
    .execute(stores.pool(StoreName::Lab))
    .await?;
    let handle = start(dir, stores).await?;
    Ok(handle)
}

/// Opens a sandbox saved in `dir` and starts its owner. The clock resumes where it was saved;
/// work that was in flight when the server stopped is gone, as after a crash.
pub async fn open(dir: &Path) -> Result<SandboxHandle, LabError> {
    if !dir.join(format!("{}.sqlite", StoreName::Lab.id())).exists() {
        return Err(LabError::NotFound);
    }
    let stores = Stores::open(dir).await?;
    start(dir, stores).await
}

async fn start(dir: &Path, stores: Stores) -> Result<SandboxHandle, LabError> {
    type Row = (String, i64, i64, i64, String, f64, i64, i64, String, String);
    let row: Option<Row> = sqlx::query_as(
        "SELECT sandbox_id, seed, rng_state, now_ms, mode, speed, seq, steps_run, safeguards, faults
         FROM sandbox WHERE id = 1",
    )
    .fetch_optional(stores.pool(StoreName::Lab))
    .await?;
    let Some((
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
    )) = row
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
    let claims: Vec<i64> = sqlx::query_scalar(
        "SELECT DISTINCT updated_ms FROM idempotency_keys WHERE status = 'IN_PROGRESS'
         ORDER BY updated_ms",
    )
    .fetch_all(stores.pool(StoreName::Payments))
    .await?;
    for claimed in claims {
        sim.schedule_at(Job::after_claim(claimed), Step::Job(Job::StuckRecovery));
    }

    let mode = if mode == "paused" {
        ClockMode::Paused
    } else {
        ClockMode::Live
    };
    let promises = promises_since_reset(&stores).await?;
    let log = stores.pool(StoreName::Lab).clone();
    let last_event: i64 = sqlx::query_scalar("SELECT COALESCE(MAX(id), 0) FROM events")
        .fetch_one(&log)
        .await?;
    let (events, _) = broadcast::channel(EVENT_BUFFER);
    let (clock_tx, clock_rx) = watch::channel(ClockState {
        now_ms,
        mode,
        speed,
        next_due_ms: sim.next_due(),
    });
    let mut owner = Owner {
        id,
        seed: seed as u64,
        sim,
        world: LabWorld {
            stores,
            safeguards: serde_json::from_str(&safeguards).unwrap_or_default(),
            faults: serde_json::from_str(&faults).unwrap_or_default(),
            net: Network::default(),
            pipeline: Pipeline::default(),
        },
        mode,
        speed,
        anchor: (mode == ClockMode::Live).then(|| (Instant::now(), now_ms)),
        events: events.clone(),
        clock: clock_tx,
        step_times: Default::default(),
        last_event,
        stop_at: None,
        promises,
        check_every_step: invariants::every_step(),
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
    }
    let (commands, rx) = mpsc::channel(COMMAND_QUEUE);
    let dir: PathBuf = dir.to_path_buf();
    tokio::spawn(async move {
        if let Err(e) = owner.run(rx).await {
            tracing::error!(sandbox = %owner.id, dir = %dir.display(), "sandbox owner stopped: {e}");
        }
        owner.world.stores.close().await;
    });
    Ok(SandboxHandle {
        id,
        commands,
        events,
        clock: clock_rx,
        log,
        last_used: Arc::new(Mutex::new(Instant::now())),
    })
}

impl Owner {
    async fn run(&mut self, mut rx: mpsc::Receiver<Command>) -> Result<(), LabError> {
        loop {
            let wake = self.next_wake();
            let command = tokio::select! {
                c = rx.recv() => c,
                _ = sleep_until(wake), if wake.is_some() => {
                    self.catch_up().await?;
                    continue;
                }
            };
            let Some(command) = command else {
                self.save().await?;
                return Ok(());
            };
            self.catch_up().await?;
            match command {
                Command::Clock(cmds, reply) => {
                    let r = self.clock_commands(cmds).await;
                    let _ = reply.send(r);
                }
                Command::Safeguards(body, reply) => {
                    let r = self.set_safeguards(body).await;
                    let _ = reply.send(r);
                }
                Command::Faults(body, reply) => {
                    let r = self.set_faults(body).await;
                    let _ = reply.send(r);
                }
                Command::Reset(reply) => {
                    let r = self.reset().await;
                    let _ = reply.send(r);
                }
                Command::Scenario(preset, reply) => {
                    let r = self.load_scenario(*preset).await;
                    let _ = reply.send(r);
                }
                Command::Generals(loss_pct, reply) => {
                    let r = self.generals(loss_pct).await;
                    let _ = reply.send(r);
                }
                Command::Natural(op, times, reply) => {
                    let r = self.natural(op, times).await;
                    let _ = reply.send(r);
                }
                Command::State(rows, reply) => {
                    let r = self.state(rows).await;
                    let _ = reply.send(r);
                }
                Command::Replay(consumer, seconds_ago, reply) => {
                    let r = self.replay(consumer, seconds_ago).await;
                    let _ = reply.send(r);
                }
                Command::ExportRun(reply) => {
                    let r = self.export_run().await;
                    let _ = reply.send(r);
                }
                Command::Rerun(run, reply) => {
                    let r = self.rerun(*run).await;
                    let _ = reply.send(r);
                }
                Command::RerunTo(run, event_id, rows, reply) => {
                    let r = match self.replay_inputs(*run, Some(event_id)).await {
                        Ok(true) => self.state_at_event(event_id, rows).await,
                        Ok(false) => Err(LabError::RunDiverged(format!(
                            "the run ended before event {event_id}"
                        ))),
                        Err(e) => Err(e),
                    };
                    let _ = reply.send(r);
                }
                Command::StepTimes(reply) => {
                    let mut times: Vec<StepTime> = self.step_times.values().cloned().collect();
                    times.sort_by_key(|t| std::cmp::Reverse(t.total));
                    let _ = reply.send(Ok(times));
                }
                Command::App(signal, reply) => {
                    let r = self.app_signal(signal).await;
                    let _ = reply.send(r);
                }
                Command::Transfer(request, reply) => {
                    // On failure the reply is dropped and the caller hears the sandbox is
                    // unavailable; the error itself goes to the log.
                    if let Err(e) = self.accept_transfer(request, reply).await {
                        tracing::error!(sandbox = %self.id, "a transfer could not be accepted: {e}");
                    }
                }
                Command::Check(reply) => {
                    let r = invariants::check(&self.world.stores, self.promises).await;
                    let _ = reply.send(r.map_err(LabError::from));
                }
                Command::Shutdown(reply) => {
                    self.save().await?;
                    let _ = reply.send(());
                    return Ok(());
                }
            }
            self.verify("a command").await?;
        }
    }

    /// In checked builds, stops the process at the first broken invariant: a breach must fail
    /// the run that caused it, loudly, with the seed that reproduces it.
    async fn verify(&self, after: &str) -> Result<(), LabError> {
        if !self.check_every_step {
            return Ok(());
        }
        let report = invariants::check(&self.world.stores, self.promises).await?;
        if !report.ok {
            let breaches: Vec<String> = report.violations.iter().map(|v| v.to_string()).collect();
            let message = format!(
                "invariant violated in sandbox {} (seed {}) after {after} at {} ms: {}",
                self.id,
                self.seed,
                self.sim.now(),
                breaches.join("; ")
            );
            tracing::error!("{message}");
            eprintln!("{message}");
            std::process::abort();
        }
        Ok(())
    }

    /// Where the clock stands now: in live mode, where wall time has carried it.
    fn live_now(&self) -> i64 {
        match self.anchor {
            Some((wall, virt)) => {
                let elapsed = wall.elapsed().as_secs_f64() * 1_000.0 * self.speed;
                (virt + elapsed as i64).max(self.sim.now())
            }
            None => self.sim.now(),
        }
    }

    /// The wall instant at which the next step falls due, in live mode.
    fn next_wake(&self) -> Option<tokio::time::Instant> {
        let (wall, virt) = self.anchor?;
        let due = self.sim.next_due()?;
        let wall_ms = ((due - virt).max(0) as f64 / self.speed).ceil();
        Some((wall + std::time::Duration::from_millis(wall_ms as u64)).into())
    }

    /// Runs every step that became due by now (live mode) and brings the clock up to now.
    async fn catch_up(&mut self) -> Result<(), LabError> {
        if self.anchor.is_none() {
            return Ok(());
        }
        let target = self.live_now();
        let ran = self.run_until(Some(target), usize::MAX).await?;
        self.sim.settle_at(target);
        if ran > 0 {
            self.save().await?;
            self.report_clock();
        }
        Ok(())
    }

    /// Runs due steps in order, at most `max` of them, each one's events stored and published
    /// before the next runs. Returns how many ran.
    async fn run_until(&mut self, until: Option<i64>, max: usize) -> Result<usize, LabError> {
        let mut ran = 0;
        while ran < max {
            let started = Instant::now();
            let Some(step) = self.sim.run_next(&mut self.world, until).await else {
                break;
            };
            self.note_time(step.name, started);
            ran += 1;
            if let Err(e) = step.result {
                // A failing store is a broken sandbox, not a lesson: say so and stop.
                tracing::error!(sandbox = %self.id, "step failed at {}: {e}", step.at_ms);
                return Err(LabError::Store(e));
            }
            let started = Instant::now();
            self.publish(step.events).await?;
            self.note_time("event log: store and broadcast", started);
            self.verify(step.name).await?;
            // A rewind stops the moment the event it wants is in the log.
            if self.reached_stop() {
                break;
            }
        }
        Ok(ran)
    }

    async fn clock_commands(
        &mut self,
        commands: Vec<ClockCommand>,
    ) -> Result<ClockState, LabError> {
        if commands.is_empty() {
            // A read of the clock (every lab page render asks for it) changes and saves nothing.
            return Ok(self.report_clock());
        }
        let commands = commands
            .into_iter()
            .map(ClockCommand::validate)
            .collect::<Result<Vec<_>, _>>()?;
        for command in commands {
            let before = self.sim.now();
            match command {
                ClockCommand::Pause => {
                    self.record_input(&command).await?;
                    self.anchor = None;
                    self.mode = ClockMode::Paused;
                    let e = self.lab_event(EventKind::ClockChanged, json!({"mode": "paused"}));
                    self.publish(vec![e]).await?;
                }
                ClockCommand::Resume => {
                    self.record_input(&command).await?;
                    self.mode = ClockMode::Live;
                    self.anchor = Some((Instant::now(), before));
                    let e = self.lab_event(
                        EventKind::ClockChanged,
                        json!({"mode": "live", "speed": self.speed}),
                    );
                    self.publish(vec![e]).await?;
                }
                ClockCommand::Speed { speed } => {
                    self.record_input(&command).await?;
                    self.speed = speed;
                    if self.anchor.is_some() {
                        self.anchor = Some((Instant::now(), before));
                    }
                    let e = self.lab_event(EventKind::ClockChanged, json!({"speed": speed}));
                    self.publish(vec![e]).await?;
                }
                ClockCommand::Step => {
                    if let Some(due) = self.sim.next_due() {
                        self.record_input(&command).await?;
                        let e = self.lab_event(
                            EventKind::ClockStepped,
                            json!({"from_ms": before, "to_ms": due}),
                        );
                        self.publish(vec![e]).await?;
                        self.run_until(None, 1).await?;
                        self.reanchor();
                    }
                }
                ClockCommand::Advance { seconds } => {
                    let target = before + seconds * 1_000;
                    self.record_input(&command).await?;
                    let e = self.lab_event(
                        EventKind::ClockJumped,
                        json!({"from_ms": before, "to_ms": target}),
                    );
                    self.publish(vec![e]).await?;
                    self.run_until(Some(target), usize::MAX).await?;
                    self.sim.settle_at(target);
                    self.reanchor();
                }
            }
        }
        self.save().await?;
        Ok(self.report_clock())
    }

    /// Puts a transfer on the wire: its intent is noted (ground truth for the damage meter) and
    /// the caller's first step is scheduled now.
    async fn accept_transfer(
        &mut self,
        request: TransferRequest,
        reply: oneshot::Sender<ApiReply>,
    ) -> Result<(), LabError> {
        self.record_input(&json!({"transfer": {
            "user": request.user, "key": request.key, "body": request.body, "intent": request.intent,
        }}))
        .await?;
        sqlx::query(
            "INSERT OR IGNORE INTO intents (intent, user_id, amount, first_ms) VALUES (?1, ?2, ?3, ?4)",
        )
        .bind(&request.intent)
        .bind(&request.user)
        .bind(request.body.amount)
        .bind(self.sim.now())
        .execute(self.world.stores.pool(StoreName::Lab))
        .await?;
        let call = self.world.net.accept(reply);
        let now = self.sim.now();
        self.sim.schedule_at(
            now,
            Step::Net(NetStep::Send {
                call,
                req: Arc::new(request),
            }),
        );
        self.report_clock();
        Ok(())
    }

    async fn replay(
        &mut self,
        consumer: Consumer,
        seconds_ago: i64,
    ) -> Result<Vec<(i64, i64)>, LabError> {
        let now = self.sim.now();
        let from = now - seconds_ago * 1_000;
        self.record_input(
            &json!({"replay": {"consumer": consumer, "from_seconds_ago": seconds_ago}}),
        )
        .await?;
        let mut tx = self.world.stores.begin(StoreName::Broker).await?;
        let offsets = broker::seek_to_time(&mut tx, consumer.id(), consumer.topic(), from).await?;
        tx.commit().await?;
        let e = self.lab_event(
            EventKind::ReplayStarted,
            json!({"consumer": consumer, "from_ms": from, "offsets": offsets}),
        );
        self.publish(vec![e]).await?;
        self.sim.schedule_at(now, Step::Consume(consumer));
        self.save().await?;
        self.report_clock();
        Ok(offsets)
    }

    async fn export_run(&mut self) -> Result<Run, LabError> {
        let lab = self.world.stores.pool(StoreName::Lab);
        let rows: Vec<(i64, i64, String)> =
            sqlx::query_as("SELECT at_ms, after_step, input FROM inputs ORDER BY id")
                .fetch_all(lab)
                .await?;
        let inputs = rows
            .into_iter()
            .map(|(at_ms, after_step, input)| RunInput {
                at_ms,
                after_step: after_step as u64,
                input: serde_json::from_str(&input).unwrap_or(serde_json::Value::Null),
            })
            .collect();
        let c = self.sim.counters();
        Ok(Run {
            seed: self.seed,
            inputs,
            end_ms: c.now_ms,
            end_steps: c.steps_run,
            log_hash: self.log_hash().await?,
        })
    }

    /// SHA-256 over the event log: each event's time, lane, kind, correlation, outcome and
    /// details, one line each, in order. Ids are left out: they are the log's own numbering; so
    /// is the first event's kind, "created" or "reset": a run replayed after a reset starts
    /// the same way as a new one.
    async fn log_hash(&self) -> Result<String, LabError> {
        use sha2::{Digest, Sha256};
        let rows: Vec<(i64, String, String, Option<String>, String, String)> = sqlx::query_as(
            "SELECT at_ms, layer, kind, correlation, outcome, details FROM events ORDER BY id",
        )
        .fetch_all(self.world.stores.pool(StoreName::Lab))
        .await?;
        let mut hash = Sha256::new();
        for (i, mut row) in rows.into_iter().enumerate() {
            if i == 0 && row.2 == "sandbox_reset" {
                row.2 = "sandbox_created".to_owned();
            }
            hash.update(
                serde_json::to_string(&row)
                    .expect("rows serialise")
                    .as_bytes(),
            );
            hash.update(b"\n");
        }
        Ok(hash.finalize().iter().map(|b| format!("{b:02x}")).collect())
    }

    /// Runs steps until as many have run as `steps`, none later than `at_ms`, then stands the
    /// clock at `at_ms`: exactly where the original run took its next input. Says whether a
    /// rewind's event was reached on the way (and stops there).
    async fn drive_to(&mut self, at_ms: i64, steps: u64) -> Result<bool, LabError> {
        while self.sim.counters().steps_run < steps {
            match self.sim.next_due() {
                Some(due) if due <= at_ms => {
                    self.run_until(Some(at_ms), 1).await?;
                    if self.reached_stop() {
                        return Ok(true);
                    }
                }
                _ => {
                    return Err(LabError::RunDiverged(format!(
                        "the original had run {steps} steps by {at_ms} ms; this replay ran {}",
                        self.sim.counters().steps_run
                    )))
                }
            }
        }
        if at_ms < self.sim.now() {
            return Err(LabError::RunDiverged(format!(
                "input at {at_ms} ms is in this run's past"
            )));
        }
        self.sim.settle_at(at_ms);
        Ok(false)
    }

    async fn rerun(&mut self, run: Run) -> Result<Run, LabError> {
        self.replay_inputs(run, None).await?;
        self.mode = ClockMode::Paused;
        self.save().await?;
        self.report_clock();
        self.export_run().await
    }

    /// Drives the run's inputs in order (see [`Owner::drive_to`]); with `until`, stops as soon
    /// as the event log holds that event and says whether it got there.
    async fn replay_inputs(&mut self, run: Run, until: Option<i64>) -> Result<bool, LabError> {
        if run.seed != self.seed {
            return Err(LabError::RunDiverged("the sandbox has another seed".into()));
        }
        self.anchor = None;
        self.mode = ClockMode::Paused;
        self.stop_at = until;
        if self.reached_stop() {
            return Ok(true);
        }
        for RunInput {
            at_ms,
            after_step,
            input,
        } in run.inputs
        {
            if self.drive_to(at_ms, after_step).await? {
                return Ok(true);
            }
            self.apply_input(input).await?;
            // Clock inputs may set the clock live; the replay drives it itself.
            self.anchor = None;
            self.mode = ClockMode::Paused;
            if self.reached_stop() {
                return Ok(true);
            }
        }
        let done = self.drive_to(run.end_ms, run.end_steps).await?;
        self.mode = ClockMode::Paused;
        Ok(done || self.reached_stop())
    }

    /// Whether a rewind's replay has logged the event it is after.
    fn reached_stop(&self) -> bool {
        self.stop_at.is_some_and(|at| self.last_event >= at)
    }

    /// The state right after the step that logged `event_id`, its clock at that event's time.
    async fn state_at_event(&mut self, event_id: i64, rows: i64) -> Result<SandboxState, LabError> {
        let mut state = self.state(rows).await?;
        let at: Option<i64> = sqlx::query_scalar("SELECT at_ms FROM events WHERE id = ?1")
            .bind(event_id)
            .fetch_optional(self.world.stores.pool(StoreName::Lab))
            .await?;
        if let Some(at) = at {
            state.clock.now_ms = at;
        }
        state.clock.mode = ClockMode::Paused;
        state.clock.next_due_ms = None;
        Ok(state)
    }

    /// Puts the app's report of a tap on the button and app lanes.
    async fn app_signal(&mut self, signal: AppSignal) -> Result<(), LabError> {
        self.record_input(&json!({ "app": signal })).await?;
        let now = self.sim.now();
        let event = |layer, kind, key: Option<String>, outcome| NewEvent {
            at_ms: now,
            layer,
            kind,
            correlation: key,
            outcome,
            details: json!({}),
        };
        let events = match signal {
            AppSignal::Tap { key, key_kept } => vec![
                event(
                    Layer::Button,
                    EventKind::Tapped,
                    Some(key.clone()),
                    Outcome::Ok,
                ),
                if key_kept {
                    event(Layer::App, EventKind::KeyKept, Some(key), Outcome::Caught)
                } else {
                    event(Layer::App, EventKind::KeyMade, Some(key), Outcome::Ok)
                },
            ],
            AppSignal::TapIgnored { key } => vec![event(
                Layer::Button,
                EventKind::TapIgnored,
                key,
                Outcome::Caught,
            )],
        };
        self.publish(events).await?;
        self.report_clock();
        Ok(())
    }

    async fn apply_input(&mut self, input: serde_json::Value) -> Result<(), LabError> {
        let bad = |what: &str| LabError::RunDiverged(format!("cannot read input {what}"));
        if let Some(a) = input.get("app") {
            let signal = AppSignal::parse(a).map_err(|_| bad("app"))?;
            return self.app_signal(signal).await;
        }
        if let Some(t) = input.get("transfer") {
            let body: TransferBody =
                serde_json::from_value(t["body"].clone()).map_err(|_| bad("transfer"))?;
            let (user, key, intent) = (t["user"].as_str(), t["key"].as_str(), t["intent"].as_str());
            let (Some(user), Some(key), Some(intent)) = (user, key, intent) else {
                return Err(bad("transfer"));
            };
            let request = TransferRequest::new(user, key.to_owned(), body, intent.to_owned());
            // Nobody waits for the answer: the replay is the steps, not the caller.
            let (reply, _) = oneshot::channel();
            return self.accept_transfer(request, reply).await;
        }
        if let Some(body) = input.get("safeguards") {
            return self.set_safeguards(body.clone()).await.map(|_| ());
        }
        if let Some(g) = input.get("generals") {
            let loss = g["loss_pct"].as_i64().ok_or_else(|| bad("generals"))?;
            return self.generals(loss).await.map(|_| ());
        }
        if let Some(n) = input.get("natural") {
            let op = n["op"]
                .as_str()
                .and_then(NaturalOp::from_id)
                .ok_or_else(|| bad("natural"))?;
            let times = n["times"].as_i64().ok_or_else(|| bad("natural"))?;
            return self.natural(op, times).await.map(|_| ());
        }
        if let Some(scenario) = input.get("scenario") {
            // The reset and the settings around it are inputs of their own: this is the
            // timeline's mark.
            self.record_input(&input).await?;
            let e = self.lab_event(EventKind::ScenarioLoaded, scenario.clone());
            return self.publish(vec![e]).await;
        }
        if let Some(body) = input.get("faults") {
            return self.set_faults(body.clone()).await.map(|_| ());
        }
        if let Some(r) = input.get("replay") {
            let consumer = r["consumer"]
                .as_str()
                .and_then(Consumer::from_id)
                .ok_or_else(|| bad("replay"))?;
            let secs = r["from_seconds_ago"]
                .as_i64()
                .ok_or_else(|| bad("replay"))?;
            return self.replay(consumer, secs).await.map(|_| ());
        }
        let command: ClockCommand = serde_json::from_value(input).map_err(|_| bad("clock"))?;
        self.clock_commands(vec![command]).await.map(|_| ())
    }

    fn note_time(&mut self, name: &'static str, started: Instant) {
        let t = self.step_times.entry(name).or_insert_with(|| StepTime {
            name,
            ..StepTime::default()
        });
        t.count += 1;
        t.total += started.elapsed();
    }

    /// After the clock was moved by hand, live time continues from where it now stands.
    fn reanchor(&mut self) {
        if self.anchor.is_some() {
            self.anchor = Some((Instant::now(), self.sim.now()));
        }
    }

    async fn set_safeguards(&mut self, body: serde_json::Value) -> Result<Safeguards, LabError> {
        let next = self.world.safeguards.patched(&body)?;
        self.promises = self.promises.after(&next);
        if next.is_on(Safeguard::StuckRecovery)
            && !self.world.safeguards.is_on(Safeguard::StuckRecovery)
        {
            // Keys that got stuck while recovery was off are looked at now.
            let now = self.sim.now();
            self.sim.schedule_at(now, Step::Job(Job::StuckRecovery));
        }
        self.world.safeguards = next;
        self.settings_changed("safeguards", EventKind::SafeguardsChanged, body)
            .await?;
        Ok(self.world.safeguards.clone())
    }

    async fn set_faults(&mut self, body: serde_json::Value) -> Result<Faults, LabError> {
        self.world.faults = self.world.faults.patched(&body)?;
        self.settings_changed("faults", EventKind::FaultsChanged, body)
            .await?;
        Ok(self.world.faults.clone())
    }

    /// Records a validated, applied settings change as an input and on the lab lane, and saves.
    async fn settings_changed(
        &mut self,
        what: &str,
        kind: EventKind,
        body: serde_json::Value,
    ) -> Result<(), LabError> {
        self.record_input(&json!({ what: &body })).await?;
        let e = self.lab_event(kind, body);
        self.publish(vec![e]).await?;
        self.save().await
    }

    /// Back to the lesson's start: every service store emptied and re-seeded, default settings,
    /// the clock at 09:00 on day 1 running live at ×1, the generator back at the seed, and a new
    /// timeline (event ids keep counting up so a stream never sees an id twice).
    async fn reset(&mut self) -> Result<(), LabError> {
        self.world.stores.reset_services().await?;
        let lab = self.world.stores.pool(StoreName::Lab);
        sqlx::query("DELETE FROM events").execute(lab).await?;
        sqlx::query("DELETE FROM inputs").execute(lab).await?;
        self.world.safeguards = Safeguards::default();
        self.promises = Promises::all();
        self.world.faults = Faults::default();
        self.world.net.clear();
        self.world.pipeline.clear();
        self.sim = Sim::new(START_MS, self.seed);
        for (at, step) in LabWorld::standing_steps(START_MS) {
            self.sim.schedule_at(at, step);
        }
        self.mode = ClockMode::Live;
        self.speed = 1.0;
        self.anchor = Some((Instant::now(), START_MS));
        let e = self.lab_event(EventKind::SandboxReset, json!({"seed": self.seed}));
        self.publish(vec![e]).await?;
        self.save().await?;
        self.report_clock();
        Ok(())
    }

    /// Scenario 8's Two Generals: messengers drawn from the seeded generator, each on the
    /// timeline at the virtual time it would arrive.
    async fn generals(&mut self, loss_pct: i64) -> Result<Generals, LabError> {
        self.record_input(&json!({"generals": {"loss_pct": loss_pct}}))
            .await?;
        let now = self.sim.now();
        let p = loss_pct as f64 / 100.0;
        let rng = self.sim.rng();
        let generals = Generals::from_draws(now, loss_pct, || rng.chance(p));
        let events = generals
            .trips
            .iter()
            .map(|t| NewEvent {
                at_ms: now,
                layer: Layer::Network,
                kind: EventKind::GeneralsTrip,
                correlation: Some(format!("generals-{now}")),
                outcome: if t.lost { Outcome::Lost } else { Outcome::Ok },
                details: json!({"n": t.n, "from": if t.from_a { "a" } else { "b" }}),
            })
            .collect();
        self.publish(events).await?;
        self.save().await?;
        Ok(generals)
    }

    /// Scenario 7: `times` copies of one write, each crossing the network (a lost request
    /// never arrives), each arrival run on the payment API's database and put on the timeline.
    async fn natural(&mut self, op: NaturalOp, times: i64) -> Result<NaturalReport, LabError> {
        self.record_input(&json!({"natural": {"op": op.id(), "times": times}}))
            .await?;
        let now = self.sim.now();
        let transfer_id = format!("sv-{:016x}", self.sim.rng().next_u64());
        let loss = self.world.faults.request_loss_pct as f64 / 100.0;
        let mut conn = self
            .world
            .stores
            .pool(StoreName::Payments)
            .acquire()
            .await?;
        let mut events = Vec::new();
        let mut arrived = 0;
        for copy in 1..=times {
            let correlation = Some(transfer_id.clone());
            if self.sim.rng().chance(loss) {
                events.push(NewEvent {
                    at_ms: now,
                    layer: Layer::Network,
                    kind: EventKind::NaturalLost,
                    correlation,
                    outcome: Outcome::Lost,
                    details: json!({"op": op.id(), "copy": copy}),
                });
                continue;
            }
            let effect = natural::apply(&mut conn, op, &transfer_id, now, arrived == 0).await?;
            arrived += 1;
            let outcome = match effect {
                crate::domain::natural::Effect::AddedAgain => Outcome::Escaped,
                crate::domain::natural::Effect::Refused => Outcome::Caught,
                _ => Outcome::Ok,
            };
            events.push(NewEvent {
                at_ms: now,
                layer: Layer::Api,
                kind: EventKind::NaturalApplied,
                correlation,
                outcome,
                details: json!({"op": op.id(), "copy": copy, "effect": effect.id(),
                               "transfer_id": transfer_id}),
            });
        }
        let report = NaturalReport {
            op,
            sent: times,
            arrived,
            name: natural::name(&mut conn).await?,
            savings: natural::savings(&mut conn).await?,
            credit_rows: natural::credit_rows(&mut conn, &transfer_id).await?,
        };
        drop(conn);
        self.publish(events).await?;
        self.save().await?;
        Ok(report)
    }

    /// A scenario's preset: a reset under the preset's seed, then a "scenario loaded" event and
    /// the preset's settings, each recorded as an input so a run replays them.
    async fn load_scenario(&mut self, preset: Preset) -> Result<(), LabError> {
        if preset.seed != self.seed {
            sqlx::query("UPDATE sandbox SET seed = ?1 WHERE id = 1")
                .bind(preset.seed as i64)
                .execute(self.world.stores.pool(StoreName::Lab))
                .await?;
            self.seed = preset.seed;
        }
        self.reset().await?;
        let scenario = json!({"n": preset.n, "variant": preset.variant.id()});
        self.record_input(&json!({ "scenario": scenario })).await?;
        let e = self.lab_event(EventKind::ScenarioLoaded, scenario);
        self.publish(vec![e]).await?;
        if preset.safeguards.as_object().is_some_and(|m| !m.is_empty()) {
            self.set_safeguards(preset.safeguards).await?;
        }
        if preset.faults.as_object().is_some_and(|m| !m.is_empty()) {
            self.set_faults(preset.faults).await?;
        }
        if preset.speed != self.speed {
            self.clock_commands(vec![ClockCommand::Speed {
                speed: preset.speed,
            }])
            .await?;
        }
        self.save().await
    }

    async fn state(&mut self, rows: i64) -> Result<SandboxState, LabError> {
        let stores = &self.world.stores;
        let payments =
            ledger::balances(&mut *stores.pool(StoreName::Payments).acquire().await?).await?;
        let wallet: Vec<(String, i64)> = sqlx::query_as(
            "SELECT w.user_id, w.opening_balance + COALESCE(SUM(c.amount), 0)
             FROM wallets w LEFT JOIN credits c ON c.user_id = w.user_id
             GROUP BY w.user_id ORDER BY w.user_id",
        )
        .fetch_all(stores.pool(StoreName::Wallet))
        .await?;
        Ok(SandboxState {
            id: self.id.to_string(),
            seed: self.seed,
            clock: self.clock_state(),
            safeguards: self.world.safeguards.clone(),
            faults: self.world.faults.clone(),
            balances: Balances {
                payments: payments.into_iter().collect(),
                wallet: wallet.into_iter().collect(),
            },
            tables: stores.snapshot(rows).await?,
            damage: super::damage::measure(stores).await?,
        })
    }

    fn clock_state(&self) -> ClockState {
        ClockState {
            now_ms: self.sim.now(),
            mode: self.mode,
            speed: self.speed,
            next_due_ms: self.sim.next_due(),
        }
    }

    fn report_clock(&self) -> ClockState {
        let state = self.clock_state();
        self.clock.send_replace(state);
        state
    }

    /// An event on the lab lane, at the current virtual time.
    fn lab_event(&self, kind: EventKind, details: serde_json::Value) -> NewEvent {
        NewEvent {
            at_ms: self.sim.now(),
            layer: Layer::Lab,
            kind,
            correlation: None,
            outcome: Outcome::Ok,
            details,
        }
    }

    /// Stores events in the event log (one transaction) and then sends them to every stream.
    async fn publish(&mut self, events: Vec<NewEvent>) -> Result<(), LabError> {
        if events.is_empty() {
            return Ok(());
        }
        let mut tx = self.world.stores.begin(StoreName::Lab).await?;
        let mut stored = Vec::with_capacity(events.len());
        for e in events {
            let kind = serde_json::to_value(e.kind).expect("event kinds serialise");
            let id: i64 = sqlx::query_scalar(
                "INSERT INTO events (at_ms, layer, kind, correlation, outcome, details)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6) RETURNING id",
            )
            .bind(e.at_ms)
            .bind(e.layer.id())
            .bind(kind.as_str())
            .bind(&e.correlation)
            .bind(e.outcome.id())
            .bind(e.details.to_string())
            .fetch_one(&mut *tx)
            .await?;
            stored.push(TimelineEvent {
                id,
                at_ms: e.at_ms,
                layer: e.layer,
                kind: e.kind,
                correlation: e.correlation,
                outcome: e.outcome,
                details: e.details,
            });
        }
        tx.commit().await?;
        if let Some(last) = stored.last() {
            self.last_event = last.id;
        }
        for e in stored {
            // No stream listening is fine: the log has it.
            let _ = self.events.send(Arc::new(e));
        }
        Ok(())
    }

    /// Notes an outside input with where it arrived (virtual time and steps run before it): a run
    /// is its seed plus these.
    async fn record_input(&mut self, input: &impl serde::Serialize) -> Result<(), LabError> {
        let c = self.sim.counters();
        sqlx::query("INSERT INTO inputs (at_ms, after_step, input) VALUES (?1, ?2, ?3)")
            .bind(c.now_ms)
            .bind(c.steps_run as i64)
            .bind(serde_json::to_string(input).expect("inputs serialise"))
            .execute(self.world.stores.pool(StoreName::Lab))
            .await?;
        Ok(())
    }

    /// Saves the clock, the scheduler's counters and the settings.
    async fn save(&mut self) -> Result<(), LabError> {
        let now = self.live_now();
        let c = self.sim.counters();
        sqlx::query(
            "UPDATE sandbox SET rng_state = ?1, now_ms = ?2, mode = ?3, speed = ?4, seq = ?5,
             steps_run = ?6, safeguards = ?7, faults = ?8 WHERE id = 1",
        )
        .bind(c.rng_state as i64)
        .bind(now)
        .bind(mode_id(self.mode))
        .bind(self.speed)
        .bind(c.seq as i64)
        .bind(c.steps_run as i64)
        .bind(serde_json::to_string(&self.world.safeguards).expect("safeguards serialise"))
        .bind(serde_json::to_string(&self.world.faults).expect("faults serialise"))
        .execute(self.world.stores.pool(StoreName::Lab))
        .await?;
        Ok(())
    }
}

/// The promises still standing, from the safeguard changes recorded since the last reset (the
/// inputs table is emptied on reset, so it holds exactly those).
async fn promises_since_reset(stores: &Stores) -> Result<Promises, LabError> {
    let changes: Vec<String> = sqlx::query_scalar(
        "SELECT input FROM inputs WHERE input LIKE '{\"safeguards\":%' ORDER BY id",
    )
    .fetch_all(stores.pool(StoreName::Lab))
    .await?;
    let mut guards = Safeguards::default();
    let mut promises = Promises::all();
    for change in changes {
        let Ok(input) = serde_json::from_str::<serde_json::Value>(&change) else {
            continue;
        };
        if let Ok(next) = guards.patched(&input["safeguards"]) {
            guards = next;
            promises = promises.after(&guards);
        }
    }
    Ok(promises)
}

fn mode_id(mode: ClockMode) -> &'static str {
    match mode {
        ClockMode::Live => "live",
        ClockMode::Paused => "paused",
    }
}

async fn sleep_until(at: Option<tokio::time::Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}
