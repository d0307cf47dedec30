//! The class's students: admitted by name, enrolled with their sandbox, renamed and removed;
//! their progress, their shared quiz, and the summary that counts them.

use super::*;

impl Classes {
    /// The first half of a join (`server::teach::join` makes the sandbox between the two):
    /// the code and the name are read, the class found and the name checked free. Returns the
    /// class's id and the name as kept.
    pub async fn admit(&self, code: &str, name: &str) -> Result<(String, String), LabError> {
        lock(&self.0.joins).take()?;
        let code = ClassCode::parse(code)?;
        let name = student_name(name)?;
        let class_id = self.find(&code).await?;
        self.name_free(&class_id, &name).await?;
        Ok((class_id, name))
    }

    /// Refuses a name a classmate has, or one a reader could not tell from theirs.
    async fn name_free(&self, class_id: &str, name: &str) -> Result<(), LabError> {
        let taken: Option<(String,)> =
            sqlx::query_as("SELECT name FROM students WHERE class_id = ?1 AND name_key = ?2")
                .bind(class_id)
                .bind(name_key(name))
                .fetch_optional(&self.0.pool)
                .await?;
        match taken {
            None => Ok(()),
            Some((theirs,)) if theirs == name => Err(LabError::NameTaken),
            Some(_) => Err(LabError::NameLookAlike(name.to_owned())),
        }
    }

    /// The second half of a join: the student's new sandbox is tied to the class. Two joins
    /// that raced for one name (or two look-alikes): the second is refused.
    pub async fn enrol(&self, class_id: &str, sandbox: &str, name: &str) -> Result<(), LabError> {
        let now = now_ms();
        // One connection, so the look and the insert are one step: no join slips between.
        let inserted = sqlx::query(
            "INSERT INTO students (sandbox, class_id, name, joined_ms, progress_ms, name_key)
             SELECT ?1, ?2, ?3, ?4, ?4, ?5
             WHERE NOT EXISTS (SELECT 1 FROM students WHERE class_id = ?2 AND name_key = ?5)
             ON CONFLICT DO NOTHING",
        )
        .bind(sandbox)
        .bind(class_id)
        .bind(name)
        .bind(now)
        .bind(name_key(name))
        .execute(&self.0.pool)
        .await?
        .rows_affected();
        if inserted == 0 {
            self.name_free(class_id, name).await?;
            return Err(LabError::NameTaken);
        }
        self.used(class_id, now).await?;
        self.bump(class_id);
        tracing::info!(class = %class_id, sandbox, "student joined");
        Ok(())
    }

    /// Takes a student off the class's roster (their progress, reach and shared score go with
    /// the row); their sandbox stays theirs. `NotFound` when the sandbox is not this class's.
    pub async fn remove(&self, class_id: &str, sandbox: &str) -> Result<(), LabError> {
        let gone = sqlx::query("DELETE FROM students WHERE class_id = ?1 AND sandbox = ?2")
            .bind(class_id)
            .bind(sandbox)
            .execute(&self.0.pool)
            .await?
            .rows_affected();
        if gone == 0 {
            return Err(LabError::NotFound);
        }
        self.used(class_id, now_ms()).await?;
        self.bump(class_id);
        tracing::info!(class = %class_id, sandbox, "student removed");
        Ok(())
    }

    /// Gives a student's row another name (a typo, a ghost's name fixed), checked as a join's
    /// name is: free in the class and not a look-alike of a classmate's. `NotFound` when the
    /// sandbox is not this class's.
    pub async fn rename(
        &self,
        class_id: &str,
        sandbox: &str,
        name: &str,
    ) -> Result<String, LabError> {
        let name = student_name(name)?;
        let theirs: Option<(String,)> =
            sqlx::query_as("SELECT name FROM students WHERE class_id = ?1 AND sandbox = ?2")
                .bind(class_id)
                .bind(sandbox)
                .fetch_optional(&self.0.pool)
                .await?;
        let (theirs,) = theirs.ok_or(LabError::NotFound)?;
        if name_key(&theirs) != name_key(&name) {
            self.name_free(class_id, &name).await?;
        }
        // One connection: no join takes the name between the look and the write.
        let changed = sqlx::query(
            "UPDATE students SET name = ?3, name_key = ?4 WHERE class_id = ?1 AND sandbox = ?2
             AND NOT EXISTS (SELECT 1 FROM students WHERE class_id = ?1 AND name_key = ?4
                             AND sandbox <> ?2)",
        )
        .bind(class_id)
        .bind(sandbox)
        .bind(&name)
        .bind(name_key(&name))
        .execute(&self.0.pool)
        .await?
        .rows_affected();
        if changed == 0 {
            return Err(LabError::NameTaken);
        }
        self.touch(class_id).await?;
        Ok(name)
    }

