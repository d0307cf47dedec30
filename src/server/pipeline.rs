//! The event pipeline after the debit: relay, fraud check, wallet and SMS consumers.
//!
//! Each service is a step that wakes when there is work (an outbox row was written, a record was
//! appended) and after a crash restarts [`RESTART_MS`] later with its in-memory state gone: the
//! relay and the fraud check get a new producer, the consumers resume from their committed
//! offsets. Only what each store committed survives, exactly as with killed processes.

use std::collections::HashMap;

use serde_json::json;

use super::broker::{self, Appended, BrokerError, Producer};
use super::payments::crash_fires;
use super::sim::Cx;
use super::store::StoreName;
use super::world::{LabWorld, Step};
use crate::domain::explain;
use crate::domain::pipeline::{Consumer, TransferDone, APPROVED_TOPIC, TRANSFERS_TOPIC};
use crate::domain::{CrashPoint, EventKind, Layer, Outcome, Safeguard};

/// How soon the relay looks at a new outbox row.
pub const RELAY_DELAY_MS: i64 = 100;
/// How soon a consumer polls after a record it reads was appended.
pub const POLL_DELAY_MS: i64 = 50;
/// How long a crashed service takes to come back.
pub const RESTART_MS: i64 = 1_000;
/// Records a consumer takes per partition per poll.
const BATCH: i64 = 50;
/// The fraud check's transactional id.
pub const FRAUD_TXN_ID: &str = "fraud-check";

/// What the pipeline's processes hold in memory (lost on a crash or restart).
#[derive(Default)]
pub struct Pipeline {
    relay: Option<Producer>,
    /// The API's own producer, for the dual write when the outbox is off.
    api: Option<Producer>,
    /// The fraud check's producer, and whether it is transactional.
    fraud: Option<(Producer, bool)>,
    /// Next sequence number per (producer, epoch, topic, partition): a new epoch starts at 0.
    sequences: HashMap<(i64, i64, String, i64), i64>,
}

impl Pipeline {
    pub fn clear(&mut self) {
        *self = Pipeline::default();
    }
}

impl From<BrokerError> for sqlx::Error {
    fn from(e: BrokerError) -> Self {
        match e {
            BrokerError::Store(e) => e,
            other => sqlx::Error::Protocol(other.to_string()),
        }
    }
}

/// The pipeline steps that have work waiting (unsent outbox rows, unread records): what a
/// sandbox that opens must wake.
pub async fn pending(world: &LabWorld) -> Result<Vec<Step>, sqlx::Error> {
    let mut steps = Vec::new();
    let unsent: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM outbox WHERE sent_ms IS NULL")
        .fetch_one(world.stores.pool(StoreName::Payments))
        .await?;
    if unsent > 0 {
        steps.push(Step::Relay);
    }
    let mut conn = world.stores.pool(StoreName::Broker).acquire().await?;
    for consumer in Consumer::ALL {
        let topic = consumer.topic();
        let partitions = broker::partitions(&mut conn, topic).await?.unwrap_or(0);
        for partition in 0..partitions {
            let at = broker::position(&mut conn, consumer.id(), topic, partition).await?;
            if at < broker::last_stable_offset(&mut conn, topic, partition).await? {
                steps.push(Step::Consume(consumer));
                break;
            }
        }
    }
    Ok(steps)
}

async fn partitions(world: &LabWorld, topic: &str) -> Result<i64, sqlx::Error> {
    let mut conn = world.stores.pool(StoreName::Broker).acquire().await?;
    Ok(broker::partitions(&mut conn, topic).await?.unwrap_or(0))
}

async fn new_producer(
    world: &LabWorld,
    transactional_id: Option<&str>,
    now: i64,
) -> Result<Producer, sqlx::Error> {
    let mut tx = world.stores.begin(StoreName::Broker).await?;
    let p = broker::init_producer(&mut tx, transactional_id, now).await?;
    tx.commit().await?;
    Ok(p)
}

