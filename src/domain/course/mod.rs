//! The course: one chapter per lesson section, each a scenario preset to load, numbered steps
//! that check themselves against the sandbox's own state and events, the panels the chapter
//! uses, and the control each step points at. The words of every chapter are in the locale
//! files (`ch<NN>-…`, `ch<NN>-step<k>`, `ch<NN>-step<k>-try`); this file says what each step
//! waits for, so the browser and the tests read one definition.

use super::clock::START_MS;
use super::fault::NumberFault;
use super::generals::TRIP_MS;
use super::scenario::Variant;
use super::state::SandboxState;
use super::{EventKind, Outcome, TimelineEvent};

mod chapters;
mod loads;

pub use chapters::CHAPTERS;
pub use loads::Load;

/// A panel of the lab a chapter may keep in view (the rest fold away while it is open).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Panel {
    Phone,
    Switches,
    Network,
    Tithi,
    Damage,
    Timeline,
    Inspector,
    Instructor,
    /// Scenario 7's three ways side by side, and the HTTP methods.
    Natural,
    /// Scenario 8's Two Generals.
    Generals,
}

impl Panel {
    pub const ALL: [Panel; 10] = [
        Panel::Phone,
        Panel::Switches,
        Panel::Network,
        Panel::Tithi,
        Panel::Damage,
        Panel::Timeline,
        Panel::Inspector,
        Panel::Instructor,
        Panel::Natural,
        Panel::Generals,
    ];

    pub fn id(self) -> &'static str {
        match self {
            Panel::Phone => "phone",
            Panel::Switches => "switches",
            Panel::Network => "network",
            Panel::Tithi => "tithi",
            Panel::Damage => "damage",
            Panel::Timeline => "timeline",
            Panel::Inspector => "inspector",
            Panel::Instructor => "instructor",
            Panel::Natural => "natural",
            Panel::Generals => "generals",
        }
    }
}

