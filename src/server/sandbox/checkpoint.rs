//! Rewind checkpoints: the sandbox as it stood between two steps, kept while it runs, so that a
//! rewind reruns the run from the newest checkpoint before its event instead of from the start
//! (ARCHITECTURE.md, "The timeline, rewind and shared runs").
//!
//! A checkpoint is everything a rerun would have rebuilt by then: a copy of each service store
//! (`store::copy_into`, SQLite's online backup: a consistent copy taken between two steps, when
//! no transaction is open), and the memory that goes with it (the scheduler's queue and
//! generator, the calls in flight, the pipeline's producers, the settings, how many inputs had
//! arrived). The event log is not
//! copied: it only grows, so the rewind takes the present's log cut back to the checkpoint's
//! newest event. Checkpoints live as long as the loaded sandbox: a reset, an unload or a restart
//! drops them, and a sandbox opened from disk takes one at once (a restart's queue is not the
//! one the run had, so a rerun from the start would not rebuild what came after it). A rewind
//! with no checkpoint before its event reruns from the start as before.

use std::time::Duration;

use super::*;
use crate::server::store::copy_into;

/// A checkpoint is taken once the steps since the last one took ten times as long to run as
/// taking the last checkpoint took, but never less than `EVERY` nor more than `MOST`: a rewind
/// then reruns at most about `MOST` of steps (a little more after a long step), and checkpoints
/// cost about a tenth of the run's time, more where copying the stores is slow next to running
/// steps (a slow disk): the rewind's time is what the rule holds to. BENCHMARKS.md ("Rewind")
/// has the figures.
const EVERY: Duration = Duration::from_millis(40);
const MOST: Duration = Duration::from_millis(60);
const COST_FACTOR: u32 = 10;
/// ... and never after fewer events than this: about what 40 ms of steps log on a quiet machine
/// (BENCHMARKS.md, "Rewind"), so a rerun of that many is quick anyway. Step time is wall time,
/// and on a busy server (a class of 200 on two cores) a step waits for the processor far longer
/// than it runs: by time alone, every sandbox would take a checkpoint every few transfers, just
/// when copying stores costs the others most (BENCHMARKS.md, "A class on one server").
const MIN_EVENTS: i64 = 250;
/// The most checkpoints a sandbox keeps. One more, and every other one goes (the oldest and
/// the newest stay) and the spacing doubles: a long run keeps a bounded number of copies on
/// disk, and its rewinds rerun at most the spacing it has reached.
const KEPT: usize = 48;
/// The folder, inside the sandbox's, that holds the checkpoints' store copies.
const DIR: &str = "checkpoints";

/// The service stores a checkpoint copies (the lab store's log is taken from the present).
const COPIED: [StoreName; 5] = [
    StoreName::Payments,
    StoreName::Broker,
    StoreName::Fraud,
    StoreName::Wallet,
    StoreName::Sms,
];

/// A live sandbox's checkpoints, oldest first, and what has run since the newest.
pub(super) struct Checkpoints {
    root: PathBuf,
    taken: Vec<Arc<Checkpoint>>,
    /// Step time between two checkpoints at least: [`EVERY`], doubled at each thinning.
    every: Duration,
    /// Step time since the newest checkpoint, and what taking it cost.
    since: Duration,
    cost: Duration,
    /// The newest event when the newest checkpoint was taken (or the list was started).
    events_at: i64,
}

/// The sandbox between two steps.
pub(super) struct Checkpoint {
    /// The newest event of the log then.
    last_event: i64,
    /// How many of the run's inputs had arrived.
    inputs: usize,
    dir: PathBuf,
    sim: Sim<Step>,
    net: Network,
    pipeline: Pipeline,
    safeguards: Safeguards,
    faults: Faults,
    promises: Promises,
    speed: f64,
    /// The newest input's id then.
    input_id: i64,
    /// The lab store's newest intent row (the damage meter's ground truth: rows are only ever
    /// added, with `INSERT OR IGNORE`, so the rows up to it are the intents then).
    intents: i64,
}

/// What a rewind starts from: the run so far and the newest checkpoint before its event, if any.
pub(super) type Source = (Run, Option<Arc<Checkpoint>>);

impl Drop for Checkpoint {
    /// A checkpoint's copies go with the last holder: the owner's list, or a rewind still
    /// copying them after a reset dropped it from the list.
    fn drop(&mut self) {
        if let Err(e) = std::fs::remove_dir_all(&self.dir) {
            if e.kind() != std::io::ErrorKind::NotFound {
                tracing::warn!(dir = %self.dir.display(), "checkpoint copies not removed: {e}");
            }
        }
    }
}

