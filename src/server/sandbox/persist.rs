//! Saving the sandbox row (clock, settings, seed) after every change, so a restart or a kill -9
//! resumes where the last saved step left it.

use super::*;

impl Owner {
    /// Saves the clock, the scheduler's counters and the settings.
    pub(super) async fn save(&mut self) -> Result<(), LabError> {
        let now = self.live_now();
        let c = self.sim.counters();
        sqlx::query(
            "UPDATE sandbox SET rng_state = ?1, now_ms = ?2, mode = ?3, speed = ?4, seq = ?5,
             steps_run = ?6, safeguards = ?7, faults = ?8 WHERE id = 1",
        )
        .bind(c.rng_state as i64)
        .bind(now)
        .bind(mode_id(self.mode))
        .bind(self.speed)
        .bind(c.seq as i64)
        .bind(c.steps_run as i64)
        .bind(serde_json::to_string(&self.world.safeguards).expect("safeguards serialise"))
        .bind(serde_json::to_string(&self.world.faults).expect("faults serialise"))
        .execute(&mut *self.world.stores.conn(StoreName::Lab).await?)
        .await?;
        Ok(())
    }
}
