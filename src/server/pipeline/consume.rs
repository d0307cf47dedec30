//! The consumers: the fraud check (read, decide, write, commit the offset in one broker
//! transaction) and the wallet and SMS consumers (inbox dedup in their own stores).

use serde_json::json;

use super::*;

/// One poll of a consumer group: the fraud check, the wallet or the SMS service. Each
/// partition's new records (up to [`BATCH`]) are processed as one batch, as a Kafka consumer
/// processes what one `poll()` returned: one store transaction per batch for each store, and
/// one offset commit (or one broker transaction) at its end.
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
            let mut conn = world.stores.conn(StoreName::Broker).await?;
            let start = broker::position(&mut conn, group, topic, partition).await?;
            let (records, next) =
                broker::fetch(&mut conn, topic, partition, start, BATCH, true).await?;
            (records, next, start)
        };
        if next == start {
            continue;
        }
        // Records this version wrote carry a transfer's event; anything else is stepped over.
        let batch: Vec<(broker::Record, TransferDone)> = records
            .into_iter()
            .filter_map(|r| {
                let event = serde_json::from_str::<TransferDone>(&r.value).ok()?;
                Some((r, event))
            })
            .collect();
        if batch.is_empty() {
            // Only markers, aborted records or foreign ones: step over them.
            let mut tx = world.stores.begin(StoreName::Broker).await?;
            broker::commit_offset(&mut tx, group, topic, partition, next).await?;
            tx.commit().await?;
        } else {
            let alive = match consumer {
                Consumer::Fraud => fraud_batch(world, cx, partition, &batch, next).await?,
                Consumer::Wallet | Consumer::Sms => {
                    apply_batch(world, cx, consumer, partition, &batch, next).await?
                }
            };
            if !alive {
                cx.schedule_in(RESTART_MS, Step::Consume(consumer));
                return Ok(());
            }
        }
        if next - start >= BATCH {
            // A full batch (of records, or of rows stepped over) may have left more behind.
            cx.wake_in(POLL_DELAY_MS, Step::Consume(consumer));
        }
    }
    Ok(())
}

/// The fraud check on one poll's events of a partition: approve each into
/// `approved-transfers` and audit it. With `transactions` the approvals and the offset commit
/// are one broker transaction, begun, written and committed as Kafka's read-process-write loop
/// does. `next` is the offset after the batch. Returns false if the process died.
pub(super) async fn fraud_batch(
    world: &mut LabWorld,
    cx: &mut Cx<'_, Step>,
    partition: i64,
    batch: &[(broker::Record, TransferDone)],
    next: i64,
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
            .fetch_one(&mut *world.stores.conn(StoreName::Broker).await?)
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
    let approved: Vec<String> = batch
        .iter()
        .map(|(_, event)| serde_json::to_string(event).expect("events serialise"))
        .collect();
    let records: Vec<ToPublish> = batch
        .iter()
        .zip(&approved)
        .map(|((_, event), value)| ToPublish {
            key: &event.transfer_id,
            value,
            correlation: &event.event_id,
        })
        .collect();
    publish_batch(world, cx, producer, APPROVED_TOPIC, &records, txn).await?;
    if let Some(txn) = txn {
        let mut tx = world.stores.begin(StoreName::Broker).await?;
        broker::send_offset_to_transaction(
            &mut tx,
            txn,
            Consumer::Fraud.id(),
            TRANSFERS_TOPIC,
            partition,
            next,
        )
        .await?;
        tx.commit().await?;
    }
    // The audit rows live in the fraud check's own store: no broker transaction covers them.
    let mut tx = world.stores.begin(StoreName::Fraud).await?;
    let mut audits = Vec::with_capacity(batch.len());
    for (_, event) in batch {
        sqlx::query(sql::AUDIT_WRITE)
            .bind(&event.event_id)
            .bind(now)
            .execute(&mut *tx)
            .await?;
        let n: i64 = sqlx::query_scalar(sql::AUDIT_ROWS)
            .bind(&event.event_id)
            .fetch_one(&mut *tx)
            .await?;
        audits.push(n);
    }
    tx.commit().await?;
    for ((record, event), audits) in batch.iter().zip(audits) {
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
    }
    if world.crash_fires(CrashPoint::FraudBeforeCommit, cx.rng()) {
        cx.record(
            Layer::Fraud,
            EventKind::FraudCrashed,
            Some(batch[0].1.event_id.clone()),
            Outcome::Lost,
            json!({"crash": "fraud_before_commit", "restarts_in_ms": RESTART_MS,
                   "uncommitted": batch.len()}),
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
                partition,
                next,
            )
            .await?
        }
    }
    tx.commit().await?;
    cx.wake_in(POLL_DELAY_MS, Step::Consume(Consumer::Wallet));
    cx.wake_in(POLL_DELAY_MS, Step::Consume(Consumer::Sms));
    Ok(true)
}

