//! The background jobs that run on the sandbox clock, each a step on the same queue as the
//! transfers: the inbox cleaner and the log retention (hourly), the nightly partition drop, and
//! stuck-request recovery (armed per claim). The relay and the consumers are steps of
//! `pipeline.rs`, not jobs.

use serde_json::json;

use super::broker;
use super::payments::recovery;
use super::sim::Cx;
use super::store::StoreName;
use super::world::{LabWorld, Step, StepError};
use crate::domain::clock::{DAY_MS, HOUR_MS, MINUTE_MS};
use crate::domain::{EventKind, Layer, Outcome, Safeguard};

/// A recurring job.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Job {
    /// Deletes inbox rows older than `inbox_window_hours` in the wallet and SMS stores.
    InboxCleaner,
    /// Deletes log records older than their topic's retention and moves each log start offset.
    LogRetention,
    /// Resolves idempotency keys stuck IN_PROGRESS for over 60 s (`stuck_recovery`). Not
    /// periodic: each claim arms one run just past its 60 s (see [`recovery::look_at`]), and one
    /// runs when a sandbox opens or the safeguard is switched on, so a long jump does not pay for
    /// thousands of empty polls.
    StuckRecovery,
    /// At midnight, drops the idempotency table's daily partitions older than the window.
    PartitionDrop,
}

impl Job {
    pub const ALL: [Job; 4] = [
        Job::InboxCleaner,
        Job::LogRetention,
        Job::StuckRecovery,
        Job::PartitionDrop,
    ];

    /// How often a periodic job runs, and at what offset within that period.
    fn schedule(self) -> Option<(i64, i64)> {
        match self {
            Job::InboxCleaner => Some((HOUR_MS, 0)),
            Job::LogRetention => Some((HOUR_MS, 30 * MINUTE_MS)),
            Job::StuckRecovery => None,
            Job::PartitionDrop => Some((DAY_MS, 0)),
        }
    }

    /// The next run strictly after `now_ms` (a one-shot job: right now).
    pub fn next_after(self, now_ms: i64) -> i64 {
        match self.schedule() {
            Some((period, offset)) => ((now_ms - offset).div_euclid(period) + 1) * period + offset,
            None => now_ms,
        }
    }

    pub fn is_periodic(self) -> bool {
        self.schedule().is_some()
    }
}

/// Runs one job and schedules its next run.
pub async fn run(job: Job, world: &mut LabWorld, cx: &mut Cx<'_, Step>) -> Result<(), StepError> {
    let now = cx.now();
    let stores = &world.stores;
    match job {
        Job::StuckRecovery => recovery::recover_stuck(world, cx).await?,
        Job::PartitionDrop => recovery::drop_old_partitions(world, cx).await?,
        Job::InboxCleaner => {
            let hours = world.safeguards.hours(Safeguard::InboxWindowHours);
            let cutoff = now - hours * HOUR_MS;
            let mut deleted = serde_json::Map::new();
            for store in [StoreName::Wallet, StoreName::Sms] {
                let mut tx = stores.begin(store).await?;
                let n = sqlx::query("DELETE FROM inbox WHERE processed_ms < ?1")
                    .bind(cutoff)
                    .execute(&mut *tx)
                    .await?
                    .rows_affected();
                tx.commit().await?;
                deleted.insert(store.id().to_owned(), n.into());
            }
            cx.record(
                Layer::Jobs,
                EventKind::InboxCleaned,
                None,
                Outcome::Ok,
                json!({"window_hours": hours, "cutoff_ms": cutoff, "deleted": deleted}),
            );
        }
        Job::LogRetention => {
            let mut tx = stores.begin(StoreName::Broker).await?;
            let (deleted, moved) = broker::apply_retention(&mut tx, now).await?;
            tx.commit().await?;
            cx.record(
                Layer::Jobs,
                EventKind::LogRetentionApplied,
                None,
                Outcome::Ok,
                json!({"deleted": deleted, "partitions_moved": moved}),
            );
        }
    }
    if job.is_periodic() {
        cx.schedule_at(job.next_after(now), Step::Job(job));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jobs_run_on_their_boundaries() {
        assert_eq!(Job::InboxCleaner.next_after(9 * HOUR_MS), 10 * HOUR_MS);
        assert_eq!(Job::InboxCleaner.next_after(9 * HOUR_MS - 1), 9 * HOUR_MS);
        assert_eq!(
            Job::LogRetention.next_after(9 * HOUR_MS),
            9 * HOUR_MS + 30 * MINUTE_MS
        );
        assert_eq!(
            Job::LogRetention.next_after(9 * HOUR_MS + 30 * MINUTE_MS),
            10 * HOUR_MS + 30 * MINUTE_MS
        );
        assert_eq!(Job::PartitionDrop.next_after(9 * HOUR_MS), DAY_MS);
        assert_eq!(Job::StuckRecovery.next_after(5), 5);
    }
}
