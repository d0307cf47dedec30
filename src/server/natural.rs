//! Scenario 7 on the payment API's database: one copy of a SET, an INCREMENT or a keyed INSERT
//! (`domain::natural`), and what the table says after it. The sandbox's owner sends the copies
//! over its lossy network and puts each on the timeline.

use sqlx::SqliteConnection;

use crate::domain::natural::{Effect, NaturalOp, NEW_NAME};

/// Runs one copy of `op` (with `transfer_id` for the INSERT) and says what it did; `first`
/// is whether no copy of this experiment arrived before.
pub async fn apply(
    conn: &mut SqliteConnection,
    op: NaturalOp,
    transfer_id: &str,
    now_ms: i64,
    first: bool,
) -> Result<Effect, sqlx::Error> {
    // Only a SET needs the value before it, to tell "changed" from "the same again".
    let already_set = op == NaturalOp::SetName && name(conn).await? == NEW_NAME;
    let mut query = sqlx::query(op.sql());
    if op == NaturalOp::Insert {
        query = query.bind(transfer_id).bind(now_ms);
    }
    let done = query.execute(&mut *conn).await?.rows_affected();
    Ok(match op {
        NaturalOp::SetName if already_set => Effect::Same,
        NaturalOp::Insert if done == 0 => Effect::Refused,
        NaturalOp::Add if !first => Effect::AddedAgain,
        _ => Effect::Changed,
    })
}

/// Shimul's display name ("Shimul" until a SET).
pub async fn name(conn: &mut SqliteConnection) -> Result<String, sqlx::Error> {
    Ok(
        sqlx::query_scalar("SELECT display_name FROM profiles WHERE user_id = 'shimul'")
            .fetch_optional(&mut *conn)
            .await?
            .unwrap_or_else(|| "Shimul".to_owned()),
    )
}

/// The savings balance the INCREMENT adds to.
pub async fn savings(conn: &mut SqliteConnection) -> Result<i64, sqlx::Error> {
    Ok(
        sqlx::query_scalar("SELECT balance FROM savings WHERE user_id = 'shimul'")
            .fetch_optional(&mut *conn)
            .await?
            .unwrap_or(0),
    )
}

/// Rows the keyed INSERT left for one transfer id.
pub async fn credit_rows(
    conn: &mut SqliteConnection,
    transfer_id: &str,
) -> Result<i64, sqlx::Error> {
    sqlx::query_scalar("SELECT COUNT(*) FROM savings_credits WHERE transfer_id = ?1")
        .bind(transfer_id)
        .fetch_one(&mut *conn)
        .await
}