/// What a step waits for. Events count from the last reset (a preset is a reset), so a step
/// is done by what happened in this run of the chapter's scenario.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Check {
    /// The scenario's preset, in this variant, is the one loaded.
    Loaded(u8, Variant),
    /// With this preset loaded, a consumer replay brought back an event handled at least a day
    /// before, and its inbox caught the copy (`Caught`) or it was applied again (`Escaped`):
    /// the replay trap, one way or the other.
    Replayed(u8, Variant, Outcome),
    /// At least `n` events of this kind (and this outcome, if given).
    Seen(EventKind, Option<Outcome>, usize),
    /// A figure of the damage meter is at least this.
    FigureAtLeast(&'static str, i64),
    /// A figure of the damage meter is exactly this, and the pipeline has nothing in flight.
    FigureSettled(&'static str, i64),
    /// A fault set with a number (a loss in percent) is at this value.
    Loss(NumberFault, i64),
    /// A table holds at least this many rows.
    Rows(&'static str, usize),
    /// An answer with this status reached the phone.
    Answered(u16),
    /// An event of this kind for one natural-idempotency way (`details.op`).
    SeenOp(EventKind, &'static str),
    /// The clock stands at least this long after the lesson's start, ms.
    TimeAtLeast(i64),
    /// The newest Two Generals' attempt has played out on the sandbox's clock: every messenger
    /// set out at its start and takes [`TRIP_MS`] to cross, so the step waits for the last one
    /// to arrive or be caught, as the panel draws it.
    Crossed,
    /// The student opened or tapped the control with this `data-testid` while the step was the
    /// current one (the lab tells the chapter, `app/lab/chapter.rs`): a "look at" step is done
    /// by looking, not by the sandbox alone.
    Looked(&'static str),
    /// The clock was moved on by jumps (not by running) at least this long, ms, since the
    /// last reset.
    Jumped(i64),
    /// Every one of these.
    All(&'static [Check]),
    /// The damage meter says money went wrong: a debit or a credit twice, an event lost, money
    /// made up or vanished. An effect done twice with the money right (a second fraud
    /// approval, which every guard on still lets through) is not this step.
    Harmed,
}

impl Check {
    /// Whether the sandbox shows this: its events since the last reset, and its state.
    pub fn holds(&self, events: &[TimelineEvent], state: &SandboxState) -> bool {
        self.holds_at(events, state, state.clock.now_ms)
    }

    /// Whether the sandbox shows this when its clock reads `now_ms`: the browser ticks the
    /// clock between the server's reports, which come only when the clock is set.
    pub fn holds_at(&self, events: &[TimelineEvent], state: &SandboxState, now_ms: i64) -> bool {
        match *self {
            Check::Loaded(n, variant) => loaded(events, n, variant),
            Check::Replayed(n, variant, outcome) => {
                Check::Loaded(n, variant).holds_at(events, state, now_ms)
                    && loads::replay_brought_back(events, outcome)
            }
            Check::Seen(kind, outcome, n) => {
                events
                    .iter()
                    .filter(|e| e.kind == kind && outcome.is_none_or(|o| e.outcome == o))
                    .count()
                    >= n
            }
            Check::FigureAtLeast(figure, n) => figure_of(state, figure) >= n,
            Check::FigureSettled(figure, n) => {
                state.damage.in_flight == 0 && figure_of(state, figure) == n
            }
            Check::Loss(fault, pct) => fault.read(&state.faults) == pct,
            Check::Rows(table, n) => state.tables.get(table).map_or(0, Vec::len) >= n,
            Check::Answered(status) => events.iter().any(|e| {
                e.kind == EventKind::ResponseDelivered && e.facts().status == Some(status)
            }),
            Check::TimeAtLeast(ms) => now_ms >= START_MS + ms,
            Check::Crossed => crossed_by(events).is_some_and(|end| now_ms >= end),
            Check::SeenOp(kind, op) => events
                .iter()
                .any(|e| e.kind == kind && e.details["op"].as_str() == Some(op)),
            Check::Harmed => state.damage.verdict() == crate::domain::Verdict::MoneyWrong,
            // What the student looked at is the chapter's to know: `Chapter::progress`.
            Check::Looked(_) => true,
            Check::Jumped(ms) => {
                events
                    .iter()
                    .filter(|e| e.kind == EventKind::ClockJumped)
                    .map(|e| {
                        e.details["to_ms"].as_i64().unwrap_or(0)
                            - e.details["from_ms"].as_i64().unwrap_or(0)
                    })
                    .sum::<i64>()
                    >= ms
            }
            Check::All(checks) => checks.iter().all(|c| c.holds_at(events, state, now_ms)),
        }
    }

    /// The preset this step loads (or runs, for the replay trap), if it is such a step.
    pub fn loads(&self) -> Option<(u8, Variant)> {
        match *self {
            Check::Loaded(n, v) | Check::Replayed(n, v, _) => Some((n, v)),
            Check::All(checks) => checks.iter().find_map(Check::loads),
            _ => None,
        }
    }

    /// Whether this waits on the clock running, not only on what the sandbox recorded: the
    /// browser then ticks it (`app/lab/chapter.rs`).
    pub fn on_the_clock(&self) -> bool {
        match *self {
            Check::Crossed => true,
            Check::All(checks) => checks.iter().any(Check::on_the_clock),
            _ => false,
        }
    }

    /// The controls the student must look at for this to hold.
    pub fn looks(&self) -> Vec<&'static str> {
        match *self {
            Check::Looked(id) => vec![id],
            Check::All(checks) => checks.iter().flat_map(Check::looks).collect(),
            _ => Vec::new(),
        }
    }
}

/// When the newest Two Generals' attempt is over (virtual ms): its messengers, recorded
/// together when they set out, cross one after another.
fn crossed_by(events: &[TimelineEvent]) -> Option<i64> {
    let last = events
        .iter()
        .rev()
        .find(|e| e.kind == EventKind::GeneralsTrip)?;
    let trips = events
        .iter()
        .filter(|e| e.kind == EventKind::GeneralsTrip && e.correlation == last.correlation)
        .count() as i64;
    Some(last.at_ms + trips * TRIP_MS)
}

fn figure_of(state: &SandboxState, figure: &str) -> i64 {
    state.damage.figure(figure).unwrap_or(0)
}

/// One numbered step: what it waits for, and the control it points at (a `data-testid`), if
/// any. Its words are `ch<NN>-step<k>` and, for when it will not happen, `ch<NN>-step<k>-try`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Step {
    pub check: Check,
    pub points_at: Option<&'static str>,
    /// For a step that loads a preset and then asks for more: the control it points at once
    /// that preset is the one loaded (a class's push loads it before the student gets there).
    pub then: Option<&'static str>,
    /// Controls the step needs besides the one it points at: a folded section holding one
    /// opens while the step is current (the replay and the day jump of the replay trap).
    pub unfolds: &'static [&'static str],
}

impl Step {
    /// The control to ring now: [`Step::then`] once the step's own preset is loaded, else
    /// [`Step::points_at`].
    pub fn pointer(&self, events: &[TimelineEvent]) -> Option<&'static str> {
        match (self.then, self.check.loads()) {
            (Some(then), Some((n, variant))) if loaded(events, n, variant) => Some(then),
            _ => self.points_at,
        }
    }
}

/// Whether the newest preset loaded since the events began is scenario `n` in this variant.
fn loaded(events: &[TimelineEvent], n: u8, variant: Variant) -> bool {
    events
        .iter()
        .rev()
        .find(|e| e.kind == EventKind::ScenarioLoaded)
        .is_some_and(|e| {
            e.details["n"].as_u64() == Some(u64::from(n))
                && e.details["variant"].as_str() == Some(variant.id())
        })
}

/// A chapter: the lesson section it teaches, the scenario it loads, its steps and its panels.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Chapter {
    /// The lesson section, 1 to 9; also the chapter's number.
    pub n: u8,
    pub scenario: u8,
    /// The variant the chapter's load button starts with.
    pub variant: Variant,
    pub steps: &'static [Step],
    pub panels: &'static [Panel],
}

impl Chapter {
    /// The message id prefix of this chapter's words: `ch01`.
    pub fn key(&self) -> String {
        format!("ch{:02}", self.n)
    }

