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

mod common;

use std::collections::HashMap;
use std::time::Instant;

use pocketpay_lab::domain::clock::START_MS;
use pocketpay_lab::domain::pipeline::{Consumer, TransferDone, APPROVED_TOPIC, TRANSFERS_TOPIC};
use pocketpay_lab::domain::transfer::IdempotencyKey;
use pocketpay_lab::domain::{ClockCommand, ClockMode, TransferBody};
use pocketpay_lab::server::broker::{self, Outgoing};
use pocketpay_lab::server::calls::TransferRequest;
use pocketpay_lab::server::config::Config;
use pocketpay_lab::server::lanes;
use pocketpay_lab::server::pipeline::{sql, FRAUD_TXN_ID};
use pocketpay_lab::server::sandboxes::Sandboxes;
use pocketpay_lab::server::store::{StoreName, Stores};

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
    let sandbox = lab.create(None, Some(1), ClockMode::Paused).await.unwrap();
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
    // On a lane, as a sandbox runs (server::lanes): the same processor for the work and its
    // connections.
    let raw_dir = dir.path().join("raw");
    let raw = lanes::spawn(async move { raw_pipeline(&raw_dir).await })
        .await
        .unwrap();
    let simulated = N as f64 / elapsed.as_secs_f64();
    println!(
        "the same store work run raw (same statements, transactions and batches; no scheduler, network or timeline): {:.2} s, {raw:.0} transfers/s",
        N as f64 / raw
    );
    println!("ratio, pipeline / raw: {:.2}", simulated / raw);
    lab.shutdown().await;
}

/// Transfers per second for the pipeline's store work done straight: per transfer the API's
/// two transactions (`common::api_transfer`, outbox on), then per batch of 100 the relay's
/// produce request and its outbox update, and per partition batch the fraud check's broker
/// transaction and audit rows and the wallet's and SMS service's inbox transactions and offset
/// commits, every guard on (the producers idempotent: a sequence number per record).
async fn raw_pipeline(dir: &std::path::Path) -> f64 {
    std::fs::create_dir_all(dir).unwrap();
    let stores = Stores::open(dir).await.unwrap();
    stores.reset_services().await.unwrap();
    let started = Instant::now();
    let now = START_MS + N as i64;
    let mut relay = Producing::start(&stores, None).await;
    let mut fraud = Producing::start(&stores, Some(FRAUD_TXN_ID)).await;
    for chunk in (0..N).collect::<Vec<_>>().chunks(100) {
        for &i in chunk {
            common::api_transfer(&stores, i, true).await;
        }
        // The relay: one produce request for the unsent rows, then one update.
        let rows: Vec<(String, String, String)> = sqlx::query_as(sql::OUTBOX_UNSENT)
            .bind(100)
            .fetch_all(&mut *stores.conn(StoreName::Payments).await.unwrap())
            .await
            .unwrap();
        let records: Vec<(&str, &str)> = rows
            .iter()
            .map(|(_, transfer_id, payload)| (transfer_id.as_str(), payload.as_str()))
            .collect();
        let mut tx = stores.begin(StoreName::Broker).await.unwrap();
        relay
            .produce(&mut tx, TRANSFERS_TOPIC, &records, None, now)
            .await;
        tx.commit().await.unwrap();
        let mut tx = stores.begin(StoreName::Payments).await.unwrap();
        for (event_id, _, _) in &rows {
            sqlx::query(sql::OUTBOX_MARK_SENT)
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
                        let mut c = stores.conn(StoreName::Broker).await.unwrap();
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
                            raw_fraud(&stores, &mut fraud, partition, &events, next, now).await
                        }
                        _ => raw_apply(&stores, consumer, partition, &events, next, now).await,
                    }
                }
            }
        }
    }
    let elapsed = started.elapsed();
    let credits: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM credits")
        .fetch_one(&mut *stores.conn(StoreName::Wallet).await.unwrap())
        .await
        .unwrap();
    assert_eq!(
        credits as usize, N,
        "the raw run credited every transfer once"
    );
    stores.close().await;
    N as f64 / elapsed.as_secs_f64()
}

