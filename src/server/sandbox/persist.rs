//! Saving the sandbox row (clock, settings, seed) after every change, so a restart or a kill -9
//! resumes where the last saved step left it.

use super::*;

/// The sandbox row's update, its values in the order [`Owner::bind_save`] binds them. Its
/// parameters are unnumbered so it can follow another statement in one command (the event log's
/// insert, `events.rs`), binding the values after that statement's.
pub(super) const SAVE_SQL: &str = "UPDATE sandbox SET rng_state = ?, now_ms = ?, mode = ?,
     speed = ?, seq = ?, steps_run = ?, safeguards = ?, faults = ? WHERE id = 1";

impl Owner {
    /// Saves the clock, the scheduler's counters and the settings; with events still waiting
    /// for the log, they go in with the save, in one command to the store.
    pub(super) async fn save(&mut self) -> Result<(), LabError> {
        if !self.pending.is_empty() {
            return self.flush_events_and_save(true).await;
        }
        self.save_row().await
    }

    /// The save alone ([`SAVE_SQL`]).
    pub(super) async fn save_row(&mut self) -> Result<(), LabError> {
        let query = self.bind_save(sqlx::query_scalar::<_, i64>(SAVE_SQL));
        query
            .fetch_all(&mut *self.world.stores.conn(StoreName::Lab).await?)
            .await?;
        Ok(())
    }

    /// Binds [`SAVE_SQL`]'s values after whatever `query` has bound already.
    pub(super) fn bind_save<'q>(
        &self,
        query: sqlx::query::QueryScalar<'q, sqlx::Sqlite, i64, sqlx::sqlite::SqliteArguments<'q>>,
    ) -> sqlx::query::QueryScalar<'q, sqlx::Sqlite, i64, sqlx::sqlite::SqliteArguments<'q>> {
        let now = self.live_now();
        let c = self.sim.counters();
        query
            .bind(c.rng_state as i64)
            .bind(now)
            .bind(self.mode.id())
            .bind(self.speed)
            .bind(c.seq as i64)
            .bind(c.steps_run as i64)
            .bind(serde_json::to_string(&self.world.safeguards).expect("safeguards serialise"))
            .bind(serde_json::to_string(&self.world.faults).expect("faults serialise"))
    }
}
