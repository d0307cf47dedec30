//! The payment API and its guards (docs/reference.md §3, rows 3–8), each shown both ways: with
//! the guard on the duplicate is caught; with it off the damage really happens.
//! Run: `cargo test --features ssr --test app payments::`.

use crate::common::{expect_problem, Answer, TestLab};
use serde_json::{json, Value};

const HOUR_MS: i64 = 3_600_000;

fn five_hundred() -> Value {
    json!({"to": "tithi", "amount": 500})
}

async fn damage(lab: &TestLab, id: &str) -> Value {
    lab.state(id).await["damage"].clone()
}

async fn shimul(lab: &TestLab, id: &str) -> i64 {
    lab.state(id).await["balances"]["payments"]["shimul"]
        .as_i64()
        .unwrap()
}

fn receipt(a: &Answer) -> (&str, i64) {
    (
        a.body["txn"].as_str().unwrap(),
        a.body["balance"].as_i64().unwrap(),
    )
}

#[tokio::test]
async fn a_transfer_answers_with_the_lessons_receipt() {
    let lab = TestLab::in_process().await;
    let id = lab.sandbox(1).await;
    let a = lab.send(&id, "k-1", five_hundred(), None).await;
    assert_eq!(a.status, 201);
    assert_eq!(a.content_type, "application/json");
    assert!(!a.replayed);
    assert_eq!(
        a.body,
        json!({"txn": "TXN-88412", "from": "shimul", "to": "tithi", "amount": 500, "balance": 1500})
    );
    let b = lab.send(&id, "k-2", five_hundred(), None).await;
    assert_eq!(receipt(&b), ("TXN-88413", 1000));
    let s = lab.state(&id).await;
    assert_eq!(s["balances"]["payments"]["shimul"], 1000);
    assert_eq!(s["damage"]["intents"], 2);
    assert_eq!(s["damage"]["debits"], 2);
    let rows = s["tables"]["payments.idempotency_keys"].as_array().unwrap();
    assert_eq!(rows.len(), 2);
    assert!(rows
        .iter()
        .all(|r| r["status"] == "COMPLETED" && r["partition_day"] == 0));
    // The path is on the timeline, linked by the key.
    for kind in [
        "request_sent",
        "lb_routed",
        "key_claimed",
        "debited",
        "response_delivered",
    ] {
        let e = lab.events_of(&id, kind).await;
        assert!(e.iter().any(|e| e["correlation"] == "k-1"), "{kind}");
    }
}

/// Scenario 1: the response is lost, the phone retries with the same key.
#[tokio::test]
async fn retry_after_lost_response_replays_the_receipt() {
    let lab = TestLab::in_process().await;
    let id = lab.sandbox(1).await;
    lab.faults(&id, json!({"response_loss_pct": 100})).await;
    let lost = lab.send(&id, "k", five_hundred(), Some(INTENT)).await;
    assert_eq!(lost.status, 504);
    assert_eq!(lost.body["type"], "urn:pocketpay-lab:problem:no-response");
    assert_eq!(
        lab.events_of(&id, "caller_timed_out").await[0]["outcome"],
        "unknown"
    );
    assert_eq!(
        lab.events_of(&id, "response_lost").await[0]["outcome"],
        "lost"
    );

    lab.faults(&id, json!({"response_loss_pct": 0})).await;
    let retry = lab.send(&id, "k", five_hundred(), Some(INTENT)).await;
    assert_eq!(retry.status, 201);
    assert!(retry.replayed);
    assert_eq!(receipt(&retry), ("TXN-88412", 1500));
    assert_eq!(
        lab.events_of(&id, "response_replayed").await[0]["outcome"],
        "caught"
    );
    let d = damage(&lab, &id).await;
    assert_eq!(
        (
            d["intents"].as_i64(),
            d["debits"].as_i64(),
            d["double_charges"].as_i64()
        ),
        (Some(1), Some(1), Some(0))
    );
    assert_eq!(shimul(&lab, &id).await, 1500);
}

const INTENT: &str = "0b9c6a52-7f3e-4c1d-9e8a-5d2f1b7c3a60";

