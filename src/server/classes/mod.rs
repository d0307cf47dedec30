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
    student_name, ClassCode, ClassSummary, Cue, Harm, HarmKinds, Holder, MyClass, Progress, Sent,
    StudentRow, SummaryRow,
};
use crate::domain::{FieldError, TimelineEvent};

mod controls;
mod keys;
mod roster;

static MIGRATOR: Migrator = sqlx::migrate!("migrations/classes");

/// The cookie that carries a class's secret: one per class, `pocketpay_class_{id}`.
pub fn secret_cookie(class_id: &str) -> String {
    format!("{KEY_COOKIE_PREFIX}{class_id}")
}

const KEY_COOKIE_PREFIX: &str = "pocketpay_class_";

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

/// Others a class may be handed to at once.
pub const HOLDERS_MAX: i64 = 20;

/// Lines of a class's history its view shows.
pub const HISTORY_MAX: i64 = 50;

/// What a class holds over its students' sandboxes: the lock on their controls, the freeze of
/// their clocks, and what their screens were last told.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Holds {
    pub locked: bool,
    pub frozen: bool,
    pub cue: Cue,
}

impl Holds {
    fn of(row: Option<(bool, bool, String)>) -> Holds {
        row.map(|(locked, frozen, cue)| Holds {
            locked,
            frozen,
            // A cue that no longer reads is no cue.
            cue: serde_json::from_str(&cue).unwrap_or_default(),
        })
        .unwrap_or_default()
    }

    /// Puts the class's hold on one of its sandboxes.
    pub fn apply(&self, handle: &super::sandbox::SandboxHandle) {
        handle.set_locked(self.locked);
        handle.set_frozen(self.frozen);
        handle.set_cue(&self.cue);
    }
}

/// Wall time, ms since the epoch.
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

