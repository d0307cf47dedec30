//! The server's classes (docs/reference.md §10): made by an instructor, joined by students with
//! a short code, each student on a sandbox of their own. Kept in `classes.sqlite` in the data
//! folder, so a class survives a restart; a class unused for as long as a sandbox lives is
//! deleted by the reaper, as sandboxes are.
//!
//! The instructor's power is a secret kept in their browser (an HttpOnly cookie); this file
//! keeps only its SHA-256. A student's power is their sandbox's id, as everywhere in the lab.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};
use sqlx::migrate::Migrator;
use sqlx::sqlite::SqlitePool;
use tokio::sync::watch;
use uuid::Uuid;

use super::error::LabError;
use crate::domain::class::{
    student_name, ClassCode, ClassSummary, Harm, Progress, StudentRow, SummaryRow,
};
use crate::domain::{FieldError, TimelineEvent};

static MIGRATOR: Migrator = sqlx::migrate!("migrations/classes");

/// The cookie that carries a class's secret: one per class, `pocketpay_class_{id}`.
pub fn secret_cookie(class_id: &str) -> String {
    format!("pocketpay_class_{class_id}")
}

/// Joins let through per second across the server, and the burst a whole class makes when it
/// joins at once.
const JOIN_RATE: f64 = 20.0;
const JOIN_BURST: f64 = 300.0;
/// Look-ups of codes that name no class: a guesser's requests, held much tighter.
const MISS_RATE: f64 = 1.0;
const MISS_BURST: f64 = 30.0;

/// Every class of this server. Cheap to clone.
#[derive(Clone)]
pub struct Classes(Arc<Inner>);

struct Inner {
    pool: SqlitePool,
    ttl: Duration,
    /// One signal per class whose view is open: bumped when a student joins or reports.
    changed: std::sync::Mutex<HashMap<String, watch::Sender<u64>>>,
    joins: std::sync::Mutex<Bucket>,
    misses: std::sync::Mutex<Bucket>,
}

/// A token bucket.
struct Bucket {
    tokens: f64,
    at: Instant,
    rate: f64,
    burst: f64,
}

impl Bucket {
    fn new(rate: f64, burst: f64) -> Bucket {
        Bucket {
            tokens: burst,
            at: Instant::now(),
            rate,
            burst,
        }
    }

    /// Takes a token, or says how many seconds until one is there.
    fn take(&mut self) -> Result<(), LabError> {
        let now = Instant::now();
        self.tokens =
            (self.tokens + now.duration_since(self.at).as_secs_f64() * self.rate).min(self.burst);
        self.at = now;
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            Ok(())
        } else {
            Err(LabError::TooManyRequests(
                ((1.0 - self.tokens) / self.rate).ceil().max(1.0) as u64,
            ))
        }
    }
}

/// A class just made: its id, its code, and the secret to hand to the instructor's browser.
pub struct NewClass {
    pub id: String,
    pub code: ClassCode,
    pub secret: String,
}

/// Wall time, ms since the epoch.
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

