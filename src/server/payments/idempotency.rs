//! The idempotency table: claim a key, look it up, store the response, release or drop it.
//!
//! Rows live in daily partitions (`partition_day`). The primary key is
//! (partition_day, user_id, idem_key), as a partitioned table's key must include the partition
//! key, so it only makes a key unique within one day: the same key claimed yesterday and today
//! would both insert. That is why [`claim`]'s read and [`look_up`] search every partition still
//! inside the window instead of trusting the primary key of today's partition.

use sqlx::{Connection, SqliteConnection};

use crate::domain::clock::DAY_MS;
use crate::domain::transfer::{CLAIM_READ_SQL, CLAIM_SQL};

/// A key row's status, stored as its SQL text (`IN_PROGRESS`, `COMPLETED`) and bound into
/// every statement that reads or writes it. The claim's own INSERT, which the inspector prints
/// (`domain::transfer::CLAIM_SQL`), spells `IN_PROGRESS` out; a test ties the two.
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

/// What [`claim`] leaves: the key is this request's now, or a row inside the window holds it.
#[derive(Clone, Debug, PartialEq)]
pub enum Claim {
    /// This request's IN_PROGRESS row is committed in today's partition: run the transfer.
    Claimed,
    /// A row inside the window holds the key: the caller answers from it (replay, 409 or 422).
    Held(KeyRow),
}

