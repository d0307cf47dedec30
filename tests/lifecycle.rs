//! A sandbox's life cycle keeps the lab's promise: transfers made before and after a restart
//! (SIGTERM), a crash (`kill -9`) or an idle unload are each debited, credited and texted exactly
//! once; keys left IN_PROGRESS by a crash are all recovered after a restart; a flood of new
//! sandboxes cannot lock a class out; a rewind leaves no scratch sandbox behind.
//! Run: `cargo test --features ssr --test lifecycle`.

mod common;

use std::time::Duration;

use common::{expect_problem, TestLab};
use serde_json::{json, Value};

/// Six ৳10 transfers with fresh keys on a live sandbox, each answered 201.
async fn six_transfers(lab: &TestLab, id: &str, round: &str) {
    for i in 0..6 {
        let a = lab
            .transfer(
                id,
                &format!("{round}-{i}"),
                json!({"to": "tithi", "amount": 10}),
                None,
            )
            .await
            .unwrap();
        assert_eq!(a.status, 201, "{round}-{i}: {}", a.raw);
    }
}

/// A live sandbox with seed 1 and no latency anywhere, as a student with the defaults gets.
async fn live_sandbox(lab: &TestLab) -> String {
    let r = lab.post("/api/sandboxes", json!({"seed": 1})).await;
    assert_eq!(r.status(), 201);
    let id = r.json::<Value>().await.unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    lab.faults(&id, json!({"latency_ms": 0, "gateway_latency_ms": 0}))
        .await;
    id
}

