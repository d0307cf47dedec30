//! The sandbox's stores: one SQLite file per service, one connection per file.
//!
//! No transaction ever spans two stores (that is what makes the outbox and the inboxes
//! necessary). Every store runs in WAL mode with `synchronous = NORMAL` (a commit survives a
//! process crash; only an OS crash can lose the last few) and an explicit busy timeout.
//!
//! A sandbox's owner task does all of its work one thing at a time, so each store has exactly
//! one connection, held open while the store is in use ([`Stores::conn`], behind an async
//! lock, so an event stream reading the log waits for at most one statement of the owner's)
//! and closed once it has been idle ([`Stores::close_idle`]); the next use opens it again. With
//! one connection a file, each is opened in `locking_mode = EXCLUSIVE`: the write lock is taken
//! once and kept, and the WAL's index lives in the connection's memory instead of a `-shm`
//! file, so an open store costs two file descriptors (the file and its `-wal`). Holding the
//! connection instead of borrowing one from a pool for every statement also saves the pool's
//! hand-over, which costs a round trip to SQLite's thread each time (ARCHITECTURE.md, "Sandboxes
//! and their stores").
//!
//! Its parts: the rows changed since a screen last read them (`changes.rs`), the online copy of
//! a store for rewind (`backup.rs`) and the inspector's reads of every table (`dump.rs`).

use std::collections::BTreeMap;
use std::ops::{Deref, DerefMut};
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use sqlx::migrate::Migrator;
use sqlx::sqlite::{
    SqliteConnectOptions, SqliteConnection, SqliteJournalMode, SqliteLockingMode,
    SqliteSynchronous, SqliteTransactionManager,
};
use sqlx::{ConnectOptions, Connection, TransactionManager};
use tokio::sync::{Mutex, MutexGuard};

use crate::domain::clock::DAY_MS;
use crate::domain::state::{SHIMUL_OPENING, TITHI_OPENING};

mod backup;
mod changes;
mod dump;

pub use backup::copy_into;
use changes::note_changes;
pub use changes::Changes;
use dump::quote_ident;
pub use dump::Snapshot;

/// How long opening a store waits for another connection's lock before giving up (a sandbox's
/// folder is only ever opened by one process, so this waits only for a closing one).
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);
/// How long a caller waits for a store's connection before giving up, as a pool's acquire
/// would: the owner holds it for one step at most, so a long wait means a caller asked for a
/// store it already holds, which must fail loudly instead of hanging.
const LOCK_TIMEOUT: Duration = Duration::from_secs(30);
/// How long a store may sit unused before its connection is closed.
pub const STORE_IDLE: Duration = Duration::from_secs(10);
/// The most rows of one table a snapshot carries (the newest ones).
pub const SNAPSHOT_ROWS: i64 = 1_000;
/// The most changed rows [`Changes`] remembers before it gives up and says "everything": past
/// this, a screen reads the whole state again, which is cheaper than the list.
const MAX_CHANGES: usize = 5_000;

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

    /// The store's file in the sandbox's folder.
    pub fn file(self) -> String {
        format!("{}.sqlite", self.id())
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

/// The six stores of one sandbox: a connection each, opened when used and closed when idle.
/// Clones share the connections.
#[derive(Clone)]
pub struct Stores {
    inner: Arc<Inner>,
}

struct Inner {
    dir: PathBuf,
    slots: BTreeMap<StoreName, Mutex<Slot>>,
    /// Rows written or deleted since [`Stores::take_changes`] last took them, noted by each
    /// connection's update hook as SQLite makes the change.
    changes: Arc<std::sync::Mutex<Changes>>,
}

/// One store's connection, if open, and when it was last handed out.
struct Slot {
    conn: Option<SqliteConnection>,
    used: Instant,
    /// Set by [`Stores::close`]: nothing opens the store again through these `Stores`.
    closed: bool,
}

impl std::fmt::Debug for Stores {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Stores")
            .field("dir", &self.inner.dir)
            .finish_non_exhaustive()
    }
}

/// A store's connection, held: nobody else uses the store until it is dropped.
pub struct StoreConn<'a> {
    slot: MutexGuard<'a, Slot>,
}

impl Deref for StoreConn<'_> {
    type Target = SqliteConnection;
    fn deref(&self) -> &SqliteConnection {
        self.slot.conn.as_ref().expect("a handed-out store is open")
    }
}

impl DerefMut for StoreConn<'_> {
    fn deref_mut(&mut self) -> &mut SqliteConnection {
        self.slot.conn.as_mut().expect("a handed-out store is open")
    }
}

/// A write transaction on one store. Dropped without [`StoreTx::commit`], it is rolled back
/// before the connection's next statement.
pub struct StoreTx<'a> {
    conn: StoreConn<'a>,
    open: bool,
}

impl StoreTx<'_> {
    pub async fn commit(mut self) -> Result<(), sqlx::Error> {
        SqliteTransactionManager::commit(&mut self.conn).await?;
        self.open = false;
        Ok(())
    }
}

impl Drop for StoreTx<'_> {
    fn drop(&mut self) {
        if self.open {
            SqliteTransactionManager::start_rollback(&mut self.conn);
        }
    }
}

