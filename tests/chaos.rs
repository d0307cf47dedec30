//! The chaos test: the real server, several live sandboxes sending transfers through a lossy
//! network with every crash point firing now and then, the server killed with SIGKILL at random
//! moments and started again on the same data folder. Then the network is calmed, every
//! transfer is retried with its key until it is answered, every pipeline drains, and each
//! sandbox's stores are read directly (not through the server's own damage meter) and checked
//! like a bank: every key answered 201 debited exactly once, no intent charged twice, every
//! debit credited and texted exactly once, money conserved, nothing negative, the event log's
//! numbering unbroken, and the server's own invariants (`GET …/check`) holding.
//!
//! Ignored in a plain `cargo test`; `scripts/chaos.sh [kills] [seed]` builds the release server
//! and runs it (README, "Reliability"). Settings: `CHAOS_SERVER` (the binary; default the debug
//! build), `CHAOS_KILLS` (default 10), `CHAOS_SEED` (default: drawn and printed),
//! `CHAOS_SANDBOXES` (default 4). Each sandbox's driver starts new transfers until the last kill
//! (৳1 each, at most 1,990: what Shimul's ৳2,000 covers) and finishes the one it is on.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use pocketpay_lab::server::sim::Rng;
use reqwest::Client;
use serde_json::{json, Value};
use sqlx::sqlite::SqliteConnectOptions;
use sqlx::{ConnectOptions, SqliteConnection};
use tokio::process::{Child, Command};

fn setting(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(default)
}

/// The server under test, killed and started again on one port and one data folder.
struct Server {
    binary: PathBuf,
    port: u16,
    data: PathBuf,
    child: Option<Child>,
    /// Set while the server is down on purpose, so a death at any other time is a finding.
    down: Arc<AtomicBool>,
}

