//! All sandboxes of one server: making them, finding them (loading a saved one on first use),
//! unloading idle ones, deleting expired ones, and the caps that keep a classroom on one machine.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use tokio::sync::{watch, Mutex};
use uuid::Uuid;

use super::classes::Classes;
use super::config::Config;
use super::day::Days;
use super::error::LabError;
use super::sandbox::{self, NewSandbox, Rewind, SandboxHandle};
use crate::domain::run::{Rerun, Run};
use crate::domain::{ClockMode, FieldError, SandboxState};

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

/// A token bucket: `tokens` refill at the configured rate up to the burst.
struct Bucket {
    tokens: f64,
    at: std::time::Instant,
}

/// Buckets kept before idle ones are pruned.
const BUCKETS_KEPT: usize = 4_096;

/// A place among the server's event streams, given back when dropped.
pub struct StreamPermit(Sandboxes);

impl Drop for StreamPermit {
    fn drop(&mut self) {
        self.0 .0.streams.fetch_sub(1, Ordering::SeqCst);
    }
}

/// The file whose modification time says when a sandbox was last used.
const LAST_USED_FILE: &str = "last_used";
/// Present from a sandbox's creation until it is first used: a sandbox that still has it may
/// give its place to a new one when the disk cap is reached.
const UNTOUCHED_FILE: &str = "untouched";
/// Where a rewind starts rebuilding the past from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RewindFrom {
    /// The newest checkpoint before the event, or the start when there is none.
    Checkpoint,
    /// The run's start, always (what every rewind did before checkpoints; kept to compare).
    Start,
}

/// Where rewinds build their throw-away sandboxes, under the data folder.
const SCRATCH_DIR: &str = "scratch";