/// Produces one record the way a client library does: with a sequence number when the producer
/// is idempotent, and sending the same batch again when the acknowledgement is lost
/// (`broker_ack_lost`). The broker lane shows the append and what became of the resend.
#[allow(clippy::too_many_arguments)]
pub async fn publish(
    world: &mut LabWorld,
    cx: &mut Cx<'_, Step>,
    producer: Producer,
    topic: &str,
    key: &str,
    value: &str,
    txn: Option<i64>,
    correlation: &str,
) -> Result<Appended, sqlx::Error> {
    let idempotent = world.safeguards.is_on(Safeguard::IdempotentProducer);
    let partition = broker::partition_for(key, partitions(world, topic).await?);
    let sequence = idempotent.then(|| {
        let next = world
            .pipeline
            .sequences
            .entry((producer.id, producer.epoch, topic.to_owned(), partition))
            .or_insert(0);
        *next += 1;
        *next - 1
    });
    let now = cx.now();
    let mut tx = world.stores.begin(StoreName::Broker).await?;
    let appended =
        broker::produce(&mut tx, producer, topic, key, value, sequence, txn, now).await?;
    tx.commit().await?;
    let corr = Some(correlation.to_owned());
    cx.record(
        Layer::Broker,
        EventKind::RecordAppended,
        corr.clone(),
        Outcome::Ok,
        json!({"topic": topic, "partition": appended.partition, "offset": appended.offset,
               "producer": producer.id, "sequence": sequence, "transactional": txn.is_some()}),
    );
    if crash_fires(&mut world.faults, CrashPoint::BrokerAckLost, cx.rng()) {
        cx.record(
            Layer::Broker,
            EventKind::AckLost,
            corr.clone(),
            Outcome::Lost,
            json!({"topic": topic, "partition": appended.partition, "offset": appended.offset}),
        );
        let mut tx = world.stores.begin(StoreName::Broker).await?;
        let resend =
            broker::produce(&mut tx, producer, topic, key, value, sequence, txn, now).await?;
        tx.commit().await?;
        if resend.duplicate {
            cx.record(
                Layer::Broker,
                EventKind::ResendDropped,
                corr,
                Outcome::Caught,
                json!({"guard": "idempotent_producer", "topic": topic, "offset": resend.offset}),
            );
        } else {
            cx.record(
                Layer::Broker,
                EventKind::ResendAppended,
                corr,
                Outcome::Escaped,
                json!({"topic": topic, "partition": resend.partition, "offset": resend.offset}),
            );
        }
    }
    Ok(appended)
}

/// The dual write of an API without an outbox: publish straight after the commit.
pub async fn publish_from_api(
    world: &mut LabWorld,
    cx: &mut Cx<'_, Step>,
    event: &TransferDone,
) -> Result<(), sqlx::Error> {
    let producer = match world.pipeline.api {
        Some(p) => p,
        None => {
            let p = new_producer(world, None, cx.now()).await?;
            world.pipeline.api = Some(p);
            p
        }
    };
    let value = serde_json::to_string(event).expect("events serialise");
    publish(
        world,
        cx,
        producer,
        TRANSFERS_TOPIC,
        &event.transfer_id,
        &value,
        None,
        &event.event_id,
    )
    .await?;
    cx.record(
        Layer::Api,
        EventKind::EventPublished,
        Some(event.event_id.clone()),
        Outcome::Ok,
        json!({"by": "api", "dual_write": true, "transfer_id": event.transfer_id}),
    );
    cx.schedule_in(POLL_DELAY_MS, Step::Consume(Consumer::Fraud));
    Ok(())
}

