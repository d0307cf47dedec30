//! The discrete-event core of a sandbox: one virtual clock, one queue of scheduled steps ordered
//! by (virtual time, sequence number), and one seeded generator.
//!
//! Services never read the wall clock or any other generator: a step sees the virtual time it
//! was scheduled for and draws from the sandbox's [`Rng`]. Two requests that overlap in virtual
//! time are just steps interleaved in the queue, so a race runs the same way every time. The
//! queue knows nothing of wall time; the sandbox's owner task decides when to let it run
//! (live, paused, step, jump).

pub mod rng;

use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::future::Future;

pub use rng::Rng;

use crate::domain::{EventKind, Layer, Outcome};

/// An event a step records, before the event log gives it an id.
#[derive(Clone, Debug, PartialEq)]
pub struct NewEvent {
    pub at_ms: i64,
    pub layer: Layer,
    pub kind: EventKind,
    pub correlation: Option<String>,
    pub outcome: Outcome,
    pub details: serde_json::Value,
}

/// What runs the steps: the services of a sandbox (or a toy world in tests).
pub trait World {
    type Step: Send;
    type Error: std::fmt::Display;
    /// A short name for a step's kind (for statistics).
    fn name(step: &Self::Step) -> &'static str;
    /// Runs one step at `cx.now()`. Follow-up steps go through `cx.schedule_*`, timeline events
    /// through `cx.record`.
    fn run(
        &mut self,
        step: Self::Step,
        cx: &mut Cx<'_, Self::Step>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send;
}

/// What a running step may touch of the simulation: the time, the generator, the queue (to add
/// to it, and to see what is still on its way) and the timeline.
pub struct Cx<'a, S> {
    now_ms: i64,
    rng: &'a mut Rng,
    queue: &'a BinaryHeap<Entry<S>>,
    scheduled: Vec<Scheduled<S>>,
    events: Vec<NewEvent>,
}

/// A step a running step asked for: always, or only if it is not already on its way.
struct Scheduled<S> {
    at_ms: i64,
    step: S,
    wake: bool,
}

impl<S> Cx<'_, S> {
    /// The virtual time this step runs at.
    pub fn now(&self) -> i64 {
        self.now_ms
    }

    pub fn rng(&mut self) -> &mut Rng {
        self.rng
    }

    /// Every step still queued (not counting what this step has scheduled), in no particular
    /// order: the work other services still have on their way.
    pub fn queued(&self) -> impl Iterator<Item = &S> {
        self.queue.iter().map(|e| &e.step)
    }

    /// Schedules `step` to run `delay_ms` after now (0: after everything already due now).
    pub fn schedule_in(&mut self, delay_ms: i64, step: S) {
        self.scheduled.push(Scheduled {
            at_ms: self.now_ms + delay_ms.max(0),
            step,
            wake: false,
        });
    }

    /// Schedules `step` at a virtual time (never earlier than now).
    pub fn schedule_at(&mut self, at_ms: i64, step: S) {
        self.scheduled.push(Scheduled {
            at_ms: at_ms.max(self.now_ms),
            step,
            wake: false,
        });
    }

    /// Wakes a service `delay_ms` from now unless the same step is already queued by then: a
    /// poll loop. A consumer that will poll in 20 ms anyway reads the new record then; a
    /// thousand appends in one instant make one poll, not a thousand.
    pub fn wake_in(&mut self, delay_ms: i64, step: S) {
        self.scheduled.push(Scheduled {
            at_ms: self.now_ms + delay_ms.max(0),
            step,
            wake: true,
        });
    }

    /// Records a timeline event at the current virtual time.
    pub fn record(
        &mut self,
        layer: Layer,
        kind: EventKind,
        correlation: Option<String>,
        outcome: Outcome,
        details: serde_json::Value,
    ) {
        self.events.push(NewEvent {
            at_ms: self.now_ms,
            layer,
            kind,
            correlation,
            outcome,
            details,
        });
    }
}

#[derive(Clone)]
struct Entry<S> {
    at_ms: i64,
    seq: u64,
    step: S,
}

impl<S> PartialEq for Entry<S> {
    fn eq(&self, other: &Self) -> bool {
        (self.at_ms, self.seq) == (other.at_ms, other.seq)
    }
}
impl<S> Eq for Entry<S> {}
impl<S> PartialOrd for Entry<S> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<S> Ord for Entry<S> {
    /// Reversed, so the max-heap pops the earliest (time, seq) first.
    fn cmp(&self, other: &Self) -> Ordering {
        (other.at_ms, other.seq).cmp(&(self.at_ms, self.seq))
    }
}