impl Deref for StoreTx<'_> {
    type Target = SqliteConnection;
    fn deref(&self) -> &SqliteConnection {
        &self.conn
    }
}

impl DerefMut for StoreTx<'_> {
    fn deref_mut(&mut self) -> &mut SqliteConnection {
        &mut self.conn
    }
}

/// How every store's connection is opened (also what `benches/driver.rs` opens its own with).
pub fn connect_options(file: &Path) -> Result<SqliteConnectOptions, sqlx::Error> {
    Ok(SqliteConnectOptions::from_str("sqlite:")?
        .filename(file)
        .create_if_missing(true)
        .locking_mode(SqliteLockingMode::Exclusive)
        .journal_mode(SqliteJournalMode::Wal)
        .synchronous(SqliteSynchronous::Normal)
        .busy_timeout(BUSY_TIMEOUT)
        .foreign_keys(true))
}

impl Stores {
    /// Opens (creating if needed) and migrates every store of a sandbox in `dir`.
    pub async fn open(dir: &Path) -> Result<Stores, sqlx::Error> {
        let mut slots = BTreeMap::new();
        let changes = Arc::new(std::sync::Mutex::new(Changes::default()));
        for name in StoreName::ALL {
            let mut conn = connect_options(&dir.join(name.file()))?.connect().await?;
            name.migrator().run_direct(&mut conn).await?;
            note_changes(&mut conn, name, &changes).await?;
            slots.insert(
                name,
                Mutex::new(Slot {
                    conn: Some(conn),
                    used: Instant::now(),
                    closed: false,
                }),
            );
        }
        Ok(Stores {
            inner: Arc::new(Inner {
                dir: dir.to_path_buf(),
                slots,
                changes,
            }),
        })
    }

    fn slot(&self, name: StoreName) -> &Mutex<Slot> {
        self.inner
            .slots
            .get(&name)
            .expect("Stores::open makes a slot for every StoreName")
    }