/// The relay: publishes every unsent outbox row, then marks it sent.
pub async fn relay(world: &mut LabWorld, cx: &mut Cx<'_, Step>) -> Result<(), sqlx::Error> {
    let now = cx.now();
    let rows: Vec<(String, String, String)> = sqlx::query_as(
        "SELECT event_id, transfer_id, payload FROM outbox WHERE sent_ms IS NULL
         ORDER BY created_ms, event_id LIMIT 100",
    )
    .fetch_all(world.stores.pool(StoreName::Payments))
    .await?;
    if rows.is_empty() {
        return Ok(());
    }
    let producer = match world.pipeline.relay {
        Some(p) => p,
        None => {
            let p = new_producer(world, None, now).await?;
            world.pipeline.relay = Some(p);
            p
        }
    };
    for (event_id, transfer_id, payload) in rows {
        let appended = publish(
            world,
            cx,
            producer,
            TRANSFERS_TOPIC,
            &transfer_id,
            &payload,
            None,
            &event_id,
        )
        .await?;
        cx.record(
            Layer::Relay,
            EventKind::EventPublished,
            Some(event_id.clone()),
            Outcome::Ok,
            json!({"by": "relay", "offset": appended.offset, "transfer_id": transfer_id}),
        );
        cx.schedule_in(POLL_DELAY_MS, Step::Consume(Consumer::Fraud));
        if crash_fires(&mut world.faults, CrashPoint::RelayAfterPublish, cx.rng()) {
            cx.record(
                Layer::Relay,
                EventKind::RelayCrashed,
                Some(event_id),
                Outcome::Lost,
                json!({"crash": "relay_after_publish", "restarts_in_ms": RESTART_MS}),
            );
            world.pipeline.relay = None;
            cx.schedule_in(RESTART_MS, Step::Relay);
            return Ok(());
        }
        sqlx::query("UPDATE outbox SET sent_ms = ?1 WHERE event_id = ?2")
            .bind(now)
            .bind(&event_id)
            .execute(world.stores.pool(StoreName::Payments))
            .await?;
    }
    // More rows than one batch: come back for them.
    cx.schedule_in(RELAY_DELAY_MS, Step::Relay);
    Ok(())
}

/// One poll of a consumer group: the fraud check, the wallet or the SMS service.
pub async fn consume(
    world: &mut LabWorld,
    consumer: Consumer,
    cx: &mut Cx<'_, Step>,
) -> Result<(), sqlx::Error> {
    let topic = consumer.topic();
    let group = consumer.id();
    let partitions = partitions(world, topic).await?;
    for partition in 0..partitions {
        let (records, next, start) = {
            let mut conn = world.stores.pool(StoreName::Broker).acquire().await?;
            let start = broker::position(&mut conn, group, topic, partition).await?;
            let (records, next) =
                broker::fetch(&mut conn, topic, partition, start, BATCH, true).await?;
            (records, next, start)
        };
        if records.is_empty() {
            if next > start {
                // Only markers or aborted records: step over them.
                let mut tx = world.stores.begin(StoreName::Broker).await?;
                broker::commit_offset(&mut tx, group, topic, partition, next).await?;
                tx.commit().await?;
            }
            continue;
        }
        for record in records {
            let Ok(event) = serde_json::from_str::<TransferDone>(&record.value) else {
                continue;
            };
            let alive = match consumer {
                Consumer::Fraud => fraud_one(world, cx, &record, &event).await?,
                Consumer::Wallet | Consumer::Sms => {
                    apply_one(world, cx, consumer, &record, &event).await?
                }
            };
            if !alive {
                cx.schedule_in(RESTART_MS, Step::Consume(consumer));
                return Ok(());
            }
        }
        // A full batch may have left more behind.
        cx.schedule_in(POLL_DELAY_MS, Step::Consume(consumer));
    }
    Ok(())
}

