//! The ledger: one row per debit, never updated; balances are derived from it.

use sha2::{Digest, Sha256};
use sqlx::SqliteConnection;

use crate::domain::transfer::txn_label;
use crate::domain::Receipt;

/// A debit as the ledger stores it.
#[derive(Clone, Debug, PartialEq, sqlx::FromRow)]
pub struct Entry {
    pub transfer_id: String,
    pub txn: String,
    pub user_id: String,
    pub counterparty: String,
    pub amount: i64,
    pub balance_after: i64,
    pub idem_key: String,
    pub at_ms: i64,
    pub lab_intent: String,
}

impl Entry {
    /// The receipt this debit answered with.
    pub fn receipt(&self) -> Receipt {
        Receipt {
            txn: self.txn.clone(),
            from: self.user_id.clone(),
            to: self.counterparty.clone(),
            amount: -self.amount,
            balance: self.balance_after,
        }
    }
}

/// The transfer id `ledger_unique` derives from the user and the Idempotency-Key: the same
/// request always maps to the same id, so the ledger's UNIQUE refuses it a second time.
pub fn transfer_id_for(user: &str, key: &str) -> String {
    let digest = Sha256::digest(format!("{user}\n{key}").as_bytes());
    let hex: String = digest.iter().take(16).map(|b| format!("{b:02x}")).collect();
    format!("tr-{hex}")
}

/// Every account's balance, by user: opening balance plus the sum of its ledger rows.
pub async fn balances(conn: &mut SqliteConnection) -> Result<Vec<(String, i64)>, sqlx::Error> {
    sqlx::query_as(
        "SELECT a.user_id, a.opening_balance + COALESCE(SUM(l.amount), 0)
         FROM accounts a LEFT JOIN ledger l ON l.user_id = a.user_id
         GROUP BY a.user_id ORDER BY a.user_id",
    )
    .fetch_all(conn)
    .await
}

/// The user's balance and the receipt number the next debit gets (TXN-88412 for the sandbox's
/// first, counting up), read in one statement. Ledger rows are never deleted (a reset empties
/// the table), so the highest entry id is their count, read from the end of the primary key
/// instead of by counting every row.
pub async fn balance_and_next_txn(
    conn: &mut SqliteConnection,
    user: &str,
) -> Result<(i64, String), sqlx::Error> {
    let (balance, n): (i64, i64) = sqlx::query_as(
        "SELECT a.opening_balance + COALESCE((SELECT SUM(amount) FROM ledger WHERE user_id = a.user_id), 0),
                (SELECT COALESCE(MAX(entry_id), 0) FROM ledger)
         FROM accounts a WHERE a.user_id = ?1",
    )
    .bind(user)
    .fetch_one(conn)
    .await?;
    Ok((balance, txn_label(n)))
}

/// Appends a debit. `Ok(false)` when UNIQUE(transfer_id) refuses it.
pub async fn debit(conn: &mut SqliteConnection, e: &Entry) -> Result<bool, sqlx::Error> {
    let result = sqlx::query(
        "INSERT INTO ledger (transfer_id, txn, user_id, counterparty, amount, balance_after, idem_key, at_ms, lab_intent)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
    )
    .bind(&e.transfer_id)
    .bind(&e.txn)
    .bind(&e.user_id)
    .bind(&e.counterparty)
    .bind(e.amount)
    .bind(e.balance_after)
    .bind(&e.idem_key)
    .bind(e.at_ms)
    .bind(&e.lab_intent)
    .execute(conn)
    .await;
    match result {
        Ok(_) => Ok(true),
        Err(sqlx::Error::Database(db)) if db.is_unique_violation() => Ok(false),
        Err(e) => Err(e),
    }
}

const ENTRY_COLUMNS: &str =
    "transfer_id, txn, user_id, counterparty, amount, balance_after, idem_key, at_ms, lab_intent";

pub async fn by_transfer(
    conn: &mut SqliteConnection,
    transfer_id: &str,
) -> Result<Option<Entry>, sqlx::Error> {
    sqlx::query_as(&format!(
        "SELECT {ENTRY_COLUMNS} FROM ledger WHERE transfer_id = ?1"
    ))
    .bind(transfer_id)
    .fetch_optional(conn)
    .await
}

/// The first debit made for this user's key, if any.
pub async fn by_key(
    conn: &mut SqliteConnection,
    user: &str,
    key: &str,
) -> Result<Option<Entry>, sqlx::Error> {
    sqlx::query_as(&format!(
        "SELECT {ENTRY_COLUMNS} FROM ledger WHERE user_id = ?1 AND idem_key = ?2 ORDER BY entry_id LIMIT 1"
    ))
    .bind(user)
    .bind(key)
    .fetch_optional(conn)
    .await
}

/// How many debits one intent already has (ground truth for the damage meter only).
/// Whether an earlier debit for this decision to pay came with the same Idempotency-Key as the
/// one just written (so the key reached the server twice, rather than a new key).
pub async fn intent_debited_with_key(
    conn: &mut SqliteConnection,
    intent: &str,
    key: &str,
) -> Result<bool, sqlx::Error> {
    let n: i64 =
        sqlx::query_scalar("SELECT COUNT(*) FROM ledger WHERE lab_intent = ?1 AND idem_key = ?2")
            .bind(intent)
            .bind(key)
            .fetch_one(conn)
            .await?;
    Ok(n > 1)
}

pub async fn debits_for_intent(
    conn: &mut SqliteConnection,
    intent: &str,
) -> Result<i64, sqlx::Error> {
    sqlx::query_scalar("SELECT COUNT(*) FROM ledger WHERE lab_intent = ?1")
        .bind(intent)
        .fetch_one(conn)
        .await
}
