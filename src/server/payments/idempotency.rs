//! The idempotency table: claim a key, look it up, store the response, release or drop it.
//!
//! Rows live in daily partitions (`partition_day`). The primary key is
//! (partition_day, user_id, idem_key), as a partitioned table's key must include the partition
//! key, so it only makes a key unique within one day: the same key claimed yesterday and today
//! would both insert. That is why [`look_up`] searches every partition still inside the window
//! instead of trusting the primary key of today's partition.

use sqlx::SqliteConnection;

use crate::domain::clock::DAY_MS;

/// A key row's status, stored as its SQL text (`IN_PROGRESS`, `COMPLETED`) and bound into
/// every statement that reads or writes it. The claim's own statement, which the inspector
/// prints (`domain::transfer::CLAIM_SQL`), spells `IN_PROGRESS` out; a test ties the two.
#[derive(Clone, Copy, Debug, PartialEq, Eq, sqlx::Type)]
#[sqlx(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum KeyStatus {
    /// Claimed; the work is running (or its instance crashed: stuck recovery settles it).
    InProgress,
    /// The answer is stored and every retry gets it.
    Completed,
}

impl KeyStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            KeyStatus::InProgress => "IN_PROGRESS",
            KeyStatus::Completed => "COMPLETED",
        }
    }
}

/// The partition a virtual instant falls in: its day, counting from 0.
pub fn partition_of(at_ms: i64) -> i64 {
    at_ms.div_euclid(DAY_MS)
}

/// A key's row as the look-up sees it.
#[derive(Clone, Debug, PartialEq, sqlx::FromRow)]
pub struct KeyRow {
    pub partition_day: i64,
    pub status: KeyStatus,
    pub request_hash: String,
    pub response_status: Option<i64>,
    pub response_body: Option<String>,
    pub created_ms: i64,
    pub updated_ms: i64,
}

/// The newest row for this user and key created at or after `since_ms`, in any partition.
pub async fn look_up(
    conn: &mut SqliteConnection,
    user: &str,
    key: &str,
    since_ms: i64,
) -> Result<Option<KeyRow>, sqlx::Error> {
    sqlx::query_as(
        "SELECT partition_day, status, request_hash, response_status, response_body, created_ms, updated_ms
         FROM idempotency_keys
         WHERE user_id = ?1 AND idem_key = ?2 AND created_ms >= ?3
         ORDER BY created_ms DESC LIMIT 1",
    )
    .bind(user)
    .bind(key)
    .bind(since_ms)
    .fetch_optional(conn)
    .await
}

/// Claims a key with one statement, without looking first: an INSERT of an IN_PROGRESS row into
/// today's partition whose conflict decides. `false` when the key is already held inside the
/// window; the caller then reads that row to answer (replay, 409 or 422).
///
/// SQLite has no partitioned tables, so today's primary key alone cannot see a claim made on an
/// earlier day that is still inside the window: the same statement also refuses to insert when
/// such a row exists (`WHERE NOT EXISTS`). It is still one atomic statement, not a look-up
/// followed by a write. A row already in today's partition but created before the window is
/// forgotten: the claim takes its place.
pub async fn claim(
    conn: &mut SqliteConnection,
    user: &str,
    key: &str,
    hash: &str,
    since_ms: i64,
    now_ms: i64,
) -> Result<bool, sqlx::Error> {
    let claimed = sqlx::query(crate::domain::transfer::CLAIM_SQL)
        .bind(partition_of(now_ms))
        .bind(user)
        .bind(key)
        .bind(hash)
        .bind(now_ms)
        .bind(since_ms)
        .execute(conn)
        .await?
        .rows_affected();
    Ok(claimed == 1)
}

