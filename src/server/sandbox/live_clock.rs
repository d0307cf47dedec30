//! The wall-to-virtual clock: in live mode a wall instant stands for a virtual time and wall time
//! carries it on at the sandbox's speed ([`LiveClock`], pure and unit-tested); the clock commands
//! (pause, resume, speed, step, advance) and the clock the owner reports.

use super::*;

/// In live mode: a wall instant and the virtual time it stands for. Wall time carries virtual
/// time on from there at the sandbox's speed; a pause drops the anchor, and any jump of the
/// clock by hand sets a new one where the clock then stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct LiveClock {
    wall: Instant,
    virt: i64,
}

impl LiveClock {
    pub(super) fn new(wall: Instant, virt: i64) -> LiveClock {
        LiveClock { wall, virt }
    }

    /// Virtual time at wall instant `now`, never before `floor` (the simulation's own now:
    /// steps already run are never undone).
    pub(super) fn virtual_at(&self, now: Instant, speed: f64, floor: i64) -> i64 {
        let elapsed = now.saturating_duration_since(self.wall).as_secs_f64() * 1_000.0 * speed;
        (self.virt + elapsed as i64).max(floor)
    }

    /// The wall instant at which virtual time `due` arrives (at once if it already has),
    /// rounded up to the millisecond, so waking then never finds the step still in the future.
    pub(super) fn wall_at(&self, due: i64, speed: f64) -> Instant {
        let wall_ms = ((due - self.virt).max(0) as f64 / speed).ceil();
        self.wall + std::time::Duration::from_millis(wall_ms as u64)
    }
}

pub(super) async fn sleep_until(at: Option<tokio::time::Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

impl Owner {
    /// Where the clock stands now: in live mode, where wall time has carried it.
    pub(super) fn live_now(&self) -> i64 {
        match self.anchor {
            Some(clock) => clock.virtual_at(Instant::now(), self.speed, self.sim.now()),
            None => self.sim.now(),
        }
    }

    /// The wall instant at which the next step falls due, in live mode.
    pub(super) fn next_wake(&self) -> Option<tokio::time::Instant> {
        let due = self.sim.next_due()?;
        Some(self.anchor?.wall_at(due, self.speed).into())
    }

    /// Runs every step that became due by now (live mode) and brings the clock up to now.
    pub(super) async fn catch_up(&mut self) -> Result<(), LabError> {
        if self.anchor.is_none() {
            return Ok(());
        }
        let target = self.live_now();
        let ran = self.run_steps(Some(target), usize::MAX).await?;
        self.sim.settle_at(target);
        if ran > 0 {
            // The steps' last events and the save: one round trip to the store.
            let started = Instant::now();
            self.save().await?;
            self.note_time("event log: store and broadcast", started);
            self.report_clock();
        }
        Ok(())
    }

    pub(super) async fn clock_commands(
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
                    self.record_input(&Input::Clock(command)).await?;
                    self.anchor = None;
                    self.mode = ClockMode::Paused;
                    let e = self.lab_event(
                        EventKind::ClockChanged,
                        json!({"mode": ClockMode::Paused.id()}),
                    );
                    self.publish(vec![e]).await?;
                }
                ClockCommand::Resume => {
                    self.record_input(&Input::Clock(command)).await?;
                    self.mode = ClockMode::Live;
                    self.anchor = Some(LiveClock::new(Instant::now(), before));
                    let e = self.lab_event(
                        EventKind::ClockChanged,
                        json!({"mode": "live", "speed": self.speed}),
                    );
                    self.publish(vec![e]).await?;
                }
                ClockCommand::Speed { speed } => {
                    self.record_input(&Input::Clock(command)).await?;
                    self.speed = speed;
                    if self.anchor.is_some() {
                        self.anchor = Some(LiveClock::new(Instant::now(), before));
                    }
                    let e = self.lab_event(EventKind::ClockChanged, json!({"speed": speed}));
                    self.publish(vec![e]).await?;
                }
                ClockCommand::Step => {
                    if let Some(due) = self.sim.next_due() {
                        self.record_input(&Input::Clock(command)).await?;
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
                    self.record_input(&Input::Clock(command)).await?;
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

    /// After the clock was moved by hand, live time continues from where it now stands.
    pub(super) fn reanchor(&mut self) {
        if self.anchor.is_some() {
            self.anchor = Some(LiveClock::new(Instant::now(), self.sim.now()));
        }
    }

    pub(super) fn clock_state(&self) -> ClockState {
        ClockState {
            now_ms: self.sim.now(),
            mode: self.mode,
            speed: self.speed,
            next_due_ms: self.sim.next_due(),
            busy: self.busy(),
            report: self.clock.borrow().report,
        }
    }

    /// Whether work the sandbox was given is still on its way ([`ClockState::busy`]): a step
    /// other than a standing background job queued, or changed rows its screens have not
    /// been sent yet.
    pub(super) fn busy(&self) -> bool {
        self.sim
            .queued()
            .any(|s| !matches!(s, crate::server::world::Step::Job(_)))
            || self.deltas.due.is_some()
            || self.world.stores.changed()
    }

    pub(super) fn report_clock(&self) -> ClockState {
        let mut state = self.clock_state();
        state.report += 1;
        self.clock.send_replace(state);
        state
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn wall_time_carries_virtual_time_at_the_sandbox_speed() {
        let t0 = Instant::now();
        let clock = LiveClock::new(t0, 1_000);
        assert_eq!(clock.virtual_at(t0, 1.0, 0), 1_000);
        assert_eq!(
            clock.virtual_at(t0 + Duration::from_millis(1_500), 1.0, 0),
            2_500
        );
        assert_eq!(
            clock.virtual_at(t0 + Duration::from_millis(1_500), 10.0, 0),
            16_000
        );
        assert_eq!(
            clock.virtual_at(t0 + Duration::from_millis(1_000), 0.5, 0),
            1_500
        );
    }

    #[test]
    fn virtual_time_never_goes_back_before_what_already_ran() {
        let t0 = Instant::now();
        let clock = LiveClock::new(t0 + Duration::from_secs(5), 1_000);
        // A wall instant before the anchor counts as the anchor.
        assert_eq!(clock.virtual_at(t0, 1.0, 0), 1_000);
        assert_eq!(
            clock.virtual_at(t0 + Duration::from_secs(6), 1.0, 9_000),
            9_000
        );
    }

    #[test]
    fn a_due_step_wakes_the_owner_at_the_wall_instant_it_falls_on() {
        let t0 = Instant::now();
        let clock = LiveClock::new(t0, 1_000);
        assert_eq!(clock.wall_at(3_000, 1.0), t0 + Duration::from_millis(2_000));
        assert_eq!(clock.wall_at(3_000, 10.0), t0 + Duration::from_millis(200));
        // Rounded up: 1 ms of virtual time at ×3 is a third of a wall ms, waited as 1 ms.
        assert_eq!(clock.wall_at(1_001, 3.0), t0 + Duration::from_millis(1));
        // Already due: now.
        assert_eq!(clock.wall_at(500, 1.0), t0);
        // And the virtual time at that instant is the step's time or later.
        let wake = clock.wall_at(1_001, 3.0);
        assert!(clock.virtual_at(wake, 3.0, 0) >= 1_001);
    }
}