impl Server {
    async fn start(&mut self, client: &Client) {
        let mut cmd = Command::new(&self.binary);
        cmd.current_dir(env!("CARGO_MANIFEST_DIR"))
            .env("LEPTOS_SITE_ADDR", format!("127.0.0.1:{}", self.port))
            .env("LAB_DATA_DIR", &self.data)
            .env("LAB_CHECK_INVARIANTS", "1")
            .env("LAB_RATE_PER_SEC", "100000")
            .env("LAB_RATE_BURST", "100000")
            .env("RUST_LOG", "warn")
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .kill_on_drop(true);
        self.child = Some(cmd.spawn().expect("the server binary starts"));
        let deadline = Instant::now() + Duration::from_secs(30);
        while client
            .get(format!("http://127.0.0.1:{}/api/ping", self.port))
            .send()
            .await
            .is_err()
        {
            assert!(Instant::now() < deadline, "the server did not come up");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        self.down.store(false, Ordering::SeqCst);
    }

    /// SIGKILL: no saving, no goodbye. Returns false if the server had already died by itself
    /// (an invariant breach aborts it).
    async fn kill(&mut self) -> bool {
        self.down.store(true, Ordering::SeqCst);
        let mut child = self.child.take().expect("a running server");
        let died_alone = child.try_wait().expect("the child can be asked").is_some();
        let _ = child.kill().await;
        !died_alone
    }

    async fn stop(&mut self) {
        self.down.store(true, Ordering::SeqCst);
        if let Some(mut child) = self.child.take() {
            let pid = child.id().expect("a running child has a pid");
            let _ = std::process::Command::new("kill")
                .args(["-TERM", &pid.to_string()])
                .status();
            let status = tokio::time::timeout(Duration::from_secs(20), child.wait())
                .await
                .expect("the server stops on SIGTERM")
                .unwrap();
            assert!(status.success(), "the server exited with {status}");
        }
    }
}

/// One transfer the driver means to make, and what became of it.
#[derive(Clone, Debug)]
struct Intent {
    key: String,
    intent: String,
    /// The receipt's TXN once the server answered 201.
    txn: Option<String>,
}

/// What every driver saw, for the report.
#[derive(Default)]
struct Tally {
    requests: AtomicU64,
    created: AtomicU64,
    in_progress: AtomicU64,
    timeouts: AtomicU64,
    unavailable: AtomicU64,
    connection_errors: AtomicU64,
    unexpected: Mutex<Vec<String>>,
    /// Per driver: the key it is on and the last answer it got (shown if the run hangs).
    last: Mutex<HashMap<String, String>>,
}

/// Sends one transfer as the phone does: the same key and intent until an answer comes back.
async fn send_until_answered(
    client: &Client,
    base: &str,
    sandbox: &str,
    intent: &mut Intent,
    tally: &Tally,
) {
    loop {
        tally.requests.fetch_add(1, Ordering::Relaxed);
        let r = client
            .post(format!("{base}/api/sandboxes/{sandbox}/transfers"))
            .header("Authorization", "Bearer shimul")
            .header("Idempotency-Key", &intent.key)
            .header("Lab-Intent", &intent.intent)
            .json(&json!({"to": "tithi", "amount": 1}))
            .timeout(Duration::from_secs(10))
            .send()
            .await;
        let pause = match r {
            Ok(r) => {
                let status = r.status().as_u16();
                let body: Value = r.json().await.unwrap_or(Value::Null);
                tally.last.lock().unwrap().insert(
                    sandbox.to_owned(),
                    format!("{}: {status} {body}", intent.key),
                );
                match status {
                    201 => {
                        intent.txn = body["txn"].as_str().map(str::to_owned);
                        tally.created.fetch_add(1, Ordering::Relaxed);
                        return;
                    }
                    409 => {
                        tally.in_progress.fetch_add(1, Ordering::Relaxed);
                        200
                    }
                    504 => {
                        tally.timeouts.fetch_add(1, Ordering::Relaxed);
                        20
                    }
                    503 | 429 => {
                        tally.unavailable.fetch_add(1, Ordering::Relaxed);
                        50
                    }
                    other => {
                        // A refusal the phone could not have caused: report it, stop retrying.
                        tally
                            .unexpected
                            .lock()
                            .unwrap()
                            .push(format!("{} {other}: {body}", intent.key));
                        return;
                    }
                }
            }
            Err(_) => {
                tally.connection_errors.fetch_add(1, Ordering::Relaxed);
                50
            }
        };
        tokio::time::sleep(Duration::from_millis(pause)).await;
    }
}

async fn open(path: &Path) -> SqliteConnection {
    SqliteConnectOptions::new()
        .filename(path)
        .read_only(true)
        .connect()
        .await
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The bank checker: reads one sandbox's stores directly and returns every breach found.
async fn breaches(dir: &Path, intents: &[Intent]) -> Vec<String> {
    let mut found = Vec::new();
    let mut payments = open(&dir.join("payments.sqlite")).await;
    let mut wallet = open(&dir.join("wallet.sqlite")).await;
    let mut sms = open(&dir.join("sms.sqlite")).await;
    let mut lab = open(&dir.join("lab.sqlite")).await;

    let debits: Vec<(String, String, String, String, i64, i64)> = sqlx::query_as(
        "SELECT transfer_id, idem_key, lab_intent, txn, -amount, balance_after FROM ledger
         WHERE user_id = 'shimul' AND amount < 0",
    )
    .fetch_all(&mut payments)
    .await
    .unwrap();
    let mut per_key: HashMap<&str, Vec<&str>> = HashMap::new();
    let mut per_intent: HashMap<&str, usize> = HashMap::new();
    for (_, key, intent, txn, _, after) in &debits {
        per_key.entry(key).or_default().push(txn);
        *per_intent.entry(intent).or_default() += 1;
        if *after < 0 {
            found.push(format!("negative balance after {key}: {after}"));
        }
    }
    for i in intents {
        let txns = per_key.get(i.key.as_str()).cloned().unwrap_or_default();
        match (&i.txn, txns.as_slice()) {
            (Some(answered), [one]) if answered == one => {}
            (answer, txns) => found.push(format!(
                "key {} answered {answer:?} but debited {} time(s): {txns:?}",
                i.key,
                txns.len()
            )),
        }
    }
    for (intent, n) in &per_intent {
        if *n > 1 {
            found.push(format!("intent {intent} charged {n} times"));
        }
    }
    let known: HashSet<&str> = intents.iter().map(|i| i.key.as_str()).collect();
    for key in per_key.keys() {
        if !known.contains(key) {
            found.push(format!("a debit for a key nobody sent: {key}"));
        }
    }

    let credits: BTreeMap<String, (i64, i64)> = sqlx::query_as::<_, (String, i64, i64)>(
        "SELECT transfer_id, COUNT(*), SUM(amount) FROM credits GROUP BY transfer_id",
    )
    .fetch_all(&mut wallet)
    .await
    .unwrap()
    .into_iter()
    .map(|(t, n, a)| (t, (n, a)))
    .collect();
    let texts: BTreeMap<String, i64> = sqlx::query_as::<_, (String, i64)>(
        "SELECT transfer_id, COUNT(*) FROM sms GROUP BY transfer_id",
    )
    .fetch_all(&mut sms)
    .await
    .unwrap()
    .into_iter()
    .collect();
    let debited: HashSet<&str> = debits.iter().map(|d| d.0.as_str()).collect();
    for (transfer, key, ..) in &debits {
        match credits.get(transfer) {
            Some((1, _)) => {}
            None => found.push(format!("{key}: debited, never credited (a lost event)")),
            Some((n, _)) => found.push(format!("{key}: credited {n} times")),
        }
        match texts.get(transfer) {
            Some(1) => {}
            n => found.push(format!("{key}: texted {n:?} times")),
        }
    }
    for transfer in credits.keys() {
        if !debited.contains(transfer.as_str()) {
            found.push(format!("a credit with no debit: {transfer}"));
        }
    }
    let lost: i64 = debits.iter().map(|d| d.4).sum();
    let gained: i64 = credits.values().map(|c| c.1).sum();
    if lost != gained {
        found.push(format!(
            "money not conserved: Shimul lost {lost}, Tithi gained {gained}"
        ));
    }
    let tithi_opening: i64 =
        sqlx::query_scalar("SELECT opening_balance FROM wallets WHERE user_id = 'tithi'")
            .fetch_one(&mut wallet)
            .await
            .unwrap();
    if tithi_opening + gained < 0 {
        found.push("Tithi's wallet is negative".into());
    }

    let (first, last, count): (i64, i64, i64) =
        sqlx::query_as("SELECT MIN(id), MAX(id), COUNT(*) FROM events")
            .fetch_one(&mut lab)
            .await
            .unwrap();
    if last - first + 1 != count {
        found.push(format!(
            "the event log skips numbers: {count} events from {first} to {last}"
        ));
    }
    found
}

#[tokio::test]
#[ignore = "run by scripts/chaos.sh against the release server"]
async fn kill_9_at_random_moments_loses_nothing_and_doubles_nothing() {
    let seed = std::env::var("CHAOS_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_nanos() as u64
                >> 11
        });
    let kills = setting("CHAOS_KILLS", 10);
    let sandboxes = setting("CHAOS_SANDBOXES", 4);
    let per_sandbox = 1_990;
    let binary = std::env::var_os("CHAOS_SERVER")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_pocketpay-lab")));
    println!(
        "chaos: seed {seed}, {kills} kills, {sandboxes} sandboxes, server {}",
        binary.display()
    );
    // Printed again on any failure, so the run can be replayed with CHAOS_SEED.
    struct SeedOnPanic(u64);
    impl Drop for SeedOnPanic {
        fn drop(&mut self) {
            if std::thread::panicking() {
                eprintln!("chaos failed: replay with CHAOS_SEED={}", self.0);
            }
        }
    }
    let _seed_guard = SeedOnPanic(seed);
    // Every choice the test makes comes from the seed, by the sandboxes' own generator.
    let mut rng = Rng::new(seed);

    let tmp = tempfile::tempdir().unwrap();
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .unwrap()
        .port();
    let base = format!("http://127.0.0.1:{port}");
    let client = Client::new();
    let mut server = Server {
        binary,
        port,
        data: tmp.path().to_path_buf(),
        child: None,
        down: Arc::new(AtomicBool::new(true)),
    };
    server.start(&client).await;

    // Live sandboxes at ×10, with a lossy network and every crash point firing now and then.
    let mut ids = Vec::new();
    for _ in 0..sandboxes {
        let r = client
            .post(format!("{base}/api/sandboxes"))
            .json(&json!({"seed": rng.below(1 << 40)}))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 201);
        let id = r.json::<Value>().await.unwrap()["id"]
            .as_str()
            .unwrap()
            .to_owned();
        let ok = |r: reqwest::Response| assert!(r.status().is_success(), "{}", r.status());
        ok(client
            .post(format!("{base}/api/sandboxes/{id}/clock"))
            .json(&json!({"speed": 10}))
            .send()
            .await
            .unwrap());
        ok(client
            .put(format!("{base}/api/sandboxes/{id}/faults"))
            .json(&json!({
                "request_loss_pct": 15, "response_loss_pct": 15, "latency_ms": 40,
                "gateway_latency_ms": 60, "lb_retry": true,
                "crash": {"api_after_claim": 0.05, "api_after_commit": 0.05,
                          "relay_after_publish": 0.05, "broker_ack_lost": 0.05,
                          "fraud_before_commit": 0.05, "consumer_before_offset_commit": 0.05}
            }))
            .send()
            .await
            .unwrap());
        ids.push(id);
    }