/// Stores the response for a key. The claimed IN_PROGRESS row inside the window is completed;
/// without one (look-then-write, or a row released meanwhile) today's partition gets the row,
/// replacing whatever it held: look-then-write's last writer wins.
#[allow(clippy::too_many_arguments)]
pub async fn store_response(
    conn: &mut SqliteConnection,
    user: &str,
    key: &str,
    hash: &str,
    since_ms: i64,
    now_ms: i64,
    status: u16,
    body: &str,
) -> Result<(), sqlx::Error> {
    let updated = sqlx::query(
        "UPDATE idempotency_keys
         SET status = ?7, response_status = ?1, response_body = ?2, updated_ms = ?3
         WHERE user_id = ?4 AND idem_key = ?5 AND status = ?8 AND created_ms >= ?6",
    )
    .bind(status)
    .bind(body)
    .bind(now_ms)
    .bind(user)
    .bind(key)
    .bind(since_ms)
    .bind(KeyStatus::Completed)
    .bind(KeyStatus::InProgress)
    .execute(&mut *conn)
    .await?
    .rows_affected();
    if updated == 0 {
        sqlx::query(
            "INSERT OR REPLACE INTO idempotency_keys
               (partition_day, user_id, idem_key, request_hash, status, response_status,
                response_body, created_ms, updated_ms)
             VALUES (?1, ?2, ?3, ?4, ?8, ?5, ?6, ?7, ?7)",
        )
        .bind(partition_of(now_ms))
        .bind(user)
        .bind(key)
        .bind(hash)
        .bind(status)
        .bind(body)
        .bind(now_ms)
        .bind(KeyStatus::Completed)
        .execute(conn)
        .await?;
    }
    Ok(())
}

/// A stuck claim: IN_PROGRESS since before the recovery cut-off.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct StuckRow {
    pub partition_day: i64,
    pub user_id: String,
    pub idem_key: String,
    pub request_hash: String,
    pub created_ms: i64,
}

pub async fn stuck(
    conn: &mut SqliteConnection,
    before_ms: i64,
) -> Result<Vec<StuckRow>, sqlx::Error> {
    sqlx::query_as(
        "SELECT partition_day, user_id, idem_key, request_hash, created_ms FROM idempotency_keys
         WHERE status = ?2 AND updated_ms < ?1 ORDER BY created_ms, user_id, idem_key",
    )
    .bind(before_ms)
    .bind(KeyStatus::InProgress)
    .fetch_all(conn)
    .await
}

/// Completes a stuck row with a response found elsewhere (the ledger).
pub async fn complete_stuck(
    conn: &mut SqliteConnection,
    row: &StuckRow,
    now_ms: i64,
    status: u16,
    body: &str,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "UPDATE idempotency_keys
         SET status = ?7, response_status = ?1, response_body = ?2, updated_ms = ?3
         WHERE partition_day = ?4 AND user_id = ?5 AND idem_key = ?6",
    )
    .bind(status)
    .bind(body)
    .bind(now_ms)
    .bind(row.partition_day)
    .bind(&row.user_id)
    .bind(&row.idem_key)
    .bind(KeyStatus::Completed)
    .execute(conn)
    .await?;
    Ok(())
}

/// Deletes a stuck row so that a retry of the key runs.
pub async fn release(conn: &mut SqliteConnection, row: &StuckRow) -> Result<(), sqlx::Error> {
    sqlx::query(
        "DELETE FROM idempotency_keys WHERE partition_day = ?1 AND user_id = ?2 AND idem_key = ?3",
    )
    .bind(row.partition_day)
    .bind(&row.user_id)
    .bind(&row.idem_key)
    .execute(conn)
    .await?;
    Ok(())
}

/// The (user, key) of every row in this status created at or after `since_ms`: the damage
/// meter's look at the keys still held IN_PROGRESS.
pub async fn held(
    conn: &mut SqliteConnection,
    status: KeyStatus,
    since_ms: i64,
) -> Result<Vec<(String, String)>, sqlx::Error> {
    sqlx::query_as(
        "SELECT user_id, idem_key FROM idempotency_keys WHERE status = ?1 AND created_ms >= ?2",
    )
    .bind(status)
    .bind(since_ms)
    .fetch_all(conn)
    .await
}

/// A stored answer sent to a request whose body differs from the one that made it: what the
/// fingerprint check would have refused with 422. The API notes it where it replays (only with
/// `fingerprint_check` off can it happen), for the damage meter; no guard reads it.
pub struct WrongReplay<'a> {
    pub user: &'a str,
    pub key: &'a str,
    /// The hash of the body that made the stored answer.
    pub stored_hash: &'a str,
    /// The hash of the body this answer went to.
    pub request_hash: &'a str,
    pub status: u16,
    pub at_ms: i64,
}

