//! Transfers per second through the payment API over HTTP, against the same SQLite work done
//! directly, in one run on one machine:
//!   cargo bench --features ssr --bench transfers
//! The sandbox runs live at ×10 with no network or gateway latency, so virtual time never holds
//! a request back: what is measured is the lab's own machinery (HTTP, the owner task, the
//! simulated network and load balancer, the guards, SQLite).

mod common;

use std::time::{Duration, Instant};

use pocketpay_lab::domain::{ClockMode, TransferBody};
use pocketpay_lab::server::config::Config;
use pocketpay_lab::server::lanes;
use pocketpay_lab::server::sandboxes::Sandboxes;
use pocketpay_lab::server::store::Stores;
use serde_json::json;

/// Requests per measurement. Each sandbox starts with ৳2,000 and each transfer moves ৳1.
const N: usize = 1_000;
/// Requests in flight at once over HTTP.
const CONCURRENCY: usize = 8;

#[tokio::main]
async fn main() {
    let dir = tempfile::tempdir().unwrap();
    let lab = Sandboxes::start(Config {
        data_dir: dir.path().to_path_buf(),
        // The benchmark is the one client that may go as fast as it can.
        rate_per_sec: 1e9,
        rate_burst: 1e9,
        ..Config::default()
    })
    .await
    .unwrap();
    let app = pocketpay_lab::server::api::router(&lab).with_state(lab.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    let client = reqwest::Client::new();

    // On a lane, as a sandbox runs (server::lanes).
    let raw_dir = dir.path().to_path_buf();
    let raw = lanes::spawn(async move { raw_transactions(&raw_dir).await })
        .await
        .unwrap();
    let guarded_sandbox = fast_sandbox(&lab, true).await;
    let guarded = send_all(&client, &base, &guarded_sandbox).await;
    // The same keys again: every one a replay of a stored response.
    let replays = send_all(&client, &base, &guarded_sandbox).await;
    let unguarded = send_all(&client, &base, &fast_sandbox(&lab, false).await).await;

    println!("transfers per second, {N} each, {CONCURRENCY} in flight over HTTP:");
    println!("  raw SQLite transaction (claim, debit, store response): {raw:>8.0}/s");
    println!("  HTTP first request, idempotency guards on:             {guarded:>8.0}/s");
    println!("  HTTP first request, idempotency table off:             {unguarded:>8.0}/s");
    println!("  HTTP replay of a stored response:                      {replays:>8.0}/s");
    println!("ratios:");
    println!("  HTTP guarded / raw SQLite:       {:.3}", guarded / raw);
    println!(
        "  first request, guard on / off:   {:.3}",
        guarded / unguarded
    );
    println!(
        "  replay / first request (guarded): {:.3}",
        replays / guarded
    );
    lab.shutdown().await;
}

/// The work of one guarded transfer, straight on a store: claim, then balance, debit and stored
/// response in one transaction.
async fn raw_transactions(dir: &std::path::Path) -> f64 {
    let dir = dir.join("raw");
    std::fs::create_dir_all(&dir).unwrap();
    let stores = Stores::open(&dir).await.unwrap();
    stores.reset_services().await.unwrap();
    let started = Instant::now();
    for i in 0..N {
        common::api_transfer(&stores, i, false).await;
    }
    let rate = N as f64 / started.elapsed().as_secs_f64();
    stores.close().await;
    rate
}

async fn fast_sandbox(lab: &Sandboxes, guards_on: bool) -> String {
    let sandbox = lab.create(None, Some(1), ClockMode::Live).await.unwrap();
    sandbox
        .set_faults(
            pocketpay_lab::domain::typed::read_body(
                &json!({"latency_ms": 0, "gateway_latency_ms": 0}),
            )
            .unwrap(),
        )
        .await
        .unwrap();
    if !guards_on {
        sandbox
            .set_safeguards(
                pocketpay_lab::domain::typed::read_body(&json!({"idempotency_table": false}))
                    .unwrap(),
            )
            .await
            .unwrap();
    }
    sandbox
        .clock(vec![pocketpay_lab::domain::ClockCommand::Speed {
            speed: 10.0,
        }])
        .await
        .unwrap();
    sandbox.id.to_string()
}

/// `N` transfers with distinct keys (`key-0` …), `CONCURRENCY` at a time; the rate of the batch.
async fn send_all(client: &reqwest::Client, base: &str, id: &str) -> f64 {
    let url = format!("{base}/api/sandboxes/{id}/transfers");
    let body = TransferBody {
        to: "tithi".into(),
        amount: 1,
    };
    let started = Instant::now();
    let mut next = 0;
    let mut in_flight = tokio::task::JoinSet::new();
    while next < N || !in_flight.is_empty() {
        while next < N && in_flight.len() < CONCURRENCY {
            let req = client
                .post(&url)
                .header("Authorization", "Bearer shimul")
                .header("Idempotency-Key", format!("key-{next}"))
                .json(&body)
                .timeout(Duration::from_secs(30));
            in_flight.spawn(async move { req.send().await.map(|r| r.status().as_u16()) });
            next += 1;
        }
        let status = in_flight.join_next().await.unwrap().unwrap().unwrap();
        assert_eq!(status, 201);
    }
    N as f64 / started.elapsed().as_secs_f64()
}
