//! The sandbox's stores: one SQLite file per service, one pool per file.
//!
//! No transaction ever spans two stores (that is what makes the outbox and the inboxes
//! necessary). Every store runs in WAL mode with `synchronous = NORMAL` (a commit survives a
//! process crash; only an OS crash can lose the last few), an explicit busy timeout, and writes
//! open with `BEGIN IMMEDIATE` so a writer waits for the lock up front instead of failing with
//! SQLITE_BUSY halfway through.

use std::collections::BTreeMap;
use std::path::Path;
use std::str::FromStr;
use std::time::Duration;

use sqlx::migrate::Migrator;
use sqlx::sqlite::{
    SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteRow,
    SqliteSynchronous,
};
use sqlx::{Column, Row, Sqlite, Transaction, TypeInfo, ValueRef};

use crate::domain::clock::DAY_MS;
use crate::domain::state::{SHIMUL_OPENING, TITHI_OPENING};

/// How long a statement waits for another connection's lock before giving up.
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);
/// The most rows of one table a snapshot carries (the newest ones).
pub const SNAPSHOT_ROWS: i64 = 1_000;

/// One service's store.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum StoreName {
    Payments,
    Broker,
    Fraud,
    Wallet,
    Sms,
    /// The sandbox's own store: settings, clock and the timeline's event log.
    Lab,
}

static PAYMENTS: Migrator = sqlx::migrate!("migrations/payments");
static BROKER: Migrator = sqlx::migrate!("migrations/broker");
static FRAUD: Migrator = sqlx::migrate!("migrations/fraud");
static WALLET: Migrator = sqlx::migrate!("migrations/wallet");
static SMS: Migrator = sqlx::migrate!("migrations/sms");
static LAB: Migrator = sqlx::migrate!("migrations/lab");

impl StoreName {
    pub const ALL: [StoreName; 6] = [
        StoreName::Payments,
        StoreName::Broker,
        StoreName::Fraud,
        StoreName::Wallet,
        StoreName::Sms,
        StoreName::Lab,
    ];

    /// The store's name in `GET …/state` table keys (`payments.accounts`) and its file name.
    pub fn id(self) -> &'static str {
        match self {
            StoreName::Payments => "payments",
            StoreName::Broker => "broker",
            StoreName::Fraud => "fraud",
            StoreName::Wallet => "wallet",
            StoreName::Sms => "sms",
            StoreName::Lab => "lab",
        }
    }

    fn migrator(self) -> &'static Migrator {
        match self {
            StoreName::Payments => &PAYMENTS,
            StoreName::Broker => &BROKER,
            StoreName::Fraud => &FRAUD,
            StoreName::Wallet => &WALLET,
            StoreName::Sms => &SMS,
            StoreName::Lab => &LAB,
        }
    }

    /// The rows a store holds at the lesson's start: statements with the numbers they bind.
    fn seed(self) -> &'static [(&'static str, &'static [i64])] {
        match self {
            StoreName::Payments => &[(
                "INSERT INTO accounts (user_id, opening_balance) VALUES ('shimul', ?1), ('tithi', ?2)",
                &[SHIMUL_OPENING, TITHI_OPENING],
            )],
            StoreName::Wallet => &[(
                "INSERT INTO wallets (user_id, opening_balance) VALUES ('tithi', ?1)",
                &[TITHI_OPENING],
            )],
            StoreName::Broker => &[
                (
                    "INSERT INTO topics (name, partitions, retention_ms)
                     VALUES ('transfers', 3, ?1), ('approved-transfers', 3, ?1)",
                    &[LOG_RETENTION_MS],
                ),
                (
                    "WITH RECURSIVE p(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM p WHERE n < 63)
                     INSERT INTO partitions (topic, partition)
                     SELECT t.name, p.n FROM topics AS t JOIN p ON p.n < t.partitions",
                    &[],
                ),
            ],
            StoreName::Fraud | StoreName::Sms | StoreName::Lab => &[],
        }
    }
}

/// How long the broker keeps records: Kafka's default of 7 days.
pub const LOG_RETENTION_MS: i64 = 7 * DAY_MS;

/// The six pools of one sandbox.
#[derive(Clone, Debug)]
pub struct Stores {
    pools: BTreeMap<StoreName, SqlitePool>,
}

impl Stores {
    /// Opens (creating if needed) and migrates every store of a sandbox in `dir`.
    pub async fn open(dir: &Path) -> Result<Stores, sqlx::Error> {
        let mut pools = BTreeMap::new();
        for name in StoreName::ALL {
            let file = dir.join(format!("{}.sqlite", name.id()));
            let options = SqliteConnectOptions::from_str("sqlite:")?
                .filename(&file)
                .create_if_missing(true)
                .journal_mode(SqliteJournalMode::Wal)
                .synchronous(SqliteSynchronous::Normal)
                .busy_timeout(BUSY_TIMEOUT)
                .foreign_keys(true);
            // Two connections: the sandbox's owner task writes through one; the event stream
            // reads the log through the other without waiting for a step to finish.
            // No test query before each use: a local file's connection does not go stale as a
            // network one does, and the test is a round trip to SQLite's thread per acquire.
            let pool = SqlitePoolOptions::new()
                .max_connections(2)
                .min_connections(0)
                .test_before_acquire(false)
                .idle_timeout(Duration::from_secs(60))
                .connect_with(options)
                .await?;
            name.migrator().run(&pool).await?;
            pools.insert(name, pool);
        }
        Ok(Stores { pools })
    }