/// A name as the class compares it: what a reader would take for the same name is the same
/// key. Unicode NFC (one way of writing each letter), invisible characters out (the joiners
/// too), runs of spaces folded, lower case. A display name ([`student_name`]) is kept as typed.
pub fn name_key(name: &str) -> String {
    use unicode_normalization::UnicodeNormalization;
    let visible: String = name
        .nfc()
        .filter(|c| !crate::domain::class::invisible(*c) && !matches!(*c, '\u{200C}' | '\u{200D}'))
        .collect();
    visible
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
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
    harm_seen: String,
    harm_kinds: i64,
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
            harm_kinds: HarmKinds(self.harm_kinds as u8),
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
        // Names joined before names were compared folded get their key (SQL cannot fold).
        let unkeyed: Vec<(String, String)> =
            sqlx::query_as("SELECT sandbox, name FROM students WHERE name_key IS NULL")
                .fetch_all(&pool)
                .await?;
        for (sandbox, name) in unkeyed {
            sqlx::query("UPDATE students SET name_key = ?2 WHERE sandbox = ?1")
                .bind(sandbox)
                .bind(name_key(&name))
                .execute(&pool)
                .await?;
        }
        Ok(Classes(Arc::new(Inner {
            pool,
            ttl,
            changed: std::sync::Mutex::new(HashMap::new()),
            joins: std::sync::Mutex::new(Bucket::new(JOIN_RATE, JOIN_BURST)),
            misses: std::sync::Mutex::new(Bucket::new(MISS_RATE, MISS_BURST)),
        })))
    }

    /// Makes a class with a fresh code; `lead`, the first byte of the balancer's request id
    /// (`Sandboxes::new_id`), names its first two symbols, so the class's route is the one
    /// the balancer sent this request by (ARCHITECTURE.md, "Many servers"). Its id starts
    /// with that route too.
    pub async fn create(&self, lead: Option<u8>) -> Result<NewClass, LabError> {
        let secret = format!("{}{}", Uuid::new_v4().simple(), Uuid::new_v4().simple());
        let now = now_ms();
        // A code taken by a living class is drawn again.
        for _ in 0..8 {
            let bits = Uuid::new_v4().as_u64_pair().0;
            let code = match lead {
                Some(lead) => ClassCode::led_by(lead, bits),
                None => ClassCode::from_bits(bits),
            };
            let id = crate::domain::class::class_scoped_id(&code, Uuid::new_v4()).to_string();
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

    /// Names a class (empty: no name).
    pub async fn set_name(&self, class_id: &str, name: &str) -> Result<(), LabError> {
        sqlx::query("UPDATE classes SET name = ?2 WHERE id = ?1")
            .bind(class_id)
            .bind(name)
            .execute(&self.0.pool)
            .await?;
        Ok(())
    }

    /// The class's name (empty if none, or no such class).
    pub async fn name(&self, class_id: &str) -> Result<String, LabError> {
        let row: Option<(String,)> = sqlx::query_as("SELECT name FROM classes WHERE id = ?1")
            .bind(class_id)
            .fetch_optional(&self.0.pool)
            .await?;
        Ok(row.map(|(n,)| n).unwrap_or_default())
    }

    /// The living classes whose keys these are (class id, secret), newest use first: what a
    /// browser's key cookies open. A key that does not fit its class is left out.
    pub async fn mine(&self, keys: &[(String, String)]) -> Result<Vec<MyClass>, LabError> {
        let mut out = Vec::new();
        for (id, secret) in keys {
            if self.authorize(id, Some(secret)).await.is_err() {
                continue;
            }
            let row: Option<(String, String, i64, i64)> = sqlx::query_as(
                "SELECT c.code, c.name, c.used_ms,
                        (SELECT COUNT(*) FROM students s WHERE s.class_id = c.id)
                 FROM classes c WHERE c.id = ?1",
            )
            .bind(id)
            .fetch_optional(&self.0.pool)
            .await?;
            if let Some((code, name, used_ms, students)) = row {
                if let Ok(code) = ClassCode::parse(&code) {
                    out.push(MyClass {
                        id: id.clone(),
                        code,
                        name,
                        students: students as usize,
                        used_ms,
                        used_min_ago: (now_ms() - used_ms).max(0) / 60_000,
                    });
                }
            }
        }
        out.sort_by_key(|c| std::cmp::Reverse(c.used_ms));
        Ok(out)
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
        let Some(secret) = secret else {
            return Err(LabError::NotYourClass);
        };
        let given = digest(secret);
        // The instructor's own key, or one a hand-over gave and nobody withdrew.
        let held = given == hash
            || sqlx::query_as::<_, (i64,)>(
                "SELECT 1 FROM holders WHERE class_id = ?1 AND key_sha256 = ?2",
            )
            .bind(id)
            .bind(&given)
            .fetch_optional(&self.0.pool)
            .await?
            .is_some();
        if held {
            ClassCode::parse(&code).map_err(|_| LabError::UnknownClass)
        } else {
            Err(LabError::NotYourClass)
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

    /// The living class a code names, if any (no rate limit: for a page the door already
    /// counted, `server::http::CodeLookedUp`).
    pub async fn living(&self, code: &ClassCode) -> Result<Option<String>, LabError> {
        let row: Option<(String, i64)> =
            sqlx::query_as("SELECT id, used_ms FROM classes WHERE code = ?1")
                .bind(code.as_str())
                .fetch_optional(&self.0.pool)
                .await?;
        Ok(row
            .filter(|(_, used)| !self.expired(*used))
            .map(|(id, _)| id))
    }

    /// The class's id from a key cookie's name (`pocketpay_class_{id}`, [`secret_cookie`]).
    pub fn cookie_class(name: &str) -> Option<&str> {
        name.strip_prefix(KEY_COOKIE_PREFIX)
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

#[cfg(test)]
mod tests {
    use super::name_key;

    #[test]
    fn names_a_reader_takes_for_the_same_have_the_same_key() {
        let same = [
            ("রাফি আহমেদ", "রাফি আহমেদ\u{200B}"),
            ("রাফি আহমেদ", "রাফি  \u{2066}আহমেদ\u{2069}"),
            ("Nusrat \"Nus\", Jahan", "nusrat \"nus\", jahan"),
            ("José", "Jose\u{301}"),
            ("Imran", "\u{FEFF}IMRAN\u{200E}"),
            ("র\u{200D}্যাব", "র্যাব"),
        ];
        for (a, b) in same {
            assert_eq!(name_key(a), name_key(b), "{a:?} and {b:?}");
        }
        for (a, b) in [("Tithi", "Tithy"), ("রাফি", "রফি"), ("Imran", "Imran 2")] {
            assert_ne!(name_key(a), name_key(b), "{a:?} and {b:?}");
        }
    }
}