/// Claims a key without looking first, in one short transaction:
/// 1. [`CLAIM_SQL`]: an INSERT of an IN_PROGRESS row into today's partition, `ON CONFLICT DO
///    NOTHING`. It decides: of two requests with one key, only one inserts today's row.
/// 2. [`CLAIM_READ_SQL`]: a read of the rows holding the key inside the window, which only reads
///    what won. The oldest row owns the key:
///    - the INSERT went in and its row is the oldest (the only one): claimed;
///    - the INSERT went in, but an earlier day's partition still inside the window holds the key
///      (a retry across midnight: today's primary key cannot see yesterday's row): the earlier
///      row owns the key, the row just inserted is deleted, and the caller answers from it;
///    - the INSERT did nothing and today's row is inside the window: held;
///    - the INSERT did nothing and today's row was created before the window (a window shorter
///      than a day): that row is forgotten, and one conditional UPDATE takes it over: claimed.
///
/// The row a held key answers from is the newest one inside the window, as [`look_up`]'s: only
/// look-then-write's race leaves more than one.
pub async fn claim(
    conn: &mut SqliteConnection,
    user: &str,
    key: &str,
    hash: &str,
    since_ms: i64,
    now_ms: i64,
) -> Result<Claim, sqlx::Error> {
    let today = partition_of(now_ms);
    // One transaction, so that no crash can leave the row a retry across midnight inserted
    // beside the earlier day's, nor a forgotten row half taken over.
    let mut tx = conn.begin_with("BEGIN IMMEDIATE").await?;
    let inserted = sqlx::query(CLAIM_SQL)
        .bind(today)
        .bind(user)
        .bind(key)
        .bind(hash)
        .bind(now_ms)
        .execute(&mut *tx)
        .await?
        .rows_affected()
        == 1;
    let rows: Vec<KeyRow> = sqlx::query_as(CLAIM_READ_SQL)
        .bind(user)
        .bind(key)
        .bind(since_ms)
        .fetch_all(&mut *tx)
        .await?;
    // The row just inserted: today's partition at this instant (its primary key and the
    // INSERT make it the only one).
    let ours = |row: &KeyRow| inserted && row.partition_day == today && row.created_ms == now_ms;
    let claim = match rows.first() {
        Some(oldest) if ours(oldest) => Claim::Claimed,
        Some(_) => {
            if inserted {
                sqlx::query(
                    "DELETE FROM idempotency_keys
                     WHERE partition_day = ?1 AND user_id = ?2 AND idem_key = ?3 AND created_ms = ?4",
                )
                .bind(today)
                .bind(user)
                .bind(key)
                .bind(now_ms)
                .execute(&mut *tx)
                .await?;
            }
            let held = rows.into_iter().rev().find(|row| !ours(row));
            Claim::Held(held.expect("the oldest row inside the window is not the one inserted"))
        }
        None => {
            // The row just inserted would be inside the window, so the INSERT met today's row,
            // and that row is older than the window: forgotten, it gives way to this claim.
            let taken = sqlx::query(
                "UPDATE idempotency_keys
                 SET request_hash = ?4, status = ?6, response_status = NULL, response_body = NULL,
                     created_ms = ?5, updated_ms = ?5
                 WHERE partition_day = ?1 AND user_id = ?2 AND idem_key = ?3 AND created_ms < ?7",
            )
            .bind(today)
            .bind(user)
            .bind(key)
            .bind(hash)
            .bind(now_ms)
            .bind(KeyStatus::InProgress)
            .bind(since_ms)
            .execute(&mut *tx)
            .await?
            .rows_affected();
            if taken != 1 {
                // Impossible inside the transaction: the INSERT met the row the read missed.
                return Err(sqlx::Error::RowNotFound);
            }
            Claim::Claimed
        }
    };
    tx.commit().await?;
    Ok(claim)
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

/// When each key still in progress was claimed, one time each, oldest first: a restart arms
/// recovery's look at each again.
pub async fn claim_times_in_progress(conn: &mut SqliteConnection) -> Result<Vec<i64>, sqlx::Error> {
    sqlx::query_scalar(
        "SELECT DISTINCT updated_ms FROM idempotency_keys WHERE status = ?1 ORDER BY updated_ms",
    )
    .bind(KeyStatus::InProgress)
    .fetch_all(conn)
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
        assert!(
            sql.contains("DO NOTHING"),
            "the INSERT decides, nothing else"
        );
        let read = crate::domain::transfer::CLAIM_READ_SQL;
        assert!(
            read.trim_start().starts_with("SELECT"),
            "the read only reads"
        );
    }
    use crate::server::store::{StoreName, Stores};

    async fn payments() -> (tempfile::TempDir, Stores) {
        let dir = tempfile::tempdir().unwrap();
        let stores = Stores::open(dir.path()).await.unwrap();
        stores.reset_services().await.unwrap();
        (dir, stores)
    }

    async fn rows_of(c: &mut SqliteConnection, user: &str, key: &str) -> Vec<(i64, String, i64)> {
        sqlx::query_as(
            "SELECT partition_day, status, created_ms FROM idempotency_keys
             WHERE user_id = ?1 AND idem_key = ?2 ORDER BY created_ms",
        )
        .bind(user)
        .bind(key)
        .fetch_all(c)
        .await
        .unwrap()
    }

    #[tokio::test]
    async fn the_insert_alone_decides_across_days_and_forgets_what_left_the_window() {
        let (_dir, stores) = payments().await;
        let mut c = stores.conn(StoreName::Payments).await.unwrap();
        let window = 48 * HOUR_MS;
        let day1 = DAY_MS + 9 * HOUR_MS;
        let claimed = |c| matches!(c, Claim::Claimed);
        // The first claim wins; the same key again, 50 ms later, loses to it.
        assert!(claimed(
            claim(&mut c, "shimul", "k", "h", day1 - window, day1)
                .await
                .unwrap()
        ));
        let lost = claim(&mut c, "shimul", "k", "h", day1 - window, day1 + 50)
            .await
            .unwrap();
        assert!(matches!(lost, Claim::Held(row) if row.created_ms == day1));
        // The next day the key sits in yesterday's partition, still inside the window: today's
        // primary key lets the INSERT in, the read finds the older row that owns the key.
        let day2 = day1 + DAY_MS;
        assert!(!claimed(
            claim(&mut c, "shimul", "k", "h", day2 - window, day2)
                .await
                .unwrap()
        ));
        // Another user's key of the same name is another key.
        assert!(claimed(
            claim(&mut c, "tithi", "k", "h", day2 - window, day2)
                .await
                .unwrap()
        ));
        // Past the window the old row is forgotten and the key can be claimed again.
        let day4 = day1 + 3 * DAY_MS;
        assert!(claimed(
            claim(&mut c, "shimul", "k", "h", day4 - window, day4)
                .await
                .unwrap()
        ));
        let days: Vec<i64> = rows_of(&mut c, "shimul", "k")
            .await
            .into_iter()
            .map(|(day, _, _)| day)
            .collect();
        assert_eq!(days, vec![1, 4], "day 1's row and day 4's");
    }

    /// A retry across midnight: claimed at day 1, 23:59, sent again at day 2, 00:01. Today's
    /// INSERT goes into day 2's empty partition, but day 1's row is inside the window and
    /// older: it owns the key, the retry is answered from it, and day 2's row goes again.
    #[tokio::test]
    async fn a_claim_across_midnight_is_answered_from_the_earlier_days_row() {
        let (_dir, stores) = payments().await;
        let mut c = stores.conn(StoreName::Payments).await.unwrap();
        let window = 48 * HOUR_MS;
        let before = 2 * DAY_MS - 60_000; // day 1, 23:59
        let after = 2 * DAY_MS + 60_000; // day 2, 00:01
        assert_eq!(
            claim(&mut c, "shimul", "k", "h", before - window, before)
                .await
                .unwrap(),
            Claim::Claimed
        );
        store_response(
            &mut c,
            "shimul",
            "k",
            "h",
            before - window,
            before + 80,
            201,
            "{}",
        )
        .await
        .unwrap();
        let retry = claim(&mut c, "shimul", "k", "h", after - window, after)
            .await
            .unwrap();
        let Claim::Held(row) = retry else {
            panic!("day 1's row owns the key: {retry:?}");
        };
        assert_eq!(
            (
                row.partition_day,
                row.status,
                row.response_status,
                row.created_ms
            ),
            (1, KeyStatus::Completed, Some(201), before)
        );
        assert_eq!(
            rows_of(&mut c, "shimul", "k").await,
            vec![(1, "COMPLETED".to_owned(), before)],
            "only day 1's row is left for the key"
        );
    }

    /// With a window shorter than a day, today's row can be older than the window: the INSERT
    /// meets it and does nothing, the read finds nothing inside the window, and one conditional
    /// UPDATE takes the forgotten row over for this claim.
    #[tokio::test]
    async fn todays_row_older_than_a_short_window_is_taken_over() {
        let (_dir, stores) = payments().await;
        let mut c = stores.conn(StoreName::Payments).await.unwrap();
        let window = HOUR_MS;
        let first = DAY_MS + 9 * HOUR_MS;
        assert_eq!(
            claim(&mut c, "shimul", "k", "h", first - window, first)
                .await
                .unwrap(),
            Claim::Claimed
        );
        store_response(
            &mut c,
            "shimul",
            "k",
            "h",
            first - window,
            first + 80,
            201,
            "{}",
        )
        .await
        .unwrap();
        // Half an hour on, inside the window: held by the completed row.
        let soon = first + HOUR_MS / 2;
        assert!(matches!(
            claim(&mut c, "shimul", "k", "other", soon - window, soon)
                .await
                .unwrap(),
            Claim::Held(row) if row.status == KeyStatus::Completed && row.request_hash == "h"
        ));
        // Two hours on, the same day: forgotten, and taken over.
        let late = first + 2 * HOUR_MS;
        assert_eq!(
            claim(&mut c, "shimul", "k", "other", late - window, late)
                .await
                .unwrap(),
            Claim::Claimed
        );
        let row = look_up(&mut c, "shimul", "k", late - window)
            .await
            .unwrap()
            .expect("the taken-over row is inside the window");
        assert_eq!(
            (row.partition_day, row.status, row.request_hash.as_str()),
            (1, KeyStatus::InProgress, "other")
        );
        assert_eq!((row.response_status, row.response_body), (None, None));
        assert_eq!((row.created_ms, row.updated_ms), (late, late));
        assert_eq!(rows_of(&mut c, "shimul", "k").await.len(), 1);
    }
}
