//! Saving the sandbox row (clock, settings, seed) after every change, so a restart or a kill -9
//! resumes where the last saved step left it.

use super::*;

/// The sandbox row (`lab.sandbox`, id 1) as it was saved: who the sandbox is, its clock, the
/// scheduler's counters and its settings (as JSON).
#[derive(sqlx::FromRow)]
pub(super) struct SandboxRow {
    pub sandbox_id: String,
    pub seed: i64,
    pub rng_state: i64,
    pub now_ms: i64,
    pub mode: String,
    pub speed: f64,
    pub seq: i64,
    pub steps_run: i64,
    pub safeguards: String,
    pub faults: String,
}

impl SandboxRow {
    /// The row of a new sandbox: its clock at the start, no step run yet, default settings.
    pub(super) async fn insert_new(
        conn: &mut sqlx::SqliteConnection,
        id: Uuid,
        seed: u64,
        mode: ClockMode,
    ) -> Result<(), LabError> {
        let counters = Sim::<Step>::new(START_MS, seed).counters();
        sqlx::query(
            "INSERT INTO sandbox (id, sandbox_id, seed, rng_state, now_ms, mode, speed, seq,
             steps_run, safeguards, faults) VALUES (1, ?1, ?2, ?3, ?4, ?5, 1.0, 0, 0, ?6, ?7)",
        )
        .bind(id.to_string())
        .bind(seed as i64)
        .bind(counters.rng_state as i64)
        .bind(counters.now_ms)
        .bind(mode.id())
        .bind(serde_json::to_string(&Safeguards::default()).expect("safeguards serialise"))
        .bind(serde_json::to_string(&Faults::default()).expect("faults serialise"))
        .execute(conn)
        .await?;
        Ok(())
    }

    /// The saved row, if the store has one.
    pub(super) async fn read(
        conn: &mut sqlx::SqliteConnection,
    ) -> Result<Option<SandboxRow>, LabError> {
        Ok(sqlx::query_as(
            "SELECT sandbox_id, seed, rng_state, now_ms, mode, speed, seq, steps_run, safeguards,
             faults FROM sandbox WHERE id = 1",
        )
        .fetch_optional(conn)
        .await?)
    }

    /// A new seed (a preset's), kept for the resets after it.
    pub(super) async fn set_seed(
        conn: &mut sqlx::SqliteConnection,
        seed: u64,
    ) -> Result<(), LabError> {
        sqlx::query("UPDATE sandbox SET seed = ?1 WHERE id = 1")
            .bind(seed as i64)
            .execute(conn)
            .await?;
        Ok(())
    }
}

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
