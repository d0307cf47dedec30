//! The consumers: the fraud check (read, decide, write, commit the offset in one broker
//! transaction) and the wallet and SMS consumers (inbox dedup in their own stores).

use serde_json::json;
use sqlx::SqliteConnection;

use super::*;

/// One poll of a consumer group: the fraud check, the wallet or the SMS service. Each
/// partition's new records (up to [`BATCH`]) are processed as one batch, as a Kafka consumer
/// processes what one `poll()` returned: one store transaction per batch for each store, and
/// one offset commit (or one broker transaction) at its end.
pub async fn consume(
    world: &mut LabWorld,
    consumer: Consumer,
    cx: &mut Cx<'_, Step>,
) -> Result<(), StepError> {
    let topic = consumer.topic();
    let group = consumer.id();
    let partitions = partitions(world, topic).await?;
    // Every partition read at once: a batch's work never appends to the topic it reads, so
    // reading partition 1 before partition 0's batch is done reads the same records.
    let polled = {
        let mut conn = world.stores.conn(StoreName::Broker).await?;
        broker::poll(&mut conn, group, topic, partitions, BATCH, true).await?
    };
    for broker::Polled {
        partition,
        start,
        records,
        next,
    } in polled
    {
        // Records this version wrote carry a transfer's event; anything else is stepped over.
        let batch: Vec<(broker::Record, TransferDone)> = records
            .into_iter()
            .filter_map(|r| {
                let event = serde_json::from_str::<TransferDone>(&r.value).ok()?;
                Some((r, event))
            })
            .collect();
        if batch.is_empty() {
            // Only markers, aborted records or foreign ones: step over them. (A single statement
            // needs no store transaction around it; each would cost two more round trips.)
            let mut conn = world.stores.conn(StoreName::Broker).await?;
            broker::commit_offset(&mut conn, group, topic, partition, next).await?;
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
///
/// Reads best whole: the batch in its order (producer, poll, audit, crash point, commit); the crash
/// point falls between two of them.
pub(super) async fn fraud_batch(
    world: &mut LabWorld,
    cx: &mut Cx<'_, Step>,
    partition: i64,
    batch: &[(broker::Record, TransferDone)],
    next: i64,
) -> Result<bool, StepError> {
    let now = cx.now();
    let transactional = world.safeguards.is_on(Safeguard::Transactions);
    let producer = match world.pipeline.fraud {
        Some((p, t)) if t == transactional => p,
        _ => {
            let open = broker::open_transactions(
                &mut *world.stores.conn(StoreName::Broker).await?,
                FRAUD_TXN_ID,
            )
            .await?;
            let p = new_producer(world, transactional.then_some(FRAUD_TXN_ID), now).await?;
            if open > 0 {
                cx.record(
                    Layer::Broker,
                    EventKind::TransactionAborted,
                    None,
                    Outcome::Caught,
                    Facts::caught_by(Safeguard::Transactions)
                        .with(json!({"transactional_id": FRAUD_TXN_ID, "epoch": p.epoch})),
                );
            }
            world.pipeline.fraud = Some((p, transactional));
            p
        }
    };
    let txn = if transactional {
        let mut conn = world.stores.conn(StoreName::Broker).await?;
        Some(broker::begin_transaction(&mut conn, producer, FRAUD_TXN_ID, now).await?)
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
        broker::send_offset_to_transaction(
            &mut *world.stores.conn(StoreName::Broker).await?,
            txn,
            Consumer::Fraud.id(),
            TRANSFERS_TOPIC,
            partition,
            next,
        )
        .await?;
    }
    // The audit rows live in the fraud check's own store: no broker transaction covers them.
    // One statement writes them all.
    let events: Vec<&TransferDone> = batch.iter().map(|(_, e)| e).collect();
    let audits = audit_events(
        &mut *world.stores.conn(StoreName::Fraud).await?,
        &events,
        now,
    )
    .await?;
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
            Facts::crashed_at(CrashPoint::FraudBeforeCommit)
                .with(json!({"restarts_in_ms": RESTART_MS, "uncommitted": batch.len()})),
        );
        world.pipeline.fraud = None;
        return Ok(false);
    }
    match txn {
        Some(txn) => {
            let mut tx = world.stores.begin(StoreName::Broker).await?;
            broker::commit_transaction(&mut tx, producer, txn, now).await?;
            tx.commit().await?;
        }
        None => {
            broker::commit_offset(
                &mut *world.stores.conn(StoreName::Broker).await?,
                Consumer::Fraud.id(),
                TRANSFERS_TOPIC,
                partition,
                next,
            )
            .await?
        }
    }
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
) -> Result<bool, StepError> {
    let now = cx.now();
    let (store, guard, layer) = match consumer {
        Consumer::Wallet => (StoreName::Wallet, Safeguard::WalletInbox, Layer::Wallet),
        _ => (StoreName::Sms, Safeguard::SmsInbox, Layer::Sms),
    };
    let kind = match consumer {
        Consumer::Wallet => EventKind::Credited,
        _ => EventKind::SmsSent,
    };
    let inbox_on = world.safeguards.is_on(guard);
    let mut tx = world.stores.begin(store).await?;
    let events: Vec<&TransferDone> = batch.iter().map(|(_, e)| e).collect();
    let applied = apply_events(&mut tx, consumer, inbox_on, &events, now).await?;
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
                Facts::caught_by(guard)
                    .with(json!({"offset": record.offset, "transfer_id": event.transfer_id})),
            ),
        }
    }
    if world.crash_fires(CrashPoint::ConsumerBeforeOffsetCommit, cx.rng()) {
        cx.record(
            layer,
            EventKind::ConsumerCrashed,
            Some(batch[0].1.event_id.clone()),
            Outcome::Lost,
            Facts::crashed_at(CrashPoint::ConsumerBeforeOffsetCommit)
                .with(json!({"restarts_in_ms": RESTART_MS, "uncommitted": batch.len()})),
        );
        return Ok(false);
    }
    let mut conn = world.stores.conn(StoreName::Broker).await?;
    broker::commit_offset(&mut conn, consumer.id(), consumer.topic(), partition, next).await?;
    Ok(true)
}

