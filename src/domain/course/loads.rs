//! The presets a chapter's buttons load: its own scenario first, then each other preset its
//! steps load or point at (the other variant, or another scenario the chapter walks, as chapter
//! 08 walks scenario 11's replay trap), one button each; and what a consumer replay brought
//! back, which the replay trap's steps wait for.

use super::{Chapter, Check};
use crate::domain::clock::DAY_MS;
use crate::domain::scenario::Variant;
use crate::domain::{EventKind, Outcome, TimelineEvent};

/// A scenario preset a chapter's button loads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Load {
    pub scenario: u8,
    pub variant: Variant,
}

impl Load {
    /// The button's `data-testid`: `preset-load-guarded` for another variant of the chapter's
    /// own scenario, `preset-load-11-unguarded` for another scenario. A step points at it by
    /// the same name.
    pub fn testid(self, chapter: &Chapter) -> String {
        format!("preset-load-{}", self.suffix(chapter))
    }

    /// The message id of the button's words: `chapter-load-guarded`, `chapter-load-11-unguarded`.
    pub fn label_id(self, chapter: &Chapter) -> String {
        format!("chapter-load-{}", self.suffix(chapter))
    }

    fn suffix(self, chapter: &Chapter) -> String {
        if self.scenario == chapter.scenario {
            self.variant.id().to_owned()
        } else {
            format!("{}-{}", self.scenario, self.variant.id())
        }
    }

    /// The preset a control's `data-testid` names, read back: `preset-load-unguarded`,
    /// `preset-load-11-guarded`.
    fn from_testid(chapter: &Chapter, testid: &str) -> Option<Load> {
        let rest = testid.strip_prefix("preset-load-")?;
        let (scenario, variant) = match rest.split_once('-') {
            Some((n, v)) => (n.parse().ok()?, v),
            None => (chapter.scenario, rest),
        };
        Some(Load {
            scenario,
            variant: Variant::from_id(variant)?,
        })
    }
}

impl Chapter {
    /// What the chapter's first button loads: its scenario, in the variant it starts with.
    pub fn first_load(&self) -> Load {
        Load {
            scenario: self.scenario,
            variant: self.variant,
        }
    }

    /// Every other preset the chapter's steps load or point at, in the steps' order, once each:
    /// a button each beside the first.
    pub fn more_loads(&self) -> Vec<Load> {
        let mut loads: Vec<Load> = Vec::new();
        for step in self.steps {
            let by_check = match step.check {
                Check::Loaded(scenario, variant) | Check::Replayed(scenario, variant, _) => {
                    Some(Load { scenario, variant })
                }
                _ => None,
            };
            let by_pointer = step.points_at.and_then(|p| Load::from_testid(self, p));
            for load in [by_check, by_pointer].into_iter().flatten() {
                if load != self.first_load() && !loads.contains(&load) {
                    loads.push(load);
                }
            }
        }
        loads
    }
}

