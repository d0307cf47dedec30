//! The payment API's two background jobs, run by `jobs.rs` on the sandbox clock: stuck-request
//! recovery (`stuck_recovery`) and the nightly drop of the idempotency table's old partitions.

use serde_json::json;

use super::{idempotency, ledger};
use crate::domain::clock::HOUR_MS;
use crate::domain::{EventKind, Layer, Outcome, Safeguard};
use crate::server::calls::ApiReply;
use crate::server::sim::Cx;
use crate::server::store::StoreName;
use crate::server::world::{LabWorld, Step};

/// Where the window starts: keys created before this are forgotten by the look-up.
pub fn window_start(world: &LabWorld, now: i64) -> i64 {
    now - world.safeguards.hours(Safeguard::WindowHours) * HOUR_MS
}

/// Recovery (`stuck_recovery`): every IN_PROGRESS row older than 60 s is resolved from the
/// ledger: completed with the receipt of the debit it made, or released so a retry can run.
pub async fn recover_stuck(world: &mut LabWorld, cx: &mut Cx<'_, Step>) -> Result<(), sqlx::Error> {
    if !world.safeguards.is_on(Safeguard::StuckRecovery) {
        return Ok(());
    }
    let now = cx.now();
    // A run comes when a claim's 60 s are up, when the sandbox opens and when the safeguard is
    // switched on (`Job::StuckRecovery`): look first, and take the write lock only when there
    // is something to resolve (nothing else writes between steps, so the look stays true).
    let mut conn = world.stores.conn(StoreName::Payments).await?;
    let rows = idempotency::stuck(&mut conn, now - STUCK_AFTER_MS).await?;
    drop(conn);
    if rows.is_empty() {
        return Ok(());
    }
    let mut tx = world.stores.begin(StoreName::Payments).await?;
    for row in &rows {
        match ledger::by_key(&mut tx, &row.user_id, &row.idem_key).await? {
            Some(entry) if entry.at_ms >= row.created_ms => {
                let reply = ApiReply::created(&entry.receipt());
                idempotency::complete_stuck(&mut tx, row, now, reply.status, &reply.body).await?;
                cx.record(
                    Layer::Jobs,
                    EventKind::StuckKeyCompleted,
                    Some(row.idem_key.clone()),
                    Outcome::Ok,
                    json!({"txn": entry.txn, "claimed_ms": row.created_ms}),
                );
            }
            _ => {
                idempotency::release(&mut tx, row).await?;
                cx.record(
                    Layer::Jobs,
                    EventKind::StuckKeyReleased,
                    Some(row.idem_key.clone()),
                    Outcome::Ok,
                    json!({"claimed_ms": row.created_ms}),
                );
            }
        }
    }
    tx.commit().await?;
    Ok(())
}

pub use crate::domain::safeguard::STUCK_AFTER_MS;

/// When recovery (`Step::STUCK_RECOVERY`) must look at a key claimed at `claimed_ms`.
pub fn look_at(claimed_ms: i64) -> i64 {
    crate::domain::safeguard::stuck_freed_at(claimed_ms)
}

/// The nightly partition drop: whole days older than the window go.
pub async fn drop_old_partitions(
    world: &mut LabWorld,
    cx: &mut Cx<'_, Step>,
) -> Result<(), sqlx::Error> {
    let cutoff = window_start(world, cx.now());
    let mut tx = world.stores.begin(StoreName::Payments).await?;
    let (days, rows) = idempotency::drop_partitions(&mut tx, cutoff).await?;
    tx.commit().await?;
    cx.record(
        Layer::Jobs,
        EventKind::PartitionsDropped,
        None,
        Outcome::Ok,
        json!({"days": days, "rows": rows, "window_hours": world.safeguards.hours(Safeguard::WindowHours)}),
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_claim_is_looked_at_just_past_its_sixty_seconds() {
        assert_eq!(look_at(1_000), 62_000);
    }
}
