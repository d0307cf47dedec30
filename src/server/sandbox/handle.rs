//! The handle every caller holds: each call is a command to the sandbox's owner task, answered on a
//! oneshot channel; reads of the clock, the event stream and the event log that need no command.

use super::events::event_log;
use super::*;

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

    /// Switches safeguards and returns them all.
    pub async fn set_safeguards(&self, patch: SafeguardsPatch) -> Result<Safeguards, LabError> {
        self.ask(|tx| Command::Safeguards(patch, tx)).await
    }

    /// Sets faults and returns them all.
    pub async fn set_faults(&self, patch: FaultsPatch) -> Result<Faults, LabError> {
        self.ask(|tx| Command::Faults(patch, tx)).await
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
    pub async fn generals(&self, loss_pct: Percent) -> Result<Generals, LabError> {
        self.ask(|tx| Command::Generals(loss_pct, tx)).await
    }

    /// Scenario 7: sends `times` copies of one natural-idempotency write over the sandbox's
    /// network and reports what the table says after them.
    pub async fn natural(&self, op: NaturalOp, times: Times) -> Result<NaturalReport, LabError> {
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

    /// Rewinds a consumer group to the records of the last `from_seconds_ago` virtual seconds
    /// and wakes it: a replay. Returns the new offset of each partition.
    pub async fn replay(&self, body: ReplayBody) -> Result<Vec<(i64, i64)>, LabError> {
        self.ask(|tx| Command::Replay(body, tx)).await
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

    /// Rewinds to `event_id` from the newest checkpoint before it, building the past in
    /// `scratch` (a folder that does not exist yet); without such a checkpoint, hands back the
    /// run to rerun from the start. The rebuilding runs as a task of its own that removes
    /// `scratch` when it ends, so a request dropped halfway leaves nothing behind.
    pub async fn rewind_from_checkpoint(
        &self,
        event_id: i64,
        scratch: PathBuf,
        rows: i64,
    ) -> Result<Rewind, LabError> {
        let (run, checkpoint) = self.ask(|tx| Command::RewindSource(event_id, tx)).await?;
        let Some(cp) = checkpoint else {
            return Ok(Rewind::FromStart(run));
        };
        let (id, log) = (self.id, self.log.clone());
        // A task of its own, so the scratch folder goes even if the caller gives up; on a lane,
        // as a sandbox runs, since the rewind's scratch stores are opened there.
        let state = on_a_lane(async move {
            let state = checkpoint::rewind_from(&scratch, id, &log, run, cp, event_id, rows).await;
            if let Err(e) = tokio::fs::remove_dir_all(&scratch).await {
                if e.kind() != std::io::ErrorKind::NotFound {
                    tracing::warn!(dir = %scratch.display(), "rewind folder not removed: {e}");
                }
            }
            state
        })
        .await?;
        Ok(Rewind::Done(Box::new(state)))
    }

    /// Where an event stands in the log since the sandbox's start or last reset (1 for the
    /// first), or `None` when the log has no such event.
    pub async fn event_position(&self, event_id: i64) -> Result<Option<i64>, LabError> {
        Ok(event_log::position(&mut *self.log.conn(StoreName::Lab).await?, event_id).await?)
    }

    /// The whole sandbox, between two steps, each table's newest [`SNAPSHOT_ROWS`] rows.
    pub async fn state(&self) -> Result<SandboxState, LabError> {
        self.state_rows(SNAPSHOT_ROWS).await
    }

    /// The whole sandbox with at most `rows` rows per table (the screen reads fewer, often).
    pub async fn state_rows(&self, rows: i64) -> Result<SandboxState, LabError> {
        self.ask(|tx| Command::State(rows, tx)).await
    }

    /// The damage meter alone, between two steps.
    pub async fn damage(&self) -> Result<crate::domain::Damage, LabError> {
        self.ask(Command::Damage).await
    }

    /// The newest event of the log, if any. Reads the log directly, as
    /// [`SandboxHandle::events_after`] does, and does not count as a use of the sandbox.
    pub async fn last_event(&self) -> Result<Option<TimelineEvent>, LabError> {
        let row = event_log::newest(&mut *self.log.conn(StoreName::Lab).await?).await?;
        row.map(EventRow::into_event).transpose()
    }

    /// The events since the sandbox's last reset (the reset's own included), oldest first, at
    /// most the newest `limit` of them: what a chapter's steps are checked against, as the lab
    /// page's stream keeps them (`app/lab/stream.rs`). Reads the log directly.
    pub async fn events_since_reset(&self, limit: i64) -> Result<Vec<TimelineEvent>, LabError> {
        let rows =
            event_log::since_reset(&mut *self.log.conn(StoreName::Lab).await?, limit).await?;
        rows.into_iter().map(EventRow::into_event).collect()
    }

    /// How many events of each kind the whole log holds, by kind id (`request_lost` …): what a
    /// day's run met, as the server recorded it. Reads the log directly.
    pub async fn event_counts(&self) -> Result<std::collections::HashMap<String, u64>, LabError> {
        let rows = event_log::counts_by_kind(&mut *self.log.conn(StoreName::Lab).await?).await?;
        Ok(rows
            .into_iter()
            .map(|(k, n)| (k, n.max(0) as u64))
            .collect())
    }

    /// How many events of the whole log are marked caught: duplicates a guard stopped.
    pub async fn caught_count(&self) -> Result<u64, LabError> {
        let n = event_log::caught(&mut *self.log.conn(StoreName::Lab).await?).await?;
        Ok(n.max(0) as u64)
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

    /// What changes in the state from now on ([`StateNews`]), for a screen that keeps a copy.
    pub fn subscribe_state(&self) -> broadcast::Receiver<Arc<StateNews>> {
        self.deltas.subscribe()
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
        let rows =
            event_log::after(&mut *self.log.conn(StoreName::Lab).await?, after_id, limit).await?;
        rows.into_iter().map(EventRow::into_event).collect()
    }

    /// Takes the phone as the app's browser shows it now, for the sandbox's streams: a
    /// read-only mirror shows the same phone (docs/reference.md §10).
    pub fn show_phone(&self, phone: PhoneView) {
        self.touch();
        self.presence.send_if_modified(|p| {
            let news = p.phone.as_ref() != Some(&phone);
            p.phone = Some(phone);
            news
        });
    }

    /// Locks (or unlocks) the student's own controls while the class's instructor runs a demo;
    /// the instructor's pushes still reach the sandbox.
    pub fn set_locked(&self, locked: bool) {
        self.presence.send_if_modified(|p| {
            let news = p.locked != locked;
            p.locked = locked;
            news
        });
    }

    /// Refuses a change the student asked for while the class's instructor holds the lock.
    pub fn unlocked(&self) -> Result<&Self, LabError> {
        if self.presence.borrow().locked {
            Err(LabError::Locked)
        } else {
            Ok(self)
        }
    }

    /// Freezes (or thaws) the student's own clock while the class's instructor holds every
    /// clock still; the instructor's thaw is a push, which does not ask.
    pub fn set_frozen(&self, frozen: bool) {
        self.presence.send_if_modified(|p| {
            let news = p.frozen != frozen;
            p.frozen = frozen;
            news
        });
    }

    /// Puts what the class's instructor last said on the student's screens (a chapter to
    /// open, a message).
    pub fn set_cue(&self, cue: &crate::domain::class::Cue) {
        self.presence.send_if_modified(|p| {
            let news = &p.cue != cue;
            p.cue = cue.clone();
            news
        });
    }

    /// Refuses a clock change the student asked for while the class's clocks are frozen.
    pub fn unfrozen(&self) -> Result<&Self, LabError> {
        if self.presence.borrow().frozen {
            Err(LabError::Frozen)
        } else {
            Ok(self)
        }
    }

    /// Watches what the sandbox's screens share (the phone, the lock, the freeze).
    pub fn watch_presence(&self) -> watch::Receiver<Presence> {
        self.presence.subscribe()
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
