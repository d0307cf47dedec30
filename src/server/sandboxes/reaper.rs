//! The reaper: unloads sandboxes idle past the unload time, deletes those unused past their
//! time to live, and lets the classes expire theirs.

use uuid::Uuid;

use super::{last_used_age, touch, Sandboxes};
use crate::server::error::LabError;
use crate::server::sandbox::SandboxHandle;

impl Sandboxes {
    pub(super) async fn reap_forever(&self) {
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
