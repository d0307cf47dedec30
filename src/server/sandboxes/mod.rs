//! All sandboxes of one server: making them and finding them (loading a saved one on first use);
//! the caps that keep a classroom on one machine (`caps`), the reaper that unloads idle ones and
//! deletes expired ones (`reaper`), and rewinds to a past event (`rewind`).

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::atomic::AtomicUsize;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use tokio::sync::{watch, Mutex};
use uuid::Uuid;

use super::classes::Classes;
use super::config::Config;
use super::day::Days;
use super::error::LabError;
use super::sandbox::{self, NewSandbox, SandboxHandle};
use crate::domain::run::{Rerun, Run};
use crate::domain::{ClockMode, FieldError};

mod caps;
mod reaper;
mod rewind;

use caps::Bucket;
pub use caps::StreamPermit;
pub use rewind::RewindFrom;

/// Every sandbox this server holds: making, finding, loading and unloading them, their caps,
/// rate limits and event-stream places. Cheap to clone.
#[derive(Clone)]
pub struct Sandboxes(Arc<Inner>);

struct Inner {
    config: Config,
    /// Sandboxes whose owner task is running. Loading happens under this lock, so one sandbox
    /// is never opened twice.
    loaded: Mutex<HashMap<Uuid, SandboxHandle>>,
    streams: AtomicUsize,
    shutdown: watch::Sender<bool>,
    /// One token bucket per sandbox id: the API's rate limit.
    buckets: std::sync::Mutex<HashMap<Uuid, Bucket>>,
    /// Running sandboxes that still carry the "untouched" mark, so that a request finds out
    /// without asking the disk whether it is the first use.
    untouched: std::sync::Mutex<HashSet<Uuid>>,
    /// The fast-forwarded days (`server::day`).
    days: Days,
    /// The classes whose students' sandboxes these are (`server::classes`).
    classes: Classes,
}

/// The file whose modification time says when a sandbox was last used.
const LAST_USED_FILE: &str = "last_used";
/// Present from a sandbox's creation until it is first used: a sandbox that still has it may
/// give its place to a new one when the disk cap is reached.
const UNTOUCHED_FILE: &str = "untouched";
impl Sandboxes {
    /// Prepares the data folder and starts the reaper.
    pub async fn start(config: Config) -> Result<Sandboxes, LabError> {
        tokio::fs::create_dir_all(config.data_dir.join("sandboxes")).await?;
        // Rewinds interrupted by a stop left their scratch sandboxes behind: nothing reads them.
        let scratch = config.data_dir.join(rewind::SCRATCH_DIR);
        if tokio::fs::try_exists(&scratch).await.unwrap_or(false) {
            tokio::fs::remove_dir_all(&scratch).await?;
        }
        let days = Days::open(&config.data_dir).await?;
        let classes = Classes::open(&config.data_dir, config.sandbox_ttl).await?;
        let (shutdown, _) = watch::channel(false);
        let sandboxes = Sandboxes(Arc::new(Inner {
            days,
            classes,
            config,
            loaded: Mutex::new(HashMap::new()),
            streams: AtomicUsize::new(0),
            shutdown,
            buckets: std::sync::Mutex::new(HashMap::new()),
            untouched: std::sync::Mutex::new(HashSet::new()),
        }));
        let reaper = sandboxes.clone();
        tokio::spawn(async move { reaper.reap_forever().await });
        Ok(sandboxes)
    }

    pub fn config(&self) -> &Config {
        &self.0.config
    }

    /// The fast-forwarded days of this server.
    pub fn days(&self) -> &Days {
        &self.0.days
    }

    /// The classes of this server.
    pub fn classes(&self) -> &Classes {
        &self.0.classes
    }

    fn dir(&self, id: Uuid) -> PathBuf {
        self.0
            .config
            .data_dir
            .join("sandboxes")
            .join(id.to_string())
    }

    /// [`Sandboxes::create`]'s id for a request: see [`requested_id`].
    pub fn new_id(&self, headers: &axum::http::HeaderMap) -> Result<Option<Uuid>, LabError> {
        requested_id(self.0.config.new_sandbox_header.as_ref(), headers)
    }

