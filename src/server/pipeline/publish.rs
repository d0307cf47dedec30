//! Publishing: the API's own publish (the dual write, outbox off), and the relay that sends
//! unsent outbox rows, each through an idempotent producer.

use serde_json::json;

use super::*;

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
    if world.crash_fires(CrashPoint::BrokerAckLost, cx.rng()) {
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
        if world.crash_fires(CrashPoint::RelayAfterPublish, cx.rng()) {
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