    pub fn pool(&self, name: StoreName) -> &SqlitePool {
        self.pools
            .get(&name)
            .expect("Stores::open opens a pool for every StoreName")
    }

    /// Starts a write transaction that holds the store's write lock from its first statement.
    pub async fn begin(
        &self,
        name: StoreName,
    ) -> Result<Transaction<'static, Sqlite>, sqlx::Error> {
        self.pool(name).begin_with("BEGIN IMMEDIATE").await
    }

    /// Empties every service table and puts back the rows of the lesson's start. The lab store's
    /// own tables are left to the sandbox, which keeps its id and seed.
    pub async fn reset_services(&self) -> Result<(), sqlx::Error> {
        for name in StoreName::ALL {
            if name == StoreName::Lab {
                continue;
            }
            let tables = self.table_names(name).await?;
            let mut tx = self.begin(name).await?;
            // Children before parents, for the foreign keys: delete in reverse creation order.
            for table in tables.iter().rev() {
                sqlx::query(&format!("DELETE FROM {}", quote_ident(table)))
                    .execute(&mut *tx)
                    .await?;
            }
            for (sql, params) in name.seed() {
                let mut query = sqlx::query(sql);
                for p in *params {
                    query = query.bind(*p);
                }
                query.execute(&mut *tx).await?;
            }
            tx.commit().await?;
        }
        Ok(())
    }

    /// The user tables of a store, in creation order.
    pub async fn table_names(&self, name: StoreName) -> Result<Vec<String>, sqlx::Error> {
        sqlx::query_scalar(
            "SELECT name FROM sqlite_master
             WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> '_sqlx_migrations'
             ORDER BY rowid",
        )
        .fetch_all(self.pool(name))
        .await
    }

    /// Every table of every store as JSON rows, keyed `store.table`: the inspector's view. Each
    /// table carries at most `rows` rows, the newest ([`SNAPSHOT_ROWS`] for the API).
    pub async fn snapshot(
        &self,
        rows: i64,
    ) -> Result<BTreeMap<String, Vec<serde_json::Value>>, sqlx::Error> {
        let mut tables = BTreeMap::new();
        for name in StoreName::ALL {
            for table in self.table_names(name).await? {
                let sql = format!(
                    "SELECT * FROM (SELECT rowid AS _rowid, * FROM {t} ORDER BY rowid DESC LIMIT ?1)
                     ORDER BY _rowid",
                    t = quote_ident(&table)
                );
                let rows = sqlx::query(&sql)
                    .bind(rows)
                    .fetch_all(self.pool(name))
                    .await?;
                tables.insert(
                    format!("{}.{}", name.id(), table),
                    rows.iter().map(row_to_json).collect(),
                );
            }
        }
        Ok(tables)
    }

    /// Closes every pool, waiting for their connections to finish.
    pub async fn close(&self) {
        for pool in self.pools.values() {
            pool.close().await;
        }
    }
}

/// Quotes an identifier read from `sqlite_master` (never user input) for use in SQL text.
fn quote_ident(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// A row as a JSON object, each value by its stored SQLite type; the helper `_rowid` is dropped.
fn row_to_json(row: &SqliteRow) -> serde_json::Value {
    let mut object = serde_json::Map::new();
    for (i, column) in row.columns().iter().enumerate() {
        if column.name() == "_rowid" {
            continue;
        }
        let value = match row.try_get_raw(i) {
            Ok(raw) if !raw.is_null() => match raw.type_info().name() {
                "INTEGER" => row.try_get::<i64, _>(i).map(Into::into).ok(),
                "REAL" => row.try_get::<f64, _>(i).map(Into::into).ok(),
                "TEXT" => row.try_get::<String, _>(i).map(Into::into).ok(),
                _ => row
                    .try_get::<Vec<u8>, _>(i)
                    .map(|b| {
                        b.iter()
                            .map(|x| format!("{x:02x}"))
                            .collect::<String>()
                            .into()
                    })
                    .ok(),
            },
            _ => None,
        };
        object.insert(
            column.name().to_owned(),
            value.unwrap_or(serde_json::Value::Null),
        );
    }
    serde_json::Value::Object(object)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn stores_open_in_wal_and_reset_to_the_lesson_start() {
        let dir = tempfile::tempdir().unwrap();
        let stores = Stores::open(dir.path()).await.unwrap();
        stores.reset_services().await.unwrap();
        let mode: String = sqlx::query_scalar("PRAGMA journal_mode")
            .fetch_one(stores.pool(StoreName::Payments))
            .await
            .unwrap();
        assert_eq!(mode, "wal");
        let tables = stores.snapshot(SNAPSHOT_ROWS).await.unwrap();
        let accounts = &tables["payments.accounts"];
        assert_eq!(accounts.len(), 2);
        assert_eq!(accounts[0]["user_id"], "shimul");
        assert_eq!(accounts[0]["opening_balance"], 2000);
        assert_eq!(tables["broker.partitions"].len(), 6);
        assert!(tables["wallet.inbox"].is_empty());
        assert!(tables.contains_key("lab.events"));
        // A second reset gives the same rows, not twice as many.
        stores.reset_services().await.unwrap();
        assert_eq!(
            stores.snapshot(SNAPSHOT_ROWS).await.unwrap()["payments.accounts"].len(),
            2
        );
        stores.close().await;
    }
}
