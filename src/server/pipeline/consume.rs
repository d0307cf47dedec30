//! The consumers: the fraud check (read, decide, write, commit the offset in one broker
//! transaction) and the wallet and SMS consumers (inbox dedup in their own stores).

use serde_json::json;

use super::*;

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
pub(super) async fn fraud_one(
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
    if world.crash_fires(CrashPoint::FraudBeforeCommit, cx.rng()) {
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
pub(super) async fn apply_one(
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
    if world.crash_fires(CrashPoint::ConsumerBeforeOffsetCommit, cx.rng()) {
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