/// The fraud check's audit rows for a batch's events, written in one statement (atomic on its
/// own: no store transaction needed): for each event, how many audit rows it has with this one
/// (more than one: the check ran on it twice).
pub async fn audit_events(
    conn: &mut SqliteConnection,
    events: &[&TransferDone],
    now: i64,
) -> Result<Vec<i64>, StepError> {
    let ids = serde_json::to_string(&events.iter().map(|e| &e.event_id).collect::<Vec<_>>())
        .expect("ids serialise");
    let before: Vec<(String, i64)> = sqlx::query_as(sql::AUDIT_ROWS)
        .bind(&ids)
        .fetch_all(&mut *conn)
        .await?;
    sqlx::query(sql::AUDIT_WRITE)
        .bind(&ids)
        .bind(now)
        .execute(&mut *conn)
        .await?;
    Ok(
        running_counts(before, events.iter().map(|e| Some(&e.event_id)))
            .into_iter()
            .map(|n| n.expect("every event is audited"))
            .collect(),
    )
}

/// The wallet's or SMS service's effects of a batch's events, one statement a table: with
/// `inbox_on`, the inbox rows first (an event already there, or earlier in the batch, is
/// caught), then a credit or message for every event not caught. Per event: `None` if the
/// inbox caught it, else how many times its transfer has now been applied (more than one:
/// escaped). The same answers as writing and counting event by event. Run it in the
/// consumer's store transaction.
pub async fn apply_events(
    conn: &mut SqliteConnection,
    consumer: Consumer,
    inbox_on: bool,
    events: &[&TransferDone],
    now: i64,
) -> Result<Vec<Option<i64>>, sqlx::Error> {
    let (effect_sql, count_sql) = match consumer {
        Consumer::Wallet => (sql::CREDIT_WRITE, sql::CREDITS_OF_TRANSFER),
        _ => (sql::SMS_WRITE, sql::SMS_OF_TRANSFER),
    };
    let fresh: Vec<bool> = if inbox_on {
        let ids = serde_json::to_string(&events.iter().map(|e| &e.event_id).collect::<Vec<_>>())
            .expect("ids serialise");
        let went_in: Vec<String> = sqlx::query_scalar(sql::INBOX_WRITE)
            .bind(ids)
            .bind(now)
            .fetch_all(&mut *conn)
            .await?;
        // An id that went in did so for its first event in the batch; a later one is caught.
        let mut went_in: std::collections::HashSet<String> = went_in.into_iter().collect();
        events.iter().map(|e| went_in.remove(&e.event_id)).collect()
    } else {
        vec![true; events.len()]
    };
    let applying: Vec<&TransferDone> = events
        .iter()
        .zip(&fresh)
        .filter_map(|(e, &fresh)| fresh.then_some(*e))
        .collect();
    if applying.is_empty() {
        return Ok(vec![None; events.len()]);
    }
    let transfers =
        serde_json::to_string(&applying.iter().map(|e| &e.transfer_id).collect::<Vec<_>>())
            .expect("ids serialise");
    let before: Vec<(String, i64)> = sqlx::query_as(count_sql)
        .bind(transfers)
        .fetch_all(&mut *conn)
        .await?;
    let rows = serde_json::to_string(
        &applying
            .iter()
            .map(|e| serde_json::json!([e.event_id, e.transfer_id, e.to, e.amount]))
            .collect::<Vec<_>>(),
    )
    .expect("rows serialise");
    sqlx::query(effect_sql)
        .bind(rows)
        .bind(now)
        .execute(&mut *conn)
        .await?;
    Ok(running_counts(
        before,
        events
            .iter()
            .zip(fresh)
            .map(|(e, fresh)| fresh.then_some(&e.transfer_id)),
    ))
}

