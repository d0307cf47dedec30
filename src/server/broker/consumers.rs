//! Consumer groups: reading records (`read_committed` or not), where a group resumes, committing
//! its offset, and seeking it back by time.

use sqlx::SqliteConnection;

use super::*;

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

impl LogRow {
    /// The record a reader gets from this row: none for a marker, nor (with `read_committed`)
    /// for a record of an aborted transaction.
    fn into_record(self, topic: &str, partition: i64, read_committed: bool) -> Option<Record> {
        let aborted = self.txn_state.as_deref() == Some("ABORTED");
        if self.control.is_some() || (read_committed && aborted) {
            return None;
        }
        Some(Record {
            topic: topic.to_owned(),
            partition,
            offset: self.offset,
            at_ms: self.at_ms,
            key: self.key,
            value: self.value,
        })
    }
}

/// A row of [`poll`]: its partition, where the group stood, and the record.
#[derive(sqlx::FromRow)]
struct PollRow {
    partition: i64,
    start: i64,
    #[sqlx(flatten)]
    row: LogRow,
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
    for row in rows {
        next = row.offset + 1;
        records.extend(row.into_record(topic, partition, read_committed));
    }
    Ok((records, next))
}

/// What one poll read from one partition: where the group stood, the data records after it
/// and the position after the last offset looked at (as [`position`] and [`fetch`] give them).
#[derive(Debug)]
pub struct Polled {
    pub partition: i64,
    pub start: i64,
    pub records: Vec<Record>,
    pub next: i64,
}

/// One poll of a consumer group on the first `partitions` partitions of a topic, in one
/// statement instead of three a partition: each partition's position ([`position`]), its end
/// (the last stable offset with `read_committed`) and up to `max` records from the position
/// on, by [`fetch`]'s rules. Partitions with nothing after the group's position are left out;
/// the rest come in partition order.
pub async fn poll(
    conn: &mut SqliteConnection,
    group: &str,
    topic: &str,
    partitions: i64,
    max: i64,
    read_committed: bool,
) -> Result<Vec<Polled>, sqlx::Error> {
    if partitions <= 0 {
        return Ok(Vec::new());
    }
    // Each partition is its own arm, with its own ORDER BY and LIMIT: one arm reads at most
    // `max` rows by the records' index, however far behind the group is.
    let mut sql = String::from(
        "WITH pos AS (
           SELECT p.partition,
                  MAX(p.log_start_offset, COALESCE(c.committed_offset, 0)) AS start,
                  CASE WHEN ?4 THEN COALESCE(
                    (SELECT MIN(r.\"offset\") FROM transactions t CROSS JOIN records r ON r.txn_id = t.txn_id
                     WHERE t.state = 'ONGOING' AND r.topic = p.topic AND r.partition = p.partition),
                    p.next_offset) ELSE p.next_offset END AS stop
           FROM partitions p LEFT JOIN consumer_offsets c
             ON c.group_id = ?1 AND c.topic = p.topic AND c.partition = p.partition
           WHERE p.topic = ?2)",
    );
    for partition in 0..partitions {
        sql.push_str(if partition == 0 { " " } else { " UNION ALL " });
        sql.push_str(&format!(
            "SELECT * FROM (
               SELECT pos.partition, pos.start, r.\"offset\", r.at_ms, r.key, r.value, r.control,
                      t.state AS txn_state
               FROM pos CROSS JOIN records r
                 ON r.topic = ?2 AND r.partition = pos.partition
                AND r.\"offset\" >= pos.start AND r.\"offset\" < pos.stop
               LEFT JOIN transactions t ON t.txn_id = r.txn_id
               WHERE pos.partition = {partition} ORDER BY r.\"offset\" LIMIT ?3)"
        ));
    }
    let rows: Vec<PollRow> = sqlx::query_as(&sql)
        .bind(group)
        .bind(topic)
        .bind(max)
        .bind(read_committed)
        .fetch_all(conn)
        .await?;
    let mut polled: Vec<Polled> = Vec::new();
    for PollRow {
        partition,
        start,
        row,
    } in rows
    {
        if polled.last().map(|p| p.partition) != Some(partition) {
            polled.push(Polled {
                partition,
                start,
                records: Vec::new(),
                next: start,
            });
        }
        let p = polled.last_mut().expect("pushed above");
        p.next = row.offset + 1;
        p.records
            .extend(row.into_record(topic, partition, read_committed));
    }
    Ok(polled)
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
