//! Transactions: open one, add a consumer offset to it, end it with COMMIT or ABORT markers, and
//! the last stable offset that `read_committed` readers stop at.

use sqlx::SqliteConnection;

use super::*;

/// How many transactions of `transactional_id` are still open (a dead instance's, at most).
pub async fn open_transactions(
    conn: &mut SqliteConnection,
    transactional_id: &str,
) -> Result<i64, sqlx::Error> {
    sqlx::query_scalar(
        "SELECT COUNT(*) FROM transactions WHERE transactional_id = ?1 AND state = 'ONGOING'",
    )
    .bind(transactional_id)
    .fetch_one(conn)
    .await
}

/// Opens a transaction for a transactional producer. One statement, so it needs no store
/// transaction around it: the insert happens only if the producer is not fenced.
pub async fn begin_transaction(
    conn: &mut SqliteConnection,
    producer: Producer,
    transactional_id: &str,
    now_ms: i64,
) -> Result<i64, BrokerError> {
    let txn: Option<i64> = sqlx::query_scalar(
        "INSERT INTO transactions (transactional_id, producer_id, epoch, state, started_ms)
         SELECT ?1, ?2, ?3, 'ONGOING', ?4
         WHERE (SELECT epoch FROM producers WHERE producer_id = ?2) = ?3
         RETURNING txn_id",
    )
    .bind(transactional_id)
    .bind(producer.id)
    .bind(producer.epoch)
    .bind(now_ms)
    .fetch_optional(conn)
    .await?;
    txn.ok_or(BrokerError::Fenced(producer.id))
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
    // Its state, its offsets (on commit) and forgetting them: one command to the store, its
    // parameters unnumbered and bound in order (see `producer.rs`).
    let state = if commit { "COMMITTED" } else { "ABORTED" };
    sqlx::query(
        "UPDATE transactions SET state = ?, ended_ms = ? WHERE txn_id = ?;
         INSERT OR REPLACE INTO consumer_offsets (group_id, topic, partition, committed_offset)
         SELECT group_id, topic, partition, committed_offset FROM txn_offsets
         WHERE txn_id = ? AND ? = 'COMMITTED';
         DELETE FROM txn_offsets WHERE txn_id = ?",
    )
    .bind(state)
    .bind(now_ms)
    .bind(txn)
    .bind(txn)
    .bind(state)
    .bind(txn)
    .execute(conn)
    .await?;
    Ok(())
}

/// The last stable offset: the first offset of a still-open transaction in the partition, or the
/// end of the log. `read_committed` readers stop here. Every fetch asks, so it starts from the
/// open transactions (`CROSS JOIN` keeps SQLite to that order) and finds their records by
/// index: a handful of rows, not the partition's whole log.
pub async fn last_stable_offset(
    conn: &mut SqliteConnection,
    topic: &str,
    partition: i64,
) -> Result<i64, sqlx::Error> {
    sqlx::query_scalar(
        "SELECT COALESCE(
           (SELECT MIN(r.\"offset\") FROM transactions t CROSS JOIN records r ON r.txn_id = t.txn_id
            WHERE t.state = 'ONGOING' AND r.topic = ?1 AND r.partition = ?2),
           (SELECT next_offset FROM partitions WHERE topic = ?1 AND partition = ?2))",
    )
    .bind(topic)
    .bind(partition)
    .fetch_one(conn)
    .await
}

/// Every partition's last stable offset, as `(topic, partition, offset)`: what the inspector
/// shows beside the log's end, read by the same rule as [`last_stable_offset`].
pub async fn last_stable_offsets(
    conn: &mut SqliteConnection,
) -> Result<Vec<(String, i64, i64)>, sqlx::Error> {
    sqlx::query_as(
        "SELECT p.topic, p.partition, COALESCE(
           (SELECT MIN(r.\"offset\") FROM transactions t CROSS JOIN records r ON r.txn_id = t.txn_id
            WHERE t.state = 'ONGOING' AND r.topic = p.topic AND r.partition = p.partition),
           p.next_offset)
         FROM partitions p ORDER BY p.topic, p.partition",
    )
    .fetch_all(conn)
    .await
}
