//! The course's steps against a real sandbox: a chapter's checks read the events and the state
//! the server sends the browser, so a walk through the lab's API must tick them as the chapter
//! tells it. Run: `cargo test --features ssr --test course`.

mod common;

use common::TestLab;
use pocketpay_lab::domain::course::chapter;
use pocketpay_lab::domain::state::SandboxState;
use pocketpay_lab::domain::{EventKind, TimelineEvent};
use reqwest::StatusCode;
use serde_json::json;

const DAY_SECONDS: i64 = 86_400;

/// The events since the last reset (a preset is a reset), as a chapter reads them, and the
/// state.
async fn seen(
    lab: &TestLab,
    id: &str,
    until: impl Fn(&[TimelineEvent]) -> bool,
) -> (Vec<TimelineEvent>, SandboxState) {
    let mut stream = lab.open_stream(id, None).await;
    let parse = |s: &common::Stream| -> Vec<TimelineEvent> {
        let all: Vec<TimelineEvent> = s
            .timeline
            .iter()
            .map(|(_, e)| serde_json::from_value(e.clone()).unwrap())
            .collect();
        let from = all
            .iter()
            .rposition(|e| e.kind == EventKind::SandboxReset)
            .unwrap_or(0);
        all[from..].to_vec()
    };
    let events = parse(stream.read_until(|s| until(&parse(s))).await);
    let state = serde_json::from_value(lab.state(id).await).unwrap();
    (events, state)
}

/// Chapter 08's replay trap, both ways, as its steps 5 and 6 tell it: load scenario 11, Send,
/// two days on, replay the wallet from 5 days back. A 24-hour inbox has forgotten the event
/// and Tithi is credited again; a 7-day one catches the copy. Neither step ticks before the
/// replay.
#[tokio::test]
async fn chapter_08_walks_the_replay_trap_on_the_sandboxs_own_events() {
    let lab = TestLab::start().await;
    let ch = chapter(8).unwrap();
    for (k, variant, credited) in [(5, "unguarded", 1000), (6, "guarded", 500)] {
        let step = ch.steps[k - 1].check;
        let id = lab.sandbox(1).await;
        let r = lab
            .post(
                &format!("/api/sandboxes/{id}/scenario/11"),
                json!({"variant": variant}),
            )
            .await;
        assert_eq!(r.status(), StatusCode::OK);
        lab.clock(&id, json!({"mode": "paused"})).await;
        lab.send(&id, "k", json!({"to": "tithi", "amount": 500}), None)
            .await;
        lab.advance_ms(&id, 2 * DAY_SECONDS * 1000).await;
        let (events, state) = seen(&lab, &id, |e| {
            e.iter().any(|e| e.kind == EventKind::Credited)
        })
        .await;
        assert!(!step.holds(&events, &state), "step {k} before the replay");
        let r = lab
            .post(
                &format!("/api/sandboxes/{id}/replay"),
                json!({"consumer": "wallet", "from_seconds_ago": 5 * DAY_SECONDS}),
            )
            .await;
        assert_eq!(r.status(), StatusCode::OK);
        lab.advance_ms(&id, 60_000).await;
        // Until what the replay brought back has been handled, caught or not.
        let (events, state) = seen(&lab, &id, |e| {
            e.iter()
                .skip_while(|e| e.kind != EventKind::ReplayStarted)
                .any(|e| matches!(e.kind, EventKind::Credited | EventKind::InboxDuplicate))
        })
        .await;
        assert!(step.holds(&events, &state), "step {k}: {events:#?}");
        assert_eq!(state.balances.wallet["tithi"], credited, "{variant}");
        // The other way's step does not tick in this run.
        let other = ch.steps[if k == 5 { 5 } else { 4 }].check;
        assert!(
            !other.holds(&events, &state),
            "step {k}'s run ticks the other"
        );
    }
}