/// The fraud check on one event: approve it into `approved-transfers` and audit it. With
/// `transactions` the write and the offset commit are one transaction. Returns false if the
/// process died.
async fn fraud_one(
    world: &mut LabWorld,
    cx: &mut Cx<'_, Step>,
    record: &broker::Record,
    event: &TransferDone,
) -> Result<bool, sqlx::Error> {
    let now = cx.now();
    let transactional = world.safeguards.is_on(Safeguard::Transactions);
    let producer = match world.pipeline.fraud {
        Some((p, t)) if t == transactional => p,
        _ => {
            let open: i64 = sqlx::query_scalar(
                "SELECT COUNT(*) FROM transactions WHERE transactional_id = ?1 AND state = 'ONGOING'",
            )
            .bind(FRAUD_TXN_ID)
            .fetch_one(world.stores.pool(StoreName::Broker))
            .await?;
            let p = new_producer(world, transactional.then_some(FRAUD_TXN_ID), now).await?;
            if open > 0 {
                cx.record(
                    Layer::Broker,
                    EventKind::TransactionAborted,
                    None,
                    Outcome::Caught,
                    json!({"guard": "transactions", "transactional_id": FRAUD_TXN_ID, "epoch": p.epoch}),
                );
            }
            world.pipeline.fraud = Some((p, transactional));
            p
        }
    };
    let txn = if transactional {
        let mut tx = world.stores.begin(StoreName::Broker).await?;
        let txn = broker::begin_transaction(&mut tx, producer, FRAUD_TXN_ID, now).await?;
        tx.commit().await?;
        Some(txn)
    } else {
        None
    };
    let approved = serde_json::to_string(event).expect("events serialise");
    publish(
        world,
        cx,
        producer,
        APPROVED_TOPIC,
        &event.transfer_id,
        &approved,
        txn,
        &event.event_id,
    )
    .await?;
    if let Some(txn) = txn {
        let mut tx = world.stores.begin(StoreName::Broker).await?;
        broker::send_offset_to_transaction(
            &mut tx,
            txn,
            Consumer::Fraud.id(),
            TRANSFERS_TOPIC,
            record.partition,
            record.offset + 1,
        )
        .await?;
        tx.commit().await?;
    }
    // The audit row lives in the fraud check's own store: no broker transaction covers it.
    let mut tx = world.stores.begin(StoreName::Fraud).await?;
    sqlx::query("INSERT INTO audit (event_id, decision, at_ms) VALUES (?1, 'approved', ?2)")
        .bind(&event.event_id)
        .bind(now)
        .execute(&mut *tx)
        .await?;
    let audits: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM audit WHERE event_id = ?1")
        .bind(&event.event_id)
        .fetch_one(&mut *tx)
        .await?;
    tx.commit().await?;
    cx.record(
        Layer::Fraud,
        EventKind::FraudApproved,
        Some(event.event_id.clone()),
        if audits > 1 {
            Outcome::Escaped
        } else {
            Outcome::Ok
        },
        json!({"offset": record.offset, "transactional": transactional, "audit_rows": audits,
               "transfer_id": event.transfer_id}),
    );
    if crash_fires(&mut world.faults, CrashPoint::FraudBeforeCommit, cx.rng()) {
        cx.record(
            Layer::Fraud,
            EventKind::FraudCrashed,
            Some(event.event_id.clone()),
            Outcome::Lost,
            json!({"crash": "fraud_before_commit", "restarts_in_ms": RESTART_MS}),
        );
        world.pipeline.fraud = None;
        return Ok(false);
    }
    let mut tx = world.stores.begin(StoreName::Broker).await?;
    match txn {
        Some(txn) => broker::commit_transaction(&mut tx, producer, txn, now).await?,
        None => {
            broker::commit_offset(
                &mut tx,
                Consumer::Fraud.id(),
                TRANSFERS_TOPIC,
                record.partition,
                record.offset + 1,
            )
            .await?
        }
    }
    tx.commit().await?;
    cx.schedule_in(POLL_DELAY_MS, Step::Consume(Consumer::Wallet));
    cx.schedule_in(POLL_DELAY_MS, Step::Consume(Consumer::Sms));
    Ok(true)
}