/// Scenario 1 without the guards: no idempotency table, no ledger UNIQUE: charged twice.
#[tokio::test]
async fn without_the_idempotency_table_a_retry_charges_twice() {
    let lab = TestLab::in_process().await;
    let id = lab.sandbox(1).await;
    lab.safeguards(
        &id,
        json!({"idempotency_table": false, "ledger_unique": false}),
    )
    .await;
    lab.faults(&id, json!({"response_loss_pct": 100})).await;
    assert_eq!(
        lab.send(&id, "k", five_hundred(), Some(INTENT))
            .await
            .status,
        504
    );
    lab.faults(&id, json!({"response_loss_pct": 0})).await;
    let retry = lab.send(&id, "k", five_hundred(), Some(INTENT)).await;
    assert_eq!(retry.status, 201);
    assert!(!retry.replayed);
    assert_eq!(receipt(&retry), ("TXN-88413", 1000));
    let d = damage(&lab, &id).await;
    assert_eq!(d["double_charges"], 1);
    assert_eq!(d["support_tickets"], 1);
    assert_eq!(shimul(&lab, &id).await, 1000);
    let debits = lab.events_of(&id, "debited").await;
    assert_eq!(debits[1]["outcome"], "escaped");
}

/// With every guard above it off, the ledger's UNIQUE(transfer_id) is the last one standing.
#[tokio::test]
async fn the_ledger_unique_stops_a_second_debit_when_everything_above_is_off() {
    let lab = TestLab::in_process().await;
    let id = lab.sandbox(1).await;
    lab.safeguards(&id, json!({"idempotency_table": false}))
        .await;
    let first = lab.send(&id, "k", five_hundred(), Some(INTENT)).await;
    let second = lab.send(&id, "k", five_hundred(), Some(INTENT)).await;
    assert_eq!(second.status, 201);
    assert_eq!(second.body, first.body, "the first receipt, TXN and all");
    assert_eq!(
        lab.events_of(&id, "ledger_duplicate").await[0]["outcome"],
        "caught"
    );
    assert_eq!(damage(&lab, &id).await["debits"], 1);
    assert_eq!(shimul(&lab, &id).await, 1500);
}

/// How far apart the race's two requests are, virtual milliseconds.
const RACE_GAP_MS: i64 = 50;

/// Scenario 3: two requests with one key exactly 50 ms apart.
async fn race_50ms(lab: &TestLab, id: &str) -> (Answer, Answer) {
    // A network of 50 ms: the first request arrives, and its look-up and claim run, at exactly
    // +50 ms, a step the clock can stop at (the API jumps only whole seconds); its gateway call
    // (300 ms) has not answered by then.
    lab.faults(id, json!({"latency_ms": RACE_GAP_MS})).await;
    let start = lab.state(id).await["clock"]["now_ms"].as_i64().unwrap();
    let a = lab.transfer(id, "race", five_hundred(), Some(INTENT));
    lab.wait_for_transfers(id, 1).await;
    lab.clock(id, json!({"mode": "paused"})).await;
    advance_exactly(lab, id, RACE_GAP_MS).await;
    let b = lab.transfer(id, "race", five_hundred(), Some(INTENT));
    lab.wait_for_transfers(id, 2).await;
    lab.advance_ms(id, 10_000).await;
    let sent: Vec<i64> = lab
        .events_of(id, "request_sent")
        .await
        .iter()
        .map(|e| e["at_ms"].as_i64().unwrap() - start)
        .collect();
    assert_eq!(sent, [0, RACE_GAP_MS], "when the two requests left");
    (a.await.unwrap(), b.await.unwrap())
}

/// Steps a paused sandbox until its clock stands exactly `ms` past where it stood, running
/// every step due on the way. The API jumps only whole seconds and a step moves the clock to
/// its own time, so a step must be due at exactly that time; the clock is checked to be there.
async fn advance_exactly(lab: &TestLab, id: &str, ms: i64) {
    let target = lab.state(id).await["clock"]["now_ms"].as_i64().unwrap() + ms;
    loop {
        let c = lab.state(id).await["clock"].clone();
        match c["next_due_ms"].as_i64() {
            Some(due) if due <= target => {
                lab.clock(id, json!({"step": true})).await;
            }
            _ => break,
        }
    }
    assert_eq!(
        lab.state(id).await["clock"]["now_ms"].as_i64().unwrap(),
        target,
        "no step was due at exactly +{ms} ms to stop the clock at"
    );
}