    /// Which steps hold now, each on its own; `looked` are the controls the student looked at
    /// while the step that asks for them was the current one.
    pub fn progress(
        &self,
        events: &[TimelineEvent],
        state: &SandboxState,
        looked: &[&str],
    ) -> Vec<bool> {
        self.progress_at(events, state, looked, state.clock.now_ms)
    }

    /// [`Chapter::progress`] with the sandbox's clock reading `now_ms`.
    pub fn progress_at(
        &self,
        events: &[TimelineEvent],
        state: &SandboxState,
        looked: &[&str],
        now_ms: i64,
    ) -> Vec<bool> {
        self.steps
            .iter()
            .map(|s| {
                s.check.holds_at(events, state, now_ms)
                    && s.check.looks().iter().all(|id| looked.contains(id))
            })
            .collect()
    }

    /// Whether a step waits on the clock running (the browser then ticks the chapter).
    pub fn on_the_clock(&self) -> bool {
        self.steps.iter().any(|s| s.check.on_the_clock())
    }
}

/// Ticks steps off in order: a step is done once it held while every step before it was done,
/// and stays done (loading the guarded variant resets the figures an earlier step watched).
/// Returns whether anything changed.
pub fn advance(done: &mut Vec<bool>, holds: &[bool]) -> bool {
    advance_from(done, holds, 0)
}

/// [`advance`] for a chapter opened at step `from` + 1 by a class's push (docs/reference.md
/// §10): the steps before it belong to the chapter's own start, which the push skipped; they
/// are neither asked for nor ticked, and that step is the first one due.
pub fn advance_from(done: &mut Vec<bool>, holds: &[bool], from: usize) -> bool {
    done.resize(holds.len(), false);
    let mut changed = false;
    for i in 0..holds.len() {
        if i >= from && !done[i] && holds[i] && (i == from || done[i - 1]) {
            done[i] = true;
            changed = true;
        }
    }
    changed
}

/// Where a scenario's preset, in this variant, is taught: the chapter and the step (0-based)
/// that loads it (or, for the replay trap, runs it), for a class's push to open
/// (docs/reference.md §10). `None` for a preset no chapter loads.
pub fn opening(scenario: u8, variant: Variant) -> Option<(u8, usize)> {
    let button = |v: Variant| match v {
        Variant::Guarded => "preset-load-guarded",
        Variant::Unguarded => "preset-load-unguarded",
        Variant::AtMostOnce => "preset-load",
    };
    CHAPTERS.iter().find_map(|c| {
        c.steps
            .iter()
            .position(|s| s.check.loads() == Some((scenario, variant)))
            .or_else(|| {
                (c.scenario == scenario)
                    .then(|| {
                        c.steps
                            .iter()
                            .position(|s| s.points_at == Some(button(variant)))
                    })
                    .flatten()
            })
            .map(|k| (c.n, k))
    })
}

/// The chapter with this number, if the course has it.
pub fn chapter(n: u8) -> Option<&'static Chapter> {
    CHAPTERS.iter().find(|c| c.n == n)
}

/// What a reset of the sandbox would throw away of the student's own doing: the transfers
/// sent and the other things done (taps, clock steps and jumps, switches moved, replays, the
/// scenario 7 and 8 panels' runs) since the last reset, the preset's own settings, made as it
/// loaded, not counted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OwnWork {
    pub transfers: usize,
    pub other: usize,
}

impl OwnWork {
    pub fn of(events: &[TimelineEvent]) -> OwnWork {
        let since = events
            .iter()
            .rposition(|e| e.kind == EventKind::SandboxReset)
            .map_or(0, |i| i + 1);
        let mut rest = events[since..].iter().skip_while(|e| {
            matches!(
                e.kind,
                EventKind::ScenarioLoaded
                    | EventKind::SafeguardsChanged
                    | EventKind::FaultsChanged
                    | EventKind::ClockChanged
            )
        });
        let mut work = OwnWork::default();
        for e in rest.by_ref() {
            match e.kind {
                EventKind::RequestSent => work.transfers += 1,
                EventKind::Tapped
                | EventKind::ClockStepped
                | EventKind::ClockJumped
                | EventKind::SafeguardsChanged
                | EventKind::FaultsChanged
                | EventKind::ReplayStarted
                | EventKind::NaturalApplied
                | EventKind::NaturalLost
                | EventKind::GeneralsTrip => work.other += 1,
                _ => {}
            }
        }
        work
    }

    /// Whether a reset would lose anything the student did.
    pub fn any(&self) -> bool {
        self.transfers + self.other > 0
    }
}

/// The chapters before and after this one.
pub fn neighbours(n: u8) -> (Option<u8>, Option<u8>) {
    let i = CHAPTERS.iter().position(|c| c.n == n);
    match i {
        None => (None, CHAPTERS.first().map(|c| c.n)),
        Some(i) => (
            i.checked_sub(1).map(|j| CHAPTERS[j].n),
            CHAPTERS.get(i + 1).map(|c| c.n),
        ),
    }
}

#[cfg(test)]
mod tests;
