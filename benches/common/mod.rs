//! The store work of guarded transfers, done straight (no scheduler, network or timeline), for
//! the benchmarks' raw arms: one transfer through the payment API ([`api_transfer`], the same
//! functions and statements as `server::payments`) and the whole pipeline's
//! ([`raw_pipeline`], the same as `server::pipeline`).

#![allow(dead_code)] // each bench uses its own part

use std::collections::HashMap;
use std::time::Instant;

use pocketpay_lab::domain::clock::START_MS;
use pocketpay_lab::domain::pipeline::{Consumer, TransferDone, APPROVED_TOPIC, TRANSFERS_TOPIC};
use pocketpay_lab::domain::transfer::IdempotencyKey;
use pocketpay_lab::domain::TransferBody;
use pocketpay_lab::server::broker::{self, Outgoing};
use pocketpay_lab::server::calls::TransferRequest;
use pocketpay_lab::server::outbox;
use pocketpay_lab::server::payments::{idempotency, ledger};
use pocketpay_lab::server::pipeline::{self, FRAUD_TXN_ID};
use pocketpay_lab::server::store::{StoreName, Stores};

/// A request of ৳1 from Shimul to Tithi under `key`, for a sandbox's transfer queue.
pub fn one_taka(key: &str, intent: String) -> TransferRequest {
    TransferRequest::new(
        "shimul",
        IdempotencyKey::parse(Some(key)).expect("a valid key"),
        TransferBody {
            to: "tithi".into(),
            amount: 1,
        },
        intent,
    )
}

/// Transfer `i` of ৳1 from Shimul to Tithi under key `raw-{i}`: the claim (its INSERT and the
/// read after it, as the API runs them), then balance and receipt number, debit and stored
/// response in one transaction. With `outbox`, the transaction also writes the outbox row and counts the
/// intent's debits, as the API does with the outbox on.
pub async fn api_transfer(stores: &Stores, i: usize, outbox: bool) {
    let key = format!("raw-{i}");
    let now = START_MS + i as i64;
    let mut conn = stores.conn(StoreName::Payments).await.unwrap();
    assert_eq!(
        idempotency::claim(&mut conn, "shimul", &key, "h", 0, now)
            .await
            .unwrap(),
        idempotency::Claim::Claimed
    );
    drop(conn);
    let mut tx = stores.begin(StoreName::Payments).await.unwrap();
    let (balance, txn) = ledger::balance_and_next_txn(&mut tx, "shimul")
        .await
        .unwrap();
    let entry = ledger::Entry {
        transfer_id: ledger::transfer_id_for("shimul", &key),
        txn,
        user_id: "shimul".into(),
        counterparty: "tithi".into(),
        amount: -1,
        balance_after: balance - 1,
        idem_key: key.clone(),
        at_ms: now,
        lab_intent: key.clone(),
    };
    assert!(ledger::debit(&mut tx, &entry).await.unwrap());
    if outbox {
        let event = TransferDone {
            event_id: format!("ev-{i}"),
            transfer_id: entry.transfer_id.clone(),
            from: "shimul".into(),
            to: "tithi".into(),
            amount: 1,
            at: now,
        };
        outbox::write(&mut tx, &event, now).await.unwrap();
        ledger::debits_for_intent(&mut tx, &key).await.unwrap();
    }
    let body = serde_json::to_string(&entry.receipt()).unwrap();
    idempotency::store_response(&mut tx, "shimul", &key, "h", 0, now, 201, &body)
        .await
        .unwrap();
    tx.commit().await.unwrap();
}

/// Transfers per second for the pipeline's store work done straight on `stores` (fresh, after
/// `reset_services`): per transfer the API's two transactions ([`api_transfer`], outbox on),
/// then per batch of 100 the relay's produce request and its outbox update, and per partition
/// batch the fraud check's broker transaction and audit rows and the wallet's and SMS service's
/// inbox transactions and offset commits, every guard on (the producers idempotent: a sequence
/// number per record).
pub async fn raw_pipeline(stores: &Stores, n: usize) -> f64 {
    let started = Instant::now();
    let now = START_MS + n as i64;
    let mut relay = Producing::start(stores, None).await;
    let mut fraud = Producing::start(stores, Some(FRAUD_TXN_ID)).await;
    for chunk in (0..n).collect::<Vec<_>>().chunks(100) {
        for &i in chunk {
            api_transfer(stores, i, true).await;
        }
        // The relay: one produce request for the unsent rows, then one update.
        let rows = outbox::unsent(&mut stores.conn(StoreName::Payments).await.unwrap(), 100)
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
        let ids: Vec<&String> = rows.iter().map(|(event_id, _, _)| event_id).collect();
        outbox::mark_sent(
            &mut stores.conn(StoreName::Payments).await.unwrap(),
            &ids,
            now,
        )
        .await
        .unwrap();
        for consumer in Consumer::ALL {
            // Poll after poll (each one statement for every partition, as the consumers
            // poll) until nothing is left.
            loop {
                let polled = {
                    let mut c = stores.conn(StoreName::Broker).await.unwrap();
                    let partitions = broker::partitions(&mut c, consumer.topic())
                        .await
                        .unwrap()
                        .unwrap();
                    broker::poll(
                        &mut c,
                        consumer.id(),
                        consumer.topic(),
                        partitions,
                        50,
                        true,
                    )
                    .await
                    .unwrap()
                };
                if polled.is_empty() {
                    break;
                }
                for p in polled {
                    if p.records.is_empty() {
                        // Only markers: step over them, as the consumers do.
                        broker::commit_offset(
                            &mut stores.conn(StoreName::Broker).await.unwrap(),
                            consumer.id(),
                            consumer.topic(),
                            p.partition,
                            p.next,
                        )
                        .await
                        .unwrap();
                        continue;
                    }
                    let events: Vec<TransferDone> = p
                        .records
                        .iter()
                        .map(|r| serde_json::from_str(&r.value).unwrap())
                        .collect();
                    match consumer {
                        Consumer::Fraud => {
                            raw_fraud(stores, &mut fraud, p.partition, &events, p.next, now).await
                        }
                        _ => raw_apply(stores, consumer, p.partition, &events, p.next, now).await,
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
        credits as usize, n,
        "the raw run credited every transfer once"
    );
    n as f64 / elapsed.as_secs_f64()
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
    let txn = broker::begin_transaction(
        &mut stores.conn(StoreName::Broker).await.unwrap(),
        fraud.producer,
        FRAUD_TXN_ID,
        now,
    )
    .await
    .unwrap();
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
    broker::send_offset_to_transaction(
        &mut stores.conn(StoreName::Broker).await.unwrap(),
        txn,
        Consumer::Fraud.id(),
        TRANSFERS_TOPIC,
        partition,
        next,
    )
    .await
    .unwrap();
    let events: Vec<&TransferDone> = events.iter().collect();
    pipeline::audit_events(
        &mut stores.conn(StoreName::Fraud).await.unwrap(),
        &events,
        now,
    )
    .await
    .unwrap();
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
    let store = match consumer {
        Consumer::Wallet => StoreName::Wallet,
        _ => StoreName::Sms,
    };
    let mut tx = stores.begin(store).await.unwrap();
    let events: Vec<&TransferDone> = events.iter().collect();
    pipeline::apply_events(&mut tx, consumer, true, &events, now)
        .await
        .unwrap();
    tx.commit().await.unwrap();
    broker::commit_offset(
        &mut stores.conn(StoreName::Broker).await.unwrap(),
        consumer.id(),
        consumer.topic(),
        partition,
        next,
    )
    .await
    .unwrap();
}