#[tokio::test]
async fn with_the_atomic_claim_the_second_of_a_race_gets_409() {
    let lab = TestLab::in_process().await;
    let id = lab.sandbox(1).await;
    let (a, b) = race_50ms(&lab, &id).await;
    assert_eq!((a.status, b.status), (201, 409));
    assert_eq!(
        b.body["type"],
        "urn:pocketpay-lab:problem:idempotency-key-in-progress"
    );
    assert_eq!(
        lab.events_of(&id, "key_in_progress").await[0]["outcome"],
        "caught"
    );
    let retry = lab.send(&id, "race", five_hundred(), Some(INTENT)).await;
    assert_eq!((retry.status, retry.replayed), (201, true));
    assert_eq!(retry.body, a.body);
    assert_eq!(damage(&lab, &id).await["debits"], 1);
}

#[tokio::test]
async fn look_then_write_lets_both_of_a_race_debit() {
    let lab = TestLab::in_process().await;
    let id = lab.sandbox(1).await;
    lab.safeguards(&id, json!({"atomic_claim": false, "ledger_unique": false}))
        .await;
    let (a, b) = race_50ms(&lab, &id).await;
    assert_eq!((a.status, b.status), (201, 201));
    assert_ne!(a.body["txn"], b.body["txn"]);
    assert_eq!(lab.events_of(&id, "key_lookup_empty").await.len(), 2);
    let d = damage(&lab, &id).await;
    assert_eq!(
        (d["debits"].as_i64(), d["double_charges"].as_i64()),
        (Some(2), Some(1))
    );
    assert_eq!(shimul(&lab, &id).await, 1000);
}

#[tokio::test]
async fn the_race_runs_the_same_way_every_time() {
    let lab = TestLab::in_process().await;
    let mut logs = vec![];
    for _ in 0..2 {
        let id = lab.sandbox(77).await;
        race_50ms(&lab, &id).await;
        let s = lab.state(&id).await;
        let log: Vec<Value> = s["tables"]["lab.events"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| {
                json!([
                    e["at_ms"],
                    e["layer"],
                    e["kind"],
                    e["outcome"],
                    e["details"]
                ])
            })
            .collect();
        logs.push((log, s["tables"]["payments.ledger"].clone()));
    }
    assert_eq!(logs[0], logs[1]);
}

/// Scenario 4: the same key with another body.
#[tokio::test]
async fn the_same_key_with_another_body_is_refused_with_422() {
    let lab = TestLab::in_process().await;
    let id = lab.sandbox(1).await;
    lab.send(&id, "k", five_hundred(), None).await;
    let bug = lab
        .send(&id, "k", json!({"to": "tithi", "amount": 5000}), None)
        .await;
    assert_eq!(bug.status, 422);
    assert_eq!(
        bug.body["type"],
        "urn:pocketpay-lab:problem:idempotency-key-reused"
    );
    assert_eq!(
        lab.events_of(&id, "key_reused").await[0]["outcome"],
        "caught"
    );
    assert_eq!(shimul(&lab, &id).await, 1500);
}

#[tokio::test]
async fn without_the_fingerprint_the_stored_answer_comes_back_for_another_body() {
    let lab = TestLab::in_process().await;
    let id = lab.sandbox(1).await;
    lab.safeguards(&id, json!({"fingerprint_check": false}))
        .await;
    let first = lab.send(&id, "k", five_hundred(), None).await;
    let bug = lab
        .send(&id, "k", json!({"to": "tithi", "amount": 5000}), None)
        .await;
    // The client asked for ৳5,000 and is told ৳500 went: a silent wrong answer.
    assert_eq!((bug.status, bug.replayed), (201, true));
    assert_eq!(bug.body, first.body);
    assert!(lab.events_of(&id, "key_reused").await.is_empty());
}