    /// Whether a sandbox is a student's of some class.
    pub async fn is_student(&self, sandbox: &str) -> Result<bool, LabError> {
        let row: Option<(i64,)> = sqlx::query_as("SELECT 1 FROM students WHERE sandbox = ?1")
            .bind(sandbox)
            .fetch_optional(&self.0.pool)
            .await?;
        Ok(row.is_some())
    }

    /// The steps of a chapter the student ever had done, as bits (bit k: step k + 1).
    pub async fn reached(&self, sandbox: &str, chapter: u8) -> Result<u16, LabError> {
        let row: Option<(i64,)> =
            sqlx::query_as("SELECT steps FROM reached WHERE sandbox = ?1 AND chapter = ?2")
                .bind(sandbox)
                .bind(i64::from(chapter))
                .fetch_optional(&self.0.pool)
                .await?;
        Ok(row.map_or(0, |(bits,)| bits as u16))
    }

    /// Keeps where a student stands, as the server worked it out (`server::teach::report`).
    /// Their row changes (and the class view hears of it) only when the chapter or the steps
    /// did; the steps done join the chapter's history ("reached"), which a reset never
    /// shrinks. `false` when the sandbox is in no class.
    pub async fn record(&self, sandbox: &str, progress: Progress) -> Result<bool, LabError> {
        let progress = progress.check()?;
        let now = now_ms();
        let class: Option<(String,)> = sqlx::query_as(
            "UPDATE students SET chapter = ?2, steps_done = ?3,
               progress_ms = CASE WHEN chapter IS ?2 AND steps_done = ?3 THEN progress_ms ELSE ?4 END
             WHERE sandbox = ?1 RETURNING class_id",
        )
        .bind(sandbox)
        .bind(i64::from(progress.chapter))
        .bind(i64::from(progress.steps_done))
        .bind(now)
        .fetch_optional(&self.0.pool)
        .await?;
        let Some((class_id,)) = class else {
            return Ok(false);
        };
        sqlx::query(
            "INSERT INTO reached (sandbox, chapter, steps) VALUES (?1, ?2, ?3)
             ON CONFLICT (sandbox, chapter) DO UPDATE SET steps = steps | excluded.steps",
        )
        .bind(sandbox)
        .bind(i64::from(progress.chapter))
        .bind(i64::from(progress.ticked))
        .execute(&self.0.pool)
        .await?;
        self.used(&class_id, now).await?;
        self.bump(&class_id);
        Ok(true)
    }

    /// A student shares their quiz answers (by question id); the server marks them and keeps
    /// the answers, so each mark can be read again. Answers the marking (right, of those
    /// given); `None` when the sandbox is in no class.
    pub async fn share_quiz(
        &self,
        sandbox: &str,
        answers: &std::collections::BTreeMap<String, crate::domain::quiz::Answer>,
    ) -> Result<Option<(u8, u8)>, LabError> {
        let marks = crate::domain::quiz::mark(answers)?;
        let answered = marks.iter().flatten().count();
        let correct = marks.iter().flatten().filter(|right| **right).count();
        let now = now_ms();
        let class: Option<(String,)> =
            sqlx::query_as("SELECT class_id FROM students WHERE sandbox = ?1")
                .bind(sandbox)
                .fetch_optional(&self.0.pool)
                .await?;
        let Some((class_id,)) = class else {
            return Ok(None);
        };
        let kept = serde_json::to_string(answers)
            .map_err(|e| LabError::Invalid(FieldError::new("answers", format!("not kept: {e}"))))?;
        sqlx::query(
            "INSERT INTO quiz_scores (sandbox, correct, answered, shared_ms, answers)
             VALUES (?1, ?2, ?3, ?4, ?5)
             ON CONFLICT (sandbox) DO UPDATE SET correct = excluded.correct,
               answered = excluded.answered, shared_ms = excluded.shared_ms,
               answers = excluded.answers",
        )
        .bind(sandbox)
        .bind(correct as i64)
        .bind(answered as i64)
        .bind(now)
        .bind(kept)
        .execute(&self.0.pool)
        .await?;
        self.used(&class_id, now).await?;
        self.bump(&class_id);
        Ok(Some((correct as u8, answered as u8)))
    }