fn digest(secret: &str) -> String {
    Sha256::digest(secret.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A student's row as stored.
#[derive(sqlx::FromRow)]
struct Row {
    sandbox: String,
    name: String,
    joined_ms: i64,
    chapter: Option<i64>,
    steps_done: i64,
    progress_ms: i64,
    harm: String,
    last_event: Option<String>,
    last_event_id: i64,
}

impl Row {
    fn into_student(self) -> StudentRow {
        StudentRow {
            sandbox: self.sandbox,
            name: self.name,
            progress: self
                .chapter
                .map(|c| Progress::new(c as u8, self.steps_done as u8)),
            harm: Harm::from_id(&self.harm),
            last_event: self
                .last_event
                .and_then(|e| serde_json::from_str::<TimelineEvent>(&e).ok()),
            joined_ms: self.joined_ms,
            progress_ms: self.progress_ms,
        }
    }
}

impl Classes {
    /// Opens (creating and migrating) `classes.sqlite` in the data folder.
    pub async fn open(data_dir: &std::path::Path, ttl: Duration) -> Result<Classes, LabError> {
        let options = super::store::connect_options(&data_dir.join("classes.sqlite"))?;
        // One connection: every statement here is short, and one writer is all SQLite has.
        let pool = sqlx::sqlite::SqlitePoolOptions::new()
            .max_connections(1)
            .connect_with(options)
            .await?;
        MIGRATOR
            .run(&pool)
            .await
            .map_err(|e| LabError::Store(e.into()))?;
        Ok(Classes(Arc::new(Inner {
            pool,
            ttl,
            changed: std::sync::Mutex::new(HashMap::new()),
            joins: std::sync::Mutex::new(Bucket::new(JOIN_RATE, JOIN_BURST)),
            misses: std::sync::Mutex::new(Bucket::new(MISS_RATE, MISS_BURST)),
        })))
    }

    /// Makes a class with a fresh code.
    pub async fn create(&self) -> Result<NewClass, LabError> {
        let id = Uuid::new_v4().to_string();
        let secret = format!("{}{}", Uuid::new_v4().simple(), Uuid::new_v4().simple());
        let now = now_ms();
        // A code taken by a living class is drawn again.
        for _ in 0..8 {
            let code = ClassCode::from_bits(Uuid::new_v4().as_u64_pair().0);
            let inserted = sqlx::query(
                "INSERT INTO classes (id, code, secret_sha256, created_ms, used_ms)
                 VALUES (?1, ?2, ?3, ?4, ?4) ON CONFLICT (code) DO NOTHING",
            )
            .bind(&id)
            .bind(code.as_str())
            .bind(digest(&secret))
            .bind(now)
            .execute(&self.0.pool)
            .await?
            .rows_affected();
            if inserted == 1 {
                tracing::info!(class = %id, code = code.as_str(), "class created");
                return Ok(NewClass { id, code, secret });
            }
        }
        Err(LabError::Unavailable)
    }

    /// The class's code if `secret` is its instructor's; a class that does not exist (or
    /// expired) is [`LabError::UnknownClass`], a wrong or missing secret
    /// [`LabError::NotYourClass`].
    pub async fn authorize(&self, id: &str, secret: Option<&str>) -> Result<ClassCode, LabError> {
        let row: Option<(String, String, i64)> =
            sqlx::query_as("SELECT code, secret_sha256, used_ms FROM classes WHERE id = ?1")
                .bind(id)
                .fetch_optional(&self.0.pool)
                .await?;
        let (code, hash, used) = row.ok_or(LabError::UnknownClass)?;
        if self.expired(used) {
            return Err(LabError::UnknownClass);
        }
        match secret {
            Some(s) if digest(s) == hash => {
                ClassCode::parse(&code).map_err(|_| LabError::UnknownClass)
            }
            _ => Err(LabError::NotYourClass),
        }
    }

    fn expired(&self, used_ms: i64) -> bool {
        now_ms() - used_ms >= self.0.ttl.as_millis() as i64
    }

    /// The class a code names, if it lives; unknown codes are rate-limited server-wide.
    pub async fn find(&self, code: &ClassCode) -> Result<String, LabError> {
        let row: Option<(String, i64)> =
            sqlx::query_as("SELECT id, used_ms FROM classes WHERE code = ?1")
                .bind(code.as_str())
                .fetch_optional(&self.0.pool)
                .await?;
        match row {
            Some((id, used)) if !self.expired(used) => Ok(id),
            _ => {
                lock(&self.0.misses).take()?;
                Err(LabError::UnknownClass)
            }
        }
    }

    /// Whether a code names a living class (no rate limit: for a page's status, after the
    /// page's own look-up was counted).
    pub async fn exists(&self, code: &ClassCode) -> Result<bool, LabError> {
        let row: Option<(i64,)> = sqlx::query_as("SELECT used_ms FROM classes WHERE code = ?1")
            .bind(code.as_str())
            .fetch_optional(&self.0.pool)
            .await?;
        Ok(row.is_some_and(|(used,)| !self.expired(used)))
    }

    /// The first half of a join (`server::teach::join` makes the sandbox between the two):
    /// the code and the name are read, the class found and the name checked free. Returns the
    /// class's id and the name as kept.
    pub async fn admit(&self, code: &str, name: &str) -> Result<(String, String), LabError> {
        lock(&self.0.joins).take()?;
        let code = ClassCode::parse(code)?;
        let name = student_name(name)?;
        let class_id = self.find(&code).await?;
        let taken: Option<(i64,)> =
            sqlx::query_as("SELECT 1 FROM students WHERE class_id = ?1 AND name = ?2")
                .bind(&class_id)
                .bind(&name)
                .fetch_optional(&self.0.pool)
                .await?;
        if taken.is_some() {
            return Err(LabError::NameTaken);
        }
        Ok((class_id, name))
    }

    /// The second half of a join: the student's new sandbox is tied to the class. Two joins
    /// that raced for one name: the second is refused ([`LabError::NameTaken`]).
    pub async fn enrol(&self, class_id: &str, sandbox: &str, name: &str) -> Result<(), LabError> {
        let now = now_ms();
        let inserted = sqlx::query(
            "INSERT INTO students (sandbox, class_id, name, joined_ms, progress_ms)
             VALUES (?1, ?2, ?3, ?4, ?4) ON CONFLICT DO NOTHING",
        )
        .bind(sandbox)
        .bind(class_id)
        .bind(name)
        .bind(now)
        .execute(&self.0.pool)
        .await?
        .rows_affected();
        if inserted == 0 {
            return Err(LabError::NameTaken);
        }
        self.used(class_id, now).await?;
        self.bump(class_id);
        tracing::info!(class = %class_id, sandbox, "student joined");
        Ok(())
    }

    /// Marks the class used now and tells its view to look again (after a push).
    pub async fn touch(&self, class_id: &str) -> Result<(), LabError> {
        self.used(class_id, now_ms()).await?;
        self.bump(class_id);
        Ok(())
    }

    async fn used(&self, class_id: &str, now: i64) -> Result<(), LabError> {
        sqlx::query("UPDATE classes SET used_ms = ?2 WHERE id = ?1")
            .bind(class_id)
            .bind(now)
            .execute(&self.0.pool)
            .await?;
        Ok(())
    }

    /// A student's lab reports where they are. Their row changes (and the class view hears of
    /// it) only when the chapter or the steps did; `false` when the sandbox is in no class.
    pub async fn report(&self, sandbox: &str, progress: Progress) -> Result<bool, LabError> {
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

    /// A quiz score a student chose to share: `correct` right of `answered` given. `false`
    /// when the sandbox is in no class.
    pub async fn share_quiz(
        &self,
        sandbox: &str,
        correct: u8,
        answered: u8,
    ) -> Result<bool, LabError> {
        let questions = crate::domain::quiz::QUESTIONS.len();
        if usize::from(answered) > questions {
            return Err(
                FieldError::new("answered", format!("the quiz has {questions} questions")).into(),
            );
        }
        if correct > answered {
            return Err(FieldError::new("correct", "at most the answers given").into());
        }
        let now = now_ms();
        let class: Option<(String,)> =
            sqlx::query_as("SELECT class_id FROM students WHERE sandbox = ?1")
                .bind(sandbox)
                .fetch_optional(&self.0.pool)
                .await?;
        let Some((class_id,)) = class else {
            return Ok(false);
        };
        sqlx::query(
            "INSERT INTO quiz_scores (sandbox, correct, answered, shared_ms) VALUES (?1, ?2, ?3, ?4)
             ON CONFLICT (sandbox) DO UPDATE SET correct = excluded.correct,
               answered = excluded.answered, shared_ms = excluded.shared_ms",
        )
        .bind(sandbox)
        .bind(i64::from(correct))
        .bind(i64::from(answered))
        .bind(now)
        .execute(&self.0.pool)
        .await?;
        self.used(&class_id, now).await?;
        self.bump(&class_id);
        Ok(true)
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
        let scores: Vec<(String, i64, i64)> = sqlx::query_as(
            "SELECT q.sandbox, q.correct, q.answered FROM quiz_scores q
             JOIN students s ON s.sandbox = q.sandbox WHERE s.class_id = ?1",
        )
        .bind(class_id)
        .fetch_all(&self.0.pool)
        .await?;
        let chapters = crate::domain::course::CHAPTERS.len();
        let rows = students
            .into_iter()
            .map(|(s, _)| {
                let mut marks = vec![None; chapters];
                for (_, chapter, steps) in reached.iter().filter(|r| r.0 == s.sandbox) {
                    if let Some(slot) = usize::try_from(*chapter - 1)
                        .ok()
                        .and_then(|i| marks.get_mut(i))
                    {
                        *slot = Some(*steps as u16);
                    }
                }
                SummaryRow {
                    quiz: scores
                        .iter()
                        .find(|q| q.0 == s.sandbox)
                        .map(|q| (q.1 as u8, q.2 as u8)),
                    name: s.name,
                    chapter_now: s.progress.map(|p| p.chapter),
                    reached: marks,
                    harm: s.harm,
                }
            })
            .collect();
        Ok(ClassSummary { students: rows })
    }

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

    /// Whether a sandbox's class has locked its student's controls (false outside a class).
    pub async fn locked_for(&self, sandbox: &str) -> Result<bool, LabError> {
        let row: Option<(bool,)> = sqlx::query_as(
            "SELECT c.locked FROM students s JOIN classes c ON c.id = s.class_id
             WHERE s.sandbox = ?1",
        )
        .bind(sandbox)
        .fetch_optional(&self.0.pool)
        .await?;
        Ok(row.is_some_and(|(l,)| l))
    }

    /// The class's lock, as its instructor last set it.
    pub async fn locked(&self, class_id: &str) -> Result<bool, LabError> {
        let row: Option<(bool,)> = sqlx::query_as("SELECT locked FROM classes WHERE id = ?1")
            .bind(class_id)
            .fetch_optional(&self.0.pool)
            .await?;
        Ok(row.is_some_and(|(l,)| l))
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
    pub async fn students(&self, class_id: &str) -> Result<Vec<(StudentRow, i64)>, LabError> {
        let rows: Vec<Row> = sqlx::query_as(
            "SELECT sandbox, name, joined_ms, chapter, steps_done, progress_ms, harm, last_event,
                    last_event_id
             FROM students WHERE class_id = ?1 ORDER BY joined_ms, name",
        )
        .bind(class_id)
        .fetch_all(&self.0.pool)
        .await?;
        Ok(rows
            .into_iter()
            .map(|r| {
                let seen = r.last_event_id;
                (r.into_student(), seen)
            })
            .collect())
    }

    /// Keeps what was read of a student's sandbox: its harm and newest event.
    pub async fn note(&self, s: &StudentRow) -> Result<(), LabError> {
        let (id, text) = match &s.last_event {
            Some(e) => (e.id, serde_json::to_string(e).ok()),
            None => (0, None),
        };
        sqlx::query(
            "UPDATE students SET harm = ?2, last_event = ?3, last_event_id = ?4 WHERE sandbox = ?1",
        )
        .bind(&s.sandbox)
        .bind(s.harm.id())
        .bind(text)
        .bind(id)
        .execute(&self.0.pool)
        .await?;
        Ok(())
    }

    /// A signal that changes whenever a student of the class joins or reports.
    pub fn watch(&self, class_id: &str) -> watch::Receiver<u64> {
        let mut changed = lock(&self.0.changed);
        changed.retain(|_, tx| tx.receiver_count() > 0);
        changed
            .entry(class_id.to_owned())
            .or_insert_with(|| watch::channel(0).0)
            .subscribe()
    }

    fn bump(&self, class_id: &str) {
        if let Some(tx) = lock(&self.0.changed).get(class_id) {
            tx.send_modify(|n| *n += 1);
        }
    }

    /// Deletes the classes unused for as long as a sandbox lives (their students' rows go with
    /// them; the sandboxes expire on their own).
    pub async fn reap(&self) -> Result<(), LabError> {
        let gone = sqlx::query("DELETE FROM classes WHERE used_ms <= ?1")
            .bind(now_ms() - self.0.ttl.as_millis() as i64)
            .execute(&self.0.pool)
            .await?
            .rows_affected();
        if gone > 0 {
            tracing::info!(classes = gone, "expired classes deleted");
        }
        // A mirror unused as long lives no longer than its sandbox.
        sqlx::query("DELETE FROM mirrors WHERE used_ms <= ?1")
            .bind(now_ms() - self.0.ttl.as_millis() as i64)
            .execute(&self.0.pool)
            .await?;
        Ok(())
    }

    pub async fn close(&self) {
        self.0.pool.close().await;
    }
}

/// The text (a join link) as a QR code: an SVG of black modules on white, a quiet zone
/// around it, scaled by the page. Empty if the text is too long for a code.
pub fn qr_svg(text: &str) -> String {
    use qrcode::render::svg;
    let Ok(code) = qrcode::QrCode::with_error_correction_level(text, qrcode::EcLevel::M) else {
        return String::new();
    };
    let svg = code
        .render::<svg::Color<'_>>()
        .min_dimensions(200, 200)
        .dark_color(svg::Color("#000"))
        .light_color(svg::Color("#fff"))
        .build();
    // The page puts it inside its HTML: no XML declaration there.
    match svg.find("<svg") {
        Some(start) => svg[start..].to_owned(),
        None => String::new(),
    }
}

fn lock<T>(m: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}