    /// The store's connection, opened again first if it was closed for being idle.
    pub async fn conn(&self, name: StoreName) -> Result<StoreConn<'_>, sqlx::Error> {
        let mut slot = tokio::time::timeout(LOCK_TIMEOUT, self.slot(name).lock())
            .await
            .map_err(|_| sqlx::Error::PoolTimedOut)?;
        if slot.closed {
            return Err(sqlx::Error::PoolClosed);
        }
        if slot.conn.is_none() {
            let file = self.inner.dir.join(name.file());
            let mut conn = connect_options(&file)?.connect().await?;
            note_changes(&mut conn, name, &self.inner.changes).await?;
            slot.conn = Some(conn);
        }
        slot.used = Instant::now();
        Ok(StoreConn { slot })
    }

    /// Starts a write transaction on one store. The connection is the store's only one, so
    /// nothing can take the write lock from under it.
    pub async fn begin(&self, name: StoreName) -> Result<StoreTx<'_>, sqlx::Error> {
        let mut conn = self.conn(name).await?;
        SqliteTransactionManager::begin(&mut conn, None).await?;
        Ok(StoreTx { conn, open: true })
    }

    /// Closes the connection of every service store unused for `idle` or longer (a store in
    /// use is left alone), and says when the next one will have been idle that long. The lab
    /// store stays open: event streams read its log without asking the owner.
    pub async fn close_idle(&self, idle: Duration) -> Option<Instant> {
        let mut next = None;
        for (name, slot) in &self.inner.slots {
            if *name == StoreName::Lab {
                continue;
            }
            let Ok(mut slot) = slot.try_lock() else {
                continue;
            };
            if slot.conn.is_none() {
                continue;
            }
            let due = slot.used + idle;
            if due <= Instant::now() {
                if let Some(conn) = slot.conn.take() {
                    let _ = conn.close().await;
                }
            } else {
                next = Some(next.map_or(due, |n: Instant| n.min(due)));
            }
        }
        next
    }

    /// How many of the stores have a connection open.
    #[cfg(test)]
    async fn open_count(&self) -> usize {
        let mut n = 0;
        for slot in self.inner.slots.values() {
            n += usize::from(slot.lock().await.conn.is_some());
        }
        n
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
        self.changed_everything();
        Ok(())
    }

    /// Closes every store, waiting for statements under way to finish; nothing opens them
    /// again through these `Stores` (or their clones).
    pub async fn close(&self) {
        for slot in self.inner.slots.values() {
            let mut slot = slot.lock().await;
            slot.closed = true;
            if let Some(conn) = slot.conn.take() {
                let _ = conn.close().await;
            }
        }
    }
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
            .fetch_one(&mut *stores.conn(StoreName::Payments).await.unwrap())
            .await
            .unwrap();
        assert_eq!(mode, "wal");
        let tables = stores.snapshot(SNAPSHOT_ROWS).await.unwrap().tables;
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
            stores.snapshot(SNAPSHOT_ROWS).await.unwrap().tables["payments.accounts"].len(),
            2
        );
        stores.close().await;
    }

    #[tokio::test]
    async fn an_idle_store_closes_and_opens_again_with_its_rows() {
        let dir = tempfile::tempdir().unwrap();
        let stores = Stores::open(dir.path()).await.unwrap();
        stores.reset_services().await.unwrap();
        // One connection a file, in exclusive locking mode: the WAL's index is in memory, so
        // no store has a -shm file, and its write lock is its own.
        for name in StoreName::ALL {
            assert!(dir.path().join(name.file()).exists());
            let shm = dir.path().join(format!("{}-shm", name.file()));
            assert!(!shm.exists(), "{} has a -shm file", name.id());
        }
        assert_eq!(stores.open_count().await, StoreName::ALL.len());
        // Not idle long enough: nothing closes, and the next check is due.
        assert!(stores.close_idle(Duration::from_secs(3600)).await.is_some());
        assert_eq!(stores.open_count().await, StoreName::ALL.len());
        // Idle: every service store closes, and nothing is due; the lab store, which event
        // streams read, stays open.
        assert_eq!(stores.close_idle(Duration::ZERO).await, None);
        assert_eq!(stores.open_count().await, 1);
        // The next use opens the store again, rows and all.
        let mut tx = stores.begin(StoreName::Payments).await.unwrap();
        sqlx::query("INSERT INTO ledger (transfer_id, txn, user_id, counterparty, amount, balance_after, idem_key, at_ms, lab_intent) VALUES ('t', 'TXN-1', 'shimul', 'tithi', -500, 1500, 'k', 0, 'i')")
            .execute(&mut *tx)
            .await
            .unwrap();
        tx.commit().await.unwrap();
        assert_eq!(stores.open_count().await, 2);
        // A transaction dropped without its commit is rolled back.
        {
            let mut tx = stores.begin(StoreName::Payments).await.unwrap();
            sqlx::query("DELETE FROM ledger")
                .execute(&mut *tx)
                .await
                .unwrap();
        }
        assert_eq!(ledger_rows(&stores).await, 1);
        // Closed for good: nothing opens it again, so another process may.
        stores.close().await;
        assert!(matches!(
            stores.conn(StoreName::Payments).await,
            Err(sqlx::Error::PoolClosed)
        ));
        let again = Stores::open(dir.path()).await.unwrap();
        assert_eq!(ledger_rows(&again).await, 1);
        again.close().await;
    }

    #[tokio::test]
    async fn every_row_written_or_deleted_is_noted_until_taken() {
        let dir = tempfile::tempdir().unwrap();
        let stores = Stores::open(dir.path()).await.unwrap();
        stores.reset_services().await.unwrap();
        // A reset empties whole tables, which SQLite does without telling the hook.
        assert!(stores.take_changes().everything);
        assert!(!stores.changed());
        let insert = "INSERT INTO ledger (transfer_id, txn, user_id, counterparty, amount, balance_after, idem_key, at_ms, lab_intent) VALUES (?1, 'TXN-1', 'shimul', 'tithi', -500, 1500, ?1, 0, 'i')";
        for id in ["a", "b"] {
            sqlx::query(insert)
                .bind(id)
                .execute(&mut *stores.conn(StoreName::Payments).await.unwrap())
                .await
                .unwrap();
        }
        sqlx::query("UPDATE accounts SET opening_balance = 10 WHERE user_id = 'tithi'")
            .execute(&mut *stores.conn(StoreName::Payments).await.unwrap())
            .await
            .unwrap();
        assert!(stores.changed());
        let c = stores.take_changes();
        assert!(!c.everything);
        let payments = &c.rows[&StoreName::Payments];
        assert_eq!(payments["ledger"].len(), 2);
        assert_eq!(payments["accounts"].len(), 1);
        let ledger: Vec<i64> = payments["ledger"].iter().copied().collect();
        // A deleted row is no longer in view; rows still there read as they are now.
        sqlx::query("DELETE FROM ledger WHERE transfer_id = 'a'")
            .execute(&mut *stores.conn(StoreName::Payments).await.unwrap())
            .await
            .unwrap();
        let in_view = stores
            .newest_rowids(StoreName::Payments, "ledger", 100)
            .await
            .unwrap();
        assert_eq!(in_view, vec![ledger[1]]);
        let now = stores
            .rows_by_id(StoreName::Payments, "ledger", &ledger)
            .await
            .unwrap();
        assert_eq!(now.len(), 1);
        assert_eq!(now[0].1["transfer_id"], "b");
        // A store closed for being idle and opened again still notes its changes.
        stores.take_changes();
        stores.close_idle(Duration::ZERO).await;
        sqlx::query(insert)
            .bind("c")
            .execute(&mut *stores.conn(StoreName::Payments).await.unwrap())
            .await
            .unwrap();
        assert_eq!(
            stores.take_changes().rows[&StoreName::Payments]["ledger"].len(),
            1
        );
        stores.close().await;
    }

    async fn ledger_rows(stores: &Stores) -> i64 {
        sqlx::query_scalar("SELECT COUNT(*) FROM ledger")
            .fetch_one(&mut *stores.conn(StoreName::Payments).await.unwrap())
            .await
            .unwrap()
    }
}
