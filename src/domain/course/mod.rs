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
mod tests {
    use super::*;
    use crate::domain::state::state_with_log;
    use crate::domain::Layer;
    use serde_json::json;

    fn ev(kind: EventKind, outcome: Outcome, details: serde_json::Value) -> TimelineEvent {
        TimelineEvent {
            id: 1,
            at_ms: 0,
            layer: Layer::Lab,
            kind,
            correlation: None,
            outcome,
            details,
        }
    }

    #[test]
    fn own_work_counts_what_the_student_did_since_the_last_reset_not_the_preset() {
        let e = |k| ev(k, Outcome::Ok, json!({}));
        use EventKind::*;
        let loaded = [
            e(SandboxReset),
            e(ScenarioLoaded),
            e(SafeguardsChanged),
            e(FaultsChanged),
        ];
        assert!(!OwnWork::of(&loaded).any());
        assert!(!OwnWork::of(&[]).any());
        let mut log = vec![e(Tapped), e(RequestSent), e(RequestSent)];
        log.extend(loaded.clone());
        assert!(
            !OwnWork::of(&log).any(),
            "work before the reset is gone already"
        );
        log.extend([
            e(Tapped),
            e(RequestSent),
            e(Debited),
            e(InboxCleaned),
            e(SafeguardsChanged),
        ]);
        assert_eq!(
            OwnWork::of(&log),
            OwnWork {
                transfers: 1,
                other: 2
            }
        );
    }

    #[test]
    fn every_chapter_loads_a_preset_first_and_has_three_to_eight_steps() {
        for c in CHAPTERS {
            assert!((3..=8).contains(&c.steps.len()), "chapter {}", c.n);
            assert!(
                matches!(c.steps[0].check, Check::Loaded(n, v) if n == c.scenario && v == c.variant),
                "chapter {}",
                c.n
            );
            assert!(crate::domain::scenario::preset(c.scenario, c.variant).is_some());
            for s in c.steps {
                if let Check::FigureAtLeast(f, _) | Check::FigureSettled(f, _) = s.check {
                    assert!(
                        crate::domain::Damage::default().figure(f).is_some(),
                        "chapter {}: no figure {f}",
                        c.n
                    );
                }
            }
        }
        assert_eq!(neighbours(1), (None, Some(2)));
        assert_eq!(neighbours(4), (Some(3), Some(5)));
        assert_eq!(neighbours(5), (Some(4), Some(6)));
        assert_eq!(neighbours(6), (Some(5), Some(7)));
        assert_eq!(neighbours(9), (Some(8), None));
    }

    #[test]
    fn steps_check_themselves_against_events_and_state() {
        let mut state = state_with_log(vec![]);
        let loaded = ev(
            EventKind::ScenarioLoaded,
            Outcome::Ok,
            json!({"n": 1, "variant": "unguarded"}),
        );
        let c = chapter(1).unwrap();
        // The loss slider already reads 0 before anything is loaded: on its own that step
        // holds, which is why `advance` ticks steps off only in order.
        assert_eq!(
            c.progress(&[], &state, &[]),
            vec![false, false, false, true, false]
        );
        let mut events = vec![loaded];
        assert!(c.progress(&events, &state, &["damage-meter"])[0]);
        // The other variant loaded later is not this step.
        events.push(ev(
            EventKind::ScenarioLoaded,
            Outcome::Ok,
            json!({"n": 1, "variant": "guarded"}),
        ));
        assert!(!c.steps[0].check.holds(&events, &state));
        events.pop();
        events.push(ev(EventKind::CallerTimedOut, Outcome::Unknown, json!({})));
        state.damage.debits = 1;
        state.faults.response_loss_pct = crate::domain::fault::Percent::of(100);
        assert_eq!(
            c.progress(&events, &state, &["damage-meter"]),
            vec![true, true, true, false, false]
        );
        state.faults.response_loss_pct = crate::domain::fault::Percent::of(0);
        state.damage.double_charges = 1;
        assert_eq!(
            c.progress(&events, &state, &["damage-meter"]),
            vec![true; 5]
        );
        // In order, and latched: a later step that holds early waits for the ones before it.
        let mut done = Vec::new();
        assert!(!advance(&mut done, &[false, false, false, true, false]));
        assert_eq!(done, vec![false; 5]);
        assert!(advance(&mut done, &[true, true, false, true, false]));
        assert_eq!(done, vec![true, true, false, false, false]);
        assert!(advance(&mut done, &[false, false, true, true, true]));
        assert_eq!(done, vec![true; 5]);
        assert!(!advance(&mut done, &[false; 5]));
        // A settled figure waits for the money in flight.
        let settled = Check::FigureSettled("double_charges", 1);
        state.damage.in_flight = 1;
        assert!(!settled.holds(&events, &state));
    }

