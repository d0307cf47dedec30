//! The owner task's loop: commands in, due steps run in order between them, a run of steps'
//! events stored and published before the next command, what changed in the state sent to the
//! screens that follow it, the invariants checked when asked, idle stores closed, and how long
//! each kind of step takes.

use super::events::EVENTS_PER_INSERT;
use super::*;
use crate::server::store::STORE_IDLE;

impl Owner {
    /// Reads best whole: the owner's loop: one select over its inputs, each arm short.
    pub(super) async fn run(&mut self, mut rx: mpsc::Receiver<Command>) -> Result<(), LabError> {
        loop {
            self.arm_delta().await?;
            let wake = self.next_wake();
            let idle = self.idle_check;
            let delta = self.deltas.due;
            let command = tokio::select! {
                c = rx.recv() => c,
                _ = sleep_until(delta), if delta.is_some() => {
                    self.send_delta().await?;
                    continue;
                }
                _ = sleep_until(wake), if wake.is_some() => {
                    self.catch_up().await?;
                    self.arm_idle_check();
                    continue;
                }
                _ = sleep_until(idle), if idle.is_some() => {
                    // A sandbox left open but unused (a student reading) keeps no store of its
                    // services open; the next step or command opens what it needs again.
                    self.idle_check = self.world.stores.close_idle(STORE_IDLE).await.map(Into::into);
                    continue;
                }
            };
            self.arm_idle_check();
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
                Command::Damage(reply) => {
                    let r = self.damage().await;
                    let _ = reply.send(r);
                }
                Command::Replay(body, reply) => {
                    let r = self.replay(body).await;
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
                    let r = self.rewind_to(*run, event_id, rows).await;
                    let _ = reply.send(r);
                }
                Command::RewindSource(event_id, reply) => {
                    let r = self.rewind_source(event_id).await;
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
            self.maybe_checkpoint().await?;
        }
    }

    /// In checked builds, stops the process at the first broken invariant: a breach must fail
    /// the run that caused it, loudly, with the seed that reproduces it.
    pub(super) async fn verify(&self, after: &str) -> Result<(), LabError> {
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

    /// Runs due steps in order, at most `max` of them. Their events wait in memory and go into
    /// the log [`EVENTS_PER_INSERT`] at a time, and all of them before this returns (so before
    /// any command, and before the owner sleeps) and before a checkpoint: one statement for a
    /// run of steps instead of one per step. While a rewind looks for its event, each step's
    /// events are stored before the next step runs. Returns how many steps ran.
    ///
    /// A `kill -9` in the middle of a run loses the events still waiting, as it loses every
    /// step's work in memory: what the steps committed to their stores stays, and a restart
    /// carries on from the stores (ARCHITECTURE.md, "Time and order").
    pub(super) async fn run_until(
        &mut self,
        until: Option<i64>,
        max: usize,
    ) -> Result<usize, LabError> {
        let ran = self.run_steps(until, max).await?;
        self.timed_flush().await?;
        Ok(ran)
    }

    /// [`Owner::run_until`] but for the last events, which it leaves waiting: for a caller
    /// that saves next, so the two go to the store together ([`Owner::save`]).
    pub(super) async fn run_steps(
        &mut self,
        until: Option<i64>,
        max: usize,
    ) -> Result<usize, LabError> {
        let mut ran = 0;
        while ran < max {
            let started = Instant::now();
            let Some(step) = self.sim.run_next(&mut self.world, until).await else {
                break;
            };
            self.note_time(step.name, started);
            let step_started = started;
            ran += 1;
            if let Err(e) = step.result {
                // A failing store is a broken sandbox, not a lesson: say so and stop, with the
                // steps before it logged.
                tracing::error!(sandbox = %self.id, "step failed at {}: {e}", step.at_ms);
                let _ = self.flush_events().await;
                return Err(e.into());
            }
            self.pending.extend(step.events);
            if self.pending.len() >= EVENTS_PER_INSERT || self.stop_at.is_some() {
                self.timed_flush().await?;
            }
            self.note_checkpoint_time(step_started.elapsed());
            self.verify(step.name).await?;
            // A rewind stops the moment the event it wants is in the log.
            if self.reached_stop() {
                break;
            }
            self.maybe_checkpoint().await?;
        }
        Ok(ran)
    }

    async fn timed_flush(&mut self) -> Result<(), LabError> {
        if self.pending.is_empty() {
            return Ok(());
        }
        let started = Instant::now();
        self.flush_events().await?;
        self.note_time("event log: store and broadcast", started);
        Ok(())
    }

    /// After work that may have opened a store: look for idle stores `STORE_IDLE` from now,
    /// unless a look is already due (each store's own last use decides whether it closes).
    fn arm_idle_check(&mut self) {
        if self.idle_check.is_none() {
            self.idle_check = Some(tokio::time::Instant::now() + STORE_IDLE);
        }
    }

    pub(super) fn note_time(&mut self, name: &'static str, started: Instant) {
        let t = self.step_times.entry(name).or_insert_with(|| StepTime {
            name,
            ..StepTime::default()
        });
        t.count += 1;
        t.total += started.elapsed();
    }
}