    // One driver per sandbox, each keeping its transfers, sending them one after another.
    let tally = Arc::new(Tally::default());
    let killing = Arc::new(AtomicBool::new(true));
    let mut drivers = Vec::new();
    for (n, id) in ids.iter().enumerate() {
        let (client, base, id, tally) = (client.clone(), base.clone(), id.clone(), tally.clone());
        let killing = killing.clone();
        let mut intents: Vec<Intent> = (0..per_sandbox)
            .map(|i| {
                let mut bytes = [0u8; 16];
                bytes[..8].copy_from_slice(&rng.next_u64().to_le_bytes());
                bytes[8..].copy_from_slice(&rng.next_u64().to_le_bytes());
                Intent {
                    key: format!("chaos-{seed}-{n}-{i}"),
                    intent: uuid::Builder::from_random_bytes(bytes)
                        .into_uuid()
                        .to_string(),
                    txn: None,
                }
            })
            .collect();
        drivers.push(tokio::spawn(async move {
            let mut sent = 0;
            for intent in intents.iter_mut() {
                if !killing.load(Ordering::SeqCst) {
                    break;
                }
                send_until_answered(&client, &base, &id, intent, &tally).await;
                sent += 1;
            }
            intents.truncate(sent);
            intents
        }));
    }

    // Kill the server at random moments while the drivers send.
    let started = Instant::now();
    let mut died_alone = 0;
    for _ in 0..kills {
        tokio::time::sleep(Duration::from_millis(150 + rng.below(900))).await;
        if !server.kill().await {
            died_alone += 1;
        }
        server.start(&client).await;
    }
    assert_eq!(
        died_alone, 0,
        "the server died by itself (an invariant breach?)"
    );
    killing.store(false, Ordering::SeqCst);

