//! The outbox (docs/reference.md §3, `outbox`): the payment API's table of events to publish,
//! written in the debit's transaction and read by the relay. It lives in the payments store;
//! its SQL is here, apart from both, so the API (`payments`) writes it and the relay
//! (`pipeline/publish.rs`) reads and marks it without either importing the other.

use sqlx::SqliteConnection;

use crate::domain::pipeline::TransferDone;

/// The event's row, in the debit's transaction: it exists if and only if the debit does.
pub async fn write(
    tx: &mut SqliteConnection,
    event: &TransferDone,
    now_ms: i64,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "INSERT INTO outbox (event_id, transfer_id, payload, created_ms) VALUES (?1, ?2, ?3, ?4)",
    )
    .bind(&event.event_id)
    .bind(&event.transfer_id)
    .bind(serde_json::to_string(event).expect("events serialise"))
    .bind(now_ms)
    .execute(tx)
    .await?;
    Ok(())
}

/// The relay's batch: unsent rows `(event id, transfer id, payload)`, oldest first, at most
/// `limit`.
pub async fn unsent(
    conn: &mut SqliteConnection,
    limit: i64,
) -> Result<Vec<(String, String, String)>, sqlx::Error> {
    sqlx::query_as(
        "SELECT event_id, transfer_id, payload FROM outbox
         WHERE sent_ms IS NULL ORDER BY created_ms, event_id LIMIT ?1",
    )
    .bind(limit)
    .fetch_all(conn)
    .await
}

/// The relay's batch marked sent at `now_ms`, every row in one statement.
pub async fn mark_sent(
    conn: &mut SqliteConnection,
    event_ids: &[&String],
    now_ms: i64,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "UPDATE outbox SET sent_ms = ?1 WHERE event_id IN (SELECT value FROM json_each(?2))",
    )
    .bind(now_ms)
    .bind(serde_json::to_string(event_ids).expect("ids serialise"))
    .execute(conn)
    .await?;
    Ok(())
}
