//! Publishing: the API's own publish (the dual write, outbox off), and the relay that sends
//! unsent outbox rows, each through an idempotent producer.

use serde_json::json;

use super::*;
use crate::server::outbox;

/// One record to publish: its key, its value and the event it carries (the timeline's
/// correlation).
pub struct ToPublish<'a> {
    pub key: &'a str,
    pub value: &'a str,
    pub correlation: &'a str,
}

/// Produces one record the way a client library does (see [`publish_batch`]).
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
) -> Result<Appended, StepError> {
    let one = [ToPublish {
        key,
        value,
        correlation,
    }];
    Ok(publish_batch(world, cx, producer, topic, &one, txn).await?[0])
}

/// Produces records the way a client library does: one produce request for the batch, with a
/// sequence number per record when the producer is idempotent, and the same request sent again
/// when its acknowledgement is lost (`broker_ack_lost`). The broker lane shows each append and
/// what became of each resend.
///
/// Reads best whole: the produce request in its order (sequence numbers, append, the lost ack, the
/// resend); the crash point falls in between.
pub async fn publish_batch(
    world: &mut LabWorld,
    cx: &mut Cx<'_, Step>,
    producer: Producer,
    topic: &str,
    records: &[ToPublish<'_>],
    txn: Option<i64>,
) -> Result<Vec<Appended>, StepError> {
    let idempotent = world.safeguards.is_on(Safeguard::IdempotentProducer);
    let partitions = partitions(world, topic).await?;
    let outgoing: Vec<broker::Outgoing> = records
        .iter()
        .map(|r| {
            let partition = broker::partition_for(r.key, partitions);
            let sequence = idempotent.then(|| {
                let next = world
                    .pipeline
                    .sequences
                    .entry((producer.id, producer.epoch, topic.to_owned(), partition))
                    .or_insert(0);
                *next += 1;
                *next - 1
            });
            broker::Outgoing {
                key: r.key,
                value: r.value,
                sequence,
            }
        })
        .collect();
    let now = cx.now();
    let mut tx = world.stores.begin(StoreName::Broker).await?;
    let appended = broker::produce_batch(&mut tx, producer, topic, &outgoing, txn, now).await?;
    tx.commit().await?;
    for ((r, o), a) in records.iter().zip(&outgoing).zip(&appended) {
        cx.record(
            Layer::Broker,
            EventKind::RecordAppended,
            Some(r.correlation.to_owned()),
            Outcome::Ok,
            json!({"topic": topic, "partition": a.partition, "offset": a.offset,
                   "producer": producer.id, "sequence": o.sequence, "transactional": txn.is_some()}),
        );
    }
    if world.crash_fires(CrashPoint::BrokerAckLost, cx.rng()) {
        for (r, a) in records.iter().zip(&appended) {
            cx.record(
                Layer::Broker,
                EventKind::AckLost,
                Some(r.correlation.to_owned()),
                Outcome::Lost,
                json!({"topic": topic, "partition": a.partition, "offset": a.offset}),
            );
        }
        let mut tx = world.stores.begin(StoreName::Broker).await?;
        let resent = broker::produce_batch(&mut tx, producer, topic, &outgoing, txn, now).await?;
        tx.commit().await?;
        for (r, resend) in records.iter().zip(resent) {
            let corr = Some(r.correlation.to_owned());
            if resend.duplicate {
                cx.record(
                    Layer::Broker,
                    EventKind::ResendDropped,
                    corr,
                    Outcome::Caught,
                    Facts::caught_by(Safeguard::IdempotentProducer)
                        .with(json!({"topic": topic, "offset": resend.offset})),
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
    }
    Ok(appended)
}

/// The dual write of an API without an outbox: publish straight after the commit.
pub async fn publish_from_api(
    world: &mut LabWorld,
    cx: &mut Cx<'_, Step>,
    event: &TransferDone,
) -> Result<(), StepError> {
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
    cx.wake_in(POLL_DELAY_MS, Step::Consume(Consumer::Fraud));
    Ok(())
}

/// The relay: publishes the unsent outbox rows (up to 100, oldest first) in one produce
/// request, then marks them sent in one transaction. A crash between the two leaves them all
/// unsent: the restarted relay publishes them again (at-least-once, the lesson's point).
pub async fn relay(world: &mut LabWorld, cx: &mut Cx<'_, Step>) -> Result<(), StepError> {
    let now = cx.now();
    let rows = outbox::unsent(
        &mut *world.stores.conn(StoreName::Payments).await?,
        RELAY_BATCH,
    )
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
    let records: Vec<ToPublish> = rows
        .iter()
        .map(|(event_id, transfer_id, payload)| ToPublish {
            key: transfer_id,
            value: payload,
            correlation: event_id,
        })
        .collect();
    let appended = publish_batch(world, cx, producer, TRANSFERS_TOPIC, &records, None).await?;
    for ((event_id, transfer_id, _), a) in rows.iter().zip(&appended) {
        cx.record(
            Layer::Relay,
            EventKind::EventPublished,
            Some(event_id.clone()),
            Outcome::Ok,
            json!({"by": "relay", "offset": a.offset, "transfer_id": transfer_id}),
        );
    }
    cx.wake_in(POLL_DELAY_MS, Step::Consume(Consumer::Fraud));
    if world.crash_fires(CrashPoint::RelayAfterPublish, cx.rng()) {
        cx.record(
            Layer::Relay,
            EventKind::RelayCrashed,
            Some(rows[0].0.clone()),
            Outcome::Lost,
            Facts::crashed_at(CrashPoint::RelayAfterPublish)
                .with(json!({"restarts_in_ms": RESTART_MS, "unmarked": rows.len()})),
        );
        world.pipeline.relay = None;
        cx.schedule_in(RESTART_MS, Step::Relay);
        return Ok(());
    }
    // Every row of the batch marked in one statement.
    let ids: Vec<&String> = rows.iter().map(|(event_id, _, _)| event_id).collect();
    outbox::mark_sent(
        &mut *world.stores.conn(StoreName::Payments).await?,
        &ids,
        now,
    )
    .await?;
    if rows.len() as i64 == RELAY_BATCH {
        // More rows than one batch: come back for them.
        cx.wake_in(RELAY_DELAY_MS, Step::Relay);
    }
    Ok(())
}
