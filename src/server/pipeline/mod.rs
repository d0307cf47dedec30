//! The event pipeline after the debit: relay, fraud check, wallet and SMS consumers.
//!
//! Each service is a step that wakes when there is work (an outbox row was written, a record was
//! appended) and after a crash restarts [`RESTART_MS`] later with its in-memory state gone: the
//! relay and the fraud check get a new producer, the consumers resume from their committed
//! offsets. Only what each store committed survives, exactly as with killed processes.

mod consume;
mod publish;

use std::collections::HashMap;

use crate::domain::explain;
use crate::domain::pipeline::{Consumer, TransferDone, APPROVED_TOPIC, TRANSFERS_TOPIC};
use crate::server::broker::{self, Appended, BrokerError, Producer};
use crate::server::sim::Cx;
use crate::server::store::StoreName;
use crate::server::world::{LabWorld, Step};
pub use consume::consume;
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
    /// The payment API's outbox row, in the debit's transaction.
    pub const OUTBOX_WRITE: &str =
        "INSERT INTO outbox (event_id, transfer_id, payload, created_ms) VALUES (?1, ?2, ?3, ?4)";
    /// The relay's batch: unsent rows, oldest first, at most ?1.
    pub const OUTBOX_UNSENT: &str = "SELECT event_id, transfer_id, payload FROM outbox
         WHERE sent_ms IS NULL ORDER BY created_ms, event_id LIMIT ?1";
    pub const OUTBOX_MARK_SENT: &str = "UPDATE outbox SET sent_ms = ?1 WHERE event_id = ?2";
    /// The fraud check's audit row, and how many an event now has (more than one escaped).
    pub const AUDIT_WRITE: &str =
        "INSERT INTO audit (event_id, decision, at_ms) VALUES (?1, 'approved', ?2)";
    pub const AUDIT_ROWS: &str = "SELECT COUNT(*) FROM audit WHERE event_id = ?1";
    /// A consumer's inbox row: no row inserted means the event was applied before.
    pub const INBOX_WRITE: &str =
        "INSERT INTO inbox (event_id, processed_ms) VALUES (?1, ?2) ON CONFLICT DO NOTHING";

    /// The wallet's credit and the SMS service's message, each binding (event id, transfer id,
    /// to, amount, time), and how many a transfer now has (more than one escaped).
    pub const CREDIT_WRITE: &str =
        "INSERT INTO credits (event_id, transfer_id, user_id, amount, at_ms)
         VALUES (?1, ?2, ?3, ?4, ?5)";
    pub const CREDITS_OF_TRANSFER: &str = "SELECT COUNT(*) FROM credits WHERE transfer_id = ?1";
    pub const SMS_WRITE: &str =
        "INSERT INTO sms (event_id, transfer_id, to_user, message_key, amount, at_ms)
         VALUES (?1, ?2, ?3, 'money_received', ?4, ?5)";
    pub const SMS_OF_TRANSFER: &str = "SELECT COUNT(*) FROM sms WHERE transfer_id = ?1";
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

pub(super) async fn partitions(world: &LabWorld, topic: &str) -> Result<i64, sqlx::Error> {
    let mut conn = world.stores.conn(StoreName::Broker).await?;
    Ok(broker::partitions(&mut conn, topic).await?.unwrap_or(0))
}

pub(super) async fn new_producer(
    world: &LabWorld,
    transactional_id: Option<&str>,
    now: i64,
) -> Result<Producer, sqlx::Error> {
    let mut tx = world.stores.begin(StoreName::Broker).await?;
    let p = broker::init_producer(&mut tx, transactional_id, now).await?;
    tx.commit().await?;
    Ok(p)
}
