//! `TestLab`: the lab on a port of its own with a temporary data folder: the app in the test's
//! own process (`TestLab::in_process`, the same router `main.rs` serves), or the real server
//! binary (`TestLab::start`) where the process is the point: a restart, a crash, a signal, a
//! release build.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use reqwest::{Client, Response, StatusCode};
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

use leptos::prelude::LeptosOptions;
use pocketpay_lab::server::{config::Config, sandboxes::Sandboxes, web};

pub struct TestLab {
    pub base: String,
    pub client: Client,
    child: Option<Child>,
    /// The app served in this process, when there is no child.
    app: Option<InProcess>,
    data: PathBuf,
    env: Vec<(String, String)>,
    /// The server binary: this build's, unless a test names another (a release build); none for
    /// the app in this process.
    bin: Option<PathBuf>,
    _tmp: Option<tempfile::TempDir>,
}

/// The app served by a task of the test's own runtime, over its own lab.
struct InProcess {
    sandboxes: Sandboxes,
    task: tokio::task::JoinHandle<()>,
}

/// What the server prints on stdout once it listens, before its address.
const LISTENING: &str = "PocketPay Idempotency Lab: ";

impl TestLab {
    /// The app in this process over a lab on a fresh data folder.
    pub async fn in_process() -> TestLab {
        TestLab::in_process_with(&[]).await
    }

    /// The app in this process, with extra settings (the server's environment variables).
    pub async fn in_process_with(env: &[(&str, &str)]) -> TestLab {
        let mut lab = TestLab::unstarted(None, env);
        lab.serve().await;
        lab
    }

