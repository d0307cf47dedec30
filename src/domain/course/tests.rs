//! The tests of `course`.

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
