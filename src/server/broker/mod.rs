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
//! and partition, and forgets a producer idle for [`PRODUCER_EXPIRY_MS`]
//! (`producer.id.expiration.ms`): its deduplication is itself a window.

use sqlx::SqliteConnection;

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

async fn ensure_open(conn: &mut SqliteConnection, txn: i64) -> Result<(), BrokerError> {
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

/// Starts a producer. Without a transactional id it is a new idempotent producer (a fresh id,
/// as a restarted process gets). With one, the producer of that id is taken over: its epoch goes
/// up, which fences the old instance out, and a transaction it left open is aborted.
pub async fn init_producer(
    conn: &mut SqliteConnection,
    transactional_id: Option<&str>,
    now_ms: i64,
) -> Result<Producer, BrokerError> {
    if let Some(tid) = transactional_id {
        let existing: Option<(i64, i64)> =
            sqlx::query_as("SELECT producer_id, epoch FROM producers WHERE transactional_id = ?1")
                .bind(tid)
                .fetch_optional(&mut *conn)
                .await?;
        if let Some((id, epoch)) = existing {
            let open: Vec<i64> = sqlx::query_scalar(
                "SELECT txn_id FROM transactions WHERE transactional_id = ?1 AND state = 'ONGOING'",
            )
            .bind(tid)
            .fetch_all(&mut *conn)
            .await?;
            for txn in open {
                end_transaction(conn, txn, false, now_ms).await?;
            }
            sqlx::query(
                "UPDATE producers SET epoch = ?1, last_active_ms = ?2 WHERE producer_id = ?3",
            )
            .bind(epoch + 1)
            .bind(now_ms)
            .bind(id)
            .execute(&mut *conn)
            .await?;
            return Ok(Producer {
                id,
                epoch: epoch + 1,
            });
        }
    }
    let id: i64 = sqlx::query_scalar(
        "INSERT INTO producers (transactional_id, epoch, last_active_ms) VALUES (?1, 0, ?2)
         RETURNING producer_id",
    )
    .bind(transactional_id)
    .bind(now_ms)
    .fetch_one(conn)
    .await?;
    Ok(Producer { id, epoch: 0 })
}

async fn check_epoch(conn: &mut SqliteConnection, producer: Producer) -> Result<(), BrokerError> {
    let epoch: Option<i64> =
        sqlx::query_scalar("SELECT epoch FROM producers WHERE producer_id = ?1")
            .bind(producer.id)
            .fetch_optional(conn)
            .await?;
    match epoch {
        Some(e) if e == producer.epoch => Ok(()),
        _ => Err(BrokerError::Fenced(producer.id)),
    }
}

/// Appends one record. With `sequence` (an idempotent producer) a batch the broker still
/// remembers is not appended again; its original offset comes back with `duplicate` set.
#[allow(clippy::too_many_arguments)]
pub async fn produce(
    conn: &mut SqliteConnection,
    producer: Producer,
    topic: &str,
    key: &str,
    value: &str,
    sequence: Option<i64>,
    txn: Option<i64>,
    now_ms: i64,
) -> Result<Appended, BrokerError> {
    check_epoch(conn, producer).await?;
    let partitions = partitions(conn, topic)
        .await?
        .ok_or_else(|| BrokerError::UnknownTopic(topic.to_owned()))?;
    if let Some(txn) = txn {
        ensure_open(conn, txn).await?;
    }
    let partition = partition_for(key, partitions);
    if let Some(seq) = sequence {
        forget_if_expired(conn, producer.id, now_ms).await?;
        // Sequences are numbered per epoch: a restarted transactional producer starts at 0
        // again, and its batches are not the old epoch's.
        let (seen, last): (Option<i64>, Option<i64>) = sqlx::query_as(
            "SELECT
               (SELECT \"offset\" FROM producer_batches
                WHERE producer_id = ?1 AND epoch = ?2 AND topic = ?3 AND partition = ?4
                  AND sequence = ?5),
               (SELECT MAX(sequence) FROM producer_batches
                WHERE producer_id = ?1 AND epoch = ?2 AND topic = ?3 AND partition = ?4)",
        )
        .bind(producer.id)
        .bind(producer.epoch)
        .bind(topic)
        .bind(partition)
        .bind(seq)
        .fetch_one(&mut *conn)
        .await?;
        if let Some(offset) = seen {
            touch(conn, producer.id, now_ms).await?;
            return Ok(Appended {
                partition,
                offset,
                duplicate: true,
            });
        }
        // A gap means batches went missing in between: Kafka refuses it rather than guess.
        if let Some(last) = last.filter(|last| seq > last + 1) {
            return Err(BrokerError::OutOfOrderSequence {
                producer: producer.id,
                epoch: producer.epoch,
                topic: topic.to_owned(),
                partition,
                expected: last + 1,
                got: seq,
            });
        }
    }
    let offset = append(
        conn,
        topic,
        partition,
        Some(key),
        value,
        Some(producer.id),
        sequence,
        txn,
        None,
        now_ms,
    )
    .await?;
    if let Some(seq) = sequence {
        sqlx::query(
            "INSERT OR REPLACE INTO producer_batches
               (producer_id, epoch, topic, partition, sequence, \"offset\")
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        )
        .bind(producer.id)
        .bind(producer.epoch)
        .bind(topic)
        .bind(partition)
        .bind(seq)
        .bind(offset)
        .execute(&mut *conn)
        .await?;
        // Keep only the newest few: a resend older than that is not recognised.
        sqlx::query(
            "DELETE FROM producer_batches
             WHERE producer_id = ?1 AND topic = ?2 AND partition = ?3 AND (epoch <> ?4 OR sequence NOT IN (
               SELECT sequence FROM producer_batches
               WHERE producer_id = ?1 AND epoch = ?4 AND topic = ?2 AND partition = ?3
               ORDER BY sequence DESC LIMIT ?5))",
        )
        .bind(producer.id)
        .bind(topic)
        .bind(partition)
        .bind(producer.epoch)
        .bind(BATCHES_REMEMBERED)
        .execute(&mut *conn)
        .await?;
    }
    touch(conn, producer.id, now_ms).await?;
    Ok(Appended {
        partition,
        offset,
        duplicate: false,
    })
}

#[allow(clippy::too_many_arguments)]
async fn append(
    conn: &mut SqliteConnection,
    topic: &str,
    partition: i64,
    key: Option<&str>,
    value: &str,
    producer_id: Option<i64>,
    sequence: Option<i64>,
    txn: Option<i64>,
    control: Option<&str>,
    now_ms: i64,
) -> Result<i64, sqlx::Error> {
    let offset: i64 = sqlx::query_scalar(
        "UPDATE partitions SET next_offset = next_offset + 1 WHERE topic = ?1 AND partition = ?2
         RETURNING next_offset - 1",
    )
    .bind(topic)
    .bind(partition)
    .fetch_one(&mut *conn)
    .await?;
    sqlx::query(
        "INSERT INTO records (topic, partition, \"offset\", at_ms, key, value, producer_id, sequence, txn_id, control)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
    )
    .bind(topic)
    .bind(partition)
    .bind(offset)
    .bind(now_ms)
    .bind(key)
    .bind(value)
    .bind(producer_id)
    .bind(sequence)
    .bind(txn)
    .bind(control)
    .execute(conn)
    .await?;
    Ok(offset)
}

async fn touch(
    conn: &mut SqliteConnection,
    producer_id: i64,
    now_ms: i64,
) -> Result<(), sqlx::Error> {
    sqlx::query("UPDATE producers SET last_active_ms = ?1 WHERE producer_id = ?2")
        .bind(now_ms)
        .bind(producer_id)
        .execute(conn)
        .await?;
    Ok(())
}

/// Forgets the batches of a producer idle past [`PRODUCER_EXPIRY_MS`].
async fn forget_if_expired(
    conn: &mut SqliteConnection,
    producer_id: i64,
    now_ms: i64,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "DELETE FROM producer_batches WHERE producer_id = ?1 AND EXISTS (
           SELECT 1 FROM producers WHERE producer_id = ?1 AND last_active_ms < ?2)",
    )
    .bind(producer_id)
    .bind(now_ms - PRODUCER_EXPIRY_MS)
    .execute(conn)
    .await?;
    Ok(())
}