    /// Serves the app from a task of this runtime on a port the system hands out, with the
    /// settings a spawned server gets.
    async fn serve(&mut self) {
        let mut vars = std::collections::HashMap::from([
            ("LAB_DATA_DIR".to_owned(), self.data.display().to_string()),
            ("LAB_TRANSFER_WAIT_SECS".to_owned(), "0".to_owned()),
        ]);
        vars.extend(self.env.iter().cloned());
        let config =
            Config::from_vars(|name| vars.get(name).cloned()).expect("the test's settings");
        let sandboxes = Sandboxes::start(config).await.expect("the lab starts");
        let options = LeptosOptions::builder()
            .output_name("pocketpay-lab")
            .build();
        let app = web::app(options, sandboxes.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("a free port");
        self.base = format!("http://{}", listener.local_addr().unwrap());
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        self.app = Some(InProcess { sandboxes, task });
    }

    /// A server with a fresh data folder.
    pub async fn start() -> TestLab {
        TestLab::start_with(&[]).await
    }

    /// A server with a fresh data folder and extra environment settings.
    pub async fn start_with(env: &[(&str, &str)]) -> TestLab {
        TestLab::start_binary(Path::new(env!("CARGO_BIN_EXE_pocketpay-lab")), env).await
    }

    /// This server binary (a release build, say) with a fresh data folder and extra settings.
    pub async fn start_binary(bin: &Path, env: &[(&str, &str)]) -> TestLab {
        let mut lab = TestLab::unstarted(Some(bin.to_path_buf()), env);
        lab.spawn().await;
        lab
    }

    fn unstarted(bin: Option<PathBuf>, env: &[(&str, &str)]) -> TestLab {
        let tmp = tempfile::tempdir().expect("a temporary folder");
        TestLab {
            base: String::new(),
            client: Client::builder()
                .redirect(reqwest::redirect::Policy::none())
                .build()
                .unwrap(),
            child: None,
            app: None,
            data: tmp.path().to_path_buf(),
            env: env
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            bin,
            _tmp: Some(tmp),
        }
    }

    pub fn data_dir(&self) -> &Path {
        &self.data
    }

    /// Starts the server on port 0, so the system hands it a port no other server holds, and
    /// reads the address it listens on from the line it prints (a port picked here and passed
    /// on could be taken by another test's server in between).
    async fn spawn(&mut self) {
        let bin = self.bin.as_ref().expect("a server binary to start");
        let mut cmd = Command::new(bin);
        cmd.current_dir(env!("CARGO_MANIFEST_DIR"))
            .env("LEPTOS_SITE_ADDR", "127.0.0.1:0")
            .env("LAB_DATA_DIR", &self.data)
            .env("RUST_LOG", "warn")
            // The tests script paused clocks and step them as slowly as a loaded machine runs:
            // they wait for every answer, unless a test sets the bound itself.
            .env("LAB_TRANSFER_WAIT_SECS", "0")
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true);
        for (k, v) in &self.env {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().expect("the server binary starts");
        let mut lines = BufReader::new(child.stdout.take().expect("stdout is piped")).lines();
        self.child = Some(child);
        let listening = async {
            while let Some(line) = lines.next_line().await.expect("the server's stdout reads") {
                if let Some(url) = line.strip_prefix(LISTENING) {
                    return url.trim_end_matches("/lab").to_owned();
                }
            }
            panic!("the server ended without saying where it listens");
        };
        self.base = tokio::time::timeout(Duration::from_secs(30), listening)
            .await
            .expect("the server listened within 30 s");
        // Whatever else it prints (warnings are logged to stdout) must not fill the pipe.
        tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
        let r = self
            .client
            .get(format!("{}/api/ping", self.base))
            .send()
            .await
            .expect("the server answers once it listens");
        assert_eq!(r.status(), StatusCode::NOT_FOUND);
    }

    /// Stops the server with SIGTERM and waits for it; returns whether it exited cleanly.
    pub async fn stop(&mut self) -> bool {
        if let Some(app) = self.app.take() {
            // In this process: every stream ended, every sandbox saved, as SIGTERM does.
            app.sandboxes.shutdown().await;
            app.task.abort();
            return true;
        }
        let Some(mut child) = self.child.take() else {
            return true;
        };
        let pid = child.id().expect("a running child has a pid");
        let _ = std::process::Command::new("kill")
            .args(["-TERM", &pid.to_string()])
            .status();
        match tokio::time::timeout(Duration::from_secs(15), child.wait()).await {
            Ok(Ok(status)) => status.success(),
            _ => {
                let _ = child.kill().await;
                false
            }
        }
    }

    /// Kills the server with SIGKILL (no saving, no goodbye) and starts it again on the same
    /// data folder: what a crash of the machine's process looks like.
    pub async fn crash_and_restart(&mut self) {
        assert!(
            self.bin.is_some(),
            "a crash needs a process of its own: TestLab::start"
        );
        if let Some(mut child) = self.child.take() {
            child.kill().await.expect("the server can be killed");
        }
        self.spawn().await;
    }

    /// Stops the server and starts it again on the same data folder.
    pub async fn restart(&mut self) {
        assert!(
            self.stop().await,
            "the server should stop cleanly on SIGTERM"
        );
        match self.bin {
            Some(_) => self.spawn().await,
            None => self.serve().await,
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.base, path)
    }

    /// Makes a sandbox, paused at the lesson's start, with this seed.
    pub async fn sandbox(&self, seed: u64) -> String {
        let r = self
            .post("/api/sandboxes", json!({"seed": seed, "paused": true}))
            .await;
        assert_eq!(r.status(), StatusCode::CREATED);
        r.json::<Value>().await.unwrap()["id"]
            .as_str()
            .unwrap()
            .to_owned()
    }

    pub async fn post(&self, path: &str, body: Value) -> Response {
        self.client
            .post(self.url(path))
            .json(&body)
            .send()
            .await
            .unwrap()
    }

    pub async fn put(&self, path: &str, body: Value) -> Response {
        self.client
            .put(self.url(path))
            .json(&body)
            .send()
            .await
            .unwrap()
    }

    pub async fn get(&self, path: &str) -> Response {
        self.client.get(self.url(path)).send().await.unwrap()
    }

    pub async fn state(&self, id: &str) -> Value {
        let r = self.get(&format!("/api/sandboxes/{id}/state")).await;
        assert_eq!(r.status(), StatusCode::OK);
        r.json().await.unwrap()
    }

    pub async fn clock(&self, id: &str, body: Value) -> Value {
        let r = self.post(&format!("/api/sandboxes/{id}/clock"), body).await;
        assert_eq!(r.status(), StatusCode::OK);
        r.json().await.unwrap()
    }

    /// Opens a sandbox's event stream, resuming after `last_event_id` if given.
    pub async fn open_stream(&self, id: &str, last_event_id: Option<&str>) -> OpenStream {
        self.open_stream_at(&format!("/api/sandboxes/{id}/events"), last_event_id)
            .await
    }

    /// Opens an event stream at `path` (a query allowed), resuming after `last_event_id`.
    pub async fn open_stream_at(&self, path: &str, last_event_id: Option<&str>) -> OpenStream {
        let mut req = self.client.get(self.url(path));
        if let Some(last) = last_event_id {
            req = req.header("Last-Event-ID", last);
        }
        let response = req.send().await.unwrap();
        assert_eq!(response.status(), StatusCode::OK);
        assert_eq!(
            response.headers()["content-type"].to_str().unwrap(),
            "text/event-stream"
        );
        OpenStream {
            response,
            text: String::new(),
            seen: Stream::default(),
        }
    }

    /// Reads an event stream until `want` timeline events have arrived (or 10 s pass).
    pub async fn read_stream(&self, id: &str, last_event_id: Option<&str>, want: usize) -> Stream {
        let mut stream = self.open_stream(id, last_event_id).await;
        stream.read_until(|s| s.timeline.len() >= want).await;
        stream.seen
    }
}

/// An event stream held open, read as far as a test needs and no further.
pub struct OpenStream {
    response: Response,
    text: String,
    /// Everything that has arrived so far.
    pub seen: Stream,
}

impl OpenStream {
    /// Reads on until `done` holds for what has arrived (or 10 s pass).
    pub async fn read_until(&mut self, done: impl Fn(&Stream) -> bool) -> &Stream {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
        while !done(&self.seen) {
            let chunk = tokio::time::timeout_at(deadline, self.response.chunk())
                .await
                .expect("the stream delivered in time")
                .unwrap()
                .expect("the stream stays open");
            self.text.push_str(&String::from_utf8_lossy(&chunk));
            self.seen = Stream::parse(&self.text);
        }
        &self.seen
    }
}

impl Drop for TestLab {
    fn drop(&mut self) {
        if let Some(child) = self.child.as_mut() {
            let _ = child.start_kill();
        }
        // In this process: the lab's owners save and end once their handles go with the task.
        if let Some(app) = self.app.take() {
            app.task.abort();
        }
    }
}

/// What an event stream delivered, in order.
#[derive(Default, Debug)]
pub struct Stream {
    /// `(sse id, event)` of each `timeline` message.
    pub timeline: Vec<(i64, Value)>,
    pub clocks: Vec<Value>,
    /// Each `state` message: what changed in the state (`?state=1`).
    pub states: Vec<Value>,
    /// How many `state-gap` messages came.
    pub gaps: usize,
    /// Message types in arrival order.
    pub order: Vec<String>,
}

impl Stream {
    fn parse(text: &str) -> Stream {
        let mut s = Stream::default();
        for block in text.split("\n\n") {
            if !text.contains(&format!("{block}\n\n")) {
                continue; // an unfinished message
            }
            let (mut kind, mut id, mut data) = (None, None, String::new());
            for line in block.lines() {
                if let Some(v) = line.strip_prefix("event:") {
                    kind = Some(v.trim().to_owned());
                } else if let Some(v) = line.strip_prefix("id:") {
                    id = v.trim().parse::<i64>().ok();
                } else if let Some(v) = line.strip_prefix("data:") {
                    data.push_str(v.trim_start());
                }
            }
            match kind.as_deref() {
                Some("timeline") => {
                    // `sent_ms` is when the stream wrote the event (for the latency
                    // benchmark), not part of the event.
                    let mut event: Value = serde_json::from_str(&data).unwrap();
                    assert!(event["sent_ms"].as_f64().is_some_and(|ms| ms > 1.7e12));
                    if let Some(map) = event.as_object_mut() {
                        map.remove("sent_ms");
                    }
                    s.timeline
                        .push((id.expect("timeline events carry an id"), event));
                    s.order.push("timeline".into());
                }
                Some("clock") => {
                    s.clocks.push(serde_json::from_str(&data).unwrap());
                    s.order.push("clock".into());
                }
                Some("state") => {
                    s.states.push(serde_json::from_str(&data).unwrap());
                    s.order.push("state".into());
                }
                Some("state-gap") => {
                    s.gaps += 1;
                    s.order.push("state-gap".into());
                }
                _ => {}
            }
        }
        s
    }
}

/// Asserts a problem+json answer with this status and type, and returns its body.
pub async fn expect_problem(r: Response, status: u16, kind: &str) -> Value {
    assert_eq!(r.status().as_u16(), status, "status for {}", r.url());
    assert_eq!(
        r.headers()["content-type"].to_str().unwrap(),
        "application/problem+json",
        "content type for {}",
        r.url()
    );
    let body: Value = r.json().await.unwrap();
    assert_eq!(
        body["type"],
        format!("urn:pocketpay-lab:problem:{kind}"),
        "{body}"
    );
    assert_eq!(body["status"], status);
    assert!(body["detail"].as_str().is_some_and(|d| !d.is_empty()));
    body
}

/// What a transfer call got back.
#[derive(Debug, Clone)]
pub struct Answer {
    pub status: u16,
    pub replayed: bool,
    pub content_type: String,
    pub body: Value,
    pub raw: String,
}

impl TestLab {
    /// Sends a transfer as Shimul with this key, body and intent (none: the key is the intent).
    pub fn transfer(
        &self,
        id: &str,
        key: &str,
        body: Value,
        intent: Option<&str>,
    ) -> tokio::task::JoinHandle<Answer> {
        let mut req = self
            .client
            .post(self.url(&format!("/api/sandboxes/{id}/transfers")))
            .header("Authorization", "Bearer shimul")
            .header("Idempotency-Key", key)
            .json(&body);
        if let Some(intent) = intent {
            req = req.header("Lab-Intent", intent);
        }
        tokio::spawn(async move {
            let r = req.send().await.unwrap();
            let status = r.status().as_u16();
            let replayed = r
                .headers()
                .get("idempotent-replayed")
                .is_some_and(|v| v == "true");
            let content_type = r.headers()["content-type"].to_str().unwrap().to_owned();
            let raw = r.text().await.unwrap();
            Answer {
                status,
                replayed,
                content_type,
                body: serde_json::from_str(&raw).unwrap_or(Value::Null),
                raw,
            }
        })
    }

