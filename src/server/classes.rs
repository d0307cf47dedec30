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
