//! What the instructor sets on the class: the lock and the freeze, the cue on every screen and
//! its history, and the read-only mirrors of a student's sandbox.

use super::*;

impl Classes {
    /// Locks (or unlocks) the students' own controls; the caller tells their running
    /// sandboxes (`server::teach::push`).
    pub async fn set_locked(&self, class_id: &str, locked: bool) -> Result<(), LabError> {
        sqlx::query("UPDATE classes SET locked = ?2 WHERE id = ?1")
            .bind(class_id)
            .bind(locked)
            .execute(&self.0.pool)
            .await?;
        Ok(())
    }

    /// Freezes (or thaws) every clock of the class; the caller tells their running sandboxes
    /// (`server::teach::push`).
    pub async fn set_frozen(&self, class_id: &str, frozen: bool) -> Result<(), LabError> {
        sqlx::query("UPDATE classes SET frozen = ?2 WHERE id = ?1")
            .bind(class_id)
            .bind(frozen)
            .execute(&self.0.pool)
            .await?;
        Ok(())
    }

    /// What a sandbox's class holds over it: the lock, the freeze and the cue (all empty
    /// outside a class).
    pub async fn holds_for(&self, sandbox: &str) -> Result<Holds, LabError> {
        let row: Option<(bool, bool, String)> = sqlx::query_as(
            "SELECT c.locked, c.frozen, c.cue FROM students s JOIN classes c ON c.id = s.class_id
             WHERE s.sandbox = ?1",
        )
        .bind(sandbox)
        .fetch_optional(&self.0.pool)
        .await?;
        Ok(Holds::of(row))
    }

    /// The class's lock, freeze and cue, as its instructor last set them.
    pub async fn holds(&self, class_id: &str) -> Result<Holds, LabError> {
        let row: Option<(bool, bool, String)> =
            sqlx::query_as("SELECT locked, frozen, cue FROM classes WHERE id = ?1")
                .bind(class_id)
                .fetch_optional(&self.0.pool)
                .await?;
        Ok(Holds::of(row))
    }

    /// Keeps what every student's screen is told now; the caller tells the running sandboxes
    /// (`server::teach`).
    pub async fn set_cue(&self, class_id: &str, cue: &Cue) -> Result<(), LabError> {
        // Plain fields and strings: serializing cannot fail.
        let json = serde_json::to_string(cue).unwrap_or_else(|_| "{}".to_owned());
        sqlx::query("UPDATE classes SET cue = ?2 WHERE id = ?1")
            .bind(class_id)
            .bind(json)
            .execute(&self.0.pool)
            .await?;
        Ok(())
    }

    /// Adds a line to the class's history, and tells its view.
    pub async fn log_sent(&self, class_id: &str, sent: &Sent) -> Result<(), LabError> {
        let what = serde_json::to_string(&sent.what).unwrap_or_else(|_| "{}".to_owned());
        sqlx::query(
            "INSERT INTO sent (class_id, at_ms, what, took, of) VALUES (?1, ?2, ?3, ?4, ?5)",
        )
        .bind(class_id)
        .bind(sent.at_ms)
        .bind(what)
        .bind(sent.took as i64)
        .bind(sent.of as i64)
        .execute(&self.0.pool)
        .await?;
        self.bump(class_id);
        Ok(())
    }

    /// The class's history, newest first, at most [`HISTORY_MAX`] lines.
    pub async fn history(&self, class_id: &str) -> Result<Vec<Sent>, LabError> {
        let rows: Vec<(i64, String, i64, i64)> = sqlx::query_as(
            "SELECT at_ms, what, took, of FROM sent WHERE class_id = ?1
             ORDER BY at_ms DESC, rowid DESC LIMIT ?2",
        )
        .bind(class_id)
        .bind(HISTORY_MAX)
        .fetch_all(&self.0.pool)
        .await?;
        Ok(rows
            .into_iter()
            .filter_map(|(at_ms, what, took, of)| {
                Some(Sent {
                    at_ms,
                    what: serde_json::from_str(&what).ok()?,
                    took: took as usize,
                    of: of as usize,
                })
            })
            .collect())
    }

    /// The read-only mirror token of a sandbox, made on first asking.
    pub async fn mirror(&self, sandbox: &Uuid) -> Result<String, LabError> {
        let now = now_ms();
        let token = crate::domain::class::mirror_token(sandbox, Uuid::new_v4());
        let (token,): (String,) = sqlx::query_as(
            "INSERT INTO mirrors (token, sandbox, used_ms) VALUES (?1, ?2, ?3)
             ON CONFLICT (sandbox) DO UPDATE SET used_ms = excluded.used_ms RETURNING token",
        )
        .bind(token)
        .bind(sandbox.to_string())
        .bind(now)
        .fetch_one(&self.0.pool)
        .await?;
        Ok(token)
    }

    /// The sandbox a mirror token shows, if it is one (a read: the page's status, its state).
    pub async fn mirrored(&self, token: &str) -> Result<Option<String>, LabError> {
        let row: Option<(String,)> = sqlx::query_as("SELECT sandbox FROM mirrors WHERE token = ?1")
            .bind(token)
            .fetch_optional(&self.0.pool)
            .await?;
        Ok(row.map(|(s,)| s))
    }

    /// A mirror being watched (its stream opened): it lives on as long as its sandbox would.
    pub async fn watched(&self, token: &str) -> Result<Option<String>, LabError> {
        let row: Option<(String,)> =
            sqlx::query_as("UPDATE mirrors SET used_ms = ?2 WHERE token = ?1 RETURNING sandbox")
                .bind(token)
                .bind(now_ms())
                .fetch_optional(&self.0.pool)
                .await?;
        Ok(row.map(|(s,)| s))
    }
}
