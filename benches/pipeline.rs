//! Transfers per second through the whole pipeline when the clock is jumped, and where the time
//! goes:
//!   cargo bench --features ssr --bench pipeline
//! A paused sandbox takes N transfers at one virtual instant; one jump then runs everything: the
//! network and load balancer, the API and its guards, the outbox, the relay, the broker, the
//! fraud check, the wallet and SMS consumers, and the timeline.
//!
//! Then the same store work run raw: the same functions and statements on a fresh set of
//! stores, in the same transactions and batches, in a straight loop, with no scheduler, no
//! network model, no timeline and no crash points. The ratio of the two is what the simulation
//! and its timeline cost on top of SQLite.

use std::time::Instant;

use pocketpay_lab::domain::clock::START_MS;
use pocketpay_lab::domain::pipeline::{Consumer, TransferDone, APPROVED_TOPIC, TRANSFERS_TOPIC};
use pocketpay_lab::server::broker::{self, Outgoing};
use pocketpay_lab::server::payments::{idempotency, ledger};
use pocketpay_lab::server::pipeline::FRAUD_TXN_ID;
use pocketpay_lab::server::store::{StoreName, Stores};

use pocketpay_lab::domain::transfer::IdempotencyKey;
use pocketpay_lab::domain::{ClockCommand, ClockMode, TransferBody};
use pocketpay_lab::server::calls::TransferRequest;
use pocketpay_lab::server::config::Config;
use pocketpay_lab::server::sandboxes::Sandboxes;

/// Transfers per run; each moves ৳1 of Shimul's ৳2,000.
const N: usize = 1_000;

#[tokio::main]
async fn main() {
    let dir = tempfile::tempdir().unwrap();
    let lab = Sandboxes::start(Config {
        data_dir: dir.path().to_path_buf(),
        ..Config::default()
    })
    .await
    .unwrap();
    let sandbox = lab.create(Some(1), ClockMode::Paused).await.unwrap();
    let mut answers = Vec::with_capacity(N);
    for i in 0..N {
        let request = TransferRequest::new(
            "shimul",
            IdempotencyKey::parse(Some(&format!("bench-{i}"))).expect("a valid key"),
            TransferBody {
                to: "tithi".into(),
                amount: 1,
            },
            format!("intent-{i}"),
        );
        answers.push(sandbox.start_transfer(request).await.unwrap());
    }
    let started = Instant::now();
    sandbox
        .clock(vec![ClockCommand::Advance { seconds: 60 }])
        .await
        .unwrap();
    let elapsed = started.elapsed();
    for a in answers {
        assert_eq!(a.await.unwrap().status, 201);
    }
    let state = sandbox.state().await.unwrap();
    assert_eq!(
        state.damage.credits as usize, N,
        "every transfer reached Tithi's wallet"
    );
    assert_eq!(state.damage.sms as usize, N);
    let events = sandbox.events_after(0, i64::MAX).await.unwrap().len();
    println!(
        "{N} transfers through the whole pipeline in one jump: {:.2} s, {:.0} transfers/s, {} timeline events",
        elapsed.as_secs_f64(),
        N as f64 / elapsed.as_secs_f64(),
        events
    );
    println!("where the time goes (wall time per kind of step):");
    let times = sandbox.step_times().await.unwrap();
    let total: f64 = times.iter().map(|t| t.total.as_secs_f64()).sum();
    for t in times {
        println!(
            "  {:<34} {:>6} runs {:>8.1} ms {:>5.1}%  {:>6.0} µs/run",
            t.name,
            t.count,
            t.total.as_secs_f64() * 1e3,
            100.0 * t.total.as_secs_f64() / total,
            t.total.as_secs_f64() * 1e6 / t.count.max(1) as f64
        );
    }
    let raw = raw_pipeline(&dir.path().join("raw")).await;
    let simulated = N as f64 / elapsed.as_secs_f64();
    println!(
        "the same store work run raw (same statements, transactions and batches; no scheduler, network or timeline): {:.2} s, {raw:.0} transfers/s",
        N as f64 / raw
    );
    println!("ratio, pipeline / raw: {:.2}", simulated / raw);
    lab.shutdown().await;
}