/// The wallet or SMS service on one poll's events of a partition: each event's inbox row and
/// its effect, all in one local transaction, then the offset after the batch (`next`).
/// Returns false if the process died between the two.
pub(super) async fn apply_batch(
    world: &mut LabWorld,
    cx: &mut Cx<'_, Step>,
    consumer: Consumer,
    partition: i64,
    batch: &[(broker::Record, TransferDone)],
    next: i64,
) -> Result<bool, sqlx::Error> {
    let now = cx.now();
    let (store, guard, layer) = match consumer {
        Consumer::Wallet => (StoreName::Wallet, Safeguard::WalletInbox, Layer::Wallet),
        _ => (StoreName::Sms, Safeguard::SmsInbox, Layer::Sms),
    };
    let (kind, effect_sql, count_sql) = match consumer {
        Consumer::Wallet => (
            EventKind::Credited,
            sql::CREDIT_WRITE,
            sql::CREDITS_OF_TRANSFER,
        ),
        _ => (EventKind::SmsSent, sql::SMS_WRITE, sql::SMS_OF_TRANSFER),
    };
    let inbox_on = world.safeguards.is_on(guard);
    // Per event: `None` if the inbox caught it, else how many times it has now been applied.
    let mut applied = Vec::with_capacity(batch.len());
    let mut tx = world.stores.begin(store).await?;
    for (_, event) in batch {
        let fresh = !inbox_on
            || sqlx::query(sql::INBOX_WRITE)
                .bind(&event.event_id)
                .bind(now)
                .execute(&mut *tx)
                .await?
                .rows_affected()
                == 1;
        if !fresh {
            applied.push(None);
            continue;
        }
        sqlx::query(effect_sql)
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
        applied.push(Some(times));
    }
    tx.commit().await?;
    for ((record, event), applied) in batch.iter().zip(applied) {
        let corr = Some(event.event_id.clone());
        match applied {
            Some(times) => cx.record(
                layer,
                kind,
                corr,
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
            ),
            None => cx.record(
                layer,
                EventKind::InboxDuplicate,
                corr,
                Outcome::Caught,
                json!({"guard": guard.id(), "offset": record.offset, "transfer_id": event.transfer_id}),
            ),
        }
    }
    if world.crash_fires(CrashPoint::ConsumerBeforeOffsetCommit, cx.rng()) {
        cx.record(
            layer,
            EventKind::ConsumerCrashed,
            Some(batch[0].1.event_id.clone()),
            Outcome::Lost,
            json!({"crash": "consumer_before_offset_commit", "restarts_in_ms": RESTART_MS,
                   "uncommitted": batch.len()}),
        );
        return Ok(false);
    }
    let mut tx = world.stores.begin(StoreName::Broker).await?;
    broker::commit_offset(&mut tx, consumer.id(), consumer.topic(), partition, next).await?;
    tx.commit().await?;
    Ok(true)
}
