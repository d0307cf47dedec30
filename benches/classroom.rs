//! A class on one server: N sandboxes, each with an open event stream and one transfer a
//! second, over real HTTP against the release server in its own process:
//!   cargo leptos build --release --split && cargo bench --features ssr --bench classroom
//! Settings (environment): CLASSROOM_SERVER (the server binary, default
//! target/release/pocketpay-lab), CLASSROOM_SIZES (default 50,100,200,400), CLASSROOM_SECS (how
//! long each class sends, default 20). Each sandbox runs live at ×10 with no simulated network
//! or gateway latency, so a transfer's time is the server's own work.
//!
//! For each size it prints: transfers sent and answered 201, refused with 503 (past the
//! server's limits, with Retry-After) or failed otherwise; p50 / p99 / max of a transfer's
//! round trip; events the streams delivered; the server's resident memory (now and peak) and
//! open file descriptors, and the descriptors per loaded sandbox over an idle server's.

use std::path::PathBuf;
use std::process::Stdio;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures::StreamExt;
use reqwest::Client;
use serde_json::{json, Value};
use tokio::process::{Child, Command};

fn setting(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

#[tokio::main]
async fn main() {
    let binary = PathBuf::from(
        setting("CLASSROOM_SERVER").unwrap_or_else(|| "target/release/pocketpay-lab".into()),
    );
    assert!(
        binary.exists(),
        "no server binary at {} (build it with `cargo leptos build --release --split`)",
        binary.display()
    );
    let sizes: Vec<usize> = setting("CLASSROOM_SIZES")
        .unwrap_or_else(|| "50,100,200,400".into())
        .split(',')
        .map(|n| {
            n.trim()
                .parse()
                .expect("CLASSROOM_SIZES: numbers separated by commas")
        })
        .collect();
    let secs: u64 = setting("CLASSROOM_SECS")
        .map(|s| s.parse().expect("CLASSROOM_SECS: a number of seconds"))
        .unwrap_or(20);
    println!("a class on one server: each sandbox holds an event stream and sends a transfer a second for {secs} s");
    println!(
        "{:>5} {:>7} {:>6} {:>5} {:>5} {:>8} {:>8} {:>8} {:>9} {:>8} {:>8} {:>6} {:>9}",
        "N",
        "sent",
        "201",
        "503",
        "other",
        "p50 ms",
        "p99 ms",
        "max ms",
        "events",
        "RSS MB",
        "peak MB",
        "fds",
        "fds/sbx"
    );
    for n in sizes {
        class(&binary, n, secs).await;
    }
}

struct Server {
    child: Child,
    pid: u32,
    base: String,
    _data: tempfile::TempDir,
}

impl Server {
    async fn start(binary: &PathBuf, client: &Client) -> Server {
        let port = {
            let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            l.local_addr().unwrap().port()
        };
        let data = tempfile::tempdir().unwrap();
        let child = Command::new(binary)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .env("LEPTOS_SITE_ADDR", format!("127.0.0.1:{port}"))
            .env("LAB_DATA_DIR", data.path())
            .env("RUST_LOG", "error")
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .kill_on_drop(true)
            .spawn()
            .expect("the server binary starts");
        let pid = child.id().expect("a running child has a pid");
        let base = format!("http://127.0.0.1:{port}");
        let deadline = Instant::now() + Duration::from_secs(30);
        while !client
            .get(format!("{base}/api/openapi.json"))
            .send()
            .await
            .is_ok_and(|r| r.status().is_success())
        {
            assert!(Instant::now() < deadline, "the server did not come up");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        Server {
            child,
            pid,
            base,
            _data: data,
        }
    }

    /// Resident memory now and at its peak, in MB.
    fn memory(&self) -> (f64, f64) {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.pid)).unwrap();
        let kb = |field: &str| -> f64 {
            status
                .lines()
                .find(|l| l.starts_with(field))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse().ok())
                .unwrap_or(0.0)
        };
        (kb("VmRSS:") / 1024.0, kb("VmHWM:") / 1024.0)
    }

    fn fds(&self) -> usize {
        std::fs::read_dir(format!("/proc/{}/fd", self.pid))
            .map(|d| d.count())
            .unwrap_or(0)
    }
}

#[derive(Default)]
struct Tally {
    sent: AtomicU64,
    created: AtomicU64,
    refused: AtomicU64,
    refused_without_retry_after: AtomicU64,
    other: AtomicU64,
    events: AtomicU64,
    latencies_us: Mutex<Vec<u64>>,
}

