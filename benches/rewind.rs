//! How long a rewind takes, from the newest checkpoint and from the run's start, in one run:
//!   cargo bench --features ssr --bench rewind
//! A sandbox runs a mixed script (transfers one virtual second apart, a retry of every third,
//! a lossy network now and then, pipeline crash points) until its log holds 5,000 events; then
//! it is rewound to events spread over the run, each way, three times each. Both ways must give
//! the same tables (checked), and the bench prints what the checkpoints cost to take and hold.

use std::time::{Duration, Instant};

use pocketpay_lab::domain::transfer::IdempotencyKey;
use pocketpay_lab::domain::{ClockCommand, ClockMode, TransferBody};
use pocketpay_lab::server::calls::TransferRequest;
use pocketpay_lab::server::config::Config;
use pocketpay_lab::server::sandboxes::{RewindFrom, Sandboxes};
use pocketpay_lab::server::store::SNAPSHOT_ROWS;
use serde_json::json;

/// The log's length the run is driven to.
const EVENTS: usize = 5_000;
/// Rewinds per event and way; the median is reported.
const TIMES: usize = 3;

fn request(key: usize) -> TransferRequest {
    TransferRequest::new(
        "shimul",
        IdempotencyKey::parse(Some(&format!("rewind-{key}"))).expect("a valid key"),
        TransferBody {
            to: "tithi".into(),
            amount: 1,
        },
        format!("intent-{key}"),
    )
}

#[tokio::main]
async fn main() {
    let dir = tempfile::tempdir().unwrap();
    let lab = Sandboxes::start(Config {
        data_dir: dir.path().to_path_buf(),
        ..Config::default()
    })
    .await
    .unwrap();
    let seed = 15;
    let sandbox = lab
        .create(None, Some(seed), ClockMode::Paused)
        .await
        .unwrap();
    let id = sandbox.id.to_string();
    let started = Instant::now();
    let mut answers = Vec::new();
    let mut events = 0;
    let mut i = 0;
    while events < EVENTS {
        answers.push(sandbox.start_transfer(request(i)).await.unwrap());
        if i % 3 == 0 {
            answers.push(sandbox.start_transfer(request(i)).await.unwrap());
        }
        if i % 25 == 10 {
            sandbox
                .set_faults(
                    pocketpay_lab::domain::typed::read_body(
                        &json!({"response_loss_pct": 30, "crash": {"broker_ack_lost": "once"}}),
                    )
                    .unwrap(),
                )
                .await
                .unwrap();
        }
        if i % 25 == 20 {
            sandbox
                .set_faults(
                    pocketpay_lab::domain::typed::read_body(
                        &json!({"response_loss_pct": 0, "crash": {"fraud_before_commit": "once"}}),
                    )
                    .unwrap(),
                )
                .await
                .unwrap();
        }
        sandbox
            .clock(vec![ClockCommand::Advance { seconds: 1 }])
            .await
            .unwrap();
        i += 1;
        if i % 20 == 0 {
            events = sandbox.events_after(0, i64::MAX).await.unwrap().len();
        }
    }
    sandbox
        .clock(vec![ClockCommand::Advance { seconds: 60 }])
        .await
        .unwrap();
    drop(answers);
    let log = sandbox.events_after(0, i64::MAX).await.unwrap();
    let run_time = started.elapsed();
    let times = sandbox.step_times().await.unwrap();
    let steps: Duration = times
        .iter()
        .filter(|t| t.name != "rewind checkpoint")
        .map(|t| t.total)
        .sum();
    let checkpoint = times.iter().find(|t| t.name == "rewind checkpoint");
    let (taken, cost) = checkpoint.map_or((0, Duration::ZERO), |t| (t.count, t.total));
    let disk = folder_size(&dir.path().join("sandboxes").join(&id).join("checkpoints"));
    println!(
        "the run: {} transfers, {} events, {:.2} s (steps and log {:.2} s)",
        i,
        log.len(),
        run_time.as_secs_f64(),
        steps.as_secs_f64()
    );
    println!(
        "checkpoints: {taken} taken, {:.1} ms in all ({:.2} ms each, {:.1}% of the steps' time), {:.1} MB on disk at the end",
        cost.as_secs_f64() * 1e3,
        cost.as_secs_f64() * 1e3 / taken.max(1) as f64,
        100.0 * cost.as_secs_f64() / steps.as_secs_f64(),
        disk as f64 / 1e6
    );
    println!(
        "{:>12} {:>9} {:>16} {:>16} {:>7}",
        "event", "position", "checkpoint ms", "from start ms", "ratio"
    );
    let mut worst: f64 = 0.0;
    for share in [0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 1.0] {
        let position = ((log.len() as f64 * share) as usize).clamp(1, log.len());
        let event = log[position - 1].id;
        let (fast, fast_state) = timed(&lab, &id, event, RewindFrom::Checkpoint).await;
        let (slow, slow_state) = timed(&lab, &id, event, RewindFrom::Start).await;
        if let Some(table) = first_difference(&fast_state, &slow_state) {
            panic!("the two ways differ at event {event} in {table} (seed {seed})");
        }
        worst = worst.max(fast);
        println!(
            "{event:>12} {position:>9} {fast:>16.1} {slow:>16.1} {:>7.1}",
            slow / fast
        );
    }
    println!("slowest rewind from a checkpoint: {worst:.1} ms (target 200 ms)");
    lab.shutdown().await;
}

/// The median of [`TIMES`] rewinds to `event`, in milliseconds, and the state they gave.
async fn timed(
    lab: &Sandboxes,
    id: &str,
    event: i64,
    from: RewindFrom,
) -> (f64, pocketpay_lab::domain::SandboxState) {
    let mut ms = Vec::new();
    let mut state = None;
    for _ in 0..TIMES {
        let started = Instant::now();
        let s = lab
            .state_at_from(id, event, SNAPSHOT_ROWS, from)
            .await
            .unwrap();
        ms.push(started.elapsed().as_secs_f64() * 1e3);
        state = Some(s);
    }
    ms.sort_by(f64::total_cmp);
    (ms[TIMES / 2], state.unwrap())
}

/// The first part of two pasts that differs: a table's key, or a field. The `lab.sandbox` row is
/// left out: it names the scratch sandbox each rewind builds.
fn first_difference(
    a: &pocketpay_lab::domain::SandboxState,
    b: &pocketpay_lab::domain::SandboxState,
) -> Option<String> {
    let (mut a, mut b) = (
        serde_json::to_value(a).unwrap(),
        serde_json::to_value(b).unwrap(),
    );
    // As tests/properties.rs compares them: the row naming each rewind's scratch sandbox, and the
    // version (each sandbox's own), differ by design.
    for v in [&mut a, &mut b] {
        v["tables"].as_object_mut().unwrap().remove("lab.sandbox");
        v.as_object_mut().unwrap().remove("version");
    }
    for (key, value) in a["tables"].as_object().unwrap() {
        if b["tables"].get(key) != Some(value) {
            return Some(key.clone());
        }
    }
    a.as_object()
        .unwrap()
        .iter()
        .find(|(k, v)| b.get(k.as_str()) != Some(v))
        .map(|(k, _)| k.clone())
}

fn folder_size(dir: &std::path::Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    entries
        .flatten()
        .map(|e| match e.metadata() {
            Ok(m) if m.is_dir() => folder_size(&e.path()),
            Ok(m) => m.len(),
            Err(_) => 0,
        })
        .sum()
}
