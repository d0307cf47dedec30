//! The event log: rows read back as timeline events, and the owner's writing of events and inputs
//! (stored, then broadcast to every open stream).

use super::*;

/// Events one insert statement carries (six values each, well inside SQLite's limit).
pub(super) const EVENTS_PER_INSERT: usize = 500;

/// Every statement on the event log (`lab.events`), so its SQL is in one place.
pub(super) mod event_log {
    use sqlx::SqliteConnection;

    use super::EventRow;

    /// The columns an [`EventRow`] reads, in a statement written once (no text built per call).
    macro_rules! select {
        ($($rest:literal)*) => {
            concat!("SELECT id, at_ms, layer, kind, correlation, outcome, details FROM events" $(, " ", $rest)*)
        };
    }

    /// The insert of `rows` events, each six values, answering their ids.
    pub fn insert_statement(rows: usize) -> String {
        let mut sql = String::from(
            "INSERT INTO events (at_ms, layer, kind, correlation, outcome, details) VALUES ",
        );
        for i in 0..rows {
            sql.push_str(if i == 0 {
                "(?, ?, ?, ?, ?, ?)"
            } else {
                ", (?, ?, ?, ?, ?, ?)"
            });
        }
        sql.push_str(" RETURNING id");
        sql
    }

    /// The newest event's id, 0 for an empty log.
    pub async fn last_id(conn: &mut SqliteConnection) -> Result<i64, sqlx::Error> {
        sqlx::query_scalar("SELECT COALESCE(MAX(id), 0) FROM events")
            .fetch_one(conn)
            .await
    }

    /// The newest event.
    pub async fn newest(conn: &mut SqliteConnection) -> Result<Option<EventRow>, sqlx::Error> {
        sqlx::query_as(select!("ORDER BY id DESC LIMIT 1"))
            .fetch_optional(conn)
            .await
    }

    /// Up to `limit` events with an id above `after_id`, oldest first.
    pub async fn after(
        conn: &mut SqliteConnection,
        after_id: i64,
        limit: i64,
    ) -> Result<Vec<EventRow>, sqlx::Error> {
        sqlx::query_as(select!("WHERE id > ?1 ORDER BY id LIMIT ?2"))
            .bind(after_id)
            .bind(limit)
            .fetch_all(conn)
            .await
    }

    /// The newest `limit` events since the last reset (the reset's own included), oldest first.
    pub async fn since_reset(
        conn: &mut SqliteConnection,
        limit: i64,
    ) -> Result<Vec<EventRow>, sqlx::Error> {
        sqlx::query_as(concat!(
            "SELECT * FROM (",
            select!(
                "WHERE id >= COALESCE((SELECT id FROM events WHERE kind = 'sandbox_reset'"
                "ORDER BY id DESC LIMIT 1), 0) ORDER BY id DESC LIMIT ?1"
            ),
            ") ORDER BY id"
        ))
        .bind(limit)
        .fetch_all(conn)
        .await
    }

    /// Whether the log has the event, and its position (1 for the first).
    pub async fn position(
        conn: &mut SqliteConnection,
        event_id: i64,
    ) -> Result<Option<i64>, sqlx::Error> {
        let (exists, position): (i64, i64) = sqlx::query_as(
            "SELECT (SELECT COUNT(*) FROM events WHERE id = ?1), COUNT(*) FROM events WHERE id <= ?1",
        )
        .bind(event_id)
        .fetch_one(conn)
        .await?;
        Ok((exists == 1).then_some(position))
    }

    /// The virtual time of one event, if the log has it.
    pub async fn at_ms_of(
        conn: &mut SqliteConnection,
        event_id: i64,
    ) -> Result<Option<i64>, sqlx::Error> {
        sqlx::query_scalar("SELECT at_ms FROM events WHERE id = ?1")
            .bind(event_id)
            .fetch_optional(conn)
            .await
    }

    /// How many events of each kind the log holds.
    pub async fn counts_by_kind(
        conn: &mut SqliteConnection,
    ) -> Result<Vec<(String, i64)>, sqlx::Error> {
        sqlx::query_as("SELECT kind, COUNT(*) FROM events GROUP BY kind")
            .fetch_all(conn)
            .await
    }

    /// How many events are marked caught.
    pub async fn caught(conn: &mut SqliteConnection) -> Result<i64, sqlx::Error> {
        sqlx::query_scalar("SELECT COUNT(*) FROM events WHERE outcome = 'caught'")
            .fetch_one(conn)
            .await
    }

    /// Every event as the log's hash reads it: time, lane, kind, correlation, outcome and
    /// details, in order.
    pub async fn for_hash(
        conn: &mut SqliteConnection,
    ) -> Result<Vec<(i64, String, String, Option<String>, String, String)>, sqlx::Error> {
        sqlx::query_as(
            "SELECT at_ms, layer, kind, correlation, outcome, details FROM events ORDER BY id",
        )
        .fetch_all(conn)
        .await
    }

    /// Empties the log (a reset; ids keep counting up).
    pub async fn clear(conn: &mut SqliteConnection) -> Result<(), sqlx::Error> {
        sqlx::query("DELETE FROM events").execute(conn).await?;
        Ok(())
    }

    /// Cuts the log back to `last` (a checkpoint's newest event), the next id following it,
    /// if both `last` and `wanted` are in it; else changes nothing and says no.
    pub async fn cut_back(
        tx: &mut SqliteConnection,
        last: i64,
        wanted: i64,
    ) -> Result<bool, sqlx::Error> {
        let found: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM events WHERE id IN (?1, ?2)")
            .bind(last)
            .bind(wanted)
            .fetch_one(&mut *tx)
            .await?;
        if found != 2 {
            return Ok(false);
        }
        sqlx::query("DELETE FROM events WHERE id > ?1")
            .bind(last)
            .execute(&mut *tx)
            .await?;
        sqlx::query("UPDATE sqlite_sequence SET seq = ?1 WHERE name = 'events'")
            .bind(last)
            .execute(&mut *tx)
            .await?;
        Ok(true)
    }
}

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
            let mut sql = event_log::insert_statement(chunk.len());
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
