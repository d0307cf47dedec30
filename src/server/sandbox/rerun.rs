//! Runs: export (the seed, the timed inputs, the event log's hash), rerun into a fresh sandbox, and
//! rewind (rebuild the past up to one event).

use super::*;

impl Owner {
    pub(super) async fn export_run(&mut self) -> Result<Run, LabError> {
        let rows: Vec<(i64, i64, String)> =
            sqlx::query_as("SELECT at_ms, after_step, input FROM inputs ORDER BY id")
                .fetch_all(&mut *self.world.stores.conn(StoreName::Lab).await?)
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
    /// is the first event's kind, "created" or "reset": a run rerun after a reset starts
    /// the same way as a new one.
    pub(super) async fn log_hash(&self) -> Result<String, LabError> {
        use sha2::{Digest, Sha256};
        let rows =
            super::events::event_log::for_hash(&mut *self.world.stores.conn(StoreName::Lab).await?)
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
    pub(super) async fn drive_to(&mut self, at_ms: i64, steps: u64) -> Result<bool, LabError> {
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
                        "the original had run {steps} steps by {at_ms} ms; this rerun ran {}",
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

    pub(super) async fn rerun(&mut self, run: Run) -> Result<Run, LabError> {
        self.rerun_inputs(run, None).await?;
        self.mode = ClockMode::Paused;
        self.save().await?;
        self.report_clock();
        self.export_run().await
    }

    /// Drives the run's inputs in order (see [`Owner::drive_to`]); with `until`, stops as soon
    /// as the event log holds that event and says whether it got there.
    pub(super) async fn rerun_inputs(
        &mut self,
        run: Run,
        until: Option<i64>,
    ) -> Result<bool, LabError> {
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
            // Clock inputs may set the clock live; the rerun drives it itself.
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

    /// Whether a rewind's rerun has logged the event it is after.
    pub(super) fn reached_stop(&self) -> bool {
        self.stop_at.is_some_and(|at| self.last_event >= at)
    }

    /// The state right after the step that logged `event_id`, its clock at that event's time.
    pub(super) async fn state_at_event(
        &mut self,
        event_id: i64,
        rows: i64,
    ) -> Result<SandboxState, LabError> {
        let mut state = self.state(rows).await?;
        let at = super::events::event_log::at_ms_of(
            &mut *self.world.stores.conn(StoreName::Lab).await?,
            event_id,
        )
        .await?;
        if let Some(at) = at {
            state.clock.now_ms = at;
        }
        state.clock.mode = ClockMode::Paused;
        state.clock.next_due_ms = None;
        // A past moment: nothing is on its way in it, and no report of the live clock.
        state.clock.busy = false;
        state.clock.report = 0;
        Ok(state)
    }
}
