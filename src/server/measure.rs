//! The partition-drop calculator's live measurement (`POST /api/measure/drop-vs-delete`): a
//! scratch SQLite file in the data folder, filled one day at a time two ways (a table a day, as
//! a partitioned key table is; and one table with a `day` column and an index on it, as an
//! unpartitioned one is), and after each day the two ways of forgetting the oldest day timed
//! on real SQLite: `DROP TABLE keys_d1` against `DELETE FROM keys WHERE day = 1`.
//!
//! Each is timed inside a transaction that is then rolled back, so the next point measures the
//! same oldest day against one more day of rows. One measurement runs at a time; the file is
//! removed afterwards, whatever happened.

use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::time::Instant;

use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqliteSynchronous};
use sqlx::{Connection, SqliteConnection};
use tokio::sync::Mutex;

use crate::domain::calc::{DropPoint, DropReport, DropVsDelete};

/// One measurement at a time on the whole server: they share its disk and its cores.
static ONE_AT_A_TIME: Mutex<()> = Mutex::const_new(());

/// A scratch file that is removed when dropped, with its WAL and shared-memory files.
struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        for suffix in ["", "-wal", "-shm", "-journal"] {
            let mut p = self.0.clone().into_os_string();
            p.push(suffix);
            let _ = std::fs::remove_file(p);
        }
    }
}

/// Runs the measurement in `data_dir`.
pub async fn drop_vs_delete(data_dir: &Path, m: DropVsDelete) -> Result<DropReport, sqlx::Error> {
    let _turn = ONE_AT_A_TIME.lock().await;
    std::fs::create_dir_all(data_dir).map_err(sqlx::Error::Io)?;
    let scratch = Scratch(data_dir.join(format!("measure-{}.sqlite", uuid::Uuid::new_v4())));
    let options = SqliteConnectOptions::from_str("sqlite:")?
        .filename(&scratch.0)
        .create_if_missing(true)
        // The stores' own settings (ARCHITECTURE.md, "Sandboxes and their stores").
        .journal_mode(SqliteJournalMode::Wal)
        .synchronous(SqliteSynchronous::Normal);
    let mut db = SqliteConnection::connect_with(&options).await?;
    sqlx::query(
        "CREATE TABLE keys (key TEXT PRIMARY KEY, day INTEGER NOT NULL, response TEXT NOT NULL)",
    )
    .execute(&mut db)
    .await?;
    sqlx::query("CREATE INDEX keys_day ON keys (day)")
        .execute(&mut db)
        .await?;
    // About the lesson's 500 bytes a row with its stored answer.
    let response = format!(
        "{{\"txn\":\"TXN-88412\",\"amount\":500,\"pad\":\"{}\"}}",
        "x".repeat(400)
    );
    let (days, rows_per_day) = (m.days.get() as u32, m.rows_per_day.get() as u32);
    let mut points = Vec::with_capacity(days as usize);
    for day in 1..=days {
        let mut tx = db.begin().await?;
        sqlx::query(&format!(
            "CREATE TABLE keys_d{day} (key TEXT PRIMARY KEY, response TEXT NOT NULL)"
        ))
        .execute(&mut *tx)
        .await?;
        for row in 0..rows_per_day {
            let key = format!("{day:03}-{row:06}-{}", row.wrapping_mul(2_654_435_761));
            sqlx::query("INSERT INTO keys (key, day, response) VALUES (?1, ?2, ?3)")
                .bind(&key)
                .bind(day)
                .bind(&response)
                .execute(&mut *tx)
                .await?;
            sqlx::query(&format!(
                "INSERT INTO keys_d{day} (key, response) VALUES (?1, ?2)"
            ))
            .bind(&key)
            .bind(&response)
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;

        let mut tx = db.begin().await?;
        let started = Instant::now();
        sqlx::query("DROP TABLE keys_d1").execute(&mut *tx).await?;
        let drop_us = started.elapsed().as_micros() as u64;
        tx.rollback().await?;

        let mut tx = db.begin().await?;
        let started = Instant::now();
        sqlx::query("DELETE FROM keys WHERE day = 1")
            .execute(&mut *tx)
            .await?;
        let delete_us = started.elapsed().as_micros() as u64;
        tx.rollback().await?;

        points.push(DropPoint {
            days: day,
            drop_us,
            delete_us,
        });
    }
    db.close().await?;
    drop(scratch);
    Ok(DropReport {
        rows_per_day,
        points,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn every_day_is_measured_and_the_scratch_file_is_gone() {
        let dir = tempfile::tempdir().unwrap();
        let report = drop_vs_delete(dir.path(), DropVsDelete::new(3, 200).unwrap())
            .await
            .unwrap();
        assert_eq!(report.points.len(), 3);
        assert_eq!(
            report.points.iter().map(|p| p.days).collect::<Vec<_>>(),
            [1, 2, 3]
        );
        assert!(report.points.iter().all(|p| p.delete_us > 0));
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }
}