    /// The end of the class: every student with what they reached and shared.
    pub async fn summary(&self, class_id: &str) -> Result<ClassSummary, LabError> {
        let students = self.students(class_id).await?;
        let reached: Vec<(String, i64, i64)> = sqlx::query_as(
            "SELECT r.sandbox, r.chapter, r.steps FROM reached r
             JOIN students s ON s.sandbox = r.sandbox WHERE s.class_id = ?1",
        )
        .bind(class_id)
        .fetch_all(&self.0.pool)
        .await?;
        let scores: Vec<(String, i64, i64, Option<String>)> = sqlx::query_as(
            "SELECT q.sandbox, q.correct, q.answered, q.answers FROM quiz_scores q
             JOIN students s ON s.sandbox = q.sandbox WHERE s.class_id = ?1",
        )
        .bind(class_id)
        .fetch_all(&self.0.pool)
        .await?;
        let chapters = crate::domain::course::CHAPTERS.len();
        let rows = students
            .into_iter()
            .map(|(s, _, harm_seen)| {
                let mut marks = vec![None; chapters];
                for (_, chapter, steps) in reached.iter().filter(|r| r.0 == s.sandbox) {
                    if let Some(slot) = usize::try_from(*chapter - 1)
                        .ok()
                        .and_then(|i| marks.get_mut(i))
                    {
                        *slot = Some(*steps as u16);
                    }
                }
                let score = scores.iter().find(|q| q.0 == s.sandbox);
                SummaryRow {
                    quiz: score.map(|q| (q.1 as u8, q.2 as u8)),
                    quiz_marks: score
                        .and_then(|q| q.3.as_deref())
                        .and_then(|text| serde_json::from_str(text).ok())
                        .and_then(|answers| crate::domain::quiz::mark(&answers).ok())
                        .unwrap_or_default(),
                    name: s.name,
                    chapter_now: s.progress.map(|p| p.chapter),
                    reached: marks,
                    harm: s.harm,
                    harm_seen: harm_seen.worst(s.harm),
                }
            })
            .collect();
        Ok(ClassSummary { students: rows })
    }

    /// A student's sandbox, if the class has that student: the instructor's read-only look at
    /// a lab goes no further than their own class.
    pub async fn student_sandbox(&self, class_id: &str, sandbox: &str) -> Result<Uuid, LabError> {
        let row: Option<(String,)> =
            sqlx::query_as("SELECT sandbox FROM students WHERE class_id = ?1 AND sandbox = ?2")
                .bind(class_id)
                .bind(sandbox)
                .fetch_optional(&self.0.pool)
                .await?;
        row.and_then(|(s,)| Uuid::parse_str(&s).ok())
            .ok_or(LabError::NotFound)
    }

    /// Which class a sandbox's student is in, and under what name.
    pub async fn membership(&self, sandbox: &str) -> Result<Option<(ClassCode, String)>, LabError> {
        let row: Option<(String, String)> = sqlx::query_as(
            "SELECT c.code, s.name FROM students s JOIN classes c ON c.id = s.class_id
             WHERE s.sandbox = ?1",
        )
        .bind(sandbox)
        .fetch_optional(&self.0.pool)
        .await?;
        Ok(row.and_then(|(code, name)| Some((ClassCode::parse(&code).ok()?, name))))
    }

    /// The class's students as last stored, in the order they joined, each with the id of the
    /// newest event read from their sandbox (0 for none).
    pub async fn students(&self, class_id: &str) -> Result<Vec<(StudentRow, i64, Harm)>, LabError> {
        let rows: Vec<Row> = sqlx::query_as(
            "SELECT sandbox, name, joined_ms, chapter, steps_done, progress_ms, harm, last_event,
                    last_event_id, harm_seen, harm_kinds
             FROM students WHERE class_id = ?1 ORDER BY joined_ms, name",
        )
        .bind(class_id)
        .fetch_all(&self.0.pool)
        .await?;
        Ok(rows
            .into_iter()
            .map(|r| {
                let (seen, harm_seen) = (r.last_event_id, Harm::from_id(&r.harm_seen));
                (r.into_student(), seen, harm_seen)
            })
            .collect())
    }

    /// Keeps what was read of a student's sandbox: its harm and newest event, and the worse of
    /// that harm and `seen`, the worst read before ("harm seen": a reset does not wipe it).
    /// `newest`: the id of the newest event read, which may be one the view does not show.
    pub async fn note(&self, s: &StudentRow, seen: Harm, newest: i64) -> Result<(), LabError> {
        let (id, text) = (
            newest,
            s.last_event
                .as_ref()
                .and_then(|e| serde_json::to_string(e).ok()),
        );
        let seen = seen.worst(s.harm);
        sqlx::query(
            "UPDATE students SET harm = ?2, last_event = ?3, last_event_id = ?4, harm_seen = ?5,
               harm_kinds = ?6
             WHERE sandbox = ?1",
        )
        .bind(&s.sandbox)
        .bind(s.harm.id())
        .bind(text)
        .bind(id)
        .bind(seen.id())
        .bind(i64::from(s.harm_kinds.0))
        .execute(&self.0.pool)
        .await?;
        Ok(())
    }
}