impl Checkpoints {
    /// Starts a sandbox's list, removing whatever an earlier life of the sandbox left behind.
    pub(super) async fn start(sandbox_dir: &Path, last_event: i64) -> Result<Self, LabError> {
        let root = sandbox_dir.join(DIR);
        remove_dir(&root).await?;
        Ok(Checkpoints {
            root,
            taken: Vec::new(),
            every: EVERY,
            since: Duration::ZERO,
            cost: Duration::ZERO,
            events_at: last_event,
        })
    }

    fn due(&self, last_event: i64) -> bool {
        last_event - self.events_at >= MIN_EVENTS
            && self.since >= self.every.max((self.cost * COST_FACTOR).min(MOST))
    }
}

async fn remove_dir(dir: &Path) -> Result<(), LabError> {
    match tokio::fs::remove_dir_all(dir).await {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e.into()),
        _ => Ok(()),
    }
}

impl Owner {
    /// Counts a step's time (its run and its events' storing) towards the next checkpoint.
    pub(super) fn note_checkpoint_time(&mut self, spent: Duration) {
        if let Some(c) = self.checkpoints.as_mut() {
            c.since += spent;
        }
    }

    /// Takes a checkpoint if one is due. Only ever called between two steps or commands.
    pub(super) async fn maybe_checkpoint(&mut self) -> Result<(), LabError> {
        if !self
            .checkpoints
            .as_ref()
            .is_some_and(|c| c.due(self.last_event + self.pending.len() as i64))
        {
            return Ok(());
        }
        self.take_checkpoint().await
    }

    /// Copies the service stores and keeps the memory that goes with them.
    pub(super) async fn take_checkpoint(&mut self) -> Result<(), LabError> {
        let Some(root) = self.checkpoints.as_ref().map(|c| c.root.clone()) else {
            return Ok(());
        };
        // The checkpoint stands after the last event logged: log the ones waiting first.
        self.flush_events().await?;
        let started = Instant::now();
        let dir = root.join(self.last_event.to_string());
        remove_dir(&dir).await?;
        tokio::fs::create_dir_all(&dir).await?;
        for name in COPIED {
            let file = dir.join(name.file());
            copy_into(&mut *self.world.stores.conn(name).await?, &file).await?;
        }
        let (intents, inputs, input_id): (i64, i64, i64) = sqlx::query_as(
            "SELECT (SELECT COALESCE(MAX(rowid), 0) FROM intents), (SELECT COUNT(*) FROM inputs),
                    (SELECT COALESCE(MAX(id), 0) FROM inputs)",
        )
        .fetch_one(&mut *self.world.stores.conn(StoreName::Lab).await?)
        .await?;
        let checkpoint = Checkpoint {
            last_event: self.last_event,
            inputs: inputs as usize,
            dir,
            sim: self.sim.clone(),
            net: self.world.net.fork(),
            pipeline: self.world.pipeline.clone(),
            safeguards: self.world.safeguards.clone(),
            faults: self.world.faults.clone(),
            promises: self.promises,
            speed: self.speed,
            input_id,
            intents,
        };
        let last_event = self.last_event;
        let c = self.checkpoints.as_mut().expect("checked above");
        c.taken.push(Arc::new(checkpoint));
        c.events_at = last_event;
        c.since = Duration::ZERO;
        c.cost = started.elapsed();
        if c.taken.len() > KEPT {
            // Dropped from the list, each one's copies are removed (see `Drop`).
            let mut i = 0;
            c.taken.retain(|_| {
                i += 1;
                i % 2 == 1 || i == KEPT + 1
            });
            c.every *= 2;
        }
        self.note_time("rewind checkpoint", started);
        Ok(())
    }

    /// Forgets every checkpoint (a reset: the run they belong to is over; or the end of the
    /// owner). Their copies are removed as the last holder lets go.
    pub(super) fn drop_checkpoints(&mut self) {
        if let Some(c) = self.checkpoints.as_mut() {
            c.taken.clear();
            c.every = EVERY;
            c.since = Duration::ZERO;
            c.events_at = self.last_event;
        }
    }

    /// For a rewind to `event_id`: the run so far and the newest checkpoint before the event, if
    /// any. Both in one command, so that they belong to the same run.
    pub(super) async fn rewind_source(&mut self, event_id: i64) -> Result<Source, LabError> {
        let run = self.export_run().await?;
        let checkpoint = self.checkpoints.as_ref().and_then(|c| {
            c.taken
                .iter()
                .rev()
                .find(|cp| cp.last_event < event_id)
                .cloned()
        });
        Ok((run, checkpoint))
    }

