//! Who holds a class: the instructor's key handed over to a co-instructor by a one-time link,
//! the holders listed and withdrawn.

use super::*;

impl Classes {
    /// Hands the class to someone the instructor names (a teaching assistant, the
    /// lecture-hall PC): a holder row and a one-time token for its link (only the token's
    /// hash is kept). Returns the holder and the token.
    pub async fn hand_over(
        &self,
        class_id: &str,
        name: &str,
    ) -> Result<(Holder, String), LabError> {
        let name = student_name(name)?;
        let count: (i64,) = sqlx::query_as("SELECT COUNT(*) FROM holders WHERE class_id = ?1")
            .bind(class_id)
            .fetch_one(&self.0.pool)
            .await?;
        if count.0 >= HOLDERS_MAX {
            return Err(LabError::Invalid(FieldError::new(
                "name",
                format!("a class is handed to at most {HOLDERS_MAX} others; withdraw one first"),
            )));
        }
        let token = format!("{}{}", Uuid::new_v4().simple(), Uuid::new_v4().simple());
        let holder = Holder {
            id: Uuid::new_v4().simple().to_string(),
            name,
            made_ms: now_ms(),
            taken_ms: None,
        };
        sqlx::query(
            "INSERT INTO holders (id, class_id, name, link_sha256, made_ms)
             VALUES (?1, ?2, ?3, ?4, ?5)",
        )
        .bind(&holder.id)
        .bind(class_id)
        .bind(&holder.name)
        .bind(digest(&token))
        .bind(holder.made_ms)
        .execute(&self.0.pool)
        .await?;
        self.touch(class_id).await?;
        tracing::info!(class = %class_id, holder = %holder.id, "class handed over");
        Ok((holder, token))
    }

    /// Takes a hand-over link: once only, and only while its holder stands and its class
    /// lives. Returns the class's id and the new key for the taker's browser.
    pub async fn take(&self, token: &str) -> Result<(String, String), LabError> {
        lock(&self.0.joins).take()?;
        let key = format!("{}{}", Uuid::new_v4().simple(), Uuid::new_v4().simple());
        let now = now_ms();
        // One statement: of two browsers racing for one link, one takes it.
        let taken: Option<(String, i64)> = sqlx::query_as(
            "UPDATE holders SET key_sha256 = ?2, taken_ms = ?3
             WHERE link_sha256 = ?1 AND taken_ms IS NULL
             RETURNING class_id, (SELECT used_ms FROM classes c WHERE c.id = holders.class_id)",
        )
        .bind(digest(token))
        .bind(digest(&key))
        .bind(now)
        .fetch_optional(&self.0.pool)
        .await?;
        match taken {
            Some((class_id, used)) if !self.expired(used) => {
                self.used(&class_id, now).await?;
                self.bump(&class_id);
                tracing::info!(class = %class_id, "hand-over taken");
                Ok((class_id, key))
            }
            _ => Err(LabError::HandOverSpent),
        }
    }

    /// What an untaken hand-over link names, read only (its page asks before it takes):
    /// the class's name and the holder's.
    pub async fn hand_over_for(&self, token: &str) -> Result<(String, String), LabError> {
        let row: Option<(String, String, i64)> = sqlx::query_as(
            "SELECT c.name, h.name, c.used_ms FROM holders h JOIN classes c ON c.id = h.class_id
             WHERE h.link_sha256 = ?1 AND h.taken_ms IS NULL",
        )
        .bind(digest(token))
        .fetch_optional(&self.0.pool)
        .await?;
        match row {
            Some((class, holder, used)) if !self.expired(used) => Ok((class, holder)),
            _ => Err(LabError::HandOverSpent),
        }
    }

    /// The class's holders, oldest first.
    pub async fn holders(&self, class_id: &str) -> Result<Vec<Holder>, LabError> {
        let rows: Vec<(String, String, i64, Option<i64>)> = sqlx::query_as(
            "SELECT id, name, made_ms, taken_ms FROM holders WHERE class_id = ?1
             ORDER BY made_ms, id",
        )
        .bind(class_id)
        .fetch_all(&self.0.pool)
        .await?;
        Ok(rows
            .into_iter()
            .map(|(id, name, made_ms, taken_ms)| Holder {
                id,
                name,
                made_ms,
                taken_ms,
            })
            .collect())
    }

    /// Withdraws a hand-over: its link is spent if untaken, and the key it gave opens
    /// nothing more. `NotFound` when the class has no such holder.
    pub async fn withdraw(&self, class_id: &str, holder: &str) -> Result<(), LabError> {
        let gone = sqlx::query("DELETE FROM holders WHERE class_id = ?1 AND id = ?2")
            .bind(class_id)
            .bind(holder)
            .execute(&self.0.pool)
            .await?
            .rows_affected();
        if gone == 0 {
            return Err(LabError::NotFound);
        }
        self.touch(class_id).await?;
        tracing::info!(class = %class_id, holder, "hand-over withdrawn");
        Ok(())
    }
}