/// Counts carried through a batch: for each `Some(id)`, the rows `id` had before the batch
/// (`before`) plus its `Some`s so far, this one included, as if each row were written and
/// counted in turn; a `None` stays `None`.
fn running_counts<'a>(
    before: Vec<(String, i64)>,
    ids: impl Iterator<Item = Option<&'a String>>,
) -> Vec<Option<i64>> {
    let mut counts: HashMap<String, i64> = before.into_iter().collect();
    ids.map(|id| {
        id.map(|id| {
            let n = counts.entry(id.clone()).or_insert(0);
            *n += 1;
            *n
        })
    })
    .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::store::Stores;

    fn event(event_id: &str, transfer_id: &str) -> TransferDone {
        TransferDone {
            event_id: event_id.into(),
            transfer_id: transfer_id.into(),
            from: "shimul".into(),
            to: "tithi".into(),
            amount: 500,
            at: 0,
        }
    }

    async fn stores() -> (tempfile::TempDir, Stores) {
        let dir = tempfile::tempdir().unwrap();
        let stores = Stores::open(dir.path()).await.unwrap();
        stores.reset_services().await.unwrap();
        (dir, stores)
    }

    /// A batch is applied as if event by event: a repeat inside the batch is caught by the
    /// inbox like one from an earlier batch, and the counts run on through the batch.
    #[tokio::test]
    async fn a_batch_applies_and_counts_as_its_events_one_by_one() {
        let (_dir, stores) = stores().await;
        let (e1, e2, e3, e4) = (
            event("e1", "t1"),
            event("e2", "t2"),
            event("e3", "t1"),
            event("e4", "t2"),
        );
        for consumer in [Consumer::Wallet, Consumer::Sms] {
            let store = match consumer {
                Consumer::Wallet => StoreName::Wallet,
                _ => StoreName::Sms,
            };
            let mut tx = stores.begin(store).await.unwrap();
            let first = apply_events(&mut tx, consumer, true, &[&e1, &e2, &e1, &e3], 1)
                .await
                .unwrap();
            assert_eq!(first, [Some(1), Some(1), None, Some(2)], "{consumer:?}");
            let again = apply_events(&mut tx, consumer, true, &[&e1, &e4], 2)
                .await
                .unwrap();
            assert_eq!(again, [None, Some(2)]);
            // Without the inbox, every event is applied, repeats too.
            let off = apply_events(&mut tx, consumer, false, &[&e2, &e2], 3)
                .await
                .unwrap();
            assert_eq!(off, [Some(3), Some(4)]);
            tx.commit().await.unwrap();
            let table = match consumer {
                Consumer::Wallet => "credits",
                _ => "sms",
            };
            let rows: Vec<(String, String, i64)> = sqlx::query_as(&format!(
                "SELECT event_id, transfer_id, amount FROM {table} ORDER BY rowid"
            ))
            .fetch_all(&mut *stores.conn(store).await.unwrap())
            .await
            .unwrap();
            let ids: Vec<&str> = rows.iter().map(|r| r.0.as_str()).collect();
            assert_eq!(ids, ["e1", "e2", "e3", "e4", "e2", "e2"]);
            assert!(rows.iter().all(|r| r.2 == 500));
            let inbox: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM inbox")
                .fetch_one(&mut *stores.conn(store).await.unwrap())
                .await
                .unwrap();
            assert_eq!(inbox, 4);
        }
    }

    #[tokio::test]
    async fn audit_rows_count_on_through_a_batch() {
        let (_dir, stores) = stores().await;
        let (a, b) = (event("a", "t1"), event("b", "t2"));
        let mut tx = stores.begin(StoreName::Fraud).await.unwrap();
        assert_eq!(
            audit_events(&mut tx, &[&a, &a, &b], 1).await.unwrap(),
            [1, 2, 1]
        );
        assert_eq!(audit_events(&mut tx, &[&a], 2).await.unwrap(), [3]);
        tx.commit().await.unwrap();
    }
}
