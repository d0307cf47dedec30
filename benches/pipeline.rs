//! Transfers per second through the whole pipeline when the clock is jumped, and where the time
//! goes:
//!   cargo bench --features ssr --bench pipeline
//! A paused sandbox takes N transfers at one virtual instant; one jump then runs everything: the
//! network and load balancer, the API and its guards, the outbox, the relay, the broker, the
//! fraud check, the wallet and SMS consumers, and the timeline.
//!
//! Then the same store work run raw: the same functions and statements on a fresh set of
//! stores, in the same transactions and batches, in a straight loop, with no scheduler, no
//! network model, no timeline and no crash points. The ratio of the two is what the simulation
//! and its timeline cost on top of SQLite.

mod common;

use std::time::Instant;

use pocketpay_lab::domain::{ClockCommand, ClockMode};
use pocketpay_lab::server::config::Config;
use pocketpay_lab::server::lanes;
use pocketpay_lab::server::sandboxes::Sandboxes;
use pocketpay_lab::server::store::Stores;

/// Transfers per run; each moves ৳1 of Shimul's ৳2,000.
const N: usize = 1_000;

#[tokio::main]
async fn main() {
    let dir = tempfile::tempdir().unwrap();
    let lab = Sandboxes::start(Config {
        data_dir: dir.path().to_path_buf(),
        ..Config::default()
    })
    .await
    .unwrap();
    let sandbox = lab.create(None, Some(1), ClockMode::Paused).await.unwrap();
    let mut answers = Vec::with_capacity(N);
    for i in 0..N {
        let request = common::one_taka(&format!("bench-{i}"), format!("intent-{i}"));
        answers.push(sandbox.start_transfer(request).await.unwrap());
    }
    let started = Instant::now();
    sandbox
        .clock(vec![ClockCommand::Advance { seconds: 60 }])
        .await
        .unwrap();
    let elapsed = started.elapsed();
    for a in answers {
        assert_eq!(a.await.unwrap().status, 201);
    }
    let state = sandbox.state().await.unwrap();
    assert_eq!(
        state.damage.credits as usize, N,
        "every transfer reached Tithi's wallet"
    );
    assert_eq!(state.damage.sms as usize, N);
    let events = sandbox.events_after(0, i64::MAX).await.unwrap().len();
    println!(
        "{N} transfers through the whole pipeline in one jump: {:.2} s, {:.0} transfers/s, {} timeline events",
        elapsed.as_secs_f64(),
        N as f64 / elapsed.as_secs_f64(),
        events
    );
    println!("where the time goes (wall time per kind of step):");
    let times = sandbox.step_times().await.unwrap();
    let total: f64 = times.iter().map(|t| t.total.as_secs_f64()).sum();
    for t in times {
        println!(
            "  {:<34} {:>6} runs {:>8.1} ms {:>5.1}%  {:>6.0} µs/run",
            t.name,
            t.count,
            t.total.as_secs_f64() * 1e3,
            100.0 * t.total.as_secs_f64() / total,
            t.total.as_secs_f64() * 1e6 / t.count.max(1) as f64
        );
    }
    // On a lane, as a sandbox runs (server::lanes): the same processor for the work and its
    // connections.
    let raw_dir = dir.path().join("raw");
    let raw = lanes::spawn(async move {
        std::fs::create_dir_all(&raw_dir).unwrap();
        let stores = Stores::open(&raw_dir).await.unwrap();
        stores.reset_services().await.unwrap();
        let raw = common::raw_pipeline(&stores, N).await;
        stores.close().await;
        raw
    })
    .await
    .unwrap();
    let simulated = N as f64 / elapsed.as_secs_f64();
    println!(
        "the same store work run raw (same statements, transactions and batches; no scheduler, network or timeline): {:.2} s, {raw:.0} transfers/s",
        N as f64 / raw
    );
    println!("ratio, pipeline / raw: {:.2}", simulated / raw);
    lab.shutdown().await;
}
