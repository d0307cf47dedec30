//! A run: a seed plus the timed inputs that drove a sandbox. Replaying it in a new sandbox gives
//! the same timeline, which `log_hash` lets anyone check.

use serde::{Deserialize, Serialize};

/// One outside input, where it arrived: the virtual time and how many steps had run before it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct RunInput {
    pub at_ms: i64,
    pub after_step: u64,
    /// `{"transfer": …}`, `{"safeguards": …}`, `{"faults": …}`, `{"replay": …}` or a clock
    /// command (`{"op": "step"}`, `{"op": "advance", "seconds": n}`, …).
    #[cfg_attr(feature = "ssr", schema(value_type = Object))]
    pub input: serde_json::Value,
}

/// Everything needed to run a sandbox again: `GET …/run` gives it, `POST /api/runs` replays it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct Run {
    pub seed: u64,
    pub inputs: Vec<RunInput>,
    /// Where the clock stood when the run was exported.
    pub end_ms: i64,
    pub end_steps: u64,
    /// SHA-256 of the event log (every event's time, lane, kind, correlation, outcome and
    /// details, in order). Ignored on import; the replay reports its own.
    #[serde(default)]
    pub log_hash: String,
}