    // Calm the network and the crash points; every driver then gets its answers.
    for id in &ids {
        let r = client
            .put(format!("{base}/api/sandboxes/{id}/faults"))
            .json(&json!({
                "request_loss_pct": 0, "response_loss_pct": 0,
                "crash": {"api_after_claim": "off", "api_after_commit": "off",
                          "relay_after_publish": "off", "broker_ack_lost": "off",
                          "fraud_before_commit": "off", "consumer_before_offset_commit": "off"}
            }))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200);
    }
    let mut all = Vec::new();
    for d in drivers {
        match tokio::time::timeout(Duration::from_secs(120), d).await {
            Ok(intents) => all.push(intents.unwrap()),
            Err(_) => {
                let last = tally.last.lock().unwrap().clone();
                for id in &ids {
                    let state: Value = client
                        .get(format!("{base}/api/sandboxes/{id}/state"))
                        .send()
                        .await
                        .unwrap()
                        .json()
                        .await
                        .unwrap_or(Value::Null);
                    eprintln!("{id}: clock {} damage {}", state["clock"], state["damage"]);
                }
                panic!("a transfer was never answered once the network was calm: {last:#?}");
            }
        }
    }
    // Let every pipeline drain: jobs, relay, consumers, stuck-key recovery.
    for id in &ids {
        for _ in 0..2 {
            let r = client
                .post(format!("{base}/api/sandboxes/{id}/clock"))
                .json(&json!({"advance_seconds": 3_600}))
                .send()
                .await
                .unwrap();
            assert_eq!(r.status(), 200);
        }
        let check: Value = client
            .get(format!("{base}/api/sandboxes/{id}/check"))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(check["ok"], true, "{id}: {check}");
    }
    server.stop().await;

    let mut found = Vec::new();
    for (id, intents) in ids.iter().zip(&all) {
        let dir = tmp.path().join("sandboxes").join(id);
        for b in breaches(&dir, intents).await {
            found.push(format!("{id}: {b}"));
        }
    }
    let unexpected = tally.unexpected.lock().unwrap().clone();
    println!(
        "chaos: seed {seed}: {kills} kills in {:.1} s; {} sandboxes, {} keys answered 201; \
         {} requests ({} timeouts, {} in progress, {} unavailable, {} connection errors); \
         breaches {}",
        started.elapsed().as_secs_f64(),
        ids.len(),
        tally.created.load(Ordering::Relaxed),
        tally.requests.load(Ordering::Relaxed),
        tally.timeouts.load(Ordering::Relaxed),
        tally.in_progress.load(Ordering::Relaxed),
        tally.unavailable.load(Ordering::Relaxed),
        tally.connection_errors.load(Ordering::Relaxed),
        found.len(),
    );
    assert!(unexpected.is_empty(), "unexpected answers: {unexpected:#?}");
    assert!(found.is_empty(), "breaches:\n{}", found.join("\n"));
    let keys: usize = all.iter().map(Vec::len).sum();
    assert_eq!(tally.created.load(Ordering::Relaxed), keys as u64);
    assert!(
        all.iter()
            .all(|intents| intents.len() < per_sandbox as usize),
        "a driver ran out of money before the last kill: make the run shorter"
    );
}