/// The saved part of a simulation: enough to resume its clock, order and randomness.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SimCounters {
    pub now_ms: i64,
    pub seq: u64,
    pub steps_run: u64,
    pub rng_state: u64,
}

/// The clock, the queue and the generator of one sandbox. A clone is the simulation at this
/// instant, queue and generator included: what a rewind's checkpoint keeps.
#[derive(Clone)]
pub struct Sim<S> {
    now_ms: i64,
    seq: u64,
    steps_run: u64,
    queue: BinaryHeap<Entry<S>>,
    rng: Rng,
}

/// What running one step produced.
pub struct Ran<E> {
    pub at_ms: i64,
    /// The step's kind, as [`World::name`] gives it.
    pub name: &'static str,
    pub events: Vec<NewEvent>,
    pub result: Result<(), E>,
}

impl<S: Send + PartialEq> Sim<S> {
    pub fn new(now_ms: i64, seed: u64) -> Sim<S> {
        Sim::resume(SimCounters {
            now_ms,
            seq: 0,
            steps_run: 0,
            rng_state: seed,
        })
    }

    /// A simulation with an empty queue that continues saved counters.
    pub fn resume(c: SimCounters) -> Sim<S> {
        Sim {
            now_ms: c.now_ms,
            seq: c.seq,
            steps_run: c.steps_run,
            queue: BinaryHeap::new(),
            rng: Rng::new(c.rng_state),
        }
    }

    pub fn counters(&self) -> SimCounters {
        SimCounters {
            now_ms: self.now_ms,
            seq: self.seq,
            steps_run: self.steps_run,
            rng_state: self.rng.state(),
        }
    }

    pub fn now(&self) -> i64 {
        self.now_ms
    }

    pub fn rng(&mut self) -> &mut Rng {
        &mut self.rng
    }

    /// Every step still queued, in no particular order: the work in flight.
    pub fn queued(&self) -> impl Iterator<Item = &S> {
        self.queue.iter().map(|e| &e.step)
    }

    /// When the next step is due, if any.
    pub fn next_due(&self) -> Option<i64> {
        self.queue.peek().map(|e| e.at_ms)
    }

    /// Adds a step at a virtual time (never earlier than now). Steps at the same time run in the
    /// order they were scheduled.
    pub fn schedule_at(&mut self, at_ms: i64, step: S) {
        self.seq += 1;
        self.queue.push(Entry {
            at_ms: at_ms.max(self.now_ms),
            seq: self.seq,
            step,
        });
    }

    /// Moves the clock forward to `to_ms` with nothing run (the caller ran what was due).
    pub fn settle_at(&mut self, to_ms: i64) {
        self.now_ms = self.now_ms.max(to_ms);
    }

    /// Runs the earliest step if it is due at or before `until_ms` (any time if `None`), moving
    /// the clock to its time. `None` when nothing is due.
    pub async fn run_next<W>(
        &mut self,
        world: &mut W,
        until_ms: Option<i64>,
    ) -> Option<Ran<W::Error>>
    where
        W: World<Step = S>,
    {
        let due = self.next_due()?;
        if until_ms.is_some_and(|until| due > until) {
            return None;
        }
        let entry = self.queue.pop()?;
        let name = W::name(&entry.step);
        self.now_ms = self.now_ms.max(entry.at_ms);
        self.steps_run += 1;
        let mut cx = Cx {
            now_ms: self.now_ms,
            rng: &mut self.rng,
            queue: &self.queue,
            scheduled: Vec::new(),
            events: Vec::new(),
        };
        let result = world.run(entry.step, &mut cx).await;
        let Cx {
            scheduled, events, ..
        } = cx;
        for Scheduled { at_ms, step, wake } in scheduled {
            let on_its_way = wake
                && self
                    .queue
                    .iter()
                    .any(|e| e.at_ms <= at_ms && e.step == step);
            if !on_its_way {
                self.schedule_at(at_ms, step);
            }
        }
        Some(Ran {
            at_ms: self.now_ms,
            name,
            events,
            result,
        })
    }

    /// Drops every scheduled step: what a crash of every task, or a reset, does to work in flight.
    pub fn clear_queue(&mut self) {
        self.queue.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A toy world: each step draws from the generator, may spawn children at random delays, and
    /// records what it did. Enough to show that interleavings depend only on the seed.
    struct Toy {
        trace: Vec<(i64, u32, u64)>,
    }

    impl World for Toy {
        type Step = u32;
        type Error = String;
        fn name(_: &u32) -> &'static str {
            "toy"
        }
        async fn run(&mut self, step: u32, cx: &mut Cx<'_, u32>) -> Result<(), String> {
            let draw = cx.rng().below(1_000);
            self.trace.push((cx.now(), step, draw));
            if step < 200 {
                cx.schedule_in(draw as i64, step * 2 + 1);
                if draw.is_multiple_of(2) {
                    cx.schedule_in(50, step * 2 + 2);
                }
            }
            cx.record(
                Layer::Jobs,
                EventKind::InboxCleaned,
                None,
                Outcome::Ok,
                draw.into(),
            );
            Ok(())
        }
    }