impl Sandboxes {
    /// Prepares the data folder and starts the reaper.
    pub async fn start(config: Config) -> Result<Sandboxes, LabError> {
        tokio::fs::create_dir_all(config.data_dir.join("sandboxes")).await?;
        // Rewinds interrupted by a stop left their scratch sandboxes behind: nothing reads them.
        let scratch = config.data_dir.join(SCRATCH_DIR);
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

    /// The sandbox as it stood at one of its timeline events, the present untouched: its run
    /// (seed and inputs) is rerun in a scratch sandbox, from the newest checkpoint before the
    /// event (or the start), until the log reaches that event, read, and thrown away.
    pub async fn state_at(
        &self,
        id: &str,
        event_id: i64,
        rows: i64,
    ) -> Result<SandboxState, LabError> {
        self.state_at_from(id, event_id, rows, RewindFrom::Checkpoint)
            .await
    }

    /// [`Sandboxes::state_at`], from the newest checkpoint before the event or, to compare, from
    /// the run's start.
    pub async fn state_at_from(
        &self,
        id: &str,
        event_id: i64,
        rows: i64,
        from: RewindFrom,
    ) -> Result<SandboxState, LabError> {
        let live = self.get(id).await?;
        let position = live
            .event_position(event_id)
            .await?
            .ok_or(LabError::UnknownEvent(event_id))?;
        let scratch_dir = |id: Uuid| {
            self.0
                .config
                .data_dir
                .join(SCRATCH_DIR)
                .join(id.to_string())
        };
        let run = match from {
            RewindFrom::Checkpoint => {
                match live
                    .rewind_from_checkpoint(event_id, scratch_dir(Uuid::new_v4()), rows)
                    .await?
                {
                    Rewind::Done(state) => {
                        let mut state = *state;
                        state.id = live.id.to_string();
                        return Ok(state);
                    }
                    Rewind::FromStart(run) => run,
                }
            }
            RewindFrom::Start => live.export_run().await?,
        };
        let scratch_id = Uuid::new_v4();
        // Removed when this is dropped, also when the request is dropped halfway (the client
        // went away): the scratch sandbox is stopped first, then its folder deleted.
        let mut cleanup = Scratch::new(scratch_dir(scratch_id));
        // From the start: a new sandbox with the run's seed, whose log numbers from 1.
        let scratch = sandbox::create(
            cleanup.dir(),
            scratch_id,
            run.seed,
            ClockMode::Paused,
            NewSandbox::SCRATCH,
        )
        .await?;
        cleanup.keep(scratch.clone());
        let state = scratch.rerun_to(run, position, rows).await;
        drop(cleanup);
        let mut state = state?;
        state.id = live.id.to_string();
        Ok(state)
    }

    /// Finds a sandbox by the id in a URL, loading it from disk if it is not running. Anything
    /// that is not the id of a sandbox on this server, a malformed one included, is not found.
    /// From then on it is a sandbox somebody came back to: never deleted to make room for a new
    /// one.
    pub async fn get(&self, id: &str) -> Result<SandboxHandle, LabError> {
        let id = sandbox_id(id).ok_or(LabError::NotFound)?;
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
        // A class's student: their instructor's lock outlives the sandbox's time in memory.
        if id.as_bytes()[..4] == crate::domain::class::SANDBOX_PREFIX {
            handle.set_locked(self.classes().locked_for(&id.to_string()).await?);
        }
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

    /// At the disk cap, deletes the least recently made sandbox nobody came back to; if every
    /// sandbox on disk has been used, the server is full.
    async fn make_room_on_disk(
        &self,
        loaded: &mut HashMap<Uuid, SandboxHandle>,
    ) -> Result<(), LabError> {
        let max = self.0.config.max_sandboxes;
        let dirs = self.sandbox_dirs().await?;
        let mut on_disk = dirs.len();
        if on_disk < max {
            return Ok(());
        }
        let mut untouched = Vec::new();
        for (id, path) in dirs {
            if tokio::fs::try_exists(path.join(UNTOUCHED_FILE))
                .await
                .unwrap_or(false)
            {
                untouched.push((last_used_age(&path).await, id));
            }
        }
        // Oldest first.
        untouched.sort_by_key(|(age, _)| std::cmp::Reverse(*age));
        for (_, id) in untouched {
            if on_disk < max {
                break;
            }
            if let Some(handle) = loaded.get(&id) {
                if handle.subscribers() > 0 {
                    continue; // somebody is watching it: not untouched after all
                }
                let handle = loaded.remove(&id).expect("just found");
                handle.shutdown().await;
            }
            tokio::fs::remove_dir_all(self.dir(id)).await?;
            self.untouched().remove(&id);
            on_disk -= 1;
            tracing::info!(sandbox = %id, "unused sandbox deleted to make room");
        }
        if on_disk >= max {
            return Err(LabError::TooManySandboxes(max));
        }
        Ok(())
    }

    /// At the cap of running sandboxes, saves and unloads the least recently used one that no
    /// stream watches; if every one is watched, the server is full.
    async fn make_room_in_memory(
        &self,
        loaded: &mut HashMap<Uuid, SandboxHandle>,
    ) -> Result<(), LabError> {
        let max = self.0.config.max_loaded;
        while loaded.len() >= max {
            let idlest = loaded
                .iter()
                .filter(|(_, h)| h.subscribers() == 0)
                .max_by_key(|(_, h)| h.idle_for())
                .map(|(id, _)| *id);
            let Some(id) = idlest else {
                return Err(LabError::TooManySandboxes(max));
            };
            let handle = loaded.remove(&id).expect("just found");
            handle.shutdown().await;
            touch(&self.dir(id)).await;
            tracing::info!(sandbox = %id, "sandbox unloaded to make room");
        }
        Ok(())
    }

    /// Lets one API request for a sandbox through, or answers how many seconds to wait.
    pub fn admit(&self, id: &str) -> Result<(), LabError> {
        let Some(id) = sandbox_id(id) else {
            return Ok(()); // not a sandbox: the route answers 404
        };
        let (rate, burst) = (self.0.config.rate_per_sec, self.0.config.rate_burst);
        let now = std::time::Instant::now();
        let mut buckets = self.0.buckets.lock().unwrap_or_else(|e| e.into_inner());
        if buckets.len() >= BUCKETS_KEPT {
            buckets.retain(|_, b| now.duration_since(b.at).as_secs_f64() * rate < burst);
        }
        let bucket = buckets.entry(id).or_insert(Bucket {
            tokens: burst,
            at: now,
        });
        bucket.tokens =
            (bucket.tokens + now.duration_since(bucket.at).as_secs_f64() * rate).min(burst);
        bucket.at = now;
        if bucket.tokens >= 1.0 {
            bucket.tokens -= 1.0;
            Ok(())
        } else {
            Err(LabError::TooManyRequests(
                ((1.0 - bucket.tokens) / rate).ceil().max(1.0) as u64,
            ))
        }
    }

    /// Takes a place for an event stream, or says the server is full.
    pub fn open_stream(&self) -> Result<StreamPermit, LabError> {
        let max = self.0.config.max_streams;
        let taken = self.0.streams.fetch_add(1, Ordering::SeqCst);
        let permit = StreamPermit(self.clone());
        if taken >= max {
            return Err(LabError::TooManyStreams(max));
        }
        Ok(permit)
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

    async fn reap_forever(&self) {
        let mut shutdown = self.shutdown_signal();
        let mut tick = tokio::time::interval(self.0.config.reap_every);
        loop {
            tokio::select! {
                _ = tick.tick() => {}
                _ = shutdown.changed() => return,
            }
            if let Err(e) = self.reap().await {
                tracing::warn!("reaper: {e}");
            }
            if let Err(e) = self.0.classes.reap().await {
                tracing::warn!("reaper (classes): {e}");
            }
        }
    }

    /// Unloads sandboxes idle past the unload time with no stream watching, then deletes the
    /// folders of unloaded sandboxes unused past their time to live.
    pub async fn reap(&self) -> Result<(), LabError> {
        let idle: Vec<SandboxHandle> = {
            let mut loaded = self.0.loaded.lock().await;
            let ids: Vec<Uuid> = loaded
                .iter()
                .filter(|(_, h)| h.subscribers() == 0 && h.idle_for() >= self.0.config.idle_unload)
                .map(|(id, _)| *id)
                .collect();
            ids.iter().filter_map(|id| loaded.remove(id)).collect()
        };
        for handle in idle {
            handle.shutdown().await;
            touch(&self.dir(handle.id)).await;
            tracing::info!(sandbox = %handle.id, "sandbox unloaded after idling");
        }
        let loaded = self.0.loaded.lock().await;
        for (id, path) in self.sandbox_dirs().await? {
            if loaded.contains_key(&id) {
                continue;
            }
            if last_used_age(&path).await >= self.0.config.sandbox_ttl {
                tokio::fs::remove_dir_all(&path).await?;
                tracing::info!(sandbox = %id, "expired sandbox deleted");
            }
        }
        Ok(())
    }
}

/// A rewind's scratch sandbox: stopped and deleted when dropped.
/// A throw-away sandbox's folder (a rewind's, a fast-forwarded day's): when dropped, the
/// sandbox is stopped first, then its folder deleted.
pub(crate) struct Scratch {
    dir: PathBuf,
    handle: Option<SandboxHandle>,
}

impl Scratch {
    pub(crate) fn new(dir: PathBuf) -> Scratch {
        Scratch { dir, handle: None }
    }

    pub(crate) fn dir(&self) -> &std::path::Path {
        &self.dir
    }

    /// The sandbox made in the folder, to stop before the folder goes.
    pub(crate) fn keep(&mut self, handle: SandboxHandle) {
        self.handle = Some(handle);
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let dir = std::mem::take(&mut self.dir);
        let handle = self.handle.take();
        tokio::spawn(async move {
            if let Some(handle) = handle {
                handle.shutdown().await;
            }
            if let Err(e) = tokio::fs::remove_dir_all(&dir).await {
                if e.kind() != std::io::ErrorKind::NotFound {
                    tracing::warn!(dir = %dir.display(), "scratch sandbox not removed: {e}");
                }
            }
        });
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
            assert_eq!(e.kind(), "invalid-field", "{bad:?}");
        }
    }
}