/// Whether a consumer replay (`replay_started`) brought back an event its consumer had handled
/// at least a day before the replay, and the consumer then caught the copy in its inbox
/// (`Caught`) or applied it again (`Escaped`). A day is what it takes a 24-hour inbox window
/// to forget: the replay trap.
pub(super) fn replay_brought_back(events: &[TimelineEvent], outcome: Outcome) -> bool {
    let effect = |e: &TimelineEvent| matches!(e.kind, EventKind::Credited | EventKind::SmsSent);
    let again = |e: &TimelineEvent| match outcome {
        Outcome::Caught => e.kind == EventKind::InboxDuplicate && e.outcome == Outcome::Caught,
        Outcome::Escaped => effect(e) && e.outcome == Outcome::Escaped,
        _ => false,
    };
    events.iter().enumerate().any(|(i, replay)| {
        replay.kind == EventKind::ReplayStarted
            && events[i + 1..].iter().any(|e| {
                again(e)
                    && e.correlation.is_some()
                    && events[..i].iter().any(|first| {
                        effect(first)
                            && first.correlation == e.correlation
                            && replay.at_ms - first.at_ms >= DAY_MS
                    })
            })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::course::{chapter, CHAPTERS};
    use crate::domain::state::state_with_log;
    use crate::domain::Layer;
    use serde_json::json;

    fn ev(at_ms: i64, kind: EventKind, outcome: Outcome, corr: Option<&str>) -> TimelineEvent {
        TimelineEvent {
            id: 1,
            at_ms,
            layer: Layer::Wallet,
            kind,
            correlation: corr.map(str::to_owned),
            outcome,
            details: json!({}),
        }
    }

    fn loaded(n: u8, variant: Variant) -> TimelineEvent {
        TimelineEvent {
            layer: Layer::Lab,
            details: json!({"n": n, "variant": variant.id()}),
            ..ev(0, EventKind::ScenarioLoaded, Outcome::Ok, None)
        }
    }

    #[test]
    fn each_chapter_has_a_button_for_every_preset_its_steps_load_or_point_at() {
        let l = |scenario, variant| Load { scenario, variant };
        let more = |n| chapter(n).unwrap().more_loads();
        assert_eq!(more(1), vec![]);
        // Chapter 02 walks scenario 2; chapter 03, scenarios 4 and 5: each both ways.
        assert_eq!(
            more(2),
            vec![l(2, Variant::Unguarded), l(2, Variant::Guarded)]
        );
        assert_eq!(
            more(3),
            vec![
                l(3, Variant::Guarded),
                l(4, Variant::Unguarded),
                l(4, Variant::Guarded),
                l(5, Variant::Unguarded),
                l(5, Variant::Guarded)
            ]
        );
        assert_eq!(more(4), vec![l(6, Variant::Unguarded)]);
        assert_eq!(
            more(6),
            vec![l(8, Variant::Unguarded), l(8, Variant::Guarded)]
        );
        // Chapter 08 walks the replay trap too: scenario 11, both ways.
        assert_eq!(
            more(8),
            vec![
                l(10, Variant::Guarded),
                l(11, Variant::Unguarded),
                l(11, Variant::Guarded)
            ]
        );
        let ch8 = chapter(8).unwrap();
        assert_eq!(l(10, Variant::Guarded).testid(ch8), "preset-load-guarded");
        assert_eq!(
            l(11, Variant::Unguarded).testid(ch8),
            "preset-load-11-unguarded"
        );
        assert_eq!(
            l(11, Variant::Guarded).label_id(ch8),
            "chapter-load-11-guarded"
        );
        // Every step that points at a load button points at one the chapter draws, and
        // every preset loaded exists.
        for c in CHAPTERS {
            let buttons: Vec<String> = c.more_loads().iter().map(|l| l.testid(&c)).collect();
            for s in c.steps {
                if let Some(p) = s.points_at.filter(|p| p.starts_with("preset-load-")) {
                    assert!(buttons.iter().any(|b| b == p), "chapter {}: {p}", c.n);
                }
            }
            for load in c.more_loads() {
                assert!(
                    crate::domain::scenario::preset(load.scenario, load.variant).is_some(),
                    "chapter {}: {load:?}",
                    c.n
                );
            }
        }
    }

    #[test]
    fn the_replay_trap_ticks_only_on_an_event_a_day_old_brought_back_in_its_own_preset() {
        let state = state_with_log(vec![]);
        let corr = Some("ev-1");
        let credited = ev(9_000, EventKind::Credited, Outcome::Ok, corr);
        let replay_late = ev(
            9_000 + 2 * DAY_MS,
            EventKind::ReplayStarted,
            Outcome::Ok,
            None,
        );
        let again = ev(
            9_100 + 2 * DAY_MS,
            EventKind::Credited,
            Outcome::Escaped,
            corr,
        );
        let caught = ev(
            9_100 + 2 * DAY_MS,
            EventKind::InboxDuplicate,
            Outcome::Caught,
            corr,
        );
        let trap = Check::Replayed(11, Variant::Unguarded, Outcome::Escaped);
        let held = Check::Replayed(11, Variant::Guarded, Outcome::Caught);
        let run = |preset: TimelineEvent, rest: &[&TimelineEvent]| {
            let mut v = vec![preset];
            v.extend(rest.iter().map(|e| (*e).clone()));
            v
        };
        // The 24-hour window forgot the event: credited again after the replay.
        let events = run(
            loaded(11, Variant::Unguarded),
            &[&credited, &replay_late, &again],
        );
        assert!(trap.holds(&events, &state));
        assert!(!held.holds(&events, &state), "another preset, and no catch");
        // The same copy in scenario 10 (a relay resend, no replay) is not the trap.
        let events = run(loaded(10, Variant::Unguarded), &[&credited, &again]);
        assert!(!Check::Replayed(10, Variant::Unguarded, Outcome::Escaped).holds(&events, &state));
        // The 7-day window still knows it: caught.
        let events = run(
            loaded(11, Variant::Guarded),
            &[&credited, &replay_late, &caught],
        );
        assert!(held.holds(&events, &state));
        // A replay right after the credit proves nothing about the window.
        let replay_soon = ev(60_000, EventKind::ReplayStarted, Outcome::Ok, None);
        let caught_soon = ev(60_100, EventKind::InboxDuplicate, Outcome::Caught, corr);
        let events = run(
            loaded(11, Variant::Guarded),
            &[&credited, &replay_soon, &caught_soon],
        );
        assert!(!held.holds(&events, &state));
        // A copy caught before any replay is not the replay's.
        let events = run(
            loaded(11, Variant::Guarded),
            &[&credited, &caught, &replay_late],
        );
        assert!(!held.holds(&events, &state));
    }
}
