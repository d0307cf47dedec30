//! Server settings, read once from the environment at start.

use std::path::PathBuf;
use std::time::Duration;

/// What an operator can set. Every field has a default that suits one classroom on one machine.
#[derive(Clone, Debug)]
pub struct Config {
    /// `LAB_DATA_DIR`: where sandboxes live, one folder each (default `./data`).
    pub data_dir: PathBuf,
    /// `LAB_MAX_SANDBOXES`: how many sandboxes may exist on disk at once (default 1000). At the
    /// cap, a new one first takes the place of the least recently made sandbox nobody ever came
    /// back to (a flood of creations only churns its own); only when every sandbox has been used
    /// does creating one answer 503 with Retry-After.
    pub max_sandboxes: usize,
    /// `LAB_MAX_LOADED`: how many sandboxes may be running (owner task, open stores) at once
    /// (default 300). Past it, the least recently used one with no stream watching is saved and
    /// unloaded to make room; if every one is watched, 503 with Retry-After.
    pub max_loaded: usize,
    /// `LAB_MAX_STREAMS`: how many event streams the server serves at once (default 500).
    pub max_streams: usize,
    /// `LAB_IDLE_UNLOAD_SECS`: a sandbox nobody used or watched for this long is saved and its
    /// stores closed (default 600 s). Its clock stops meanwhile and resumes where it stood.
    pub idle_unload: Duration,
    /// `LAB_SANDBOX_TTL_HOURS`: a sandbox unused for this long is deleted (default 168 h).
    pub sandbox_ttl: Duration,
    /// `LAB_REAP_SECS`: how often the server looks for idle and expired sandboxes (default 30 s).
    pub reap_every: Duration,
    /// `LAB_RATE_PER_SEC`: API requests per second one sandbox may make, on average (default 50).
    /// Keyed by sandbox, not by address: a classroom shares one NAT.
    pub rate_per_sec: f64,
    /// `LAB_RATE_BURST`: how many requests one sandbox may make at once (default 200).
    pub rate_burst: f64,
    /// `LAB_TRANSFER_WAIT_SECS`: the longest (wall time) an HTTP caller of `POST …/transfers`
    /// waits for its answer unless it asks for another bound with `Prefer: wait=N` (default
    /// 10 s); past it the caller gets 504 `no-response` (saying whether the sandbox's clock is
    /// paused) while the transfer goes on in the sandbox, like any lost answer. 0: no bound, the
    /// caller waits as long as the sandbox takes, a paused clock included.
    pub transfer_wait: Option<Duration>,
    /// `LAB_NEW_SANDBOX_HEADER`: behind a load balancer that hashes on the sandbox id, the
    /// request header (lowercase) that names the id a new sandbox must take: the value the
    /// balancer hashed the creating request on, so the sandbox lives on the server its later
    /// requests reach (ARCHITECTURE.md, "Many servers"). Unset (the default): ids are random
    /// and the header is ignored.
    pub new_sandbox_header: Option<axum::http::HeaderName>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            data_dir: PathBuf::from("data"),
            max_sandboxes: 1_000,
            max_loaded: 300,
            max_streams: 500,
            idle_unload: Duration::from_secs(600),
            sandbox_ttl: Duration::from_secs(168 * 3600),
            reap_every: Duration::from_secs(30),
            rate_per_sec: 50.0,
            rate_burst: 200.0,
            transfer_wait: Some(Duration::from_secs(10)),
            new_sandbox_header: None,
        }
    }
}

impl Config {
    /// Reads the settings from the environment; a setting that is present but malformed is an
    /// error naming it, not a silent default.
    pub fn from_env() -> Result<Config, String> {
        Config::from_vars(|name| std::env::var(name).ok())
    }

    /// Reads the settings from `var`, which gives a setting's value by its name (the
    /// environment's, or a test's own list).
    pub fn from_vars(var: impl Fn(&str) -> Option<String>) -> Result<Config, String> {
        let whole = |name: &str| number(name, var(name));
        let d = Config::default();
        Ok(Config {
            data_dir: var("LAB_DATA_DIR").map(PathBuf::from).unwrap_or(d.data_dir),
            max_sandboxes: whole("LAB_MAX_SANDBOXES")?.unwrap_or(d.max_sandboxes as u64) as usize,
            max_loaded: whole("LAB_MAX_LOADED")?
                .map(|n| n.max(1) as usize)
                .unwrap_or(d.max_loaded),
            max_streams: whole("LAB_MAX_STREAMS")?.unwrap_or(d.max_streams as u64) as usize,
            idle_unload: whole("LAB_IDLE_UNLOAD_SECS")?
                .map(Duration::from_secs)
                .unwrap_or(d.idle_unload),
            sandbox_ttl: whole("LAB_SANDBOX_TTL_HOURS")?
                .map(|h| Duration::from_secs(h * 3600))
                .unwrap_or(d.sandbox_ttl),
            reap_every: whole("LAB_REAP_SECS")?
                .map(Duration::from_secs)
                .unwrap_or(d.reap_every),
            rate_per_sec: whole("LAB_RATE_PER_SEC")?
                .map(|n| n.max(1) as f64)
                .unwrap_or(d.rate_per_sec),
            rate_burst: whole("LAB_RATE_BURST")?
                .map(|n| n.max(1) as f64)
                .unwrap_or(d.rate_burst),
            transfer_wait: match whole("LAB_TRANSFER_WAIT_SECS")? {
                Some(0) => None,
                Some(secs) => Some(Duration::from_secs(secs)),
                None => d.transfer_wait,
            },
            new_sandbox_header: match var("LAB_NEW_SANDBOX_HEADER") {
                Some(v) if !v.trim().is_empty() => Some(
                    axum::http::HeaderName::from_bytes(v.trim().to_ascii_lowercase().as_bytes())
                        .map_err(|_| {
                            format!("LAB_NEW_SANDBOX_HEADER must be a header name, not {v:?}")
                        })?,
                ),
                _ => d.new_sandbox_header,
            },
        })
    }
}

fn number(name: &str, value: Option<String>) -> Result<Option<u64>, String> {
    match value {
        Some(v) => v
            .trim()
            .parse()
            .map(Some)
            .map_err(|_| format!("{name} must be a whole number, not {v:?}")),
        None => Ok(None),
    }
}
