//! The event pipeline after the debit: relay, fraud check, wallet and SMS consumers.
//!
//! Each service is a step that wakes when there is work (an outbox row was written, a record was
//! appended) and after a crash restarts [`RESTART_MS`] later with its in-memory state gone: the
//! relay and the fraud check get a new producer, the consumers resume from their committed
//! offsets. Only what each store committed survives, exactly as with killed processes.

mod consume;
mod publish;

use std::collections::HashMap;

use crate::domain::event::Facts;
use crate::domain::explain;
use crate::domain::pipeline::{Consumer, TransferDone, APPROVED_TOPIC, TRANSFERS_TOPIC};
use crate::server::broker::{self, Appended, Producer};
use crate::server::sim::Cx;
use crate::server::store::StoreName;
use crate::server::world::{LabWorld, Step, StepError};
pub use consume::{apply_events, audit_events, consume};
pub use publish::{publish, publish_batch, publish_from_api, relay, ToPublish};

use crate::domain::{CrashPoint, EventKind, Layer, Outcome, Safeguard};

/// How soon the relay looks at a new outbox row.
pub const RELAY_DELAY_MS: i64 = 100;
/// How soon a consumer polls after a record it reads was appended.
pub const POLL_DELAY_MS: i64 = 50;
/// How long a crashed service takes to come back.
pub const RESTART_MS: i64 = 1_000;
/// Records a consumer takes per partition per poll.
const BATCH: i64 = 50;
/// Outbox rows the relay publishes per run (one produce request).
const RELAY_BATCH: i64 = 100;
/// The fraud check's transactional id.
pub const FRAUD_TXN_ID: &str = "fraud-check";

/// The statements the services run on their own stores (the broker's are `broker/`'s
/// functions). Named here so the pipeline benchmark's raw arm runs these very ones.
pub mod sql {
    // The consumers write a poll's batch in one statement a table, its events passed as one
    // JSON array (`json_each` keeps the array's order, so rows go in as the events came).

    /// The fraud check's audit rows, one per event id in ?1, and how many each event had
    /// before them (more than one in all: escaped).
    pub const AUDIT_WRITE: &str = "INSERT INTO audit (event_id, decision, at_ms)
         SELECT value, 'approved', ?2 FROM json_each(?1) ORDER BY key";
    pub const AUDIT_ROWS: &str = "SELECT event_id, COUNT(*) FROM audit
         WHERE event_id IN (SELECT value FROM json_each(?1)) GROUP BY event_id";
    /// A consumer's inbox rows for the event ids in ?1: the ids it returns went in; an id it
    /// leaves out was applied before (or earlier in the same batch).
    pub const INBOX_WRITE: &str = "INSERT INTO inbox (event_id, processed_ms)
         SELECT value, ?2 FROM json_each(?1) WHERE true ORDER BY key
         ON CONFLICT DO NOTHING RETURNING event_id";

    /// The wallet's credits and the SMS service's messages, from ?1 = `[[event id, transfer
    /// id, to, amount], …]` at time ?2, and how many each transfer id in ?1 had before them
    /// (more than one in all: escaped).
    pub const CREDIT_WRITE: &str =
        "INSERT INTO credits (event_id, transfer_id, user_id, amount, at_ms)
         SELECT value ->> 0, value ->> 1, value ->> 2, value ->> 3, ?2 FROM json_each(?1) ORDER BY key";
    pub const CREDITS_OF_TRANSFER: &str = "SELECT transfer_id, COUNT(*) FROM credits
         WHERE transfer_id IN (SELECT value FROM json_each(?1)) GROUP BY transfer_id";
    pub const SMS_WRITE: &str =
        "INSERT INTO sms (event_id, transfer_id, to_user, message_key, amount, at_ms)
         SELECT value ->> 0, value ->> 1, value ->> 2, 'money_received', value ->> 3, ?2
         FROM json_each(?1) ORDER BY key";
    pub const SMS_OF_TRANSFER: &str = "SELECT transfer_id, COUNT(*) FROM sms
         WHERE transfer_id IN (SELECT value FROM json_each(?1)) GROUP BY transfer_id";
}

/// What the pipeline's processes hold in memory (lost on a crash or restart).
#[derive(Clone, Default)]
pub struct Pipeline {
    relay: Option<Producer>,
    /// The API's own producer, for the dual write when the outbox is off.
    api: Option<Producer>,
    /// The fraud check's producer, and whether it is transactional.
    fraud: Option<(Producer, bool)>,
    /// Next sequence number per (producer, epoch, topic, partition): a new epoch starts at 0.
    sequences: HashMap<(i64, i64, String, i64), i64>,
    /// Each topic's partition count, read once: a topic's partitions never change after the
    /// broker's store is seeded (`store/mod.rs`), and a poll or a publish would otherwise ask again.
    partitions: HashMap<String, i64>,
}

impl Pipeline {
    pub fn clear(&mut self) {
        *self = Pipeline::default();
    }
}

/// The pipeline steps that have work waiting (unsent outbox rows, unread records): what a
/// sandbox that opens must wake.
pub async fn pending(world: &LabWorld) -> Result<Vec<Step>, StepError> {
    let mut steps = Vec::new();
    let unsent: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM outbox WHERE sent_ms IS NULL")
        .fetch_one(&mut *world.stores.conn(StoreName::Payments).await?)
        .await?;
    if unsent > 0 {
        steps.push(Step::Relay);
    }
    let mut conn = world.stores.conn(StoreName::Broker).await?;
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

pub(super) async fn partitions(world: &mut LabWorld, topic: &str) -> Result<i64, StepError> {
    if let Some(&n) = world.pipeline.partitions.get(topic) {
        return Ok(n);
    }
    let mut conn = world.stores.conn(StoreName::Broker).await?;
    let n = broker::partitions(&mut conn, topic).await?.unwrap_or(0);
    drop(conn);
    world.pipeline.partitions.insert(topic.to_owned(), n);
    Ok(n)
}

pub(super) async fn new_producer(
    world: &LabWorld,
    transactional_id: Option<&str>,
    now: i64,
) -> Result<Producer, StepError> {
    let mut tx = world.stores.begin(StoreName::Broker).await?;
    let p = broker::init_producer(&mut tx, transactional_id, now).await?;
    tx.commit().await?;
    Ok(p)
}
