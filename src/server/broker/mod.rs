//! The broker: a teaching model of a Kafka log, kept in its own SQLite store.
//!
//! Topics have partitions; a record's key picks its partition; each partition is an append-only
//! sequence of offsets whose start moves forward as retention deletes old records. Producers
//! may be idempotent (a producer id plus a sequence number per partition and epoch: a resend of
//! a batch the log still remembers is answered with its original offset instead of being
//! appended again, and a batch that skips a number is refused) and transactional (records and consumer offsets commit or abort together, COMMIT and
//! ABORT markers go into the log, and `read_committed` readers see nothing past the last stable
//! offset). Consumer groups keep a committed offset per partition and can seek by time.
//!
//! As in Kafka, the broker remembers only the last [`BATCHES_REMEMBERED`] batches per producer
//! and partition (a batch: the records one produce request put in one partition), and forgets a producer idle for [`PRODUCER_EXPIRY_MS`]
//! (`producer.id.expiration.ms`): its deduplication is itself a window.

mod consumers;
mod producer;
mod transactions;

use sqlx::SqliteConnection;

pub use consumers::*;
pub use producer::*;
pub use transactions::*;

use crate::domain::clock::HOUR_MS;

/// Batches per producer and partition a resend is checked against.
pub const BATCHES_REMEMBERED: i64 = 5;
/// A producer idle this long is forgotten, with its batches.
pub const PRODUCER_EXPIRY_MS: i64 = 24 * HOUR_MS;

/// A producer as the broker knows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Producer {
    pub id: i64,
    pub epoch: i64,
}

#[derive(Debug, thiserror::Error)]
pub enum BrokerError {
    /// A newer producer with the same transactional id has taken over.
    #[error("producer {0} is fenced: a newer instance with the same transactional id took over")]
    Fenced(i64),
    #[error("no topic called {0}")]
    UnknownTopic(String),
    #[error("the transaction is no longer open")]
    TransactionClosed,
    /// A batch skipped sequence numbers: something between it and the last one is missing.
    #[error("out of order: producer {producer} epoch {epoch} sent sequence {got} on {topic}/{partition}, expected {expected}")]
    OutOfOrderSequence {
        producer: i64,
        epoch: i64,
        topic: String,
        partition: i64,
        expected: i64,
        got: i64,
    },
    #[error(transparent)]
    Store(#[from] sqlx::Error),
}

/// Where a produced record landed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Appended {
    pub partition: i64,
    pub offset: i64,
    /// The log already had this batch: nothing was appended, the original offset is returned.
    pub duplicate: bool,
}

/// A data record as a consumer reads it.
#[derive(Clone, Debug, PartialEq, Eq, sqlx::FromRow)]
pub struct Record {
    pub topic: String,
    pub partition: i64,
    pub offset: i64,
    pub at_ms: i64,
    pub key: Option<String>,
    pub value: String,
}

/// The partition a key goes to: FNV-1a of the key, modulo the partition count (stable across
/// runs and machines, as a replayed run needs).
pub fn partition_for(key: &str, partitions: i64) -> i64 {
    let mut hash: u32 = 0x811c_9dc5;
    for b in key.bytes() {
        hash ^= b as u32;
        hash = hash.wrapping_mul(0x0100_0193);
    }
    (hash as i64).rem_euclid(partitions.max(1))
}

/// How many partitions a topic has, if it exists.
pub async fn partitions(
    conn: &mut SqliteConnection,
    topic: &str,
) -> Result<Option<i64>, sqlx::Error> {
    sqlx::query_scalar("SELECT partitions FROM topics WHERE name = ?1")
        .bind(topic)
        .fetch_optional(conn)
        .await
}

pub(super) async fn ensure_open(conn: &mut SqliteConnection, txn: i64) -> Result<(), BrokerError> {
    let state: Option<String> =
        sqlx::query_scalar("SELECT state FROM transactions WHERE txn_id = ?1")
            .bind(txn)
            .fetch_optional(conn)
            .await?;
    match state.as_deref() {
        Some("ONGOING") => Ok(()),
        _ => Err(BrokerError::TransactionClosed),
    }
}

/// Time-based retention: deletes records older than their topic's retention and moves each
/// partition's log start to the oldest offset left (or the end, when none is). Returns the
/// records deleted and the partitions whose start moved.
pub async fn apply_retention(
    conn: &mut SqliteConnection,
    now_ms: i64,
) -> Result<(u64, u64), sqlx::Error> {
    let deleted = sqlx::query(
        "DELETE FROM records WHERE at_ms < ?1 - (SELECT retention_ms FROM topics WHERE name = records.topic)",
    )
    .bind(now_ms)
    .execute(&mut *conn)
    .await?
    .rows_affected();
    let moved = sqlx::query(
        "UPDATE partitions SET log_start_offset = COALESCE(
             (SELECT MIN(\"offset\") FROM records r
              WHERE r.topic = partitions.topic AND r.partition = partitions.partition),
             next_offset)
         WHERE log_start_offset <> COALESCE(
             (SELECT MIN(\"offset\") FROM records r
              WHERE r.topic = partitions.topic AND r.partition = partitions.partition),
             next_offset)",
    )
    .execute(conn)
    .await?
    .rows_affected();
    Ok((deleted, moved))
}

#[cfg(test)]
mod tests;