    /// Makes a sandbox at the lesson's start, with the given id (refused with
    /// [`LabError::SandboxExists`] if a sandbox has it) or a random one. Without a seed, one is
    /// drawn (below 2^53, so a browser's numbers hold it exactly).
    pub async fn create(
        &self,
        id: Option<Uuid>,
        seed: Option<u64>,
        mode: ClockMode,
    ) -> Result<SandboxHandle, LabError> {
        let mut loaded = self.0.loaded.lock().await;
        if let Some(id) = id {
            if loaded.contains_key(&id) || tokio::fs::try_exists(self.dir(id)).await? {
                return Err(LabError::SandboxExists(id));
            }
        }
        self.make_room_on_disk(&mut loaded).await?;
        self.make_room_in_memory(&mut loaded).await?;
        let id = id.unwrap_or_else(Uuid::new_v4);
        let seed = seed.unwrap_or_else(|| Uuid::new_v4().as_u64_pair().0 >> 11);
        let dir = self.dir(id);
        let handle = sandbox::create(&dir, id, seed, mode, NewSandbox::STUDENT).await?;
        touch(&dir).await;
        let _ = tokio::fs::write(dir.join(UNTOUCHED_FILE), b"").await;
        self.untouched().insert(id);
        loaded.insert(id, handle.clone());
        tracing::info!(sandbox = %id, seed, "sandbox created");
        Ok(handle)
    }

    /// Reruns a recorded run (seed and timed inputs) into a new paused sandbox, for `POST
    /// /api/runs` and the `/run` page alike: every input is checked as the API checks it (a
    /// [`LabError::Invalid`] naming the field) and a run that could not have been recorded is
    /// refused ([`LabError::RunDiverged`]) before any sandbox is made. Returns the new sandbox,
    /// its event log's hash, and whether that is the hash the run claimed.
    pub async fn import_run(&self, id: Option<Uuid>, run: Run) -> Result<Rerun, LabError> {
        run.check()?;
        if let Some(why) = run.impossible() {
            return Err(LabError::RunDiverged(why));
        }
        let sandbox = self.create(id, Some(run.seed), ClockMode::Paused).await?;
        let rerun = sandbox.rerun(run.clone()).await?;
        Ok(Rerun::new(sandbox.id.to_string(), &run, rerun.log_hash))
    }

    /// Finds a sandbox by the id in a URL, loading it from disk if it is not running. Anything
    /// that is not the id of a sandbox on this server, a malformed one included, is not found.
    /// From then on it is a sandbox somebody came back to: never deleted to make room for a new
    /// one.
    pub async fn get(&self, id: &str) -> Result<SandboxHandle, LabError> {
        self.by_id(sandbox_id(id).ok_or(LabError::NotFound)?).await
    }

    /// [`Sandboxes::get`] for an id already read as one.
    pub async fn by_id(&self, id: Uuid) -> Result<SandboxHandle, LabError> {
        // Under the lock, so that no creation deletes it between the look-up and the mark.
        let mut loaded = self.0.loaded.lock().await;
        match loaded.get(&id) {
            Some(handle) if handle.is_alive() => {
                self.mark_used(id).await;
                return Ok(handle.clone());
            }
            // An owner that stopped on a failing store is opened afresh from what was committed.
            Some(_) => {
                loaded.remove(&id);
            }
            None => {}
        }
        let dir = self.dir(id);
        if !tokio::fs::try_exists(&dir).await.unwrap_or(false) {
            return Err(LabError::NotFound);
        }
        self.make_room_in_memory(&mut loaded).await?;
        let handle = sandbox::open(&dir).await?;
        // A class's student: their instructor's lock, freeze and cue outlive the sandbox's
        // time in memory.
        self.classes()
            .holds_for(&id.to_string())
            .await?
            .apply(&handle);
        touch(&dir).await;
        if tokio::fs::try_exists(dir.join(UNTOUCHED_FILE))
            .await
            .unwrap_or(false)
        {
            self.untouched().insert(id);
        }
        self.mark_used(id).await;
        loaded.insert(id, handle.clone());
        tracing::info!(sandbox = %id, "sandbox loaded");
        Ok(handle)
    }

    /// The sandbox if its owner is running, without loading it or counting a use: for a look
    /// that should not keep an idle sandbox in memory (the class view's).
    pub async fn running(&self, id: &str) -> Option<SandboxHandle> {
        let id = sandbox_id(id)?;
        self.0
            .loaded
            .lock()
            .await
            .get(&id)
            .filter(|h| h.is_alive())
            .cloned()
    }

    /// Takes the "untouched" mark off a sandbox somebody came back to: a look in memory on
    /// every request, the disk only on the first use.
    async fn mark_used(&self, id: Uuid) {
        if self.untouched().remove(&id) {
            let _ = tokio::fs::remove_file(self.dir(id).join(UNTOUCHED_FILE)).await;
        }
    }

