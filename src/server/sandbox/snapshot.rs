//! The state snapshot: the clock, the settings, the balances, every table (cut to the newest rows,
//! the broker's partitions with their last stable offset beside them) and the damage meter, as
//! `GET …/state` answers it; and what changed since the last delta, as the event stream carries
//! it to a screen that keeps a copy (ARCHITECTURE.md, "The lab screen").

use super::*;
use crate::domain::state::{runs, StateDelta, SCREEN_ROWS};
use crate::server::damage::Claims;
use crate::server::payments;
use crate::server::payments::recovery::window_start;

impl Owner {
    pub(super) async fn state(&mut self, rows: i64) -> Result<SandboxState, LabError> {
        let snapshot = self.world.stores.snapshot(rows).await?;
        let mut tables = snapshot.tables;
        if let Some(partitions) = tables.get_mut("broker.partitions") {
            self.mark_stable_offsets(partitions).await?;
        }
        self.state_with(tables, snapshot.rowids).await
    }

    /// What changed since the last delta: for each table with a row written or deleted since,
    /// the rowids in view now (its newest [`SCREEN_ROWS`]) and the changed rows among them; the
    /// broker's partitions whole, with their last stable offsets; and the settings, balances,
    /// damage and clock as they are now. `None` when the change list
    /// cannot say what changed: the screens must read it all.
    async fn delta(&mut self) -> Result<Option<StateDelta>, LabError> {
        let changes = self.world.stores.take_changes();
        if changes.everything {
            return Ok(None);
        }
        let mut tables = std::collections::BTreeMap::new();
        let mut rowids = serde_json::Map::new();
        let mut window = serde_json::Map::new();
        for (store, changed_tables) in changes.rows {
            for (table, changed) in changed_tables {
                let key = format!("{}.{table}", store.id());
                if key == "broker.partitions" {
                    continue; // read whole below, with their last stable offsets
                }
                let stores = &self.world.stores;
                let in_view = stores.newest_rowids(store, &table, SCREEN_ROWS).await?;
                let wanted: Vec<i64> = in_view
                    .iter()
                    .filter(|id| changed.contains(id))
                    .copied()
                    .collect();
                let (ids, rows): (Vec<i64>, Vec<serde_json::Value>) = stores
                    .rows_by_id(store, &table, &wanted)
                    .await?
                    .into_iter()
                    .unzip();
                tables.insert(key.clone(), rows);
                rowids.insert(key.clone(), ids.into());
                window.insert(key, runs(&in_view).into());
            }
        }
        // The partitions' last stable offsets move when a transaction ends, not only when a
        // partition's row changes: they go whole, every time.
        let partitions = self
            .world
            .stores
            .newest_rows(StoreName::Broker, "partitions", SCREEN_ROWS)
            .await?;
        let (ids, mut rows): (Vec<i64>, Vec<serde_json::Value>) = partitions.into_iter().unzip();
        self.mark_stable_offsets(&mut rows).await?;
        let key = "broker.partitions".to_owned();
        window.insert(key.clone(), runs(&ids).into());
        tables.insert(key.clone(), rows);
        rowids.insert(key, ids.into());
        let from = self.deltas.version;
        self.deltas.version += 1;
        Ok(Some(StateDelta {
            from,
            changed: self.state_with(tables, rowids).await?,
            window: window.into(),
        }))
    }

    /// Sends the screens that follow the state what changed, or tells them to read it all.
    /// With no screen following, the changes are dropped and the version moves on, so a screen
    /// that follows again later starts from a read.
    pub(super) async fn send_delta(&mut self) -> Result<(), LabError> {
        self.deltas.due = None;
        self.deltas.last = Some(tokio::time::Instant::now());
        if self.deltas.tx.receiver_count() == 0 {
            self.world.stores.take_changes();
            self.deltas.version += 1;
        } else {
            let news = match self.delta().await? {
                Some(delta) => StateNews::Delta(Box::new(delta)),
                None => {
                    self.deltas.version += 1;
                    StateNews::Gap
                }
            };
            let _ = self.deltas.tx.send(Arc::new(news));
        }
        // The screens have the changes now: a clock said busy for them says settled, after
        // the delta on the stream.
        if self.clock.borrow().busy && !self.busy() {
            self.report_clock();
        }
        Ok(())
    }

    /// After work: schedules the next delta when rows changed, [`DELTA_GAP`] after the last
    /// one at the soonest; with no screen following, drops the changes at once.
    pub(super) async fn arm_delta(&mut self) -> Result<(), LabError> {
        if self.deltas.due.is_some() || !self.world.stores.changed() {
            return Ok(());
        }
        if self.deltas.tx.receiver_count() == 0 {
            return self.send_delta().await;
        }
        let now = tokio::time::Instant::now();
        self.deltas.due = Some(self.deltas.last.map_or(now, |l| (l + DELTA_GAP).max(now)));
        Ok(())
    }

    /// Writes each partition row's last stable offset into it, computed from the whole log
    /// here, not by the page from rows cut to the newest.
    async fn mark_stable_offsets(
        &mut self,
        partitions: &mut [serde_json::Value],
    ) -> Result<(), LabError> {
        let stable =
            broker::last_stable_offsets(&mut *self.world.stores.conn(StoreName::Broker).await?)
                .await?;
        for row in partitions.iter_mut() {
            let lso = stable
                .iter()
                .find(|(t, p, _)| row["topic"] == t.as_str() && row["partition"] == *p)
                .map(|(_, _, o)| *o);
            if let (Some(map), Some(lso)) = (row.as_object_mut(), lso) {
                map.insert("last_stable_offset".into(), lso.into());
            }
        }
        Ok(())
    }

    /// The sandbox now with these tables and rowids (all of them, or a delta's changed rows):
    /// the clock, settings, balances and damage read whole, at the current version.
    async fn state_with(
        &mut self,
        tables: std::collections::BTreeMap<String, Vec<serde_json::Value>>,
        rowids: serde_json::Map<String, serde_json::Value>,
    ) -> Result<SandboxState, LabError> {
        let stores = &self.world.stores;
        let payments = ledger::balances(&mut *stores.conn(StoreName::Payments).await?).await?;
        let wallet: Vec<(String, i64)> = sqlx::query_as(
            "SELECT w.user_id, w.opening_balance + COALESCE(SUM(c.amount), 0)
             FROM wallets w LEFT JOIN credits c ON c.user_id = w.user_id
             GROUP BY w.user_id ORDER BY w.user_id",
        )
        .fetch_all(&mut *stores.conn(StoreName::Wallet).await?)
        .await?;
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
            rowids: rowids.into(),
            version: self.deltas.version,
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