/// Opens a transaction for a transactional producer.
pub async fn begin_transaction(
    conn: &mut SqliteConnection,
    producer: Producer,
    transactional_id: &str,
    now_ms: i64,
) -> Result<i64, BrokerError> {
    check_epoch(conn, producer).await?;
    Ok(sqlx::query_scalar(
        "INSERT INTO transactions (transactional_id, producer_id, epoch, state, started_ms)
         VALUES (?1, ?2, ?3, 'ONGOING', ?4) RETURNING txn_id",
    )
    .bind(transactional_id)
    .bind(producer.id)
    .bind(producer.epoch)
    .bind(now_ms)
    .fetch_one(conn)
    .await?)
}

/// Adds a consumer offset to a transaction: it is committed if, and only if, the transaction is.
pub async fn send_offset_to_transaction(
    conn: &mut SqliteConnection,
    txn: i64,
    group: &str,
    topic: &str,
    partition: i64,
    offset: i64,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "INSERT OR REPLACE INTO txn_offsets (txn_id, group_id, topic, partition, committed_offset)
         VALUES (?1, ?2, ?3, ?4, ?5)",
    )
    .bind(txn)
    .bind(group)
    .bind(topic)
    .bind(partition)
    .bind(offset)
    .execute(conn)
    .await?;
    Ok(())
}