/// Notes a [`WrongReplay`] in `wrong_replays`.
pub async fn note_wrong_replay(
    conn: &mut SqliteConnection,
    r: &WrongReplay<'_>,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "INSERT INTO wrong_replays (user_id, idem_key, stored_hash, request_hash, status, at_ms)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )
    .bind(r.user)
    .bind(r.key)
    .bind(r.stored_hash)
    .bind(r.request_hash)
    .bind(r.status)
    .bind(r.at_ms)
    .execute(conn)
    .await?;
    Ok(())
}

/// How many stored answers went to another body.
pub async fn wrong_replays(conn: &mut SqliteConnection) -> Result<i64, sqlx::Error> {
    sqlx::query_scalar("SELECT COUNT(*) FROM wrong_replays")
        .fetch_one(conn)
        .await
}

/// Drops every partition whose whole day ended at or before `cutoff_ms`: the days dropped and
/// the rows they held.
pub async fn drop_partitions(
    conn: &mut SqliteConnection,
    cutoff_ms: i64,
) -> Result<(Vec<i64>, u64), sqlx::Error> {
    // A partition is whole-day: day d ends at (d + 1) * DAY_MS.
    let last_day = cutoff_ms.div_euclid(DAY_MS) - 1;
    let days: Vec<i64> = sqlx::query_scalar(
        "SELECT DISTINCT partition_day FROM idempotency_keys WHERE partition_day <= ?1 ORDER BY 1",
    )
    .bind(last_day)
    .fetch_all(&mut *conn)
    .await?;
    let rows = sqlx::query("DELETE FROM idempotency_keys WHERE partition_day <= ?1")
        .bind(last_day)
        .execute(conn)
        .await?
        .rows_affected();
    Ok((days, rows))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::clock::HOUR_MS;

    #[test]
    fn the_claim_the_inspector_prints_writes_the_status_the_code_reads() {
        let sql = crate::domain::transfer::CLAIM_SQL;
        assert!(sql.contains(&format!("'{}'", KeyStatus::InProgress.as_str())));
        assert!(!sql.contains(KeyStatus::Completed.as_str()));
    }
    use crate::server::store::{StoreName, Stores};

    #[tokio::test]
    async fn the_insert_alone_decides_across_days_and_forgets_what_left_the_window() {
        let dir = tempfile::tempdir().unwrap();
        let stores = Stores::open(dir.path()).await.unwrap();
        stores.reset_services().await.unwrap();
        let mut c = stores.conn(StoreName::Payments).await.unwrap();
        let window = 48 * HOUR_MS;
        let day1 = DAY_MS + 9 * HOUR_MS;
        // The first claim wins; the same key again, 50 ms later, loses.
        assert!(claim(&mut c, "shimul", "k", "h", day1 - window, day1)
            .await
            .unwrap());
        assert!(!claim(&mut c, "shimul", "k", "h", day1 - window, day1 + 50)
            .await
            .unwrap());
        // The next day the key sits in yesterday's partition, still inside the window: today's
        // primary key would let it in, the statement does not.
        let day2 = day1 + DAY_MS;
        assert!(!claim(&mut c, "shimul", "k", "h", day2 - window, day2)
            .await
            .unwrap());
        // Another user's key of the same name is another key.
        assert!(claim(&mut c, "tithi", "k", "h", day2 - window, day2)
            .await
            .unwrap());
        // Past the window the old row is forgotten and the key can be claimed again.
        let day4 = day1 + 3 * DAY_MS;
        assert!(claim(&mut c, "shimul", "k", "h", day4 - window, day4)
            .await
            .unwrap());
        let rows: i64 = sqlx::query_scalar(
            "SELECT COUNT(*) FROM idempotency_keys WHERE user_id = 'shimul' AND idem_key = 'k'",
        )
        .fetch_one(&mut *c)
        .await
        .unwrap();
        assert_eq!(rows, 2, "day 1's row and day 4's");
    }
}