/// Scenario 5: a crash after the claim leaves the key IN_PROGRESS; recovery resolves it.
#[tokio::test]
async fn a_crash_after_claim_gives_409_until_recovery_then_the_right_answer() {
    let lab = TestLab::in_process().await;
    let id = lab.sandbox(1).await;
    lab.faults(&id, json!({"crash": {"api_after_claim": "once"}}))
        .await;
    let crashed = lab.send(&id, "k", five_hundred(), None).await;
    assert_eq!(crashed.status, 504);
    assert_eq!(
        lab.events_of(&id, "instance_crashed").await[0]["outcome"],
        "lost"
    );
    // Still inside 60 s: in progress.
    let early = lab.send(&id, "k", five_hundred(), None).await;
    assert_eq!(early.status, 409);
    // Recovery will settle the key: this 409 is the claim doing its work.
    assert_eq!(
        lab.events_of(&id, "key_in_progress").await[0]["outcome"],
        "caught"
    );
    lab.advance_ms(&id, 60_000).await;
    let released = lab.events_of(&id, "stuck_key_released").await;
    assert_eq!(released.len(), 1);
    let after = lab.send(&id, "k", five_hundred(), None).await;
    assert_eq!(after.status, 201);
    assert_eq!(receipt(&after), ("TXN-88412", 1500));
    assert_eq!(damage(&lab, &id).await["debits"], 1);
}

#[tokio::test]
async fn without_recovery_a_crashed_key_is_stuck_forever() {
    let lab = TestLab::in_process().await;
    let id = lab.sandbox(1).await;
    lab.safeguards(&id, json!({"stuck_recovery": false})).await;
    lab.faults(&id, json!({"crash": {"api_after_claim": "once"}}))
        .await;
    lab.send(&id, "k", five_hundred(), None).await;
    lab.advance_ms(&id, 3_600_000).await;
    let later = lab.send(&id, "k", five_hundred(), None).await;
    assert_eq!(later.status, 409);
    assert_eq!(damage(&lab, &id).await["debits"], 0);
    assert_eq!(damage(&lab, &id).await["stuck_keys"], 1);
    // Nothing will ever finish the key: the timeline does not call this 409 a catch.
    let refused = &lab.events_of(&id, "key_in_progress").await[0];
    assert_eq!(refused["outcome"], "lost");
    assert_eq!(refused["details"]["stuck"], true);
}

/// With recovery off, a 409 while the first request is still being completed is a catch: the
/// key will finish, and the retry after it gets the first answer.
#[tokio::test]
async fn without_recovery_a_409_during_the_first_request_is_still_a_catch() {
    let lab = TestLab::in_process().await;
    let id = lab.sandbox(1).await;
    lab.safeguards(&id, json!({"stuck_recovery": false})).await;
    let (a, b) = race_50ms(&lab, &id).await;
    assert_eq!((a.status, b.status), (201, 409));
    assert_eq!(
        lab.events_of(&id, "key_in_progress").await[0]["outcome"],
        "caught"
    );
    assert_eq!(damage(&lab, &id).await["stuck_keys"], 0);
}

#[tokio::test]
async fn a_crash_after_commit_is_answered_from_the_store_on_retry() {
    let lab = TestLab::in_process().await;
    let id = lab.sandbox(1).await;
    lab.faults(&id, json!({"crash": {"api_after_commit": "once"}}))
        .await;
    assert_eq!(lab.send(&id, "k", five_hundred(), None).await.status, 504);
    let retry = lab.send(&id, "k", five_hundred(), None).await;
    assert_eq!((retry.status, retry.replayed), (201, true));
    assert_eq!(receipt(&retry), ("TXN-88412", 1500));
    assert_eq!(damage(&lab, &id).await["debits"], 1);
}