    fn untouched(&self) -> std::sync::MutexGuard<'_, HashSet<Uuid>> {
        self.0.untouched.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Every sandbox folder on disk, by id.
    async fn sandbox_dirs(&self) -> Result<Vec<(Uuid, PathBuf)>, LabError> {
        let mut dirs = Vec::new();
        let mut entries = tokio::fs::read_dir(self.0.config.data_dir.join("sandboxes")).await?;
        while let Some(entry) = entries.next_entry().await? {
            if let Some(id) = entry
                .file_name()
                .to_str()
                .and_then(|n| Uuid::parse_str(n).ok())
            {
                dirs.push((id, entry.path()));
            }
        }
        Ok(dirs)
    }

    /// Becomes true when the server begins to stop: streams end on it.
    pub fn shutdown_signal(&self) -> watch::Receiver<bool> {
        self.0.shutdown.subscribe()
    }

    /// Ends every stream, saves every sandbox and closes their stores.
    pub async fn shutdown(&self) {
        self.0.shutdown.send_replace(true);
        let handles: Vec<SandboxHandle> =
            self.0.loaded.lock().await.drain().map(|(_, h)| h).collect();
        for handle in handles {
            handle.shutdown().await;
        }
        self.0.classes.close().await;
    }
}

/// The id a new sandbox must take, when the server runs behind a load balancer that hashes
/// on the sandbox id ([`Config::new_sandbox_header`](super::config::Config)): the header's
/// value, 32 lowercase hexadecimal digits (nginx's `$request_id`), which is the id's URL
/// spelling without its hyphens, so the balancer sends the sandbox's later requests where it
/// sent this one. `None` (a random id) when no header is configured or the request has none.
pub fn requested_id(
    header: Option<&axum::http::HeaderName>,
    headers: &axum::http::HeaderMap,
) -> Result<Option<Uuid>, LabError> {
    let Some((name, value)) = header.and_then(|name| Some((name, headers.get(name)?))) else {
        return Ok(None);
    };
    let text = value.to_str().unwrap_or_default();
    let hex = text.len() == 32 && text.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
    match Uuid::try_parse(text) {
        Ok(id) if hex => Ok(Some(id)),
        _ => Err(FieldError::new(
            name.as_str(),
            format!("expected 32 lowercase hexadecimal digits, not {text:?}"),
        )
        .into()),
    }
}

/// A sandbox id as URLs spell it: a UUID in its hyphenated form (either case). The other forms
/// `Uuid::parse_str` reads (braced, simple, urn) name no sandbox, so one sandbox has one URL.
pub fn sandbox_id(text: &str) -> Option<Uuid> {
    if text.len() != 36 {
        return None;
    }
    Uuid::try_parse(text).ok()
}

/// Marks a sandbox as used now.
async fn touch(dir: &std::path::Path) {
    let _ = tokio::fs::write(dir.join(LAST_USED_FILE), b"").await;
}

async fn last_used_age(dir: &std::path::Path) -> Duration {
    let modified = match tokio::fs::metadata(dir.join(LAST_USED_FILE)).await {
        Ok(m) => m.modified().ok(),
        Err(_) => tokio::fs::metadata(dir)
            .await
            .ok()
            .and_then(|m| m.modified().ok()),
    };
    modified
        .and_then(|m| SystemTime::now().duration_since(m).ok())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::{HeaderMap, HeaderName, HeaderValue};

    fn with(value: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert("x-lab-new-sandbox", HeaderValue::from_str(value).unwrap());
        h
    }

    #[test]
    fn a_balancers_id_is_taken_only_when_configured_and_well_formed() {
        let name = HeaderName::from_static("x-lab-new-sandbox");
        let hex = "0123456789abcdef0123456789abcdef";
        let id = requested_id(Some(&name), &with(hex)).unwrap().unwrap();
        assert_eq!(
            id.to_string().replace('-', ""),
            hex,
            "its URL hashes the same"
        );
        assert_eq!(
            requested_id(None, &with(hex)).unwrap(),
            None,
            "not configured"
        );
        assert_eq!(requested_id(Some(&name), &HeaderMap::new()).unwrap(), None);
        for bad in [
            "",
            "0123",
            &hex.to_uppercase(),
            &format!("{hex}0"),
            &id.to_string(),
        ] {
            let e = requested_id(Some(&name), &with(bad)).unwrap_err();
            assert_eq!(
                e.kind(),
                crate::domain::ProblemKind::InvalidField,
                "{bad:?}"
            );
        }
    }
}