/// Commits (or aborts) a transaction by its producer, which must not be fenced.
pub async fn commit_transaction(
    conn: &mut SqliteConnection,
    producer: Producer,
    txn: i64,
    now_ms: i64,
) -> Result<(), BrokerError> {
    check_epoch(conn, producer).await?;
    end_transaction(conn, txn, true, now_ms).await
}

/// Ends a transaction: a COMMIT or ABORT marker in every partition it wrote to, its state, and on
/// commit its consumer offsets.
pub async fn end_transaction(
    conn: &mut SqliteConnection,
    txn: i64,
    commit: bool,
    now_ms: i64,
) -> Result<(), BrokerError> {
    ensure_open(conn, txn).await?;
    let touched: Vec<(String, i64)> = sqlx::query_as(
        "SELECT DISTINCT topic, partition FROM records WHERE txn_id = ?1 AND control IS NULL
         ORDER BY topic, partition",
    )
    .bind(txn)
    .fetch_all(&mut *conn)
    .await?;
    let marker = if commit { "COMMIT" } else { "ABORT" };
    for (topic, partition) in touched {
        append(
            conn,
            &topic,
            partition,
            None,
            "",
            None,
            None,
            Some(txn),
            Some(marker),
            now_ms,
        )
        .await?;
    }
    sqlx::query("UPDATE transactions SET state = ?1, ended_ms = ?2 WHERE txn_id = ?3")
        .bind(if commit { "COMMITTED" } else { "ABORTED" })
        .bind(now_ms)
        .bind(txn)
        .execute(&mut *conn)
        .await?;
    if commit {
        sqlx::query(
            "INSERT OR REPLACE INTO consumer_offsets (group_id, topic, partition, committed_offset)
             SELECT group_id, topic, partition, committed_offset FROM txn_offsets WHERE txn_id = ?1",
        )
        .bind(txn)
        .execute(&mut *conn)
        .await?;
    }
    sqlx::query("DELETE FROM txn_offsets WHERE txn_id = ?1")
        .bind(txn)
        .execute(conn)
        .await?;
    Ok(())
}

/// The last stable offset: the first offset of a still-open transaction in the partition, or the
/// end of the log. `read_committed` readers stop here.
pub async fn last_stable_offset(
    conn: &mut SqliteConnection,
    topic: &str,
    partition: i64,
) -> Result<i64, sqlx::Error> {
    sqlx::query_scalar(
        "SELECT COALESCE(
           (SELECT MIN(r.\"offset\") FROM records r JOIN transactions t ON t.txn_id = r.txn_id
            WHERE r.topic = ?1 AND r.partition = ?2 AND t.state = 'ONGOING'),
           (SELECT next_offset FROM partitions WHERE topic = ?1 AND partition = ?2))",
    )
    .bind(topic)
    .bind(partition)
    .fetch_one(conn)
    .await
}

/// A record as the log holds it, with the state of its transaction.
#[derive(sqlx::FromRow)]
struct LogRow {
    offset: i64,
    at_ms: i64,
    key: Option<String>,
    value: String,
    control: Option<String>,
    txn_state: Option<String>,
}

