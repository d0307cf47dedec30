//! The event pipeline after the debit (docs/reference.md §3, rows 9–14): each guard both ways,
//! each crash point, and the replay trap. Run: `cargo test --features ssr --test app pipeline::`.

use crate::common::TestLab;
use pocketpay_lab::domain::{EventKind, Outcome};
use serde_json::{json, Value};

const DAY_S: i64 = 86_400;

fn five_hundred() -> Value {
    json!({"to": "tithi", "amount": 500})
}

/// Sends one ৳500 transfer and lets the pipeline drain.
async fn pay(lab: &TestLab, id: &str, key: &str) {
    let a = lab.send(id, key, five_hundred(), None).await;
    assert!(a.status == 201 || a.status == 504, "{}", a.raw);
    lab.advance_ms(id, 10_000).await;
}

async fn state(lab: &TestLab, id: &str) -> (Value, Value) {
    let s = lab.state(id).await;
    (s["damage"].clone(), s["balances"].clone())
}

fn n(v: &Value, key: &str) -> i64 {
    v[key].as_i64().unwrap()
}

async fn count(lab: &TestLab, id: &str, kind: &str) -> usize {
    lab.events_of(id, kind).await.len()
}

async fn records(lab: &TestLab, id: &str, topic: &str) -> usize {
    lab.state(id).await["tables"]["broker.records"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["topic"] == topic && r["control"].is_null())
        .count()
}

#[tokio::test]
async fn tithi_is_paid_once_and_told_once() {
    let lab = TestLab::in_process().await;
    let id = lab.sandbox(1).await;
    pay(&lab, &id, "k").await;
    let (d, b) = state(&lab, &id).await;
    assert_eq!(b["wallet"]["tithi"], 500);
    assert_eq!(b["payments"]["shimul"], 1500);
    assert_eq!(
        (n(&d, "credits"), n(&d, "sms"), n(&d, "money_created")),
        (1, 1, 0)
    );
    assert_eq!((n(&d, "lost_events"), n(&d, "support_tickets")), (0, 0));
    // The chain, lane by lane, linked by the event id.
    let event_id = lab.events_of(&id, "outbox_written").await[0]["details"]["event_id"].clone();
    for kind in ["event_published", "fraud_approved", "credited", "sms_sent"] {
        let e = lab.events_of(&id, kind).await;
        assert_eq!(e.len(), 1, "{kind}");
        assert_eq!(e[0]["correlation"], event_id, "{kind}");
    }
    let s = lab.state(&id).await;
    assert!(s["tables"]["payments.outbox"][0]["sent_ms"].is_number());
    assert_eq!(s["tables"]["sms.sms"][0]["message_key"], "money_received");
}

/// Row 9: the outbox survives a crash after the commit; a dual write does not.
#[tokio::test]
async fn with_the_outbox_a_crash_after_commit_still_pays_tithi() {
    let lab = TestLab::in_process().await;
    let id = lab.sandbox(1).await;
    lab.faults(&id, json!({"crash": {"api_after_commit": "once"}}))
        .await;
    pay(&lab, &id, "k").await;
    let (d, b) = state(&lab, &id).await;
    assert_eq!(b["wallet"]["tithi"], 500);
    assert_eq!(n(&d, "lost_events"), 0);

    let id = lab.sandbox(1).await;
    lab.safeguards(&id, json!({"outbox": false})).await;
    lab.faults(&id, json!({"crash": {"api_after_commit": "once"}}))
        .await;
    pay(&lab, &id, "k").await;
    let (d, b) = state(&lab, &id).await;
    assert_eq!(b["wallet"]["tithi"], 0, "Tithi is never paid");
    assert_eq!(b["payments"]["shimul"], 1500);
    assert_eq!(
        (
            n(&d, "lost_events"),
            n(&d, "money_created"),
            n(&d, "support_tickets")
        ),
        (1, -500, 1)
    );
    assert_eq!(lab.events_of(&id, "event_lost").await[0]["outcome"], "lost");
}

