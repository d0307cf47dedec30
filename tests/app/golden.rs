//! The golden runs: one fixed tour through every preset in each of its variants, recorded as
//! runs (`golden-runs.json`, beside this file) with the hash of the event log each gave. Each is
//! rerun here and must give the same hash: a change that moves any event's time, lane, kind,
//! correlation, outcome or details (their bytes as stored) fails it; a change that only
//! reshapes the code does not. The file also names the event kinds each tour reached. Run:
//! `cargo test --features ssr --test app golden::`.

use std::collections::BTreeSet;

use crate::common::TestLab;
use pocketpay_lab::domain::scenario::{preset, Variant, SCENARIOS};
use reqwest::StatusCode;
use serde_json::{json, Value};

/// The golden runs, recorded by `record_the_golden_runs`: `[{"scenario", "variant", "run"}]`.
const GOLDEN: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/app/golden-runs.json");

/// The tour: taps, a transfer and its retry, the same key with another body, two transfers
/// with their intents, a transfer too large, a tap let fall, a minute, a step, a rewind, two days of
/// background jobs, and the scenario's own experiment (7 and 8). Answers the run and the kinds
/// seen on the way.
async fn tour(lab: &TestLab, n: u8, variant: Variant) -> (Value, BTreeSet<String>) {
    let id = lab.sandbox(1).await;
    let r = lab
        .post(
            &format!("/api/sandboxes/{id}/scenario/{n}"),
            json!({"variant": variant.id()}),
        )
        .await;
    assert_eq!(r.status(), StatusCode::OK, "scenario {n} {variant:?}");
    lab.clock(&id, json!({"mode": "paused"})).await;
    let mut kinds = BTreeSet::new();
    let look = async |kinds: &mut BTreeSet<String>| {
        for (_, e) in lab.events_of_any_kind(&id).await {
            kinds.insert(e["kind"].as_str().unwrap().to_owned());
        }
    };
    let signal = |body: Value| {
        let path = format!("/api/sandboxes/{id}/app-events");
        async move {
            let r = lab.post(&path, body).await;
            assert_eq!(r.status(), StatusCode::NO_CONTENT);
        }
    };
    let pay = |amount: i64| json!({"to": "tithi", "amount": amount});

    signal(json!({"signal": "tap", "key": "g-1", "key_kept": false})).await;
    lab.send(&id, "g-1", pay(500), None).await;
    signal(json!({"signal": "tap", "key": "g-1", "key_kept": true})).await;
    lab.send(&id, "g-1", pay(500), None).await;
    lab.send(&id, "g-1", pay(5_000), None).await;
    look(&mut kinds).await;
    lab.send(
        &id,
        "g-2",
        pay(300),
        Some("00000000-0000-4000-8000-000000000001"),
    )
    .await;
    lab.send(
        &id,
        "g-3",
        pay(300),
        Some("00000000-0000-4000-8000-000000000002"),
    )
    .await;
    lab.send(&id, "g-4", pay(1_000_000), None).await;
    signal(json!({"signal": "tap_ignored", "key": "g-4"})).await;
    lab.advance_ms(&id, 60_000).await;
    look(&mut kinds).await;
    lab.clock(&id, json!({"step": true})).await;
    let r = lab
        .post(
            &format!("/api/sandboxes/{id}/replay"),
            json!({"consumer": "wallet", "from_seconds_ago": 120}),
        )
        .await;
    assert_eq!(r.status(), StatusCode::OK);
    lab.advance_ms(&id, 60_000).await;
    look(&mut kinds).await;
    match n {
        7 => {
            for op in ["set_name", "add", "insert"] {
                let r = lab
                    .post(
                        &format!("/api/sandboxes/{id}/natural"),
                        json!({"op": op, "times": 5}),
                    )
                    .await;
                assert_eq!(r.status(), StatusCode::OK);
            }
        }
        8 => {
            let r = lab
                .post(&format!("/api/sandboxes/{id}/generals"), json!({}))
                .await;
            assert_eq!(r.status(), StatusCode::OK);
        }
        _ => {}
    }
    look(&mut kinds).await;
    lab.advance_ms(&id, 50 * 3_600_000).await;
    look(&mut kinds).await;
    let run = lab
        .get(&format!("/api/sandboxes/{id}/run"))
        .await
        .json()
        .await
        .unwrap();
    (run, kinds)
}

/// Each golden run, rerun into a new sandbox, must give the event log it was recorded with.
#[tokio::test]
async fn every_golden_run_reruns_to_the_event_log_it_was_recorded_with() {
    let lab = TestLab::in_process().await;
    let golden: Vec<Value> =
        serde_json::from_str(&std::fs::read_to_string(GOLDEN).unwrap()).unwrap();
    assert_eq!(golden.len(), 25, "every preset in each of its variants");
    let mut moved = Vec::new();
    for g in &golden {
        let r = lab.post("/api/runs", g["run"].clone()).await;
        assert_eq!(r.status(), StatusCode::CREATED);
        let rerun: Value = r.json().await.unwrap();
        if rerun["log_hash_matches"] != true {
            moved.push(format!("{} {}", g["scenario"], g["variant"]));
        }
    }
    assert!(
        moved.is_empty(),
        "these runs' event logs moved: {moved:?}; if the change means to move them, say why \
         in its commit and record them again (`… golden:: --ignored`)"
    );
}

/// Records the golden runs again: every preset in each of its variants, toured.
#[tokio::test]
#[ignore = "writes golden-runs.json; run it to move the golden logs on purpose"]
async fn record_the_golden_runs() {
    let lab = TestLab::in_process().await;
    let mut golden = Vec::new();
    for n in SCENARIOS {
        for variant in [Variant::Guarded, Variant::Unguarded, Variant::AtMostOnce] {
            if preset(n, variant).is_some() {
                let (run, kinds) = Box::pin(tour(&lab, n, variant)).await;
                golden.push(
                    json!({"scenario": n, "variant": variant.id(), "kinds": kinds,
                                   "run": run}),
                );
            }
        }
    }
    // One run a line, so a moved run shows as its own line in a diff.
    let lines: Vec<String> = golden.iter().map(Value::to_string).collect();
    std::fs::write(GOLDEN, format!("[\n{}\n]\n", lines.join(",\n"))).unwrap();
}