    async fn run_toy(seed: u64) -> (Vec<(i64, u32, u64)>, Vec<NewEvent>) {
        let mut sim = Sim::new(0, seed);
        let mut toy = Toy { trace: vec![] };
        sim.schedule_at(0, 0);
        sim.schedule_at(0, 1);
        let mut events = vec![];
        while let Some(ran) = sim.run_next(&mut toy, Some(100_000)).await {
            ran.result.unwrap();
            events.extend(ran.events);
        }
        (toy.trace, events)
    }

    #[tokio::test]
    async fn the_same_seed_gives_the_same_interleaving() {
        let (a, ea) = run_toy(7).await;
        let (b, eb) = run_toy(7).await;
        assert!(a.len() > 10, "the toy should branch: {}", a.len());
        assert_eq!(a, b);
        assert_eq!(ea, eb);
        let (c, _) = run_toy(8).await;
        assert_ne!(a, c);
    }

    #[tokio::test]
    async fn steps_run_in_time_order_and_equal_times_in_scheduling_order() {
        struct Log(Vec<&'static str>);
        impl World for Log {
            type Step = &'static str;
            type Error = String;
            fn name(s: &&'static str) -> &'static str {
                s
            }
            async fn run(
                &mut self,
                s: &'static str,
                _: &mut Cx<'_, &'static str>,
            ) -> Result<(), String> {
                self.0.push(s);
                Ok(())
            }
        }
        let mut sim = Sim::new(0, 1);
        sim.schedule_at(300, "c");
        sim.schedule_at(100, "a1");
        sim.schedule_at(200, "b");
        sim.schedule_at(100, "a2");
        let mut log = Log(vec![]);
        while sim.run_next(&mut log, None).await.is_some() {}
        assert_eq!(log.0, ["a1", "a2", "b", "c"]);
        assert_eq!(sim.now(), 300);
        assert_eq!(sim.counters().steps_run, 4);
    }

    #[tokio::test]
    async fn nothing_past_the_horizon_runs_and_the_clock_never_goes_back() {
        struct Nop;
        impl World for Nop {
            type Step = ();
            type Error = String;
            fn name(_: &()) -> &'static str {
                "nop"
            }
            async fn run(&mut self, _: (), _: &mut Cx<'_, ()>) -> Result<(), String> {
                Ok(())
            }
        }
        let mut sim = Sim::new(1_000, 1);
        sim.schedule_at(500, ()); // in the past: runs at now
        sim.schedule_at(5_000, ());
        assert_eq!(sim.next_due(), Some(1_000));
        assert!(sim.run_next(&mut Nop, Some(2_000)).await.is_some());
        assert!(sim.run_next(&mut Nop, Some(2_000)).await.is_none());
        sim.settle_at(2_000);
        sim.settle_at(1_500);
        assert_eq!(sim.now(), 2_000);
        assert_eq!(sim.next_due(), Some(5_000));
    }

    #[tokio::test]
    async fn a_wake_already_on_its_way_is_not_queued_twice() {
        /// "append" wakes the "poll" 50 ms later, as a record wakes its consumer.
        struct Appends(Vec<(i64, &'static str)>);
        impl World for Appends {
            type Step = &'static str;
            type Error = String;
            fn name(s: &&'static str) -> &'static str {
                s
            }
            async fn run(
                &mut self,
                s: &'static str,
                cx: &mut Cx<'_, &'static str>,
            ) -> Result<(), String> {
                self.0.push((cx.now(), s));
                if s == "append" {
                    cx.wake_in(50, "poll");
                    cx.wake_in(50, "poll");
                }
                Ok(())
            }
        }
        let mut sim = Sim::new(0, 1);
        for at in [0, 10, 20, 100] {
            sim.schedule_at(at, "append");
        }
        let mut log = Appends(vec![]);
        while sim.run_next(&mut log, None).await.is_some() {}
        let polls: Vec<i64> = log
            .0
            .iter()
            .filter(|(_, s)| *s == "poll")
            .map(|(at, _)| *at)
            .collect();
        // The appends at 10 and 20 find the poll due at 50 already queued; the one at 100 does
        // not (that poll has run) and gets its own.
        assert_eq!(polls, [50, 150]);
    }
}