/// Row 10: a lost ack makes the producer resend; the idempotent producer drops the copy.
#[tokio::test]
async fn a_resend_after_a_lost_ack_is_dropped_by_the_idempotent_producer() {
    let lab = TestLab::in_process().await;
    let id = lab.sandbox(1).await;
    lab.faults(&id, json!({"crash": {"broker_ack_lost": "once"}}))
        .await;
    pay(&lab, &id, "k").await;
    assert_eq!(count(&lab, &id, "resend_dropped").await, 1);
    assert_eq!(records(&lab, &id, "transfers").await, 1);

    let id = lab.sandbox(1).await;
    lab.safeguards(&id, json!({"idempotent_producer": false}))
        .await;
    lab.faults(&id, json!({"crash": {"broker_ack_lost": "once"}}))
        .await;
    pay(&lab, &id, "k").await;
    assert_eq!(
        lab.events_of(&id, "resend_appended").await[0]["outcome"],
        "escaped"
    );
    assert_eq!(
        records(&lab, &id, "transfers").await,
        2,
        "the copy is in the log"
    );
    // The inboxes downstream still catch it.
    let (d, _) = state(&lab, &id).await;
    assert_eq!((n(&d, "credits"), n(&d, "double_credits")), (1, 0));
    assert!(count(&lab, &id, "inbox_duplicate").await >= 2);
}

/// Scenario 10 / rows 12–13: a relay crash after publishing publishes again; both inboxes
/// catch the duplicate, and without them Tithi is credited and texted twice.
#[tokio::test]
async fn a_relay_crash_duplicates_the_event_and_both_inboxes_catch_it() {
    let lab = TestLab::in_process().await;
    let id = lab.sandbox(1).await;
    lab.faults(&id, json!({"crash": {"relay_after_publish": "once"}}))
        .await;
    pay(&lab, &id, "k").await;
    assert_eq!(count(&lab, &id, "relay_crashed").await, 1);
    assert_eq!(records(&lab, &id, "transfers").await, 2);
    let dupes = lab.events_of(&id, "inbox_duplicate").await;
    assert!(dupes
        .iter()
        .any(|e| e["layer"] == "wallet" && e["outcome"] == "caught"));
    assert!(dupes
        .iter()
        .any(|e| e["layer"] == "sms" && e["outcome"] == "caught"));
    let (d, b) = state(&lab, &id).await;
    assert_eq!(b["wallet"]["tithi"], 500);
    assert_eq!((n(&d, "double_credits"), n(&d, "duplicate_sms")), (0, 0));

    let id = lab.sandbox(1).await;
    lab.safeguards(&id, json!({"wallet_inbox": false, "sms_inbox": false}))
        .await;
    lab.faults(&id, json!({"crash": {"relay_after_publish": "once"}}))
        .await;
    pay(&lab, &id, "k").await;
    let (d, b) = state(&lab, &id).await;
    assert_eq!(
        b["wallet"]["tithi"], 1000,
        "PocketPay pays the second ৳500 from its own pocket"
    );
    assert_eq!(
        (
            n(&d, "double_credits"),
            n(&d, "duplicate_sms"),
            n(&d, "money_created")
        ),
        (1, 1, 500)
    );
    assert_eq!(n(&d, "support_tickets"), 1);
}