/// Transfers per second for the pipeline's store work done straight: per transfer the API's
/// two transactions (claim; balance, debit, outbox, stored response), then per batch of 100
/// the relay's produce request and its outbox update, and per partition batch the fraud
/// check's broker transaction and audit rows and the wallet's and SMS service's inbox
/// transactions and offset commits, every guard on.
async fn raw_pipeline(dir: &std::path::Path) -> f64 {
    std::fs::create_dir_all(dir).unwrap();
    let stores = Stores::open(dir).await.unwrap();
    stores.reset_services().await.unwrap();
    let started = Instant::now();
    let relay = {
        let mut tx = stores.begin(StoreName::Broker).await.unwrap();
        let p = broker::init_producer(&mut tx, None, START_MS)
            .await
            .unwrap();
        tx.commit().await.unwrap();
        p
    };
    let fraud = {
        let mut tx = stores.begin(StoreName::Broker).await.unwrap();
        let p = broker::init_producer(&mut tx, Some(FRAUD_TXN_ID), START_MS)
            .await
            .unwrap();
        tx.commit().await.unwrap();
        p
    };
    let mut sequences = std::collections::HashMap::new();
    for chunk in (0..N).collect::<Vec<_>>().chunks(100) {
        for &i in chunk {
            let key = format!("raw-{i}");
            let now = START_MS + i as i64;
            let mut tx = stores.begin(StoreName::Payments).await.unwrap();
            assert!(idempotency::look_up(&mut tx, "shimul", &key, 0)
                .await
                .unwrap()
                .is_none());
            assert!(idempotency::claim(&mut tx, "shimul", &key, "h", 0, now)
                .await
                .unwrap());
            tx.commit().await.unwrap();
            let mut tx = stores.begin(StoreName::Payments).await.unwrap();
            let balance = ledger::balance(&mut tx, "shimul").await.unwrap();
            let entry = ledger::Entry {
                transfer_id: ledger::transfer_id_for("shimul", &key),
                txn: ledger::next_txn(&mut tx).await.unwrap(),
                user_id: "shimul".into(),
                counterparty: "tithi".into(),
                amount: -1,
                balance_after: balance - 1,
                idem_key: key.clone(),
                at_ms: now,
                lab_intent: key.clone(),
            };
            assert!(ledger::debit(&mut tx, &entry).await.unwrap());
            let event = TransferDone {
                event_id: format!("ev-{i}"),
                transfer_id: entry.transfer_id.clone(),
                from: "shimul".into(),
                to: "tithi".into(),
                amount: 1,
                at: now,
            };
            sqlx::query(
                "INSERT INTO outbox (event_id, transfer_id, payload, created_ms) VALUES (?1, ?2, ?3, ?4)",
            )
            .bind(&event.event_id)
            .bind(&event.transfer_id)
            .bind(serde_json::to_string(&event).unwrap())
            .bind(now)
            .execute(&mut *tx)
            .await
            .unwrap();
            ledger::debits_for_intent(&mut tx, &key).await.unwrap();
            let body = serde_json::to_string(&entry.receipt()).unwrap();
            idempotency::store_response(&mut tx, "shimul", &key, "h", 0, now, 201, &body)
                .await
                .unwrap();
            tx.commit().await.unwrap();
        }
        // The relay: one produce request for the unsent rows, then one update.
        let now = START_MS + N as i64;
        let rows: Vec<(String, String, String)> = sqlx::query_as(
            "SELECT event_id, transfer_id, payload FROM outbox WHERE sent_ms IS NULL
             ORDER BY created_ms, event_id LIMIT 100",
        )
        .fetch_all(stores.pool(StoreName::Payments))
        .await
        .unwrap();
        let outgoing: Vec<Outgoing> = rows
            .iter()
            .map(|(_, transfer_id, payload)| {
                let partition = broker::partition_for(transfer_id, 3);
                let seq = sequences.entry(partition).or_insert(0);
                *seq += 1;
                Outgoing {
                    key: transfer_id,
                    value: payload,
                    sequence: Some(*seq - 1),
                }
            })
            .collect();
        let mut tx = stores.begin(StoreName::Broker).await.unwrap();
        broker::produce_batch(&mut tx, relay, TRANSFERS_TOPIC, &outgoing, None, now)
            .await
            .unwrap();
        tx.commit().await.unwrap();
        let mut tx = stores.begin(StoreName::Payments).await.unwrap();
        for (event_id, _, _) in &rows {
            sqlx::query("UPDATE outbox SET sent_ms = ?1 WHERE event_id = ?2")
                .bind(now)
                .bind(event_id)
                .execute(&mut *tx)
                .await
                .unwrap();
        }
        tx.commit().await.unwrap();
        for consumer in Consumer::ALL {
            for partition in 0..3 {
                loop {
                    let (records, next) = {
                        let mut c = stores.pool(StoreName::Broker).acquire().await.unwrap();
                        let from =
                            broker::position(&mut c, consumer.id(), consumer.topic(), partition)
                                .await
                                .unwrap();
                        broker::fetch(&mut c, consumer.topic(), partition, from, 50, true)
                            .await
                            .unwrap()
                    };
                    if records.is_empty() {
                        break;
                    }
                    let events: Vec<TransferDone> = records
                        .iter()
                        .map(|r| serde_json::from_str(&r.value).unwrap())
                        .collect();
                    match consumer {
                        Consumer::Fraud => {
                            raw_fraud(&stores, fraud, partition, &events, next, now).await
                        }
                        _ => raw_apply(&stores, consumer, partition, &events, next, now).await,
                    }
                }
            }
        }
    }
    let elapsed = started.elapsed();
    let credits: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM credits")
        .fetch_one(stores.pool(StoreName::Wallet))
        .await
        .unwrap();
    assert_eq!(
        credits as usize, N,
        "the raw run credited every transfer once"
    );
    stores.close().await;
    N as f64 / elapsed.as_secs_f64()
}

