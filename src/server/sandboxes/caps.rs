//! The caps that keep a classroom on one machine: sandboxes on disk and in memory, each
//! sandbox's API rate (a token bucket), and the server's event streams.

use std::collections::HashMap;
use std::sync::atomic::Ordering;

use uuid::Uuid;

use super::{last_used_age, sandbox_id, touch, Sandboxes, UNTOUCHED_FILE};
use crate::server::error::LabError;
use crate::server::sandbox::SandboxHandle;

/// A token bucket: `tokens` refill at the configured rate up to the burst.
pub(super) struct Bucket {
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

impl Sandboxes {
    /// At the disk cap, deletes the least recently made sandbox nobody came back to; if every
    /// sandbox on disk has been used, the server is full.
    pub(super) async fn make_room_on_disk(
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
    pub(super) async fn make_room_in_memory(
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
}