/// Row 11: the fraud check dies after writing, before committing. With transactions the write
/// is aborted and never read; without, a second approved event appears. The audit row, outside
/// the broker, repeats either way.
#[tokio::test]
async fn a_fraud_check_crash_is_contained_by_transactions_but_not_its_audit_row() {
    let lab = TestLab::in_process().await;
    let id = lab.sandbox(1).await;
    lab.faults(&id, json!({"crash": {"fraud_before_commit": "once"}}))
        .await;
    pay(&lab, &id, "k").await;
    assert_eq!(
        lab.events_of(&id, "transaction_aborted").await[0]["outcome"],
        "caught"
    );
    let s = lab.state(&id).await;
    assert_eq!(
        s["tables"]["fraud.audit"].as_array().unwrap().len(),
        2,
        "the outside effect repeats"
    );
    // Two approved records were written; the aborted one is never delivered.
    assert_eq!(records(&lab, &id, "approved-transfers").await, 2);
    assert_eq!(count(&lab, &id, "inbox_duplicate").await, 0);
    assert_eq!(n(&s["damage"], "credits"), 1);

    let id = lab.sandbox(1).await;
    lab.safeguards(&id, json!({"transactions": false})).await;
    lab.faults(&id, json!({"crash": {"fraud_before_commit": "once"}}))
        .await;
    pay(&lab, &id, "k").await;
    assert_eq!(records(&lab, &id, "approved-transfers").await, 2);
    // Both copies are delivered: the inboxes have to catch the second.
    assert_eq!(count(&lab, &id, "inbox_duplicate").await, 2);
    let s = lab.state(&id).await;
    assert_eq!(s["tables"]["fraud.audit"].as_array().unwrap().len(), 2);
    assert_eq!(n(&s["damage"], "credits"), 1);
}

/// Row 12: a consumer dies after its local commit, before its offset commit: redelivery.
#[tokio::test]
async fn a_redelivery_after_a_consumer_crash_is_caught_by_the_inbox() {
    let lab = TestLab::in_process().await;
    let id = lab.sandbox(1).await;
    lab.faults(
        &id,
        json!({"crash": {"consumer_before_offset_commit": "once"}}),
    )
    .await;
    pay(&lab, &id, "k").await;
    assert_eq!(count(&lab, &id, "consumer_crashed").await, 1);
    assert_eq!(count(&lab, &id, "inbox_duplicate").await, 1);
    let (d, _) = state(&lab, &id).await;
    assert_eq!((n(&d, "double_credits"), n(&d, "duplicate_sms")), (0, 0));

    let id = lab.sandbox(1).await;
    lab.safeguards(&id, json!({"wallet_inbox": false, "sms_inbox": false}))
        .await;
    lab.faults(
        &id,
        json!({"crash": {"consumer_before_offset_commit": "once"}}),
    )
    .await;
    pay(&lab, &id, "k").await;
    let (d, _) = state(&lab, &id).await;
    assert_eq!(
        n(&d, "double_credits") + n(&d, "duplicate_sms"),
        1,
        "whichever consumer crashed repeats"
    );
}

/// Scenario 11: the replay trap. Replaying 5 days back against a 24 h inbox window credits old
/// events again; with the window equal to the log's retention nothing happens.
#[tokio::test]
async fn replaying_five_days_back_double_credits_only_with_a_short_inbox_window() {
    async fn trap(lab: &TestLab, window_hours: i64) -> Value {
        let id = lab.sandbox(1).await;
        lab.safeguards(&id, json!({"inbox_window_hours": window_hours}))
            .await;
        pay(lab, &id, "day-1").await;
        lab.advance_ms(&id, 2 * DAY_S * 1_000).await;
        pay(lab, &id, "day-3").await;
        lab.advance_ms(&id, 2 * DAY_S * 1_000).await;
        // Day 5: both events are still in the log (7 days), both older than 24 h.
        let r = lab
            .post(
                &format!("/api/sandboxes/{id}/replay"),
                json!({"consumer": "wallet", "from_seconds_ago": 5 * DAY_S}),
            )
            .await;
        assert_eq!(r.status().as_u16(), 200);
        lab.advance_ms(&id, 10_000).await;
        assert_eq!(count(lab, &id, "replay_started").await, 1);
        lab.state(&id).await
    }
    let trapped = trap(&lab_start().await, 24).await;
    assert_eq!(
        trapped["balances"]["wallet"]["tithi"], 2000,
        "both old events credited again"
    );
    assert_eq!(n(&trapped["damage"], "double_credits"), 2);

    let safe = trap(&lab_start().await, 168).await;
    assert_eq!(safe["balances"]["wallet"]["tithi"], 1000);
    assert_eq!(n(&safe["damage"], "double_credits"), 0);
}