/// Reads up to `max` data records from `from` on. `read_committed` stops at the last stable
/// offset and skips records of aborted transactions; markers are never returned. Also returns
/// the position after the last offset looked at, where the next read starts.
pub async fn fetch(
    conn: &mut SqliteConnection,
    topic: &str,
    partition: i64,
    from: i64,
    max: i64,
    read_committed: bool,
) -> Result<(Vec<Record>, i64), sqlx::Error> {
    let end = if read_committed {
        last_stable_offset(conn, topic, partition).await?
    } else {
        sqlx::query_scalar("SELECT next_offset FROM partitions WHERE topic = ?1 AND partition = ?2")
            .bind(topic)
            .bind(partition)
            .fetch_one(&mut *conn)
            .await?
    };
    let rows: Vec<LogRow> = sqlx::query_as(
        "SELECT r.\"offset\" AS \"offset\", r.at_ms, r.key, r.value, r.control, t.state AS txn_state
         FROM records r LEFT JOIN transactions t ON t.txn_id = r.txn_id
         WHERE r.topic = ?1 AND r.partition = ?2 AND r.\"offset\" >= ?3 AND r.\"offset\" < ?4
         ORDER BY r.\"offset\" LIMIT ?5",
    )
    .bind(topic)
    .bind(partition)
    .bind(from)
    .bind(end)
    .bind(max)
    .fetch_all(conn)
    .await?;
    let mut next = from;
    let mut records = Vec::new();
    for LogRow {
        offset,
        at_ms,
        key,
        value,
        control,
        txn_state,
    } in rows
    {
        next = offset + 1;
        let aborted = txn_state.as_deref() == Some("ABORTED");
        if control.is_some() || (read_committed && aborted) {
            continue;
        }
        records.push(Record {
            topic: topic.to_owned(),
            partition,
            offset,
            at_ms,
            key,
            value,
        });
    }
    Ok((records, next))
}

/// Where a consumer group resumes in a partition: its committed offset, or the log start if it
/// has none or retention has deleted past it.
pub async fn position(
    conn: &mut SqliteConnection,
    group: &str,
    topic: &str,
    partition: i64,
) -> Result<i64, sqlx::Error> {
    sqlx::query_scalar(
        "SELECT MAX(p.log_start_offset, COALESCE(c.committed_offset, 0))
         FROM partitions p LEFT JOIN consumer_offsets c
           ON c.group_id = ?1 AND c.topic = p.topic AND c.partition = p.partition
         WHERE p.topic = ?2 AND p.partition = ?3",
    )
    .bind(group)
    .bind(topic)
    .bind(partition)
    .fetch_one(conn)
    .await
}

/// Commits a consumer group's offset outside any transaction.
pub async fn commit_offset(
    conn: &mut SqliteConnection,
    group: &str,
    topic: &str,
    partition: i64,
    offset: i64,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "INSERT OR REPLACE INTO consumer_offsets (group_id, topic, partition, committed_offset)
         VALUES (?1, ?2, ?3, ?4)",
    )
    .bind(group)
    .bind(topic)
    .bind(partition)
    .bind(offset)
    .execute(conn)
    .await?;
    Ok(())
}

/// Moves a group back (or forward) to the first record at or after `at_ms` in every partition of
/// a topic: a replay. Returns the new offsets, partition by partition.
pub async fn seek_to_time(
    conn: &mut SqliteConnection,
    group: &str,
    topic: &str,
    at_ms: i64,
) -> Result<Vec<(i64, i64)>, sqlx::Error> {
    let offsets: Vec<(i64, i64)> = sqlx::query_as(
        "SELECT p.partition, COALESCE(
           (SELECT MIN(r.\"offset\") FROM records r
            WHERE r.topic = p.topic AND r.partition = p.partition AND r.at_ms >= ?2),
           p.next_offset)
         FROM partitions p WHERE p.topic = ?1 ORDER BY p.partition",
    )
    .bind(topic)
    .bind(at_ms)
    .fetch_all(&mut *conn)
    .await?;
    let mut sought = Vec::with_capacity(offsets.len());
    for (partition, offset) in offsets {
        // Never past the last stable offset: records of a transaction still open there would
        // otherwise be skipped once it commits.
        let offset = offset.min(last_stable_offset(conn, topic, partition).await?);
        commit_offset(conn, group, topic, partition, offset).await?;
        sought.push((partition, offset));
    }
    Ok(sought)
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
