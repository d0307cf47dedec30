//! A throw-away sandbox's folder: a rewind's (`Sandboxes::state_at`), a fast-forwarded day's
//! (`server::day`). Its own file so that both reach it here, beside the sandbox it stops.

use std::path::PathBuf;

use super::SandboxHandle;

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