async fn class(binary: &PathBuf, n: usize, secs: u64) {
    let client = Client::builder()
        .pool_max_idle_per_host(n * 2)
        .build()
        .unwrap();
    let mut server = Server::start(binary, &client).await;
    let idle_fds = server.fds();
    let tally = Arc::new(Tally::default());
    // Create the sandboxes and open their streams; a refusal past the limits is counted.
    let mut ids = Vec::new();
    let mut streams = Vec::new();
    for i in 0..n {
        let r = client
            .post(format!("{}/api/sandboxes", server.base))
            .json(&json!({"seed": 7_000 + i}))
            .send()
            .await
            .unwrap();
        if r.status() != 201 {
            note_refusal(&tally, &r);
            continue;
        }
        let id = r.json::<Value>().await.unwrap()["id"]
            .as_str()
            .unwrap()
            .to_owned();
        let url = format!("{}/api/sandboxes/{id}", server.base);
        let faults = client
            .put(format!("{url}/faults"))
            .json(&json!({"latency_ms": 0, "gateway_latency_ms": 0}))
            .send()
            .await;
        let clock = client
            .post(format!("{url}/clock"))
            .json(&json!({"speed": 10}))
            .send()
            .await;
        let answered = |r: &reqwest::Result<reqwest::Response>| {
            r.as_ref().is_ok_and(|r| r.status().is_success())
        };
        if !(answered(&faults) && answered(&clock)) {
            tally.other.fetch_add(1, Ordering::Relaxed);
            continue;
        }
        let stream = client
            .get(format!("{}/api/sandboxes/{id}/events", server.base))
            .send()
            .await
            .unwrap();
        if stream.status() != 200 {
            note_refusal(&tally, &stream);
            continue;
        }
        let t = tally.clone();
        streams.push(tokio::spawn(async move {
            // Count the lines that start `data:`; a line may be split across chunks.
            let mut body = stream.bytes_stream();
            let mut start = Vec::with_capacity(5);
            while let Some(Ok(chunk)) = body.next().await {
                for &b in chunk.iter() {
                    if b == b'\n' {
                        start.clear();
                    } else if start.len() < 5 {
                        start.push(b);
                        if start == b"data:" {
                            t.events.fetch_add(1, Ordering::Relaxed);
                        }
                    }
                }
            }
        }));
        ids.push(id);
    }
    // Every sandbox sends a transfer a second, its start spread over the first second.
    let mut drivers = Vec::new();
    for (i, id) in ids.iter().enumerate() {
        let (client, url, tally) = (
            client.clone(),
            format!("{}/api/sandboxes/{id}/transfers", server.base),
            tally.clone(),
        );
        let offset = Duration::from_millis((i as u64 * 1000) / ids.len().max(1) as u64);
        drivers.push(tokio::spawn(async move {
            tokio::time::sleep(offset).await;
            let mut tick = tokio::time::interval(Duration::from_secs(1));
            for k in 0..secs {
                tick.tick().await;
                tally.sent.fetch_add(1, Ordering::Relaxed);
                let sent = Instant::now();
                let r = client
                    .post(&url)
                    .header("Authorization", "Bearer shimul")
                    .header("Idempotency-Key", format!("class-{k}"))
                    .json(&json!({"to": "tithi", "amount": 1}))
                    .timeout(Duration::from_secs(30))
                    .send()
                    .await;
                let took = sent.elapsed().as_micros() as u64;
                match r {
                    Ok(r) if r.status() == 201 => {
                        tally.created.fetch_add(1, Ordering::Relaxed);
                        tally.latencies_us.lock().unwrap().push(took);
                    }
                    Ok(r) if r.status() == 503 || r.status() == 429 => note_refusal(&tally, &r),
                    _ => {
                        tally.other.fetch_add(1, Ordering::Relaxed);
                    }
                }
            }
        }));
    }
    // Sample the server halfway, with every stream open and every sandbox sending.
    tokio::time::sleep(Duration::from_secs(secs / 2)).await;
    let fds = server.fds();
    for d in drivers {
        d.await.unwrap();
    }
    let (rss, peak) = server.memory();
    // Let the last transfers' events arrive, then close the streams.
    tokio::time::sleep(Duration::from_secs(2)).await;
    for s in &streams {
        s.abort();
    }
    let alive = match Client::new()
        .get(format!("{}/api/openapi.json", server.base))
        .send()
        .await
    {
        Ok(r) if r.status().is_success() => Ok(()),
        Ok(r) => Err(format!("ping answered {}", r.status())),
        Err(e) => Err(format!("ping failed: {e}")),
    };
    let _ = server.child.kill().await;
    let mut lat = tally.latencies_us.lock().unwrap().clone();
    lat.sort_unstable();
    let pct = |p: f64| -> f64 {
        if lat.is_empty() {
            return f64::NAN;
        }
        lat[((lat.len() as f64 * p).ceil() as usize).clamp(1, lat.len()) - 1] as f64 / 1e3
    };
    let loaded = ids.len().max(1);
    println!(
        "{:>5} {:>7} {:>6} {:>5} {:>5} {:>8.1} {:>8.1} {:>8.1} {:>9} {:>8.0} {:>8.0} {:>6} {:>9.1}",
        n,
        tally.sent.load(Ordering::Relaxed),
        tally.created.load(Ordering::Relaxed),
        tally.refused.load(Ordering::Relaxed),
        tally.other.load(Ordering::Relaxed),
        pct(0.50),
        pct(0.99),
        pct(1.0),
        tally.events.load(Ordering::Relaxed),
        rss,
        peak,
        fds,
        fds.saturating_sub(idle_fds) as f64 / loaded as f64
    );
    let bare = tally.refused_without_retry_after.load(Ordering::Relaxed);
    assert_eq!(bare, 0, "{bare} refusals came without Retry-After");
    if let Err(e) = alive {
        panic!("the server no longer answers after a class of {n}: {e}");
    }
}

fn note_refusal(tally: &Tally, r: &reqwest::Response) {
    match r.status().as_u16() {
        503 | 429 => {
            tally.refused.fetch_add(1, Ordering::Relaxed);
            if r.headers().get("retry-after").is_none() {
                tally
                    .refused_without_retry_after
                    .fetch_add(1, Ordering::Relaxed);
            }
        }
        _ => {
            tally.other.fetch_add(1, Ordering::Relaxed);
        }
    }
}