/// The wallet or SMS service on one event: its inbox row and its effect in one local
/// transaction, then the offset. Returns false if the process died between the two.
async fn apply_one(
    world: &mut LabWorld,
    cx: &mut Cx<'_, Step>,
    consumer: Consumer,
    record: &broker::Record,
    event: &TransferDone,
) -> Result<bool, sqlx::Error> {
    let now = cx.now();
    let (store, guard, layer) = match consumer {
        Consumer::Wallet => (StoreName::Wallet, Safeguard::WalletInbox, Layer::Wallet),
        _ => (StoreName::Sms, Safeguard::SmsInbox, Layer::Sms),
    };
    let inbox_on = world.safeguards.is_on(guard);
    let mut tx = world.stores.begin(store).await?;
    let fresh = !inbox_on
        || sqlx::query(
            "INSERT INTO inbox (event_id, processed_ms) VALUES (?1, ?2) ON CONFLICT DO NOTHING",
        )
        .bind(&event.event_id)
        .bind(now)
        .execute(&mut *tx)
        .await?
        .rows_affected()
            == 1;
    let corr = Some(event.event_id.clone());
    if fresh {
        let (sql, count_sql, kind) = match consumer {
            Consumer::Wallet => (
                "INSERT INTO credits (event_id, transfer_id, user_id, amount, at_ms) VALUES (?1, ?2, ?3, ?4, ?5)",
                "SELECT COUNT(*) FROM credits WHERE transfer_id = ?1",
                EventKind::Credited,
            ),
            _ => (
                "INSERT INTO sms (event_id, transfer_id, to_user, message_key, amount, at_ms)
                 VALUES (?1, ?2, ?3, 'money_received', ?4, ?5)",
                "SELECT COUNT(*) FROM sms WHERE transfer_id = ?1",
                EventKind::SmsSent,
            ),
        };
        sqlx::query(sql)
            .bind(&event.event_id)
            .bind(&event.transfer_id)
            .bind(&event.to)
            .bind(event.amount)
            .bind(now)
            .execute(&mut *tx)
            .await?;
        let times: i64 = sqlx::query_scalar(count_sql)
            .bind(&event.transfer_id)
            .fetch_one(&mut *tx)
            .await?;
        tx.commit().await?;
        cx.record(
            layer,
            kind,
            corr.clone(),
            if times > 1 {
                Outcome::Escaped
            } else {
                Outcome::Ok
            },
            if times > 1 {
                json!({"amount": event.amount, "to": event.to, "offset": record.offset, "times": times,
                       "transfer_id": event.transfer_id,
                       "would_catch": explain::ids(&explain::inbox_escape_guards(guard, &world.safeguards))})
            } else {
                json!({"amount": event.amount, "to": event.to, "offset": record.offset, "times": times,
                       "transfer_id": event.transfer_id})
            },
        );
    } else {
        tx.commit().await?;
        cx.record(
            layer,
            EventKind::InboxDuplicate,
            corr.clone(),
            Outcome::Caught,
            json!({"guard": guard.id(), "offset": record.offset, "transfer_id": event.transfer_id}),
        );
    }
    if crash_fires(
        &mut world.faults,
        CrashPoint::ConsumerBeforeOffsetCommit,
        cx.rng(),
    ) {
        cx.record(
            layer,
            EventKind::ConsumerCrashed,
            corr,
            Outcome::Lost,
            json!({"crash": "consumer_before_offset_commit", "restarts_in_ms": RESTART_MS}),
        );
        return Ok(false);
    }
    let mut tx = world.stores.begin(StoreName::Broker).await?;
    broker::commit_offset(
        &mut tx,
        consumer.id(),
        consumer.topic(),
        record.partition,
        record.offset + 1,
    )
    .await?;
    tx.commit().await?;
    Ok(true)
}