    #[test]
    fn the_harm_step_waits_for_money_wrong_not_a_second_approval() {
        let mut state = crate::domain::state::state_with_log(vec![]);
        state.damage.debits = 1;
        state.damage.credits = 1;
        state.damage.duplicate_approvals = 1;
        assert!(state.damage.harmed(), "the meter shows the second approval");
        assert!(
            !Check::Harmed.holds(&[], &state),
            "the guarded run's approval"
        );
        state.damage.double_charges = 1;
        assert!(Check::Harmed.holds(&[], &state));
    }

    #[test]
    fn a_look_step_needs_the_look_and_the_sandbox_both() {
        let mut state = crate::domain::state::state_with_log(vec![]);
        let c = chapter(1).unwrap();
        let look = &c.steps[2];
        assert_eq!(look.check.looks(), vec!["damage-meter"]);
        // Looked at before the debit, or the debit without a look: not done.
        assert!(!c.progress(&[], &state, &["damage-meter"])[2]);
        state.damage.debits = 1;
        assert!(!c.progress(&[], &state, &[])[2]);
        assert!(!c.progress(&[], &state, &["inspector"])[2]);
        assert!(c.progress(&[], &state, &["damage-meter"])[2]);
    }

    #[test]
    fn a_push_opens_the_chapter_and_step_that_teach_its_preset() {
        use Variant::*;
        assert_eq!(opening(1, Unguarded), Some((1, 0)));
        assert_eq!(opening(1, Guarded), Some((2, 0)));
        assert_eq!(opening(3, Guarded), Some((3, 2)));
        assert_eq!(opening(8, AtMostOnce), Some((6, 0)));
        assert_eq!(opening(10, Guarded), Some((8, 2)));
        // The replay trap: chapter 08's steps 5 and 6.
        assert_eq!(opening(11, Unguarded), Some((8, 4)));
        assert_eq!(opening(11, Guarded), Some((8, 5)));
        assert_eq!(opening(12, Guarded), Some((9, 0)));
        // Scenarios 2, 4 and 5 have steps of their own in chapters 02 and 03.
        assert_eq!(opening(2, Unguarded), Some((2, 5)));
        assert_eq!(opening(2, Guarded), Some((2, 6)));
        assert_eq!(opening(4, Unguarded), Some((3, 4)));
        assert_eq!(opening(4, Guarded), Some((3, 5)));
        assert_eq!(opening(5, Unguarded), Some((3, 6)));
        assert_eq!(opening(5, Guarded), Some((3, 7)));
        // Every preset a class can push opens a step, and the step loads that preset (so the
        // push has done its load, and it points past it) or points at its button.
        for (n, v) in crate::domain::class::pushable_presets() {
            let (c, k) = opening(n, v).unwrap_or_else(|| panic!("scenario {n} {v:?}"));
            let step = &chapter(c).unwrap().steps[k];
            assert!(step.points_at.is_some(), "scenario {n} {v:?}");
            let bare_load = matches!(step.check, Check::Loaded(..));
            if step.check.loads() == Some((n, v)) && !bare_load {
                assert!(
                    step.then.is_some(),
                    "scenario {n} {v:?} points past its load"
                );
            }
        }
    }

    #[test]
    fn a_step_that_loads_points_at_its_button_then_past_it_once_loaded() {
        let step = &chapter(3).unwrap().steps[6];
        assert_eq!(step.pointer(&[]), Some("preset-load-5-unguarded"));
        let loaded = |n: u64, v: &str| {
            ev(
                EventKind::ScenarioLoaded,
                Outcome::Ok,
                json!({"n": n, "variant": v}),
            )
        };
        assert_eq!(
            step.pointer(&[loaded(5, "guarded")]),
            Some("preset-load-5-unguarded")
        );
        assert_eq!(step.pointer(&[loaded(5, "unguarded")]), Some("send-button"));
        // A step with no `then` keeps its one pointer.
        let plain = &chapter(3).unwrap().steps[1];
        assert_eq!(
            plain.pointer(&[loaded(3, "unguarded")]),
            Some("attack-race")
        );
    }

