//! The state snapshot: the clock, the settings, the balances, every table (cut to the newest rows,
//! the broker's partitions with their last stable offset beside them) and the damage meter, as
//! `GET …/state` answers it.

use super::*;
use crate::server::damage::Claims;
use crate::server::payments;
use crate::server::payments::recovery::window_start;

impl Owner {
    pub(super) async fn state(&mut self, rows: i64) -> Result<SandboxState, LabError> {
        let stores = &self.world.stores;
        let payments = ledger::balances(&mut *stores.conn(StoreName::Payments).await?).await?;
        let wallet: Vec<(String, i64)> = sqlx::query_as(
            "SELECT w.user_id, w.opening_balance + COALESCE(SUM(c.amount), 0)
             FROM wallets w LEFT JOIN credits c ON c.user_id = w.user_id
             GROUP BY w.user_id ORDER BY w.user_id",
        )
        .fetch_all(&mut *stores.conn(StoreName::Wallet).await?)
        .await?;
        let mut tables = stores.snapshot(rows).await?;
        // Computed here from the whole log, not by the page from rows cut to the newest.
        let stable =
            broker::last_stable_offsets(&mut *stores.conn(StoreName::Broker).await?).await?;
        if let Some(partitions) = tables.get_mut("broker.partitions") {
            for row in partitions.iter_mut() {
                let lso = stable
                    .iter()
                    .find(|(t, p, _)| row["topic"] == t.as_str() && row["partition"] == *p)
                    .map(|(_, _, o)| *o);
                if let (Some(map), Some(lso)) = (row.as_object_mut(), lso) {
                    map.insert("last_stable_offset".into(), lso.into());
                }
            }
        }
        Ok(SandboxState {
            id: self.id.to_string(),
            seed: self.seed,
            clock: self.clock_state(),
            safeguards: self.world.safeguards.clone(),
            faults: self.world.faults.clone(),
            balances: Balances {
                payments: payments.into_iter().collect(),
                wallet: wallet.into_iter().collect(),
            },
            tables,
            damage: crate::server::damage::measure(stores, &self.claims()).await?,
        })
    }

    /// The damage meter alone, without the tables (a class view reads it per student).
    pub(super) async fn damage(&mut self) -> Result<crate::domain::Damage, LabError> {
        Ok(crate::server::damage::measure(&self.world.stores, &self.claims()).await?)
    }

    /// What the damage meter needs from memory to tell a stuck key from one still finishing:
    /// the recovery switch, the window, and the requests an instance is still completing.
    fn claims(&self) -> Claims {
        let completing = self
            .sim
            .queued()
            .filter_map(payments::completing)
            .map(|(user, key)| (user.to_owned(), key.to_owned()))
            .collect();
        Claims {
            recovery: self.world.safeguards.is_on(Safeguard::StuckRecovery),
            window_start_ms: window_start(&self.world, self.sim.now()),
            completing,
        }
    }
}