/// The fraud check's producer epoch: it goes up each time the process that runs it starts again.
fn fraud_epoch(state: &Value) -> i64 {
    state["tables"]["broker.producers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["transactional_id"] == "fraud-check")
        .and_then(|p| p["epoch"].as_i64())
        .expect("the fraud check has a transactional producer")
}

/// Every one of twelve ৳10 transfers debited, credited and texted exactly once, and the
/// server's own invariants hold.
async fn assert_all_paid_once(lab: &TestLab, id: &str, how: &str) {
    let s = lab.state(id).await;
    let d = &s["damage"];
    let figures = |k: &str| d[k].as_i64().unwrap();
    assert_eq!(
        [
            figures("debits"),
            figures("credits"),
            figures("sms"),
            figures("money_created"),
            figures("lost_events"),
            figures("in_flight"),
            figures("double_credits"),
            figures("duplicate_sms"),
        ],
        [12, 12, 12, 0, 0, 0, 0, 0],
        "after {how}: {d}"
    );
    assert_eq!(s["balances"]["payments"]["shimul"], 2_000 - 120, "{how}");
    assert_eq!(s["balances"]["wallet"]["tithi"], 120, "{how}");
    assert!(
        fraud_epoch(&s) >= 1,
        "after {how} the fraud check should have started again with a new epoch"
    );
    let check: Value = lab
        .get(&format!("/api/sandboxes/{id}/check"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(check["ok"], true, "after {how}: {check}");
}

#[tokio::test]
async fn transfers_after_a_sigterm_restart_are_all_credited_once() {
    let mut lab = TestLab::start().await;
    let id = live_sandbox(&lab).await;
    six_transfers(&lab, &id, "before").await;
    lab.clock(&id, json!({"advance_seconds": 60})).await;
    lab.restart().await;
    six_transfers(&lab, &id, "after").await;
    lab.clock(&id, json!({"advance_seconds": 3_600})).await;
    assert_all_paid_once(&lab, &id, "a SIGTERM restart").await;
}

/// After a restart the run goes on from what was committed, and so do rewinds: the sandbox takes
/// a checkpoint as it opens (the ones it had went with the process: none is older), a rewind to
/// a later event starts there or later and finds every debit before it; a reset drops the
/// checkpoints' copies.
#[tokio::test]
async fn rewinds_after_a_restart_start_from_it_and_a_reset_drops_the_checkpoints() {
    let mut lab = TestLab::start().await;
    let id = live_sandbox(&lab).await;
    six_transfers(&lab, &id, "before").await;
    lab.clock(&id, json!({"advance_seconds": 60})).await;
    let newest_before = lab.events_of_any_kind(&id).await.last().unwrap().0;
    lab.restart().await;
    six_transfers(&lab, &id, "after").await;
    lab.clock(&id, json!({"advance_seconds": 60})).await;
    let checkpoints = lab
        .data_dir()
        .join("sandboxes")
        .join(&id)
        .join("checkpoints");
    let count = || std::fs::read_dir(&checkpoints).map_or(0, |d| d.count());
    // Each checkpoint's folder is named after the newest event it had seen.
    let oldest = std::fs::read_dir(&checkpoints)
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i64>().ok())
        .min();
    assert_eq!(
        oldest,
        Some(newest_before),
        "the oldest checkpoint is the one taken as the sandbox opened"
    );
    let debits = lab.events_of(&id, "debited").await;
    let last = debits.last().unwrap()["id"].as_i64().unwrap();
    let past: Value = lab
        .get(&format!("/api/sandboxes/{id}/state-at/{last}"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(
        past["tables"]["payments.ledger"].as_array().unwrap().len(),
        12,
        "{}",
        past["balances"]
    );
    assert_eq!(past["balances"]["payments"]["shimul"], 2_000 - 120);
    assert_eq!(
        lab.post(&format!("/api/sandboxes/{id}/reset"), json!({}))
            .await
            .status(),
        204
    );
    assert_eq!(count(), 0, "a reset ends the run the checkpoints belong to");
}

#[tokio::test]
async fn transfers_after_a_kill_9_are_all_credited_once() {
    let mut lab = TestLab::start().await;
    let id = live_sandbox(&lab).await;
    six_transfers(&lab, &id, "before").await;
    lab.clock(&id, json!({"advance_seconds": 60})).await;
    lab.crash_and_restart().await;
    six_transfers(&lab, &id, "after").await;
    lab.clock(&id, json!({"advance_seconds": 3_600})).await;
    assert_all_paid_once(&lab, &id, "kill -9").await;
}

#[tokio::test]
async fn transfers_after_an_idle_unload_are_all_credited_once() {
    let lab = TestLab::start_with(&[("LAB_IDLE_UNLOAD_SECS", "2"), ("LAB_REAP_SECS", "1")]).await;
    let id = live_sandbox(&lab).await;
    six_transfers(&lab, &id, "before").await;
    lab.clock(&id, json!({"advance_seconds": 60})).await;
    tokio::time::sleep(Duration::from_secs(5)).await;
    six_transfers(&lab, &id, "after").await;
    lab.clock(&id, json!({"advance_seconds": 3_600})).await;
    assert_all_paid_once(&lab, &id, "an idle unload").await;
}

/// Two requests crash after their claims, 30 s apart; the server restarts; both keys are
/// resolved once their 60 s are up, not only the older one.
#[tokio::test]
async fn every_key_stuck_by_a_crash_is_recovered_after_a_restart() {
    let mut lab = TestLab::start().await;
    let id = lab.sandbox(7).await;
    lab.faults(&id, json!({"crash": {"api_after_claim": "always"}}))
        .await;
    for key in ["first", "second"] {
        let a = lab
            .send(&id, key, json!({"to": "tithi", "amount": 500}), None)
            .await;
        assert_eq!(a.status, 504, "{key}: {}", a.raw);
        lab.advance_ms(&id, 20_000).await; // 10 s in send + 20 s = 30 s apart
    }
    let stuck = |s: &Value| {
        s["tables"]["payments.idempotency_keys"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| r["status"] == "IN_PROGRESS")
            .count()
    };
    lab.restart().await;
    assert_eq!(stuck(&lab.state(&id).await), 2);
    lab.faults(&id, json!({"crash": {"api_after_claim": "off"}}))
        .await;
    lab.advance_ms(&id, 120_000).await;
    let s = lab.state(&id).await;
    assert_eq!(stuck(&s), 0, "both keys should be resolved");
    let released = lab.events_of(&id, "stuck_key_released").await;
    let keys: Vec<&str> = released
        .iter()
        .map(|e| e["correlation"].as_str().unwrap())
        .collect();
    assert_eq!(keys, ["first", "second"]);
}

/// A client that makes twice the cap of sandboxes and never comes back cannot lock a class out:
/// a new student still gets a lab, and a student who used theirs keeps it.
#[tokio::test]
async fn a_flood_of_new_sandboxes_locks_nobody_out() {
    let lab = TestLab::start_with(&[("LAB_MAX_SANDBOXES", "5"), ("LAB_MAX_LOADED", "3")]).await;
    let student = lab.sandbox(11).await;
    lab.send(
        &student,
        "mine",
        json!({"to": "tithi", "amount": 500}),
        None,
    )
    .await;
    for _ in 0..10 {
        let r = lab.post("/api/sandboxes", json!({})).await;
        assert_eq!(r.status(), 201, "the flood's own sandboxes make room");
    }
    let on_disk = std::fs::read_dir(lab.data_dir().join("sandboxes"))
        .unwrap()
        .count();
    assert_eq!(on_disk, 5, "the disk cap holds");
    // The student who used theirs still has it, with their transfer.
    let s = lab.state(&student).await;
    assert_eq!(s["balances"]["payments"]["shimul"], 1_500);
    // A new student arriving through the front door still gets a lab.
    let r = lab.get("/lab").await;
    assert_eq!(r.status(), 303, "{:?}", r.headers());
    let to = r.headers()["location"].to_str().unwrap().to_owned();
    let page = lab.get(&to).await;
    assert_eq!(page.status(), 200);
    // When every sandbox on disk has been used, a creation is refused rather than deleting one.
    let mut used = vec![student.clone(), to.trim_start_matches("/lab/").to_owned()];
    for entry in std::fs::read_dir(lab.data_dir().join("sandboxes")).unwrap() {
        let id = entry.unwrap().file_name().into_string().unwrap();
        lab.state(&id).await;
        used.push(id);
    }
    let r = lab.post("/api/sandboxes", json!({})).await;
    assert!(r.headers().contains_key("retry-after"));
    expect_problem(r, 503, "too-many-sandboxes").await;
    for id in used {
        assert_eq!(
            lab.get(&format!("/api/sandboxes/{id}/state"))
                .await
                .status(),
            200,
            "a used sandbox is never deleted to make room"
        );
    }
}

/// A rewind whose client goes away halfway leaves no scratch sandbox on disk, and a start
/// clears any that an earlier process left. (Thirty transfers take long enough to run that the
/// sandbox holds a checkpoint, which the rewind to the last one starts from.)
#[tokio::test]
async fn rewinds_leave_no_scratch_sandbox_behind() {
    let mut lab = TestLab::start().await;
    let id = lab.sandbox(3).await;
    for i in 0..30 {
        lab.send(
            &id,
            &format!("k{i}"),
            json!({"to": "tithi", "amount": 10}),
            None,
        )
        .await;
    }
    let events = lab.events_of(&id, "credited").await;
    let last = events.last().unwrap()["id"].as_i64().unwrap();
    let checkpoints = lab
        .data_dir()
        .join("sandboxes")
        .join(&id)
        .join("checkpoints");
    assert!(
        std::fs::read_dir(&checkpoints).map_or(0, |d| d.count()) > 0,
        "the sandbox should hold a checkpoint before event {last}"
    );
    let scratch = lab.data_dir().join("scratch");
    // A client that gives up after a few milliseconds.
    let impatient = reqwest::Client::builder()
        .timeout(Duration::from_millis(5))
        .build()
        .unwrap();
    let _ = impatient
        .get(lab.url(&format!("/api/sandboxes/{id}/state-at/{last}")))
        .send()
        .await;
    let mut empty = false;
    for _ in 0..100 {
        tokio::time::sleep(Duration::from_millis(100)).await;
        let left = std::fs::read_dir(&scratch).map_or(0, |d| d.count());
        if left == 0 {
            empty = true;
            break;
        }
    }
    assert!(
        empty,
        "the dropped rewind's scratch folder should be removed"
    );
    // A folder left by an earlier process is cleared at start.
    lab.stop().await;
    std::fs::create_dir_all(scratch.join("left-over")).unwrap();
    std::fs::write(scratch.join("left-over").join("lab.sqlite"), b"").unwrap();
    lab.restart().await;
    assert!(!scratch.join("left-over").exists());
}
