//! Producers: starting one (a new idempotent id, or taking over a transactional id and fencing
//! the old instance), and appending a record, deduplicated by producer id, epoch and sequence.

use sqlx::SqliteConnection;

use super::*;

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

pub(super) async fn check_epoch(
    conn: &mut SqliteConnection,
    producer: Producer,
) -> Result<(), BrokerError> {
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

/// One record of a produce request: its key, its value and, from an idempotent producer, its
/// sequence number in its partition.
#[derive(Clone, Copy, Debug)]
pub struct Outgoing<'a> {
    pub key: &'a str,
    pub value: &'a str,
    pub sequence: Option<i64>,
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
    let one = [Outgoing {
        key,
        value,
        sequence,
    }];
    let appended = produce_batch(conn, producer, topic, &one, txn, now_ms).await?;
    Ok(appended[0])
}

/// Appends the records of one produce request, in order, as a client library sends a batch:
/// the producer's epoch, the topic and the transaction are checked once for all of them, then
/// each record is deduplicated by its sequence number (see [`produce`]) and appended. The new
/// records of each partition are remembered as one batch (its first and last sequence number
/// and first offset), so a resend of the whole request is recognised however many records it
/// holds. Run it in one store transaction: a refused record (fenced, out of order) appends
/// none of them.
pub async fn produce_batch(
    conn: &mut SqliteConnection,
    producer: Producer,
    topic: &str,
    records: &[Outgoing<'_>],
    txn: Option<i64>,
    now_ms: i64,
) -> Result<Vec<Appended>, BrokerError> {
    // The request's checks, read in one statement (each is a round trip to the store): the
    // producer's epoch and last activity, the topic's partitions, the transaction's state.
    let (epoch, last_active, partitions, txn_state): (
        Option<i64>,
        Option<i64>,
        Option<i64>,
        Option<String>,
    ) = sqlx::query_as(
        "SELECT (SELECT epoch FROM producers WHERE producer_id = ?1),
                (SELECT last_active_ms FROM producers WHERE producer_id = ?1),
                (SELECT partitions FROM topics WHERE name = ?2),
                (SELECT state FROM transactions WHERE txn_id = ?3)",
    )
    .bind(producer.id)
    .bind(topic)
    .bind(txn)
    .fetch_one(&mut *conn)
    .await?;
    if epoch != Some(producer.epoch) {
        return Err(BrokerError::Fenced(producer.id));
    }
    let partitions = partitions.ok_or_else(|| BrokerError::UnknownTopic(topic.to_owned()))?;
    if txn.is_some() && txn_state.as_deref() != Some("ONGOING") {
        return Err(BrokerError::TransactionClosed);
    }
    let sequenced = records.iter().any(|r| r.sequence.is_some());
    if sequenced && last_active.is_some_and(|at| at < now_ms - PRODUCER_EXPIRY_MS) {
        forget(conn, producer.id).await?;
    }
    let mut appended = Vec::with_capacity(records.len());
    // This request's new batches: one a partition (more only if a record the broker has
    // forgotten is sent again in the middle).
    let mut batches: Vec<Batch> = Vec::new();
    for r in records {
        let partition = partition_for(r.key, partitions);
        if let Some(seq) = r.sequence {
            // Sequences are numbered per epoch: a restarted transactional producer starts at
            // 0 again, and its batches are not the old epoch's.
            let (seen, last): (Option<i64>, Option<i64>) = sqlx::query_as(
                "SELECT
                   (SELECT \"offset\" + (?5 - sequence) FROM producer_batches
                    WHERE producer_id = ?1 AND epoch = ?2 AND topic = ?3 AND partition = ?4
                      AND ?5 BETWEEN sequence AND last_sequence),
                   (SELECT MAX(last_sequence) FROM producer_batches
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
                appended.push(Appended {
                    partition,
                    offset,
                    duplicate: true,
                });
                continue;
            }
            let last = match batches.iter().rev().find(|b| b.partition == partition) {
                Some(b) => Some(b.last_sequence),
                None => last,
            };
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
            Some(r.key),
            r.value,
            Some(producer.id),
            r.sequence,
            txn,
            None,
            now_ms,
        )
        .await?;
        if let Some(seq) = r.sequence {
            match batches
                .iter_mut()
                .rev()
                .find(|b| b.partition == partition && b.last_sequence + 1 == seq)
            {
                Some(b) => b.last_sequence = seq,
                None => batches.push(Batch {
                    partition,
                    sequence: seq,
                    last_sequence: seq,
                    offset,
                }),
            }
        }
        appended.push(Appended {
            partition,
            offset,
            duplicate: false,
        });
    }
    // Each new batch remembered (keeping only the newest few: a resend older than that is not
    // recognised), then the producer's last activity: one command to the store. Its
    // parameters are unnumbered, bound in order: sqlx binds a command's later statements
    // after the earlier ones' values.
    const REMEMBER: &str = "INSERT OR REPLACE INTO producer_batches
           (producer_id, epoch, topic, partition, sequence, last_sequence, \"offset\")
         VALUES (?, ?, ?, ?, ?, ?, ?);
         DELETE FROM producer_batches
         WHERE producer_id = ? AND topic = ? AND partition = ? AND (epoch <> ? OR sequence NOT IN (
           SELECT sequence FROM producer_batches
           WHERE producer_id = ? AND epoch = ? AND topic = ? AND partition = ?
           ORDER BY sequence DESC LIMIT ?));\n";
    let sql = REMEMBER.repeat(batches.len())
        + "UPDATE producers SET last_active_ms = ? WHERE producer_id = ?";
    let (id, epoch) = (producer.id, producer.epoch);
    let mut query = sqlx::query(&sql);
    for b in &batches {
        let part = b.partition;
        query = query
            .bind(id)
            .bind(epoch)
            .bind(topic)
            .bind(part)
            .bind(b.sequence)
            .bind(b.last_sequence)
            .bind(b.offset)
            .bind(id)
            .bind(topic)
            .bind(part)
            .bind(epoch)
            .bind(id)
            .bind(epoch)
            .bind(topic)
            .bind(part)
            .bind(BATCHES_REMEMBERED);
    }
    query.bind(now_ms).bind(id).execute(&mut *conn).await?;
    Ok(appended)
}

/// The records one produce request appended to one partition: consecutive sequence numbers
/// from `sequence` to `last_sequence`, at consecutive offsets from `offset` (a partition's
/// offsets are handed out one after the other inside the request's store transaction).
struct Batch {
    partition: i64,
    sequence: i64,
    last_sequence: i64,
    offset: i64,
}

#[allow(clippy::too_many_arguments)]
pub(super) async fn append(
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
    // The partition's next offset taken and the record appended: one command to the store.
    // Each statement uses every number from ?1 to its highest (sqlx counts a gap in one
    // statement's numbers as an unnumbered parameter).
    let offset: i64 = sqlx::query_scalar(
        "UPDATE partitions SET next_offset = next_offset + 1 WHERE topic = ?1 AND partition = ?2;
         INSERT INTO records (topic, partition, \"offset\", at_ms, key, value, producer_id, sequence, txn_id, control)
         SELECT ?1, ?2, next_offset - 1, ?3, ?4, ?5, ?6, ?7, ?8, ?9 FROM partitions
         WHERE topic = ?1 AND partition = ?2
         RETURNING \"offset\"",
    )
    .bind(topic)
    .bind(partition)
    .bind(now_ms)
    .bind(key)
    .bind(value)
    .bind(producer_id)
    .bind(sequence)
    .bind(txn)
    .bind(control)
    .fetch_one(&mut *conn)
    .await?;
    Ok(offset)
}

/// Forgets the batches of a producer idle past [`PRODUCER_EXPIRY_MS`] (`produce_batch` reads
/// when it was last active).
async fn forget(conn: &mut SqliteConnection, producer_id: i64) -> Result<(), sqlx::Error> {
    sqlx::query("DELETE FROM producer_batches WHERE producer_id = ?1")
        .bind(producer_id)
        .execute(conn)
        .await?;
    Ok(())
}
