//! The event log: rows read back as timeline events, and the owner's writing of events and inputs
//! (stored, then broadcast to every open stream).

use super::*;

/// Events one insert statement carries (six values each, well inside SQLite's limit).
pub(super) const EVENTS_PER_INSERT: usize = 500;

impl EventRow {
    /// The event; a row this version cannot read (never written by it) is an error naming it.
    pub(super) fn into_event(self) -> Result<TimelineEvent, LabError> {
        let id = self.id;
        let field = |what: &str, value: &str| unreadable(format!("event {id}'s {what} {value:?}"));
        Ok(TimelineEvent {
            id,
            at_ms: self.at_ms,
            layer: Layer::from_id(&self.layer).ok_or_else(|| field("layer", &self.layer))?,
            kind: serde_json::from_value(serde_json::Value::String(self.kind.clone()))
                .map_err(|_| field("kind", &self.kind))?,
            correlation: self.correlation,
            outcome: Outcome::from_id(&self.outcome)
                .ok_or_else(|| field("outcome", &self.outcome))?,
            details: serde_json::from_str(&self.details)
                .map_err(|_| field("details", &self.details))?,
        })
    }
}

impl Owner {
    /// An event on the lab lane, at the current virtual time.
    pub(super) fn lab_event(&self, kind: EventKind, details: serde_json::Value) -> NewEvent {
        NewEvent {
            at_ms: self.sim.now(),
            layer: Layer::Lab,
            kind,
            correlation: None,
            outcome: Outcome::Ok,
            details,
        }
    }

    /// Stores events in the event log, after any still waiting from steps already run, and
    /// then sends them to every stream.
    pub(super) async fn publish(&mut self, events: Vec<NewEvent>) -> Result<(), LabError> {
        self.pending.extend(events);
        self.flush_events().await
    }

    /// Stores the events waiting in the event log and then sends them to every stream. They go
    /// in with one statement (one multi-row insert, atomic on its own), so storing them costs
    /// one round trip to the store however many there are; more than [`EVENTS_PER_INSERT`]
    /// take several, in one transaction.
    pub(super) async fn flush_events(&mut self) -> Result<(), LabError> {
        self.flush_events_and_save(false).await
    }

    /// [`Owner::flush_events`], and with `save` the sandbox row's save too
    /// ([`Owner::save`]): appended to the last insert, so the two cost one round trip.
    ///
    /// Reads best whole: one insert built and run in chunks, the save riding on the last; split,
    /// the chunking would be in two places.
    pub(super) async fn flush_events_and_save(&mut self, save: bool) -> Result<(), LabError> {
        let events = std::mem::take(&mut self.pending);
        if events.is_empty() {
            return if save { self.save_row().await } else { Ok(()) };
        }
        // What each event's row stores as text: its kind and its details.
        let texts: Vec<(serde_json::Value, String)> = events
            .iter()
            .map(|e| {
                let kind = serde_json::to_value(e.kind).expect("event kinds serialise");
                (kind, e.details.to_string())
            })
            .collect();
        let mut ids: Vec<i64> = Vec::with_capacity(events.len());
        let mut tx = if events.len() > EVENTS_PER_INSERT {
            Some(self.world.stores.begin(StoreName::Lab).await?)
        } else {
            None
        };
        let chunks = events.len().div_ceil(EVENTS_PER_INSERT);
        for (i, (chunk, texts)) in events
            .chunks(EVENTS_PER_INSERT)
            .zip(texts.chunks(EVENTS_PER_INSERT))
            .enumerate()
        {
            let mut sql = String::from(
                "INSERT INTO events (at_ms, layer, kind, correlation, outcome, details) VALUES ",
            );
            for i in 0..chunk.len() {
                sql.push_str(if i == 0 {
                    "(?, ?, ?, ?, ?, ?)"
                } else {
                    ", (?, ?, ?, ?, ?, ?)"
                });
            }
            sql.push_str(" RETURNING id");
            // The save rides along with the last chunk.
            let with_save = save && i + 1 == chunks;
            if with_save {
                sql.push_str(";\n");
                sql.push_str(super::persist::SAVE_SQL);
            }
            let mut query = sqlx::query_scalar::<_, i64>(&sql);
            for (e, (kind, details)) in chunk.iter().zip(texts) {
                query = query
                    .bind(e.at_ms)
                    .bind(e.layer.id())
                    .bind(kind.as_str())
                    .bind(&e.correlation)
                    .bind(e.outcome.id())
                    .bind(details);
            }
            if with_save {
                query = self.bind_save(query);
            }
            let mut chunk_ids = match tx.as_mut() {
                Some(tx) => query.fetch_all(&mut **tx).await?,
                None => {
                    query
                        .fetch_all(&mut *self.world.stores.conn(StoreName::Lab).await?)
                        .await?
                }
            };
            // One statement's rows take consecutive ids in the order of its VALUES.
            chunk_ids.sort_unstable();
            ids.extend(chunk_ids);
        }
        if let Some(tx) = tx {
            tx.commit().await?;
        }
        if let Some(last) = ids.last() {
            self.last_event = *last;
        }
        for (id, e) in ids.into_iter().zip(events) {
            // No stream listening is fine: the log has it.
            let _ = self.events.send(Arc::new(TimelineEvent {
                id,
                at_ms: e.at_ms,
                layer: e.layer,
                kind: e.kind,
                correlation: e.correlation,
                outcome: e.outcome,
                details: e.details,
            }));
        }
        Ok(())
    }

    /// Notes an outside input with where it arrived (virtual time and steps run before it): a run
    /// is its seed plus these.
    pub(super) async fn record_input(&mut self, input: &Input) -> Result<(), LabError> {
        let c = self.sim.counters();
        sqlx::query("INSERT INTO inputs (at_ms, after_step, input) VALUES (?1, ?2, ?3)")
            .bind(c.now_ms)
            .bind(c.steps_run as i64)
            .bind(input.to_json().to_string())
            .execute(&mut *self.world.stores.conn(StoreName::Lab).await?)
            .await?;
        Ok(())
    }
}
