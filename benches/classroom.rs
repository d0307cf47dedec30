//! A class on one server: N sandboxes, each with an open event stream and one transfer a
//! second, over real HTTP against the release server in its own process:
//!   cargo leptos build --release --split && cargo bench --features ssr --bench classroom
//! `CLASSROOM_MODE=class` runs a class instead (`class_mode`: students joined to one class, the
//! instructor's view open, a pushed preset, then "now tap Send"; CLASSROOM_SIZES default 200,
//! CLASSROOM_STEADY_SECS default 60).
//! Settings (environment): CLASSROOM_SERVER (the server binary, default
//! target/release/pocketpay-lab), CLASSROOM_SIZES (default 50,100,200,400), CLASSROOM_SECS (how
//! long each class sends, default 20). Each sandbox runs live at ×10 with no simulated network
//! or gateway latency, so a transfer's time is the server's own work.
//!
//! For each size it prints: transfers sent and answered 201, refused with 503 (past the
//! server's limits, with Retry-After) or failed otherwise; p50 / p99 / max of a transfer's
//! round trip; events the streams delivered; the server's resident memory (now and peak) and
//! open file descriptors, and the descriptors per loaded sandbox over an idle server's.
//! Last, the server's processor time a transfer (ms) and its threads' switches a transfer, over
//! the sending (both read from `/proc`): the cost of each statement's hand-over shows in both.

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
    if setting("CLASSROOM_MODE").as_deref() == Some("class") {
        let sizes = setting("CLASSROOM_SIZES").unwrap_or_else(|| "200".into());
        for n in sizes.split(',') {
            class_mode(&binary, n.trim().parse().expect("CLASSROOM_SIZES: numbers")).await;
        }
        return;
    }
    let secs: u64 = setting("CLASSROOM_SECS")
        .map(|s| s.parse().expect("CLASSROOM_SECS: a number of seconds"))
        .unwrap_or(20);
    println!("a class on one server: each sandbox holds an event stream and sends a transfer a second for {secs} s");
    println!(
        "{:>5} {:>7} {:>6} {:>5} {:>5} {:>8} {:>8} {:>8} {:>9} {:>8} {:>8} {:>6} {:>9} {:>9} {:>10}",
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
        "fds/sbx",
        "CPU ms/tr",
        "switch/tr"
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

    /// The processor time the server has used (user and system, in ms; Linux counts it in
    /// ticks of 10 ms) and the times its threads have been switched out (voluntarily, as a
    /// thread waiting for another's answer is, and not).
    fn work(&self) -> (f64, u64) {
        let stat = std::fs::read_to_string(format!("/proc/{}/stat", self.pid)).unwrap();
        // Fields after the command's closing parenthesis: utime and stime are the 12th and 13th.
        let fields: Vec<&str> = stat[stat.rfind(')').unwrap() + 2..].split(' ').collect();
        let ticks: u64 = fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap();
        let mut switches = 0;
        if let Ok(tasks) = std::fs::read_dir(format!("/proc/{}/task", self.pid)) {
            for task in tasks.flatten() {
                let status =
                    std::fs::read_to_string(task.path().join("status")).unwrap_or_default();
                for line in status.lines() {
                    if line.starts_with("voluntary_ctxt_switches:")
                        || line.starts_with("nonvoluntary_ctxt_switches:")
                    {
                        switches += line
                            .split_whitespace()
                            .nth(1)
                            .and_then(|v| v.parse::<u64>().ok())
                            .unwrap_or(0);
                    }
                }
            }
        }
        (ticks as f64 * 10.0, switches)
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
    let work_before = server.work();
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
    let work_after = server.work();
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
    let pct = |p: f64| percentile(&lat, p) / 1e3;
    let loaded = ids.len().max(1);
    let created = tally.created.load(Ordering::Relaxed).max(1) as f64;
    println!(
        "{:>5} {:>7} {:>6} {:>5} {:>5} {:>8.1} {:>8.1} {:>8.1} {:>9} {:>8.0} {:>8.0} {:>6} {:>9.1} {:>9.2} {:>10.0}",
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
        fds.saturating_sub(idle_fds) as f64 / loaded as f64,
        (work_after.0 - work_before.0) / created,
        (work_after.1 - work_before.1) as f64 / created
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

/// `CLASSROOM_MODE=class`: N students joined to one class, each with its sandbox's stream open,
/// and the instructor's class view open. A preset is pushed to all; then "now tap Send": every
/// student sends a transfer within 2 s and reports the step it ticks, and the bench times each
/// answer and how long until the class view shows that student's step; then a transfer every
/// 5 s per student for `CLASSROOM_STEADY_SECS` (default 60).
async fn class_mode(binary: &PathBuf, n: usize) {
    use leptos::server_fn::ServerFn;
    use pocketpay_lab::app::class::{ClassPage, ClassPush, CreateClass, JoinClass, ReportProgress};
    let steady: u64 = setting("CLASSROOM_STEADY_SECS")
        .map(|s| {
            s.parse()
                .expect("CLASSROOM_STEADY_SECS: a number of seconds")
        })
        .unwrap_or(60);
    let client = Client::builder()
        .pool_max_idle_per_host(n * 3)
        .build()
        .unwrap();
    let server = Server::start(binary, &client).await;
    let idle_fds = server.fds();
    let rpc = |path: &str| format!("{}{path}", server.base);
    // The instructor: a class, its key (the cookie), its code.
    let made = client
        .post(rpc(<CreateClass as ServerFn>::PATH))
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    let cookie = made.headers()["set-cookie"]
        .to_str()
        .unwrap()
        .split(';')
        .next()
        .unwrap()
        .to_owned();
    let class: String = made.json().await.unwrap();
    let page: Value = client
        .post(rpc(<ClassPage as ServerFn>::PATH))
        .header("cookie", &cookie)
        .json(&json!({"class": class}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let code = page["view"]["code"].as_str().unwrap().to_owned();
    // The students join, each opening its own stream.
    let mut ids = Vec::new();
    let mut streams = Vec::new();
    let joined = Instant::now();
    for i in 0..n {
        let r = client
            .post(rpc(<JoinClass as ServerFn>::PATH))
            .json(&json!({"code": code, "name": format!("student {i}")}))
            .send()
            .await
            .unwrap();
        assert!(r.status().is_success(), "join {i}: {}", r.status());
        let id: String = r.json().await.unwrap();
        let stream = client
            .get(format!("{}/api/sandboxes/{id}/events", server.base))
            .send()
            .await
            .unwrap();
        assert_eq!(stream.status(), 200, "stream {i}");
        streams.push(tokio::spawn(async move {
            let mut body = stream.bytes_stream();
            while let Some(Ok(_)) = body.next().await {}
        }));
        ids.push(id);
    }
    let join_secs = joined.elapsed().as_secs_f64();
    // The instructor's view: when each student's row first shows a step done.
    let seen: Arc<Mutex<std::collections::HashMap<String, Instant>>> = Arc::default();
    let view = client
        .get(format!("{}/teach/{class}/events", server.base))
        .header("cookie", &cookie)
        .send()
        .await
        .unwrap();
    assert_eq!(view.status(), 200);
    let watcher = {
        let seen = seen.clone();
        tokio::spawn(async move {
            let mut body = view.bytes_stream();
            let mut text = String::new();
            while let Some(Ok(chunk)) = body.next().await {
                text.push_str(&String::from_utf8_lossy(&chunk));
                while let Some(end) = text.find("\n\n") {
                    let message: String = text.drain(..end + 2).collect();
                    let Some(data) = message.lines().find_map(|l| l.strip_prefix("data:")) else {
                        continue;
                    };
                    let Ok(v) = serde_json::from_str::<Value>(data.trim()) else {
                        continue;
                    };
                    let now = Instant::now();
                    let mut seen = seen.lock().unwrap();
                    for s in v["students"].as_array().into_iter().flatten() {
                        if s["progress"]["steps_done"].as_u64() == Some(1) {
                            if let Some(id) = s["sandbox"].as_str() {
                                seen.entry(id.to_owned()).or_insert(now);
                            }
                        }
                    }
                }
            }
        })
    };
    // The push: chapter 01's own preset (scenario 1, guards off), to everyone, so each
    // student's report below finds its first step done in their sandbox (the server works the
    // steps out from the sandbox itself).
    let pushed = Instant::now();
    let report: Value = client
        .post(rpc(<ClassPush as ServerFn>::PATH))
        .header("cookie", &cookie)
        .json(&json!({"class": class, "push": {"push": "preset", "scenario": 1, "variant": "unguarded"}}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let push_ms = pushed.elapsed().as_secs_f64() * 1e3;
    assert_eq!(report["took"].as_u64(), Some(n as u64), "{report}");
    // Set-up, not measured: no simulated latency or loss, the clock at ×10.
    for id in &ids {
        let url = format!("{}/api/sandboxes/{id}", server.base);
        client
            .put(format!("{url}/faults"))
            .json(&json!({"latency_ms": 0, "gateway_latency_ms": 0, "response_loss_pct": 0, "request_loss_pct": 0}))
            .send()
            .await
            .unwrap()
            .error_for_status()
            .unwrap();
        client
            .post(format!("{url}/clock"))
            .json(&json!({"speed": 10}))
            .send()
            .await
            .unwrap();
    }
    // "Now tap Send": everyone within 2 s; each answer, then the step reported.
    let tap = {
        let (client, base, seen) = (client.clone(), server.base.clone(), seen.clone());
        move |id: String, key: String, report: bool| {
            let (client, base, seen) = (client.clone(), base.clone(), seen.clone());
            async move {
                let sent = Instant::now();
                let r = client
                    .post(format!("{base}/api/sandboxes/{id}/transfers"))
                    .header("Authorization", "Bearer shimul")
                    .header("Idempotency-Key", key)
                    .json(&json!({"to": "tithi", "amount": 1}))
                    .timeout(Duration::from_secs(30))
                    .send()
                    .await;
                let answer = sent.elapsed();
                let ok = r.is_ok_and(|r| r.status() == 201);
                let mut shown = None;
                if report && ok {
                    let reported = Instant::now();
                    client
                        .post(format!("{base}{}", <ReportProgress as ServerFn>::PATH))
                        .header("referer", format!("{base}/lab/{id}"))
                        .json(&json!({"sandbox": id, "report": {"chapter": 1}}))
                        .send()
                        .await
                        .unwrap();
                    let deadline = reported + Duration::from_secs(10);
                    while Instant::now() < deadline {
                        if let Some(at) = seen.lock().unwrap().get(&id) {
                            shown = Some(at.saturating_duration_since(reported));
                            break;
                        }
                        tokio::time::sleep(Duration::from_millis(5)).await;
                    }
                }
                (ok, answer, shown)
            }
        }
    };
    let mut taps = Vec::new();
    for (i, id) in ids.iter().enumerate() {
        let offset = Duration::from_millis((i as u64 * 2000) / n.max(1) as u64);
        let tap = tap(id.clone(), "tap".into(), true);
        taps.push(tokio::spawn(async move {
            tokio::time::sleep(offset).await;
            tap.await
        }));
    }
    let mut answers = Vec::new();
    let mut shown = Vec::new();
    let mut failed = 0;
    for t in taps {
        let (ok, answer, view) = t.await.unwrap();
        if !ok {
            failed += 1;
        }
        answers.push(answer);
        match view {
            Some(v) => shown.push(v),
            None => failed += 1,
        }
    }
    // Then steady: a transfer every 5 s per student.
    let mut drivers = Vec::new();
    for (i, id) in ids.iter().enumerate() {
        let offset = Duration::from_millis((i as u64 * 5000) / n.max(1) as u64);
        let (id, tap) = (id.clone(), tap.clone());
        drivers.push(tokio::spawn(async move {
            tokio::time::sleep(offset).await;
            let mut tick = tokio::time::interval(Duration::from_secs(5));
            let mut out = Vec::new();
            for k in 0..steady / 5 {
                tick.tick().await;
                out.push(tap(id.clone(), format!("steady-{k}"), false).await);
            }
            out
        }));
    }
    tokio::time::sleep(Duration::from_secs(steady / 2)).await;
    let fds = server.fds();
    let (rss, _) = server.memory();
    let mut steady_answers = Vec::new();
    let mut steady_failed = 0;
    for d in drivers {
        for (ok, answer, _) in d.await.unwrap() {
            if !ok {
                steady_failed += 1;
            }
            steady_answers.push(answer);
        }
    }
    let (_, peak) = server.memory();
    watcher.abort();
    for s in &streams {
        s.abort();
    }
    let ms = |v: Vec<Duration>, p: f64| {
        let mut us: Vec<u64> = v.iter().map(|d| d.as_micros() as u64).collect();
        us.sort_unstable();
        percentile(&us, p) / 1e3
    };
    println!("a class of {n} on one server, the instructor's view open:");
    println!("  joins: {n} in {join_secs:.1} s, each with its stream; push of scenario 1 to all: {push_ms:.0} ms, {} took it", report["took"]);
    println!(
        "  now tap Send (all within 2 s): answer p50 {:.0} ms, p99 {:.0} ms, max {:.0} ms; the view shows the step p50 {:.0} ms, p99 {:.0} ms, max {:.0} ms; {failed} failed",
        ms(answers.clone(), 0.5), ms(answers.clone(), 0.99), ms(answers, 1.0),
        ms(shown.clone(), 0.5), ms(shown.clone(), 0.99), ms(shown, 1.0),
    );
    println!(
        "  then a transfer every 5 s each for {steady} s: {} sent, answer p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms; {steady_failed} failed",
        steady_answers.len(),
        ms(steady_answers.clone(), 0.5), ms(steady_answers.clone(), 0.99), ms(steady_answers, 1.0),
    );
    println!(
        "  RSS {rss:.0} MB (peak {peak:.0} MB), {fds} descriptors ({:.1} a student over an idle server's)",
        fds.saturating_sub(idle_fds) as f64 / n.max(1) as f64
    );
}

/// The value at fraction `p` of sorted values (nearest rank), NaN for none.
fn percentile(sorted: &[u64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    sorted[((sorted.len() as f64 * p).ceil() as usize).clamp(1, sorted.len()) - 1] as f64
}