async fn lab_start() -> TestLab {
    TestLab::in_process().await
}

#[tokio::test]
async fn bad_replays_are_refused() {
    let lab = TestLab::in_process().await;
    let id = lab.sandbox(1).await;
    let path = format!("/api/sandboxes/{id}/replay");
    for (body, field) in [
        (
            json!({"consumer": "bank", "from_seconds_ago": 60}),
            "consumer",
        ),
        (json!({"from_seconds_ago": 60}), "consumer"),
        (json!({"consumer": "wallet"}), "from_seconds_ago"),
        (
            json!({"consumer": "wallet", "from_seconds_ago": -1}),
            "from_seconds_ago",
        ),
        (
            json!({"consumer": "wallet", "from_seconds_ago": 60, "to": 1}),
            "to",
        ),
    ] {
        let p =
            crate::common::expect_problem(lab.post(&path, body).await, 400, "invalid-field").await;
        assert_eq!(p["field"], field);
    }
    assert_eq!(count(&lab, &id, "replay_started").await, 0);
}

/// The services work a poll's batch at a time, so a crash before the commit sends the whole
/// batch round again. 300 transfers wait in the log while the fraud check crashes before every
/// commit. Its transactions abort every approval of a crashed batch; once it stops crashing,
/// one poll takes 50 records from each partition, and with every acknowledgement lost that
/// step writes four events a record (more than one insert statement carries); Tithi is
/// credited and told exactly once per transfer. Every event the streams were sent is the
/// log's, with the log's id, in order.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crashed_batch_goes_round_whole_and_every_event_is_logged_once_in_order() {
    use pocketpay_lab::domain::transfer::IdempotencyKey;
    use pocketpay_lab::domain::{ClockCommand, ClockMode, TransferBody};
    use pocketpay_lab::server::calls::TransferRequest;
    use pocketpay_lab::server::config::Config;
    use pocketpay_lab::server::sandboxes::Sandboxes;

    const N: usize = 300;
    let dir = tempfile::tempdir().unwrap();
    let lab = Sandboxes::start(Config {
        data_dir: dir.path().to_path_buf(),
        ..Config::default()
    })
    .await
    .unwrap();
    let seed = 88412;
    let sandbox = lab
        .create(None, Some(seed), ClockMode::Paused)
        .await
        .unwrap();
    let mut streamed = sandbox.subscribe();
    // A paused sandbox does nothing by itself: what the log holds now is all it has.
    let before = sandbox.events_after(0, i64::MAX).await.unwrap().len() as i64;
    let (stop, mut stopped) = tokio::sync::oneshot::channel::<()>();
    let collector = tokio::spawn(async move {
        // A stream that falls behind misses some (it re-reads the log, api/sse.rs); what it
        // does get must be the log's.
        use tokio::sync::broadcast::error::{RecvError, TryRecvError};
        let mut seen = Vec::new();
        loop {
            tokio::select! {
                e = streamed.recv() => match e {
                    Ok(e) => seen.push((e.id, e.kind)),
                    Err(RecvError::Lagged(_)) => continue,
                    Err(RecvError::Closed) => return seen,
                },
                _ = &mut stopped => loop {
                    match streamed.try_recv() {
                        Ok(e) => seen.push((e.id, e.kind)),
                        Err(TryRecvError::Lagged(_)) => continue,
                        Err(_) => return seen,
                    }
                },
            }
        }
    });
    sandbox
        .set_faults(
            pocketpay_lab::domain::typed::read_body(
                &json!({"crash": {"fraud_before_commit": "always", "broker_ack_lost": "always"}}),
            )
            .unwrap(),
        )
        .await
        .unwrap();
    let mut answers = Vec::new();
    for i in 0..N {
        let request = TransferRequest::new(
            "shimul",
            IdempotencyKey::parse(Some(&format!("batch-{i}"))).unwrap(),
            TransferBody {
                to: "tithi".into(),
                amount: 1,
            },
            format!("intent-{i}"),
        );
        answers.push(sandbox.start_transfer(request).await.unwrap());
    }
    let jump = |seconds| sandbox.clock(vec![ClockCommand::Advance { seconds }]);
    jump(5).await.unwrap();
    for a in answers {
        assert_eq!(a.await.unwrap().status, 201, "seed {seed}");
    }
    let events = sandbox.events_after(0, i64::MAX).await.unwrap();
    let crashes: Vec<_> = events
        .iter()
        .filter(|e| e.kind == EventKind::FraudCrashed)
        .collect();
    assert!(crashes.len() >= 2, "seed {seed}: {} crashes", crashes.len());
    // After the relay has published everything, a crashed poll held 50 records a partition.
    assert!(
        crashes
            .iter()
            .any(|e| e.details["uncommitted"].as_u64().unwrap() > 1),
        "seed {seed}: every crashed batch held one record"
    );
    let s = sandbox.state().await.unwrap();
    assert_eq!(
        s.damage.credits, 0,
        "seed {seed}: an aborted approval was read"
    );

    sandbox
        .set_faults(
            pocketpay_lab::domain::typed::read_body(
                &json!({"crash": {"fraud_before_commit": "off"}}),
            )
            .unwrap(),
        )
        .await
        .unwrap();
    jump(60).await.unwrap();
    let s = sandbox.state().await.unwrap();
    assert_eq!(
        (s.damage.credits, s.damage.double_credits),
        (N as i64, 0),
        "seed {seed}"
    );
    assert_eq!(
        (s.damage.sms, s.damage.duplicate_sms),
        (N as i64, 0),
        "seed {seed}"
    );
    let events = sandbox.events_after(0, i64::MAX).await.unwrap();
    // The audit rows are outside the broker's transactions: the crashed rounds left theirs.
    assert!(
        events
            .iter()
            .any(|e| e.kind == EventKind::FraudApproved && e.outcome == Outcome::Escaped),
        "seed {seed}: no second audit row"
    );
    // Every acknowledgement was lost, and every resend (of a whole produce request, up to 100
    // records) was recognised by the idempotent producers.
    assert!(
        events.iter().any(|e| e.kind == EventKind::ResendDropped)
            && !events.iter().any(|e| e.kind == EventKind::ResendAppended),
        "seed {seed}: a resend was appended again"
    );
    // One fraud step a virtual instant: the largest approved 150 records at once, each with
    // its append, its lost acknowledgement and its dropped resend in the same step.
    let mut approved_at = std::collections::BTreeMap::<i64, usize>::new();
    for e in events.iter().filter(|e| e.kind == EventKind::FraudApproved) {
        *approved_at.entry(e.at_ms).or_default() += 1;
    }
    let most = approved_at.values().max().copied().unwrap_or(0);
    assert_eq!(most, 150, "seed {seed}");

    let logged: Vec<(i64, EventKind)> = sandbox
        .events_after(0, i64::MAX)
        .await
        .unwrap()
        .into_iter()
        .filter(|e| e.id > before)
        .map(|e| (e.id, e.kind))
        .collect();
    stop.send(()).unwrap();
    let streamed = collector.await.unwrap();
    lab.shutdown().await;
    assert!(
        streamed.len() > 500,
        "seed {seed}: {} events streamed",
        streamed.len()
    );
    let by_id: std::collections::HashMap<i64, EventKind> = logged.iter().copied().collect();
    for (id, kind) in &streamed {
        assert_eq!(
            by_id.get(id),
            Some(kind),
            "seed {seed}: streamed event {id}"
        );
    }
    assert!(
        streamed.windows(2).all(|w| w[0].0 < w[1].0),
        "seed {seed}: streamed out of order"
    );
    assert!(
        logged.first().is_some_and(|e| e.0 == before + 1)
            && logged.windows(2).all(|w| w[1].0 == w[0].0 + 1),
        "seed {seed}: the log's ids have a gap"
    );
}
