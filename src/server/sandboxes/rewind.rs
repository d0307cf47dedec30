//! Rewinds: the sandbox as it stood at one of its events, rebuilt in a throw-away sandbox from
//! the newest checkpoint before it (or the run's start), the present untouched.

use uuid::Uuid;

use super::Sandboxes;
use crate::domain::{ClockMode, SandboxState};
use crate::server::error::LabError;
use crate::server::sandbox::{self, NewSandbox, Rewind, Scratch};

/// Where a rewind starts rebuilding the past from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RewindFrom {
    /// The newest checkpoint before the event, or the start when there is none.
    Checkpoint,
    /// The run's start, always (what every rewind did before checkpoints; kept to compare).
    Start,
}

/// Where rewinds build their throw-away sandboxes, under the data folder.
pub(super) const SCRATCH_DIR: &str = "scratch";

impl Sandboxes {
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
}