/// Scenario 6: a retry after 49 h against a 48 h window runs as new; the ledger still stops it.
#[tokio::test]
async fn a_retry_after_the_window_runs_as_new_and_the_ledger_stops_it() {
    let lab = TestLab::in_process().await;
    let id = lab.sandbox(1).await;
    let first = lab.send(&id, "k", five_hundred(), Some(INTENT)).await;
    lab.advance_ms(&id, 49 * HOUR_MS).await;
    let late = lab.send(&id, "k", five_hundred(), Some(INTENT)).await;
    assert_eq!(late.status, 201);
    assert!(!late.replayed, "the window forgot the key");
    assert_eq!(late.body, first.body);
    assert_eq!(lab.events_of(&id, "ledger_duplicate").await.len(), 1);
    assert_eq!(damage(&lab, &id).await["debits"], 1);

    // …and with the ledger's guard off too, the late retry is a second charge.
    let id = lab.sandbox(2).await;
    lab.safeguards(&id, json!({"ledger_unique": false})).await;
    lab.send(&id, "k", five_hundred(), Some(INTENT)).await;
    lab.advance_ms(&id, 49 * HOUR_MS).await;
    let late = lab.send(&id, "k", five_hundred(), Some(INTENT)).await;
    assert_eq!(receipt(&late), ("TXN-88413", 1000));
    assert_eq!(damage(&lab, &id).await["double_charges"], 1);

    // A 72 h window still remembers the key at 49 h: a replay.
    let id = lab.sandbox(3).await;
    lab.safeguards(&id, json!({"window_hours": 72})).await;
    lab.send(&id, "k", five_hundred(), None).await;
    lab.advance_ms(&id, 49 * HOUR_MS).await;
    let late = lab.send(&id, "k", five_hundred(), None).await;
    assert!(late.replayed);
}

#[tokio::test]
async fn whole_daily_partitions_are_dropped_once_outside_the_window() {
    let lab = TestLab::in_process().await;
    let id = lab.sandbox(1).await;
    lab.send(&id, "day-1", five_hundred(), None).await; // day 1, 09:00
    lab.advance_ms(&id, 24 * HOUR_MS).await;
    lab.send(&id, "day-2", five_hundred(), None).await; // day 2
    let rows = |s: &Value| -> Vec<(i64, String)> {
        s["tables"]["payments.idempotency_keys"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                (
                    r["partition_day"].as_i64().unwrap(),
                    r["idem_key"].as_str().unwrap().to_owned(),
                )
            })
            .collect()
    };
    assert_eq!(rows(&lab.state(&id).await).len(), 2);
    // Midnight starting day 4: day 1 ended 48 h ago, so its partition goes; day 2 stays.
    lab.advance_ms(&id, 39 * HOUR_MS).await;
    assert_eq!(rows(&lab.state(&id).await), vec![(1, "day-2".to_owned())]);
    let drops = lab.events_of(&id, "partitions_dropped").await;
    assert!(drops
        .iter()
        .any(|e| e["details"]["days"] == json!([0]) && e["details"]["rows"] == 1));
}

/// Chapter 04's story as the tables tell it: 49 h on, both nightly runs dropped nothing and day
/// 1's row is still COMPLETED, only ignored by the claim; the late retry writes the key again
/// into day 3's partition, so it is in the table twice; day 1's partition goes at the midnight
/// that starts day 4.
#[tokio::test]
async fn past_the_window_a_key_is_ignored_first_and_dropped_with_its_day_later() {
    let lab = TestLab::in_process().await;
    let id = lab.sandbox(1).await;
    let keys = |s: &Value| -> Vec<(i64, String, String)> {
        let mut rows: Vec<_> = s["tables"]["payments.idempotency_keys"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                let body: Value =
                    serde_json::from_str(r["response_body"].as_str().unwrap()).unwrap();
                (
                    r["partition_day"].as_i64().unwrap(),
                    r["status"].as_str().unwrap().to_owned(),
                    body["txn"].as_str().unwrap().to_owned(),
                )
            })
            .collect();
        rows.sort();
        rows
    };
    let done = |day: i64| (day, "COMPLETED".to_owned(), "TXN-88412".to_owned());
    lab.send(&id, "k", five_hundred(), Some(INTENT)).await; // day 1, 09:00
    lab.advance_ms(&id, 49 * HOUR_MS).await; // day 3, 10:00
    let drops = lab.events_of(&id, "partitions_dropped").await;
    assert_eq!(drops.len(), 2, "the midnights starting day 2 and day 3");
    assert!(drops.iter().all(|e| e["details"]["rows"] == 0), "{drops:?}");
    assert_eq!(keys(&lab.state(&id).await), vec![done(0)]);
    let late = lab.send(&id, "k", five_hundred(), Some(INTENT)).await;
    assert!(!late.replayed, "the claim ignored day 1's row");
    assert_eq!(keys(&lab.state(&id).await), vec![done(0), done(2)]);
    lab.advance_ms(&id, 15 * HOUR_MS).await; // past the midnight starting day 4
    assert_eq!(keys(&lab.state(&id).await), vec![done(2)]);
}