    #[test]
    fn a_chapter_opened_at_a_step_does_not_ask_for_the_ones_before() {
        let mut done = vec![false; 4];
        assert!(!advance(&mut done, &[false, false, true, true]));
        assert!(advance_from(&mut done, &[false, false, true, true], 2));
        assert_eq!(done, [false, false, true, true]);
        // A step before it that happens to hold is not the push's: not ticked.
        let mut done = vec![false; 4];
        assert!(advance_from(&mut done, &[true, false, true, false], 2));
        assert_eq!(done, [false, false, true, false]);
        // The steps after it still wait their turn.
        let mut done = vec![false; 4];
        assert!(!advance_from(&mut done, &[false, false, false, true], 2));
        assert_eq!(done, [false; 4]);
    }

    #[test]
    fn the_generals_step_waits_for_the_last_messenger_not_the_first() {
        let state = crate::domain::state::state_with_log(vec![]);
        let trip = |at_ms: i64, n: i64, lost: bool| TimelineEvent {
            at_ms,
            correlation: Some(format!("generals-{at_ms}")),
            ..ev(
                EventKind::GeneralsTrip,
                if lost { Outcome::Lost } else { Outcome::Ok },
                json!({"n": n}),
            )
        };
        let c = chapter(6).unwrap();
        assert!(c.on_the_clock() && !chapter(1).unwrap().on_the_clock());
        assert!(
            !Check::Crossed.holds_at(&[], &state, START_MS * 2),
            "none sent"
        );
        // Three messengers set out at 1 000: the third is caught by 1 000 + 3 × TRIP_MS.
        let sent = vec![
            trip(1_000, 1, false),
            trip(1_000, 2, false),
            trip(1_000, 3, true),
        ];
        let end = 1_000 + 3 * TRIP_MS;
        assert!(!Check::Crossed.holds_at(&sent, &state, 1_000 + TRIP_MS));
        assert!(!Check::Crossed.holds_at(&sent, &state, end - 1));
        assert!(Check::Crossed.holds_at(&sent, &state, end));
        // A second attempt counts its own messengers from its own start.
        let mut again = sent.clone();
        again.push(trip(end + 500, 1, true));
        assert!(!Check::Crossed.holds_at(&again, &state, end + 500));
        assert!(Check::Crossed.holds_at(&again, &state, end + 500 + TRIP_MS));
    }

    #[test]
    fn a_jump_step_counts_jumps_not_the_running_clock() {
        let mut state = crate::domain::state::state_with_log(vec![]);
        let hour = Check::Jumped(crate::domain::clock::HOUR_MS);
        state.clock.now_ms = START_MS + 2 * crate::domain::clock::HOUR_MS;
        assert!(!hour.holds(&[], &state), "the clock ran; nobody jumped");
        let jump = |from: i64, to: i64| {
            ev(
                EventKind::ClockJumped,
                Outcome::Ok,
                json!({"from_ms": from, "to_ms": to}),
            )
        };
        let half = crate::domain::clock::HOUR_MS / 2;
        let events = vec![jump(START_MS, START_MS + half)];
        assert!(!hour.holds(&events, &state));
        let events = vec![
            jump(START_MS, START_MS + half),
            jump(START_MS + half, START_MS + 2 * half),
        ];
        assert!(hour.holds(&events, &state));
        // Chapter 07's crash step: the crash on the timeline, and the student's look at it.
        let c = chapter(7).unwrap();
        let crashed = vec![ev(EventKind::FraudCrashed, Outcome::Lost, json!({}))];
        assert!(c.steps[2].check.holds(&crashed, &state));
        assert!(!c.progress(&crashed, &state, &[])[2]);
        assert!(c.progress(&crashed, &state, &["event-fraud_crashed"])[2]);
        assert!(!c.progress(&[], &state, &["event-fraud_crashed"])[2]);
    }
}
