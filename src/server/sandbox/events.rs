//! The event log: rows read back as timeline events, and the owner's writing of events and inputs
//! (stored, then broadcast to every open stream).

use super::*;

impl EventRow {
    /// The event, or `None` for a row this version cannot read (never written by it).
    pub(super) fn into_event(self) -> Option<TimelineEvent> {
        Some(TimelineEvent {
            id: self.id,
            at_ms: self.at_ms,
            layer: Layer::from_id(&self.layer)?,
            kind: serde_json::from_value(serde_json::Value::String(self.kind)).ok()?,
            correlation: self.correlation,
            outcome: Outcome::from_id(&self.outcome)?,
            details: serde_json::from_str(&self.details).unwrap_or(serde_json::Value::Null),
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

    /// Stores events in the event log (one transaction) and then sends them to every stream.
    pub(super) async fn publish(&mut self, events: Vec<NewEvent>) -> Result<(), LabError> {
        if events.is_empty() {
            return Ok(());
        }
        let mut tx = self.world.stores.begin(StoreName::Lab).await?;
        let mut stored = Vec::with_capacity(events.len());
        for e in events {
            let kind = serde_json::to_value(e.kind).expect("event kinds serialise");
            let id: i64 = sqlx::query_scalar(
                "INSERT INTO events (at_ms, layer, kind, correlation, outcome, details)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6) RETURNING id",
            )
            .bind(e.at_ms)
            .bind(e.layer.id())
            .bind(kind.as_str())
            .bind(&e.correlation)
            .bind(e.outcome.id())
            .bind(e.details.to_string())
            .fetch_one(&mut *tx)
            .await?;
            stored.push(TimelineEvent {
                id,
                at_ms: e.at_ms,
                layer: e.layer,
                kind: e.kind,
                correlation: e.correlation,
                outcome: e.outcome,
                details: e.details,
            });
        }
        tx.commit().await?;
        if let Some(last) = stored.last() {
            self.last_event = last.id;
        }
        for e in stored {
            // No stream listening is fine: the log has it.
            let _ = self.events.send(Arc::new(e));
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
            .execute(self.world.stores.pool(StoreName::Lab))
            .await?;
        Ok(())
    }
}