/// The fraud check's broker transaction for one batch, and its audit rows.
async fn raw_fraud(
    stores: &Stores,
    producer: broker::Producer,
    partition: i64,
    events: &[TransferDone],
    next: i64,
    now: i64,
) {
    let mut tx = stores.begin(StoreName::Broker).await.unwrap();
    let txn = broker::begin_transaction(&mut tx, producer, FRAUD_TXN_ID, now)
        .await
        .unwrap();
    tx.commit().await.unwrap();
    let values: Vec<String> = events
        .iter()
        .map(|e| serde_json::to_string(e).unwrap())
        .collect();
    let outgoing: Vec<Outgoing> = events
        .iter()
        .zip(&values)
        .map(|(e, v)| Outgoing {
            key: &e.transfer_id,
            value: v,
            sequence: None,
        })
        .collect();
    let mut tx = stores.begin(StoreName::Broker).await.unwrap();
    broker::produce_batch(&mut tx, producer, APPROVED_TOPIC, &outgoing, Some(txn), now)
        .await
        .unwrap();
    tx.commit().await.unwrap();
    let mut tx = stores.begin(StoreName::Broker).await.unwrap();
    broker::send_offset_to_transaction(&mut tx, txn, "fraud", TRANSFERS_TOPIC, partition, next)
        .await
        .unwrap();
    tx.commit().await.unwrap();
    let mut tx = stores.begin(StoreName::Fraud).await.unwrap();
    for e in events {
        sqlx::query("INSERT INTO audit (event_id, decision, at_ms) VALUES (?1, 'approved', ?2)")
            .bind(&e.event_id)
            .bind(now)
            .execute(&mut *tx)
            .await
            .unwrap();
        let _: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM audit WHERE event_id = ?1")
            .bind(&e.event_id)
            .fetch_one(&mut *tx)
            .await
            .unwrap();
    }
    tx.commit().await.unwrap();
    let mut tx = stores.begin(StoreName::Broker).await.unwrap();
    broker::commit_transaction(&mut tx, producer, txn, now)
        .await
        .unwrap();
    tx.commit().await.unwrap();
}

/// The wallet's or SMS service's inbox transaction for one batch, then its offset.
async fn raw_apply(
    stores: &Stores,
    consumer: Consumer,
    partition: i64,
    events: &[TransferDone],
    next: i64,
    now: i64,
) {
    let (store, sql, count_sql) = match consumer {
        Consumer::Wallet => (
            StoreName::Wallet,
            "INSERT INTO credits (event_id, transfer_id, user_id, amount, at_ms) VALUES (?1, ?2, ?3, ?4, ?5)",
            "SELECT COUNT(*) FROM credits WHERE transfer_id = ?1",
        ),
        _ => (
            StoreName::Sms,
            "INSERT INTO sms (event_id, transfer_id, to_user, message_key, amount, at_ms)
             VALUES (?1, ?2, ?3, 'money_received', ?4, ?5)",
            "SELECT COUNT(*) FROM sms WHERE transfer_id = ?1",
        ),
    };
    let mut tx = stores.begin(store).await.unwrap();
    for e in events {
        sqlx::query(
            "INSERT INTO inbox (event_id, processed_ms) VALUES (?1, ?2) ON CONFLICT DO NOTHING",
        )
        .bind(&e.event_id)
        .bind(now)
        .execute(&mut *tx)
        .await
        .unwrap();
        sqlx::query(sql)
            .bind(&e.event_id)
            .bind(&e.transfer_id)
            .bind(&e.to)
            .bind(e.amount)
            .bind(now)
            .execute(&mut *tx)
            .await
            .unwrap();
        let _: i64 = sqlx::query_scalar(count_sql)
            .bind(&e.transfer_id)
            .fetch_one(&mut *tx)
            .await
            .unwrap();
    }
    tx.commit().await.unwrap();
    let mut tx = stores.begin(StoreName::Broker).await.unwrap();
    broker::commit_offset(&mut tx, consumer.id(), consumer.topic(), partition, next)
        .await
        .unwrap();
    tx.commit().await.unwrap();
}