    /// Reruns `run` from the start in this (new, paused) sandbox until `event_id` is logged, and
    /// returns the sandbox as it stood then.
    pub(super) async fn rewind_to(
        &mut self,
        run: Run,
        event_id: i64,
        rows: i64,
    ) -> Result<SandboxState, LabError> {
        match self.rerun_inputs(run, Some(event_id)).await? {
            true => self.state_at_event(event_id, rows).await,
            false => Err(LabError::RunDiverged(format!(
                "the run ended before event {event_id}"
            ))),
        }
    }
}

/// A rewind from a checkpoint, built in `scratch` (a folder the caller removes): the
/// checkpoint's store copies and a copy of the present's lab store (`log`), cut back to the
/// checkpoint; then the inputs that came after it, rerun until `event_id` is logged. The
/// sandbox it builds has no task, no stream and no checkpoints of its own; its stores are closed
/// before it returns. Everything is written here, by the caller's task: a rewind dropped
/// halfway writes nothing more.
pub(super) async fn rewind_from(
    scratch: &Path,
    id: Uuid,
    log: &Stores,
    mut run: Run,
    cp: Arc<Checkpoint>,
    event_id: i64,
    rows: i64,
) -> Result<SandboxState, LabError> {
    tokio::fs::create_dir_all(scratch).await?;
    for name in COPIED {
        let file = name.file();
        tokio::fs::copy(cp.dir.join(&file), scratch.join(&file)).await?;
    }
    let lab = scratch.join(StoreName::Lab.file());
    copy_into(&mut *log.conn(StoreName::Lab).await?, &lab).await?;
    let stores = Stores::open(scratch).await?;
    let cut = cut_lab_store(&stores, &cp, event_id).await;
    if let Err(e) = cut {
        stores.close().await;
        return Err(e);
    }
    run.inputs.drain(..cp.inputs.min(run.inputs.len()));
    let (events, _) = broadcast::channel(1);
    let clock = ClockState {
        now_ms: cp.sim.now(),
        mode: ClockMode::Paused,
        speed: cp.speed,
        next_due_ms: cp.sim.next_due(),
        busy: false,
        report: 0,
    };
    let mut owner = Owner {
        id,
        seed: run.seed,
        sim: cp.sim.clone(),
        world: LabWorld {
            stores,
            safeguards: cp.safeguards.clone(),
            faults: cp.faults.clone(),
            net: cp.net.fork(),
            pipeline: cp.pipeline.clone(),
        },
        mode: ClockMode::Paused,
        speed: cp.speed,
        anchor: None,
        events,
        deltas: DeltaFeed::new(broadcast::channel(1).0),
        clock: watch::channel(clock).0,
        step_times: Default::default(),
        last_event: cp.last_event,
        pending: Vec::new(),
        idle_check: None,
        stop_at: None,
        promises: cp.promises,
        check_every_step: invariants::every_step(),
        checkpoints: None,
    };
    drop(cp);
    let state = owner.rewind_to(run, event_id, rows).await;
    owner.world.stores.close().await;
    state
}

/// The present's lab store, copied, back as it was at the checkpoint: its log up to the
/// checkpoint's newest event and its inputs up to the newest one then (later ones continue their
/// numbering), its intents then. A reset of the present since the checkpoint was chosen shows as
/// a log without the checkpoint's newest event or without the one wanted: that event is gone.
async fn cut_lab_store(stores: &Stores, cp: &Checkpoint, event_id: i64) -> Result<(), LabError> {
    let mut tx = stores.begin(StoreName::Lab).await?;
    if !super::events::event_log::cut_back(&mut tx, cp.last_event, event_id).await? {
        return Err(LabError::UnknownEvent(event_id));
    }
    // The inputs that came later are recorded again as the rerun takes them, with their ids.
    sqlx::query("DELETE FROM inputs WHERE id > ?1")
        .bind(cp.input_id)
        .execute(&mut *tx)
        .await?;
    sqlx::query("UPDATE sqlite_sequence SET seq = ?1 WHERE name = 'inputs'")
        .bind(cp.input_id)
        .execute(&mut *tx)
        .await?;
    sqlx::query("DELETE FROM intents WHERE rowid > ?1")
        .bind(cp.intents)
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(())
}