    /// Waits until the sandbox has taken `n` transfers (so they are stamped at the current
    /// virtual time before the clock moves).
    pub async fn wait_for_transfers(&self, id: &str, n: usize) {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let taken = self.transfers_taken(id).await;
            if taken >= n {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "only {taken} of {n} transfers arrived"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// Moves a paused sandbox's clock forward by `ms` virtual milliseconds.
    pub async fn advance_ms(&self, id: &str, ms: i64) {
        assert!(ms % 1000 == 0, "the API jumps whole seconds");
        self.clock(id, json!({"advance_seconds": ms / 1000})).await;
    }

    /// One transfer on a paused sandbox, run to its end: send, let virtual time pass, answer.
    pub async fn send(&self, id: &str, key: &str, body: Value, intent: Option<&str>) -> Answer {
        let before = self.transfers_taken(id).await;
        let call = self.transfer(id, key, body, intent);
        self.wait_for_transfers(id, before + 1).await;
        self.advance_ms(id, 10_000).await;
        call.await.unwrap()
    }

    async fn transfers_taken(&self, id: &str) -> usize {
        let s = self.state(id).await;
        s["tables"]["lab.inputs"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|i| i["input"].as_str().unwrap_or("").contains("\"transfer\""))
            .count()
    }

    pub async fn safeguards(&self, id: &str, body: Value) {
        let r = self
            .put(&format!("/api/sandboxes/{id}/safeguards"), body)
            .await;
        assert_eq!(r.status(), StatusCode::OK);
    }

    pub async fn faults(&self, id: &str, body: Value) {
        let r = self.put(&format!("/api/sandboxes/{id}/faults"), body).await;
        assert_eq!(r.status(), StatusCode::OK);
    }

    /// Every timeline event in the state's event log (its newest 100), as `(id, event)`.
    pub async fn events_of_any_kind(&self, id: &str) -> Vec<(i64, Value)> {
        let s = self.state(id).await;
        s["tables"]["lab.events"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| (e["id"].as_i64().unwrap(), e.clone()))
            .collect()
    }

    /// Timeline events of one kind, from the state's event log.
    pub async fn events_of(&self, id: &str, kind: &str) -> Vec<Value> {
        let s = self.state(id).await;
        s["tables"]["lab.events"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["kind"] == kind)
            .map(|e| {
                // The store keeps details as JSON text.
                let mut e = e.clone();
                if let Some(text) = e["details"].as_str() {
                    e["details"] = serde_json::from_str(text).unwrap_or(Value::Null);
                }
                e
            })
            .collect()
    }
}