/// An idempotent producer and its next sequence number per partition, as the relay and the
/// fraud check keep them.
struct Producing {
    producer: broker::Producer,
    sequences: HashMap<(&'static str, i64), i64>,
}

impl Producing {
    async fn start(stores: &Stores, transactional_id: Option<&str>) -> Producing {
        let mut tx = stores.begin(StoreName::Broker).await.unwrap();
        let producer = broker::init_producer(&mut tx, transactional_id, START_MS)
            .await
            .unwrap();
        tx.commit().await.unwrap();
        Producing {
            producer,
            sequences: HashMap::new(),
        }
    }

    /// One produce request of `(key, value)` records.
    async fn produce(
        &mut self,
        conn: &mut sqlx::SqliteConnection,
        topic: &'static str,
        records: &[(&str, &str)],
        txn: Option<i64>,
        now: i64,
    ) {
        let outgoing: Vec<Outgoing> = records
            .iter()
            .map(|&(key, value)| {
                let next = self
                    .sequences
                    .entry((topic, broker::partition_for(key, 3)))
                    .or_insert(0);
                *next += 1;
                Outgoing {
                    key,
                    value,
                    sequence: Some(*next - 1),
                }
            })
            .collect();
        broker::produce_batch(conn, self.producer, topic, &outgoing, txn, now)
            .await
            .unwrap();
    }
}

/// The fraud check's broker transaction for one batch, and its audit rows.
async fn raw_fraud(
    stores: &Stores,
    fraud: &mut Producing,
    partition: i64,
    events: &[TransferDone],
    next: i64,
    now: i64,
) {
    let mut tx = stores.begin(StoreName::Broker).await.unwrap();
    let txn = broker::begin_transaction(&mut tx, fraud.producer, FRAUD_TXN_ID, now)
        .await
        .unwrap();
    tx.commit().await.unwrap();
    let values: Vec<String> = events
        .iter()
        .map(|e| serde_json::to_string(e).unwrap())
        .collect();
    let records: Vec<(&str, &str)> = events
        .iter()
        .zip(&values)
        .map(|(e, v)| (e.transfer_id.as_str(), v.as_str()))
        .collect();
    let mut tx = stores.begin(StoreName::Broker).await.unwrap();
    fraud
        .produce(&mut tx, APPROVED_TOPIC, &records, Some(txn), now)
        .await;
    tx.commit().await.unwrap();
    let mut tx = stores.begin(StoreName::Broker).await.unwrap();
    broker::send_offset_to_transaction(
        &mut tx,
        txn,
        Consumer::Fraud.id(),
        TRANSFERS_TOPIC,
        partition,
        next,
    )
    .await
    .unwrap();
    tx.commit().await.unwrap();
    let mut tx = stores.begin(StoreName::Fraud).await.unwrap();
    for e in events {
        sqlx::query(sql::AUDIT_WRITE)
            .bind(&e.event_id)
            .bind(now)
            .execute(&mut *tx)
            .await
            .unwrap();
        let _: i64 = sqlx::query_scalar(sql::AUDIT_ROWS)
            .bind(&e.event_id)
            .fetch_one(&mut *tx)
            .await
            .unwrap();
    }
    tx.commit().await.unwrap();
    let mut tx = stores.begin(StoreName::Broker).await.unwrap();
    broker::commit_transaction(&mut tx, fraud.producer, txn, now)
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
    let (store, effect_sql, count_sql) = match consumer {
        Consumer::Wallet => (
            StoreName::Wallet,
            sql::CREDIT_WRITE,
            sql::CREDITS_OF_TRANSFER,
        ),
        _ => (StoreName::Sms, sql::SMS_WRITE, sql::SMS_OF_TRANSFER),
    };
    let mut tx = stores.begin(store).await.unwrap();
    for e in events {
        sqlx::query(sql::INBOX_WRITE)
            .bind(&e.event_id)
            .bind(now)
            .execute(&mut *tx)
            .await
            .unwrap();
        sqlx::query(effect_sql)
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