/// A retry across midnight lands in the next day's partition, where the primary key alone would
/// take it as new; inside the window it is still caught.
#[tokio::test]
async fn a_retry_across_midnight_inside_the_window_is_replayed() {
    let lab = TestLab::in_process().await;
    let id = lab.sandbox(1).await;
    lab.advance_ms(&id, 14 * HOUR_MS + 59 * 60_000).await; // day 1, 23:59
    let first = lab.send(&id, "k", five_hundred(), None).await;
    lab.advance_ms(&id, 2 * 60_000).await; // day 2, 00:01
    let retry = lab.send(&id, "k", five_hundred(), None).await;
    assert_eq!((retry.status, retry.replayed), (201, true));
    assert_eq!(retry.body, first.body);
    assert_eq!(damage(&lab, &id).await["debits"], 1);
}

/// 100 concurrent sends of one key: one debit, and only 201 and 409.
#[tokio::test]
async fn a_hundred_concurrent_sends_of_one_key_debit_once() {
    let lab = TestLab::in_process().await;
    let id = lab.sandbox(1).await;
    let calls: Vec<_> = (0..100)
        .map(|_| lab.transfer(&id, "storm", five_hundred(), Some(INTENT)))
        .collect();
    lab.wait_for_transfers(&id, 100).await;
    lab.advance_ms(&id, 10_000).await;
    let mut statuses = vec![];
    for c in calls {
        statuses.push(c.await.unwrap().status);
    }
    assert_eq!(statuses.iter().filter(|s| **s == 201).count(), 1);
    assert!(
        statuses.iter().all(|s| *s == 201 || *s == 409),
        "{statuses:?}"
    );
    let d = damage(&lab, &id).await;
    assert_eq!(
        (d["debits"].as_i64(), d["double_charges"].as_i64()),
        (Some(1), Some(0))
    );
}

/// Scenario 2, the load balancer's part: a slow instance makes it send the request again.
#[tokio::test]
async fn a_load_balancer_retry_is_caught_by_the_idempotency_table() {
    let lab = TestLab::in_process().await;
    let id = lab.sandbox(1).await;
    lab.faults(&id, json!({"lb_retry": true, "gateway_latency_ms": 1500}))
        .await;
    let a = lab.send(&id, "k", five_hundred(), None).await;
    assert_eq!(lab.events_of(&id, "lb_retried").await.len(), 1);
    // The retry lands on the other instance while the first holds the claim: 409.
    assert_eq!(a.status, 409);
    let dropped = lab.events_of(&id, "lb_late_answer_dropped").await;
    assert_eq!(dropped.len(), 1);
    let retry = lab.send(&id, "k", five_hundred(), None).await;
    assert_eq!((retry.status, retry.replayed), (201, true));
    assert_eq!(damage(&lab, &id).await["debits"], 1);

    let id = lab.sandbox(2).await;
    lab.safeguards(
        &id,
        json!({"idempotency_table": false, "ledger_unique": false}),
    )
    .await;
    lab.faults(&id, json!({"lb_retry": true, "gateway_latency_ms": 1500}))
        .await;
    lab.send(&id, "k", five_hundred(), None).await;
    let d = damage(&lab, &id).await;
    assert_eq!(
        (d["debits"].as_i64(), d["double_charges"].as_i64()),
        (Some(2), Some(1))
    );
}

#[tokio::test]
async fn insufficient_funds_is_422_stored_and_replayed() {
    let lab = TestLab::in_process().await;
    let id = lab.sandbox(1).await;
    let a = lab
        .send(&id, "big", json!({"to": "tithi", "amount": 5000}), None)
        .await;
    assert_eq!(a.status, 422);
    assert_eq!(
        a.body["type"],
        "urn:pocketpay-lab:problem:insufficient-funds"
    );
    let b = lab
        .send(&id, "big", json!({"to": "tithi", "amount": 5000}), None)
        .await;
    assert_eq!((b.status, b.replayed), (422, true));
    assert_eq!(b.raw, a.raw, "byte for byte");
    assert_eq!(shimul(&lab, &id).await, 2000);
}

/// Every malformed transfer is refused before anything is claimed, and nothing moves.
#[tokio::test]
async fn bad_transfers_are_refused_and_nothing_moves() {
    let lab = TestLab::in_process().await;
    let id = lab.sandbox(1).await;
    let before = lab.state(&id).await;
    let path = format!("/api/sandboxes/{id}/transfers");
    let ok_body = r#"{"to":"tithi","amount":500}"#;
    let long_key = "k".repeat(256);
    // (authorization, key, intent, body, status, problem kind, field)
    type Case<'a> = (
        Option<&'a str>,
        Option<&'a str>,
        Option<&'a str>,
        String,
        u16,
        &'a str,
        Option<&'a str>,
    );
    let cases: Vec<Case> = vec![
        (
            None,
            Some("k"),
            None,
            ok_body.into(),
            401,
            "unknown-user",
            None,
        ),
        (
            Some("Bearer imran"),
            Some("k"),
            None,
            ok_body.into(),
            401,
            "unknown-user",
            None,
        ),
        (
            Some("shimul"),
            Some("k"),
            None,
            ok_body.into(),
            401,
            "unknown-user",
            None,
        ),
        (
            Some("Bearer shimul"),
            None,
            None,
            ok_body.into(),
            400,
            "invalid-idempotency-key",
            Some("Idempotency-Key"),
        ),
        (
            Some("Bearer shimul"),
            Some(""),
            None,
            ok_body.into(),
            400,
            "invalid-idempotency-key",
            Some("Idempotency-Key"),
        ),
        (
            Some("Bearer shimul"),
            Some(&long_key),
            None,
            ok_body.into(),
            400,
            "invalid-idempotency-key",
            Some("Idempotency-Key"),
        ),
        (
            Some("Bearer shimul"),
            Some("tab\tkey"),
            None,
            ok_body.into(),
            400,
            "invalid-idempotency-key",
            Some("Idempotency-Key"),
        ),
        (
            Some("Bearer shimul"),
            Some("k"),
            Some("not-a-uuid"),
            ok_body.into(),
            400,
            "invalid-field",
            Some("Lab-Intent"),
        ),
        (
            Some("Bearer shimul"),
            Some("k"),
            None,
            "".into(),
            400,
            "invalid-json",
            None,
        ),
        (
            Some("Bearer shimul"),
            Some("k"),
            None,
            "{".into(),
            400,
            "invalid-json",
            None,
        ),
        (
            Some("Bearer shimul"),
            Some("k"),
            None,
            "[]".into(),
            400,
            "invalid-field",
            Some("(body)"),
        ),
        (
            Some("Bearer shimul"),
            Some("k"),
            None,
            r#"{"to":"tithi"}"#.into(),
            400,
            "invalid-field",
            Some("amount"),
        ),
        (
            Some("Bearer shimul"),
            Some("k"),
            None,
            r#"{"amount":500}"#.into(),
            400,
            "invalid-field",
            Some("to"),
        ),
        (
            Some("Bearer shimul"),
            Some("k"),
            None,
            r#"{"to":"tithi","amount":0}"#.into(),
            400,
            "invalid-field",
            Some("amount"),
        ),
        (
            Some("Bearer shimul"),
            Some("k"),
            None,
            r#"{"to":"tithi","amount":-500}"#.into(),
            400,
            "invalid-field",
            Some("amount"),
        ),
        (
            Some("Bearer shimul"),
            Some("k"),
            None,
            r#"{"to":"tithi","amount":500.5}"#.into(),
            400,
            "invalid-field",
            Some("amount"),
        ),
        (
            Some("Bearer shimul"),
            Some("k"),
            None,
            r#"{"to":"tithi","amount":"500"}"#.into(),
            400,
            "invalid-field",
            Some("amount"),
        ),
        (
            Some("Bearer shimul"),
            Some("k"),
            None,
            r#"{"to":"tithi","amount":1000001}"#.into(),
            400,
            "invalid-field",
            Some("amount"),
        ),
        (
            Some("Bearer shimul"),
            Some("k"),
            None,
            r#"{"to":"tithi","amount":5e-1}"#.into(),
            400,
            "invalid-field",
            Some("amount"),
        ),
        (
            Some("Bearer shimul"),
            Some("k"),
            None,
            r#"{"to":"imran","amount":500}"#.into(),
            400,
            "invalid-field",
            Some("to"),
        ),
        (
            Some("Bearer shimul"),
            Some("k"),
            None,
            r#"{"to":"shimul","amount":500}"#.into(),
            422,
            "self-transfer",
            Some("to"),
        ),
        (
            Some("Bearer shimul"),
            Some("k"),
            None,
            r#"{"to":null,"amount":500}"#.into(),
            400,
            "invalid-field",
            Some("to"),
        ),
        (
            Some("Bearer shimul"),
            Some("k"),
            None,
            r#"{"to":"tithi","amount":500,"currency":"USD"}"#.into(),
            400,
            "invalid-field",
            Some("currency"),
        ),
        (
            Some("Bearer shimul"),
            Some("k"),
            None,
            format!(
                r#"{{"to":"tithi","amount":500,"pad":"{}"}}"#,
                "x".repeat(70_000)
            ),
            413,
            "body-too-large",
            None,
        ),
    ];
    assert!(cases.len() >= 24);
    for (auth, key, intent, body, status, kind, field) in cases {
        let mut req = lab
            .client
            .post(lab.url(&path))
            .header("content-type", "application/json")
            .body(body.clone());
        if let Some(a) = auth {
            req = req.header("Authorization", a);
        }
        if let Some(k) = key {
            req = req.header("Idempotency-Key", k);
        }
        if let Some(i) = intent {
            req = req.header("Lab-Intent", i);
        }
        let p = expect_problem(req.send().await.unwrap(), status, kind).await;
        if let Some(f) = field {
            assert_eq!(p["field"], f, "{auth:?} {key:?} {body:.60}");
        }
    }
    // An unknown sandbox.
    let r = lab
        .client
        .post(lab.url("/api/sandboxes/6a1f0c2e-3b4d-4e5f-8a9b-0c1d2e3f4a5b/transfers"))
        .header("Authorization", "Bearer shimul")
        .header("Idempotency-Key", "k")
        .header("content-type", "application/json")
        .body(ok_body)
        .send()
        .await
        .unwrap();
    expect_problem(r, 404, "unknown-sandbox").await;

    let after = lab.state(&id).await;
    for key in ["balances", "damage"] {
        assert_eq!(after[key], before[key], "{key}");
    }
    for table in [
        "payments.idempotency_keys",
        "payments.ledger",
        "lab.intents",
        "lab.inputs",
    ] {
        assert!(
            after["tables"][table].as_array().unwrap().is_empty(),
            "{table}"
        );
    }
}

/// With a window shorter than the day, a key forgotten by the window is claimed again in the
/// same daily partition: the stale row gives way instead of blocking the key with a 409.
#[tokio::test]
async fn a_key_outside_a_short_window_is_claimed_again_the_same_day() {
    let lab = TestLab::in_process().await;
    let id = lab.sandbox(1).await;
    lab.safeguards(&id, json!({"window_hours": 1})).await;
    let first = lab.send(&id, "k", five_hundred(), Some(INTENT)).await;
    lab.advance_ms(&id, 2 * HOUR_MS).await;
    let late = lab.send(&id, "k", five_hundred(), Some(INTENT)).await;
    assert_eq!((late.status, late.replayed), (201, false));
    assert_eq!(
        late.body, first.body,
        "the ledger's UNIQUE still answers with the first receipt"
    );
    assert_eq!(lab.events_of(&id, "key_claimed").await.len(), 2);
    let rows = lab.state(&id).await["tables"]["payments.idempotency_keys"].clone();
    assert_eq!(rows.as_array().unwrap().len(), 1, "one row per key and day");
    assert_eq!(damage(&lab, &id).await["debits"], 1);
}
