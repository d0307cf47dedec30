//! The API's edge, in-process: the real router (`web::app`) over a lab on a temporary folder,
//! called with `tower::ServiceExt::oneshot`, no server process. Every bad request is refused
//! with its status and problem `type` and changes nothing; no request reaches another sandbox.
//! Run: `cargo test --features ssr --test edge`.

use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, HeaderValue, Method, Request, StatusCode};
use axum::Router;
use leptos::prelude::LeptosOptions;
use pocketpay_lab::server::{config::Config, sandboxes::Sandboxes, web};
use serde_json::{json, Value};
use tower::ServiceExt;

/// The host every request names; a page of the lab itself sends `Origin: http://lab.test`.
const HOST: &str = "lab.test";
const FOREIGN: &str = "https://evil.example";
/// A well-formed id no sandbox has.
const GUESSED: &str = "5f0e8a2c-9d4b-4c1e-8f3a-2b7d6e1c0a94";

/// The router over a lab on a temporary data folder.
struct Edge {
    app: Router,
    dir: tempfile::TempDir,
}

/// What came back.
struct Answer {
    status: StatusCode,
    headers: HeaderMap,
    body: Bytes,
}

impl Answer {
    fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or(Value::Null)
    }
}

impl Edge {
    async fn start() -> Edge {
        Edge::start_with(Config::default()).await
    }

    async fn start_with(config: Config) -> Edge {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let lab = Sandboxes::start(Config {
            data_dir: dir.path().to_path_buf(),
            // The tests are the one client allowed to be fast.
            rate_per_sec: 1e9,
            rate_burst: 1e9,
            ..config
        })
        .await
        .expect("the lab starts");
        let options = LeptosOptions::builder()
            .output_name("pocketpay-lab")
            .build();
        Edge {
            app: web::app(options, lab),
            dir,
        }
    }

    async fn send(&self, request: Request<Body>) -> Answer {
        let response = self
            .app
            .clone()
            .oneshot(request)
            .await
            .expect("the router answers");
        let (parts, body) = response.into_parts();
        let body = tokio::time::timeout(
            Duration::from_secs(30),
            axum::body::to_bytes(body, usize::MAX),
        )
        .await
        .expect("the body ends")
        .expect("the body reads");
        Answer {
            status: parts.status,
            headers: parts.headers,
            body,
        }
    }

    async fn call(&self, call: Call) -> Answer {
        self.send(call.request()).await
    }

    /// A sandbox paused at the lesson's start: nothing moves unless a request moves it.
    async fn sandbox(&self, seed: u64) -> String {
        let a = self
            .call(Call::post(
                "/api/sandboxes",
                json!({"seed": seed, "paused": true}),
            ))
            .await;
        assert_eq!(a.status, StatusCode::CREATED);
        a.json()["id"].as_str().unwrap().to_owned()
    }

    /// `GET …/state`, byte for byte.
    async fn state_bytes(&self, id: &str) -> Bytes {
        let a = self
            .call(Call::get(&format!("/api/sandboxes/{id}/state")))
            .await;
        assert_eq!(a.status, StatusCode::OK);
        a.body
    }

    async fn state(&self, id: &str) -> Value {
        serde_json::from_slice(&self.state_bytes(id).await).unwrap()
    }

    async fn transfers_taken(&self, id: &str) -> usize {
        self.state(id).await["tables"]["lab.inputs"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|i| i["input"].as_str().unwrap_or("").contains("\"transfer\""))
            .count()
    }

    fn sandboxes_on_disk(&self) -> usize {
        std::fs::read_dir(self.dir.path().join("sandboxes"))
            .unwrap()
            .count()
    }

    /// A transfer on a paused sandbox, run to its answer: sent, then ten virtual seconds.
    async fn transfer(&self, id: &str, key: &str, body: Value) -> Answer {
        let call = Call::post(&format!("/api/sandboxes/{id}/transfers"), body)
            .header("Authorization", "Bearer shimul")
            .header("Idempotency-Key", key);
        let before = self.transfers_taken(id).await;
        let app = self.app.clone();
        let pending = tokio::spawn(async move { app.oneshot(call.request()).await.unwrap() });
        // Wait until the sandbox took it, so the jump below carries it to its end.
        for _ in 0..500 {
            if self.transfers_taken(id).await > before {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        let jump = self
            .call(Call::post(
                &format!("/api/sandboxes/{id}/clock"),
                json!({"advance_seconds": 10}),
            ))
            .await;
        assert_eq!(jump.status, StatusCode::OK);
        let response = pending.await.unwrap();
        let (parts, body) = response.into_parts();
        Answer {
            status: parts.status,
            headers: parts.headers,
            body: axum::body::to_bytes(body, usize::MAX).await.unwrap(),
        }
    }
}

/// One request, built up.
#[derive(Clone)]
struct Call {
    method: Method,
    path: String,
    headers: Vec<(String, Vec<u8>)>,
    body: Option<Vec<u8>>,
}

impl Call {
    fn new(method: Method, path: &str) -> Call {
        Call {
            method,
            path: path.to_owned(),
            headers: vec![("host".into(), HOST.into())],
            body: None,
        }
    }

    fn get(path: &str) -> Call {
        Call::new(Method::GET, path)
    }

    /// A POST of a JSON body, typed `application/json`.
    fn post(path: &str, body: Value) -> Call {
        Call::new(Method::POST, path).json(&body.to_string())
    }

    fn put(path: &str, body: Value) -> Call {
        Call::new(Method::PUT, path).json(&body.to_string())
    }

    /// A raw body typed `application/json` (it need not be JSON).
    fn json(self, raw: &str) -> Call {
        self.header("content-type", "application/json")
            .raw(raw.as_bytes())
    }

    fn raw(mut self, bytes: &[u8]) -> Call {
        self.body = Some(bytes.to_vec());
        self
    }

    fn header(self, name: &str, value: &str) -> Call {
        self.header_bytes(name, value.as_bytes())
    }

    fn header_bytes(mut self, name: &str, value: &[u8]) -> Call {
        self.headers.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
        self.headers
            .push((name.to_ascii_lowercase(), value.to_vec()));
        self
    }

    /// One more header of this name beside any already there.
    fn also_header(mut self, name: &str, value: &str) -> Call {
        self.headers
            .push((name.to_ascii_lowercase(), value.as_bytes().to_vec()));
        self
    }

    fn without(mut self, name: &str) -> Call {
        self.headers.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
        self
    }

    fn request(&self) -> Request<Body> {
        let mut r = Request::builder()
            .method(self.method.clone())
            .uri(&self.path);
        for (name, value) in &self.headers {
            r = r.header(
                name.as_str(),
                HeaderValue::from_bytes(value).expect("a header value the http crate can carry"),
            );
        }
        r.body(match &self.body {
            Some(b) => Body::from(b.clone()),
            None => Body::empty(),
        })
        .unwrap()
    }
}

/// Asserts a problem+json answer with this status and type, and returns its body.
fn expect_problem(a: &Answer, status: u16, kind: &str, what: &str) -> Value {
    assert_eq!(
        a.status.as_u16(),
        status,
        "{what}: status; body {}",
        String::from_utf8_lossy(&a.body)
    );
    assert_eq!(
        a.headers.get("content-type").map(|v| v.to_str().unwrap()),
        Some("application/problem+json"),
        "{what}: content type"
    );
    let body = a.json();
    assert_eq!(
        body["type"],
        format!("urn:pocketpay-lab:problem:{kind}"),
        "{what}: {body}"
    );
    assert_eq!(body["status"], status, "{what}");
    assert!(
        body["detail"].as_str().is_some_and(|d| !d.is_empty()),
        "{what}"
    );
    body
}

/// A request the API must refuse: what it sends, and the status, problem type and field
/// (if any) it must get back.
struct Refused {
    what: &'static str,
    call: Call,
    status: u16,
    kind: &'static str,
    field: Option<&'static str>,
}

fn refused(
    what: &'static str,
    call: Call,
    status: u16,
    kind: &'static str,
    field: Option<&'static str>,
) -> Refused {
    Refused {
        what,
        call,
        status,
        kind,
        field,
    }
}

/// The key every refused transfer below carries: after them all, it must still be unclaimed.
const REFUSED_KEY: &str = "refused-key-1";

/// The table of bad requests against sandbox `id` (another sandbox `other` has event ids of
/// its own that `id` lacks).
fn bad_requests(id: &str, other_event: i64) -> Vec<Refused> {
    let sb = |rest: &str| format!("/api/sandboxes/{id}/{rest}");
    let transfers = sb("transfers");
    let good = json!({"to": "tithi", "amount": 500});
    // A transfer that passes every check but the one each case breaks.
    let pay = |body: Value| {
        Call::post(&transfers, body)
            .header("Authorization", "Bearer shimul")
            .header("Idempotency-Key", REFUSED_KEY)
    };
    let pay_raw = |raw: &str| {
        Call::new(Method::POST, &transfers)
            .json(raw)
            .header("Authorization", "Bearer shimul")
            .header("Idempotency-Key", REFUSED_KEY)
    };
    let big = "x".repeat(70 * 1024);
    let run = |input: Value| {
        json!({"seed": 11, "inputs": [{"at_ms": 32_400_000, "after_step": 0, "input": input}],
               "end_ms": 32_400_000, "end_steps": 0})
    };
    let bad = "invalid-field";
    let key = "invalid-idempotency-key";
    vec![
        // Who is asking.
        refused(
            "no Authorization",
            pay(good.clone()).without("authorization"),
            401,
            "unknown-user",
            None,
        ),
        refused(
            "an unknown user",
            pay(good.clone()).header("Authorization", "Bearer imran"),
            401,
            "unknown-user",
            None,
        ),
        refused(
            "Basic, not Bearer",
            pay(good.clone()).header("Authorization", "Basic c2hpbXVs"),
            401,
            "unknown-user",
            None,
        ),
        refused(
            "a name without Bearer",
            pay(good.clone()).header("Authorization", "shimul"),
            401,
            "unknown-user",
            None,
        ),
        // Idempotency-Key of every bad shape and length.
        refused(
            "no key",
            pay(good.clone()).without("idempotency-key"),
            400,
            key,
            Some("Idempotency-Key"),
        ),
        refused(
            "an empty key",
            pay(good.clone()).header("Idempotency-Key", ""),
            400,
            key,
            Some("Idempotency-Key"),
        ),
        refused(
            "a 256-character key",
            pay(good.clone()).header("Idempotency-Key", &"k".repeat(256)),
            400,
            key,
            Some("Idempotency-Key"),
        ),
        refused(
            "a key with a tab",
            pay(good.clone()).header("Idempotency-Key", "tab\there"),
            400,
            key,
            Some("Idempotency-Key"),
        ),
        refused(
            "a key of only spaces",
            pay(good.clone()).header("Idempotency-Key", "   "),
            400,
            key,
            Some("Idempotency-Key"),
        ),
        refused(
            "a key with outer spaces",
            pay(good.clone()).header("Idempotency-Key", " k-1 "),
            400,
            key,
            Some("Idempotency-Key"),
        ),
        refused(
            "a non-ASCII key",
            pay(good.clone()).header_bytes("Idempotency-Key", "টাকা".as_bytes()),
            400,
            key,
            Some("Idempotency-Key"),
        ),
        refused(
            "a Latin-1 byte in the key",
            pay(good.clone()).header_bytes("Idempotency-Key", b"caf\xe9"),
            400,
            key,
            Some("Idempotency-Key"),
        ),
        refused(
            "a Lab-Intent that is no UUID",
            pay(good.clone()).header("Lab-Intent", "first-try"),
            400,
            bad,
            Some("Lab-Intent"),
        ),
        refused(
            "a Lab-Intent UUID without hyphens",
            pay(good.clone()).header("Lab-Intent", "0b9c6a527f3e4c1d9e8a5d2f1b7c3a60"),
            400,
            bad,
            Some("Lab-Intent"),
        ),
        // One meaning per request: a header the API reads, sent twice.
        refused(
            "two Idempotency-Key headers",
            pay(good.clone()).also_header("Idempotency-Key", "refused-key-2"),
            400,
            "duplicate-header",
            Some("Idempotency-Key"),
        ),
        refused(
            "two Authorization headers, two users",
            pay(good.clone()).also_header("Authorization", "Bearer tithi"),
            400,
            "duplicate-header",
            Some("Authorization"),
        ),
        refused(
            "two Lab-Intent headers",
            pay(good.clone())
                .header("Lab-Intent", "0b9c6a52-7f3e-4c1d-9e8a-5d2f1b7c3a60")
                .also_header("Lab-Intent", "1b9c6a52-7f3e-4c1d-9e8a-5d2f1b7c3a60"),
            400,
            "duplicate-header",
            Some("Lab-Intent"),
        ),
        refused(
            "two Prefer headers",
            pay(good.clone())
                .header("Prefer", "wait=5")
                .also_header("Prefer", "wait=50"),
            400,
            "duplicate-header",
            Some("Prefer"),
        ),
        refused(
            "wait twice in one Prefer",
            pay(good.clone()).header("Prefer", "wait=5, wait=50"),
            400,
            bad,
            Some("Prefer"),
        ),
        refused(
            "a wait of no seconds",
            pay(good.clone()).header("Prefer", "wait=0"),
            400,
            bad,
            Some("Prefer"),
        ),
        refused(
            "a wait past a day",
            pay(good.clone()).header("Prefer", "wait=86401"),
            400,
            bad,
            Some("Prefer"),
        ),
        refused(
            "another preference beside wait",
            pay(good.clone()).header("Prefer", "respond-async, wait=5"),
            400,
            bad,
            Some("Prefer"),
        ),
        refused(
            "two Last-Event-ID headers",
            Call::get(&sb("events"))
                .header("Last-Event-ID", "1")
                .also_header("Last-Event-ID", "2"),
            400,
            "duplicate-header",
            Some("Last-Event-ID"),
        ),
        // One meaning per request: a body member named twice, at any depth.
        refused(
            "an amount named twice (the last would be ৳1,500)",
            pay_raw(r#"{"to":"tithi","amount":1,"amount":1500}"#),
            400,
            "duplicate-field",
            Some("amount"),
        ),
        refused(
            "a recipient named twice with one value",
            pay_raw(r#"{"to":"tithi","to":"tithi","amount":500}"#),
            400,
            "duplicate-field",
            Some("to"),
        ),
        refused(
            "a crash named twice inside faults",
            Call::new(Method::PUT, &sb("faults"))
                .json(r#"{"crash":{"api_after_claim":"once","api_after_claim":"never"}}"#),
            400,
            "duplicate-field",
            Some("crash.api_after_claim"),
        ),
        refused(
            "a safeguard switched both ways",
            Call::new(Method::PUT, &sb("safeguards"))
                .json(r#"{"atomic_claim":false,"atomic_claim":true}"#),
            400,
            "duplicate-field",
            Some("atomic_claim"),
        ),
        refused(
            "a run with an input's time named twice",
            Call::new(Method::POST, "/api/runs").json(
                r#"{"seed":11,"inputs":[{"at_ms":32400000,"at_ms":32400001,"after_step":0,"input":{"reset":true}}],"end_ms":32400000,"end_steps":0}"#,
            ),
            400,
            "duplicate-field",
            Some("inputs[0].at_ms"),
        ),
        refused(
            "a new sandbox with two seeds",
            Call::new(Method::POST, "/api/sandboxes").json(r#"{"seed":1,"seed":2}"#),
            400,
            "duplicate-field",
            Some("seed"),
        ),
        // Transfer bodies.
        refused(
            "a body that is not JSON",
            pay_raw("to=tithi&amount=500"),
            400,
            "invalid-json",
            None,
        ),
        refused("an empty body", pay_raw(""), 400, "invalid-json", None),
        refused("a null body", pay(Value::Null), 400, bad, Some("(body)")),
        refused(
            "an array body",
            pay(json!([good.clone()])),
            400,
            bad,
            Some("(body)"),
        ),
        refused(
            "a string body",
            pay(json!("tithi 500")),
            400,
            bad,
            Some("(body)"),
        ),
        refused("no to", pay(json!({"amount": 500})), 400, bad, Some("to")),
        refused(
            "no amount",
            pay(json!({"to": "tithi"})),
            400,
            bad,
            Some("amount"),
        ),
        refused(
            "an unknown field",
            pay(json!({"to": "tithi", "amount": 500, "note": "hi"})),
            400,
            bad,
            Some("note"),
        ),
        refused(
            "to an unknown user",
            pay(json!({"to": "imran", "amount": 500})),
            400,
            bad,
            Some("to"),
        ),
        refused(
            "to a number",
            pay(json!({"to": 7, "amount": 500})),
            400,
            bad,
            Some("to"),
        ),
        refused(
            "to oneself",
            pay(json!({"to": "shimul", "amount": 500})),
            422,
            "self-transfer",
            Some("to"),
        ),
        refused(
            "amount 0",
            pay(json!({"to": "tithi", "amount": 0})),
            400,
            bad,
            Some("amount"),
        ),
        refused(
            "a negative amount",
            pay(json!({"to": "tithi", "amount": -500})),
            400,
            bad,
            Some("amount"),
        ),
        refused(
            "a fractional amount",
            pay(json!({"to": "tithi", "amount": 500.5})),
            400,
            bad,
            Some("amount"),
        ),
        refused(
            "an amount past the limit",
            pay(json!({"to": "tithi", "amount": 1_000_001})),
            400,
            bad,
            Some("amount"),
        ),
        refused(
            "a huge amount",
            pay_raw(r#"{"to": "tithi", "amount": 1e300}"#),
            400,
            bad,
            Some("amount"),
        ),
        refused(
            "an amount past i64",
            pay_raw(r#"{"to": "tithi", "amount": 99999999999999999999}"#),
            400,
            bad,
            Some("amount"),
        ),
        refused(
            "an amount in a string",
            pay(json!({"to": "tithi", "amount": "500"})),
            400,
            bad,
            Some("amount"),
        ),
        refused(
            "a null amount",
            pay(json!({"to": "tithi", "amount": null})),
            400,
            bad,
            Some("amount"),
        ),
        // Sizes.
        refused(
            "a transfer body over 64 KiB",
            pay(json!({"to": "tithi", "amount": 500, "pad": big})),
            413,
            "body-too-large",
            None,
        ),
        refused(
            "a faults body over 64 KiB",
            Call::put(&sb("faults"), json!({"latency_ms": 1, "pad": big})),
            413,
            "body-too-large",
            None,
        ),
        // Ids.
        refused(
            "a malformed id",
            Call::get("/api/sandboxes/not-a-uuid/state"),
            404,
            "unknown-sandbox",
            None,
        ),
        refused(
            "a guessed id",
            Call::get(&format!("/api/sandboxes/{GUESSED}/state")),
            404,
            "unknown-sandbox",
            None,
        ),
        refused(
            "a guessed id, writing",
            Call::put(
                &format!("/api/sandboxes/{GUESSED}/safeguards"),
                json!({"outbox": false}),
            ),
            404,
            "unknown-sandbox",
            None,
        ),
        refused(
            "a malformed id, paying",
            Call::post("/api/sandboxes/42/transfers", good.clone())
                .header("Authorization", "Bearer shimul")
                .header("Idempotency-Key", REFUSED_KEY),
            404,
            "unknown-sandbox",
            None,
        ),
        refused(
            "an id in braces",
            Call::get(&format!("/api/sandboxes/{{{id}}}/state")),
            404,
            "unknown-sandbox",
            None,
        ),
        refused(
            "an id without hyphens",
            Call::get(&format!("/api/sandboxes/{}/state", id.replace('-', ""))),
            404,
            "unknown-sandbox",
            None,
        ),
        refused(
            "an id that is not UTF-8",
            Call::get("/api/sandboxes/%FF%FE/state"),
            404,
            "unknown-sandbox",
            None,
        ),
        refused(
            "another sandbox's event",
            Call::get(&sb(&format!("state-at/{other_event}"))),
            404,
            "unknown-event",
            None,
        ),
        refused(
            "an event that is a word",
            Call::get(&sb("state-at/latest")),
            400,
            bad,
            Some("event"),
        ),
        refused(
            "a negative event",
            Call::get(&sb("state-at/-1")),
            400,
            bad,
            Some("event"),
        ),
        refused(
            "an event with a sign",
            Call::get(&sb("state-at/+1")),
            400,
            bad,
            Some("event"),
        ),
        refused(
            "an event past i64",
            Call::get(&sb("state-at/99999999999999999999")),
            400,
            bad,
            Some("event"),
        ),
        refused(
            "a Last-Event-ID that is a word",
            Call::get(&sb("events")).header("Last-Event-ID", "yesterday"),
            400,
            "invalid-last-event-id",
            None,
        ),
        refused(
            "a negative Last-Event-ID",
            Call::get(&sb("events")).header("Last-Event-ID", "-1"),
            400,
            "invalid-last-event-id",
            None,
        ),
        // Methods and routes.
        refused(
            "DELETE on the state",
            Call::new(Method::DELETE, &sb("state")),
            405,
            "method-not-allowed",
            None,
        ),
        refused(
            "GET on transfers",
            Call::get(&sb("transfers")),
            405,
            "method-not-allowed",
            None,
        ),
        refused(
            "PUT on the clock",
            Call::put(&sb("clock"), json!({"step": true})),
            405,
            "method-not-allowed",
            None,
        ),
        refused(
            "GET on the sandboxes",
            Call::get("/api/sandboxes"),
            405,
            "method-not-allowed",
            None,
        ),
        refused(
            "PATCH on the faults",
            Call::new(Method::PATCH, &sb("faults")).json(r#"{"lb_retry": true}"#),
            405,
            "method-not-allowed",
            None,
        ),
        refused(
            "no such route",
            Call::post(&sb("teleport"), json!({"step": true})),
            404,
            "no-such-route",
            None,
        ),
        refused(
            "nothing here",
            Call::get("/api/nothing-here"),
            404,
            "no-such-route",
            None,
        ),
        // Safeguards.
        refused(
            "an unknown safeguard",
            Call::put(&sb("safeguards"), json!({"atomic_clam": false})),
            400,
            bad,
            Some("atomic_clam"),
        ),
        refused(
            "a safeguard switched by a word",
            Call::put(&sb("safeguards"), json!({"atomic_claim": "off"})),
            400,
            bad,
            Some("atomic_claim"),
        ),
        refused(
            "a window of 0 hours",
            Call::put(
                &sb("safeguards"),
                json!({"outbox": false, "window_hours": 0}),
            ),
            400,
            bad,
            Some("window_hours"),
        ),
        refused(
            "a window as a fraction",
            Call::put(&sb("safeguards"), json!({"window_hours": 1.5})),
            400,
            bad,
            Some("window_hours"),
        ),
        refused(
            "safeguards as an array",
            Call::put(&sb("safeguards"), json!([true])),
            400,
            bad,
            Some("(body)"),
        ),
        refused(
            "safeguards cut short",
            Call::new(Method::PUT, &sb("safeguards")).json(r#"{"outbox": fals"#),
            400,
            "invalid-json",
            None,
        ),
        refused(
            "safeguards empty",
            Call::new(Method::PUT, &sb("safeguards")).json(""),
            400,
            "invalid-json",
            None,
        ),
        // Faults.
        refused(
            "a loss over 100 %",
            Call::put(&sb("faults"), json!({"request_loss_pct": 101})),
            400,
            bad,
            Some("request_loss_pct"),
        ),
        refused(
            "too many retries",
            Call::put(&sb("faults"), json!({"lb_retry": true, "auto_retries": 9})),
            400,
            bad,
            Some("auto_retries"),
        ),
        refused(
            "an unknown crash point",
            Call::put(&sb("faults"), json!({"crash": {"api_after_lunch": "once"}})),
            400,
            bad,
            Some("crash.api_after_lunch"),
        ),
        refused(
            "a crash probability of 2",
            Call::put(&sb("faults"), json!({"crash": {"api_after_claim": 2}})),
            400,
            bad,
            Some("crash.api_after_claim"),
        ),
        refused(
            "an unknown fault",
            Call::put(&sb("faults"), json!({"jitter_ms": 5})),
            400,
            bad,
            Some("jitter_ms"),
        ),
        refused(
            "faults null",
            Call::put(&sb("faults"), Value::Null),
            400,
            bad,
            Some("(body)"),
        ),
        // Clock.
        refused(
            "a jump back",
            Call::post(&sb("clock"), json!({"advance_seconds": -60})),
            400,
            bad,
            Some("advance_seconds"),
        ),
        refused(
            "a jump in a string",
            Call::post(&sb("clock"), json!({"advance_seconds": "60"})),
            400,
            bad,
            Some("advance_seconds"),
        ),
        refused(
            "a jump past 31 days",
            Call::post(&sb("clock"), json!({"advance_seconds": 2_678_401})),
            400,
            bad,
            Some("advance_seconds"),
        ),
        refused(
            "a speed of 100",
            Call::post(&sb("clock"), json!({"mode": "paused", "speed": 100})),
            400,
            bad,
            Some("speed"),
        ),
        refused(
            "a mode sideways",
            Call::post(&sb("clock"), json!({"mode": "sideways"})),
            400,
            bad,
            Some("mode"),
        ),
        refused(
            "a clock body with nothing to do",
            Call::post(&sb("clock"), json!({})),
            400,
            bad,
            Some("(body)"),
        ),
        refused(
            "a step and an advance in one request",
            Call::post(&sb("clock"), json!({"step": true, "advance_seconds": 5})),
            400,
            bad,
            Some("(body)"),
        ),
        refused(
            "a step of false alone",
            Call::post(&sb("clock"), json!({"step": false})),
            400,
            bad,
            Some("(body)"),
        ),
        refused(
            "a clock rewind",
            Call::post(&sb("clock"), json!({"rewind_seconds": 5})),
            400,
            bad,
            Some("rewind_seconds"),
        ),
        // Replay.
        refused(
            "a replay of the ledger",
            Call::post(
                &sb("replay"),
                json!({"consumer": "ledger", "from_seconds_ago": 60}),
            ),
            400,
            bad,
            Some("consumer"),
        ),
        refused(
            "a replay from the future",
            Call::post(
                &sb("replay"),
                json!({"consumer": "wallet", "from_seconds_ago": -1}),
            ),
            400,
            bad,
            Some("from_seconds_ago"),
        ),
        refused(
            "a replay without a time",
            Call::post(&sb("replay"), json!({"consumer": "wallet"})),
            400,
            bad,
            Some("from_seconds_ago"),
        ),
        refused(
            "a replay with an extra field",
            Call::post(
                &sb("replay"),
                json!({"consumer": "sms", "from_seconds_ago": 1, "fast": true}),
            ),
            400,
            bad,
            Some("fast"),
        ),
        // App events.
        refused(
            "a swipe",
            Call::post(&sb("app-events"), json!({"signal": "swipe"})),
            400,
            bad,
            Some("signal"),
        ),
        refused(
            "a tap with an empty key",
            Call::post(
                &sb("app-events"),
                json!({"signal": "tap", "key": "", "key_kept": false}),
            ),
            400,
            bad,
            Some("key"),
        ),
        refused(
            "a tap kept as a word",
            Call::post(
                &sb("app-events"),
                json!({"signal": "tap", "key": "k", "key_kept": "yes"}),
            ),
            400,
            bad,
            Some("signal"),
        ),
        // New sandboxes and runs (none may be made).
        refused(
            "a negative seed",
            Call::post("/api/sandboxes", json!({"seed": -1})),
            400,
            bad,
            Some("seed"),
        ),
        refused(
            "a seed past u64",
            Call::new(Method::POST, "/api/sandboxes").json(r#"{"seed": 18446744073709551616}"#),
            400,
            bad,
            Some("seed"),
        ),
        refused(
            "a colour",
            Call::post("/api/sandboxes", json!({"seed": 1, "colour": "red"})),
            400,
            bad,
            Some("colour"),
        ),
        refused(
            "paused as a word",
            Call::post("/api/sandboxes", json!({"paused": "yes"})),
            400,
            bad,
            Some("paused"),
        ),
        refused(
            "a run that is not one",
            Call::post("/api/runs", json!({"seed": 1, "inputs": "none"})),
            400,
            "invalid-json",
            None,
        ),
        refused(
            "a run with an unknown field",
            Call::post(
                "/api/runs",
                json!({"seed": 1, "inputs": [], "end_ms": 32_400_000, "end_steps": 0, "by": "me"}),
            ),
            400,
            "invalid-json",
            None,
        ),
        refused(
            "a run jumping past a month",
            Call::post(
                "/api/runs",
                run(json!({"op": "advance", "seconds": 1_000_000_000_000_i64})),
            ),
            400,
            bad,
            Some("inputs[0].input.advance_seconds"),
        ),
        refused(
            "a run paying nothing",
            Call::post(
                "/api/runs",
                run(
                    json!({"transfer": {"user": "shimul", "key": "k", "intent": "k", "body": {"to": "tithi", "amount": 0}}}),
                ),
            ),
            400,
            bad,
            Some("inputs[0].input.transfer.body.amount"),
        ),
        refused(
            "a run replaying the ledger",
            Call::post(
                "/api/runs",
                run(json!({"replay": {"consumer": "ledger", "from_seconds_ago": 1}})),
            ),
            400,
            bad,
            Some("inputs[0].input.replay.consumer"),
        ),
        refused(
            "a run with an unknown input",
            Call::post("/api/runs", run(json!({"teleport": {}}))),
            400,
            bad,
            Some("inputs[0].input.teleport"),
        ),
        refused(
            "a run ending in a century",
            Call::post(
                "/api/runs",
                json!({"seed": 1, "inputs": [], "end_ms": 3_155_760_000_000_i64, "end_steps": 0}),
            ),
            400,
            bad,
            Some("end_ms"),
        ),
        refused(
            "a run paying oneself",
            Call::post(
                "/api/runs",
                run(
                    json!({"transfer": {"user": "shimul", "key": "k", "intent": "k", "body": {"to": "shimul", "amount": 5}}}),
                ),
            ),
            422,
            "run-diverged",
            None,
        ),
        // Pages of other sites (403), bodies that are not JSON (415).
        refused(
            "a foreign page resetting",
            Call::new(Method::POST, &sb("reset")).header("Origin", FOREIGN),
            403,
            "foreign-origin",
            None,
        ),
        refused(
            "a foreign page switching a safeguard",
            Call::put(&sb("safeguards"), json!({"atomic_claim": false})).header("Origin", FOREIGN),
            403,
            "foreign-origin",
            None,
        ),
        refused(
            "a foreign page paying",
            pay(good.clone()).header("Origin", FOREIGN),
            403,
            "foreign-origin",
            None,
        ),
        refused(
            "a foreign page making a sandbox",
            Call::post("/api/sandboxes", json!({})).header("Origin", FOREIGN),
            403,
            "foreign-origin",
            None,
        ),
        refused(
            "a sandboxed frame (Origin null)",
            Call::post(&sb("clock"), json!({"step": true})).header("Origin", "null"),
            403,
            "foreign-origin",
            None,
        ),
        refused(
            "our host on another port",
            Call::post(&sb("clock"), json!({"step": true}))
                .header("Origin", "http://lab.test:8080"),
            403,
            "foreign-origin",
            None,
        ),
        refused(
            "a look-alike host",
            Call::post(&sb("clock"), json!({"step": true}))
                .header("Origin", "http://lab.test.evil.example"),
            403,
            "foreign-origin",
            None,
        ),
        refused(
            "a text/plain reset",
            Call::new(Method::POST, &sb("reset")).header("content-type", "text/plain"),
            415,
            "unsupported-media-type",
            None,
        ),
        refused(
            "a text/plain body of JSON",
            Call::new(Method::POST, &sb("clock"))
                .header("content-type", "text/plain")
                .raw(br#"{"step": true}"#),
            415,
            "unsupported-media-type",
            None,
        ),
        refused(
            "a form",
            Call::new(Method::PUT, &sb("safeguards"))
                .header("content-type", "application/x-www-form-urlencoded")
                .raw(b"atomic_claim=false"),
            415,
            "unsupported-media-type",
            None,
        ),
        refused(
            "a multipart form",
            Call::new(Method::POST, &sb("reset"))
                .header("content-type", "multipart/form-data; boundary=x")
                .raw(b"--x--"),
            415,
            "unsupported-media-type",
            None,
        ),
        refused(
            "a body with no type",
            pay(good.clone()).without("content-type"),
            415,
            "unsupported-media-type",
            None,
        ),
        refused(
            "a run as text",
            Call::new(Method::POST, "/api/runs")
                .header("content-type", "text/plain")
                .raw(b"{}"),
            415,
            "unsupported-media-type",
            None,
        ),
        refused(
            "a problem+json body",
            Call::post(&sb("clock"), json!({"step": true}))
                .header("content-type", "application/problem+json"),
            415,
            "unsupported-media-type",
            None,
        ),
    ]
}

/// Everything a request could have changed: the two sandboxes' states byte for byte, and how
/// many sandboxes exist.
async fn everything(edge: &Edge, ids: &[&str]) -> (Vec<Bytes>, usize) {
    let mut states = vec![];
    for id in ids {
        states.push(edge.state_bytes(id).await);
    }
    (states, edge.sandboxes_on_disk())
}

/// Every bad request gets its problem, naming what was wrong, and changes nothing: not the
/// sandbox's balances, tables, damage, clock or settings, not another sandbox, not the number
/// of sandboxes; the key of every refused transfer stays unclaimed.
#[tokio::test]
async fn bad_input_is_refused_and_changes_nothing() {
    let edge = Edge::start().await;
    let id = edge.sandbox(11).await;
    let other = edge.sandbox(12).await;
    // The other sandbox has more events than this one: its last is one this one lacks.
    for hours in [1, 2, 3] {
        let r = edge
            .call(Call::post(
                &format!("/api/sandboxes/{other}/clock"),
                json!({"advance_seconds": hours * 3600}),
            ))
            .await;
        assert_eq!(r.status, StatusCode::OK);
    }
    let other_events = edge.state(&other).await["tables"]["lab.events"].clone();
    let other_event = other_events.as_array().unwrap().last().unwrap()["id"]
        .as_i64()
        .unwrap();
    let mine = edge.state(&id).await["tables"]["lab.events"]
        .as_array()
        .unwrap()
        .len() as i64;
    assert!(other_event > mine + 1, "{other_event} vs {mine}");

    let cases = bad_requests(&id, other_event);
    assert!(cases.len() >= 40, "{} cases", cases.len());
    let mut before = everything(&edge, &[&id, &other]).await;
    for case in cases {
        let answer = edge.call(case.call.clone()).await;
        let problem = expect_problem(&answer, case.status, case.kind, case.what);
        if let Some(field) = case.field {
            assert_eq!(problem["field"], field, "{}: {problem}", case.what);
        }
        if case.status == 405 {
            assert!(answer.headers.contains_key("allow"), "{}", case.what);
        }
        let after = everything(&edge, &[&id, &other]).await;
        assert!(after == before, "{} changed something", case.what);
        before = after;
    }
    let s = edge.state(&id).await;
    assert_eq!(
        s["tables"]["payments.idempotency_keys"],
        json!([]),
        "a refused transfer claimed its key"
    );
    assert_eq!(s["tables"]["lab.inputs"], json!([]));
    assert_eq!(
        s["balances"]["payments"],
        json!({"shimul": 2000, "tithi": 0})
    );
    for (name, value) in s["damage"].as_object().unwrap() {
        assert_eq!(value, 0, "damage {name}");
    }
    // The refused key is free: its first real use is a fresh transfer, not a replay.
    let first = edge
        .transfer(&id, REFUSED_KEY, json!({"to": "tithi", "amount": 500}))
        .await;
    assert_eq!(first.status, StatusCode::CREATED);
    assert!(!first.headers.contains_key("idempotent-replayed"));
}

/// Requests wrong in several ways at once, each with the one refusal it must get: the sandbox
/// first (404), then the path's scenario, then the headers in the transfer's order (user, key,
/// intent, wait), then the body (400, 413), then what only a well-formed request can be refused
/// for (a transfer to oneself, a scenario's missing variant). A stream reads its query before
/// its sandbox. Each changes nothing.
fn several_things_wrong(id: &str) -> Vec<Refused> {
    let sb = |rest: &str| format!("/api/sandboxes/{id}/{rest}");
    let nowhere = |rest: &str| format!("/api/sandboxes/{GUESSED}/{rest}");
    let big = "x".repeat(70 * 1024);
    let bad_body = r#"{"to":"tithi","amount":1,"amount":2}"#;
    let intent = "0b9c6a52-7f3e-4c1d-9e8a-5d2f1b7c3a60";
    let pay = |path: &str, body: &str| Call::new(Method::POST, path).json(body);
    vec![
        refused(
            "an unknown sandbox, no user, no key, a bad body",
            pay(&nowhere("transfers"), bad_body),
            404,
            "unknown-sandbox",
            None,
        ),
        refused(
            "an unknown sandbox, a body over 64 KiB",
            pay(&nowhere("transfers"), &json!({"pad": big}).to_string())
                .header("Authorization", "Bearer shimul"),
            404,
            "unknown-sandbox",
            None,
        ),
        refused(
            "an unknown sandbox and an unknown scenario",
            pay(&nowhere("scenario/99"), "{"),
            404,
            "unknown-sandbox",
            None,
        ),
        refused(
            "an unknown sandbox, an empty clock body",
            pay(&nowhere("clock"), ""),
            404,
            "unknown-sandbox",
            None,
        ),
        refused(
            "an unknown sandbox and a word for an event",
            Call::get(&nowhere("state-at/latest")),
            404,
            "unknown-sandbox",
            None,
        ),
        refused(
            "no user, a bad key, a bad intent, a bad wait, a bad body",
            pay(&sb("transfers"), bad_body)
                .header("Idempotency-Key", " k ")
                .header("Lab-Intent", "first-try")
                .header("Prefer", "wait=0"),
            401,
            "unknown-user",
            None,
        ),
        refused(
            "two users and two keys",
            pay(&sb("transfers"), bad_body)
                .header("Authorization", "Bearer shimul")
                .also_header("Authorization", "Bearer tithi")
                .header("Idempotency-Key", "k-1")
                .also_header("Idempotency-Key", "k-2"),
            400,
            "duplicate-header",
            Some("Authorization"),
        ),
        refused(
            "no key, two intents, a bad wait, a bad body",
            pay(&sb("transfers"), bad_body)
                .header("Authorization", "Bearer shimul")
                .header("Lab-Intent", intent)
                .also_header("Lab-Intent", intent)
                .header("Prefer", "wait=0"),
            400,
            "invalid-idempotency-key",
            Some("Idempotency-Key"),
        ),
        refused(
            "a bad intent, two waits, a bad body",
            pay(&sb("transfers"), bad_body)
                .header("Authorization", "Bearer shimul")
                .header("Idempotency-Key", REFUSED_KEY)
                .header("Lab-Intent", "first-try")
                .header("Prefer", "wait=5")
                .also_header("Prefer", "wait=6"),
            400,
            "invalid-field",
            Some("Lab-Intent"),
        ),
        refused(
            "two waits, a body over 64 KiB",
            pay(&sb("transfers"), &json!({"pad": big}).to_string())
                .header("Authorization", "Bearer shimul")
                .header("Idempotency-Key", REFUSED_KEY)
                .header("Prefer", "wait=5")
                .also_header("Prefer", "wait=6"),
            400,
            "duplicate-header",
            Some("Prefer"),
        ),
        refused(
            "a bad wait, a body that is not JSON",
            pay(&sb("transfers"), "to=shimul")
                .header("Authorization", "Bearer shimul")
                .header("Idempotency-Key", REFUSED_KEY)
                .header("Prefer", "respond-async"),
            400,
            "invalid-field",
            Some("Prefer"),
        ),
        refused(
            "to oneself, in a body that names a member twice",
            pay(
                &sb("transfers"),
                r#"{"to":"shimul","to":"shimul","amount":500}"#,
            )
            .header("Authorization", "Bearer shimul")
            .header("Idempotency-Key", REFUSED_KEY),
            400,
            "duplicate-field",
            Some("to"),
        ),
        refused(
            "to oneself, an amount out of range",
            pay(&sb("transfers"), r#"{"to":"shimul","amount":0}"#)
                .header("Authorization", "Bearer tithi")
                .header("Idempotency-Key", REFUSED_KEY),
            400,
            "invalid-field",
            Some("amount"),
        ),
        refused(
            "to oneself, as tithi",
            pay(&sb("transfers"), r#"{"to":"tithi","amount":5}"#)
                .header("Authorization", "Bearer tithi")
                .header("Idempotency-Key", REFUSED_KEY),
            422,
            "self-transfer",
            Some("to"),
        ),
        refused(
            "an unknown scenario, a body that is not JSON",
            pay(&sb("scenario/99"), "{"),
            404,
            "unknown-scenario",
            None,
        ),
        refused(
            "a scenario, an unknown variant named twice",
            pay(&sb("scenario/1"), r#"{"variant":"x","variant":"y"}"#),
            400,
            "duplicate-field",
            Some("variant"),
        ),
        refused(
            "a scenario without the variant asked for",
            pay(&sb("scenario/1"), r#"{"variant":"at_most_once"}"#),
            404,
            "unknown-scenario",
            None,
        ),
        refused(
            "an app event with an empty body",
            pay(&sb("app-events"), " "),
            400,
            "invalid-json",
            None,
        ),
        refused(
            "a stream of an unknown sandbox with a bad query",
            Call::get(&format!("{}?state=2", nowhere("events"))),
            400,
            "invalid-field",
            Some("state"),
        ),
        refused(
            "a stream of an unknown sandbox, two Last-Event-IDs",
            Call::get(&nowhere("events"))
                .header("Last-Event-ID", "1")
                .also_header("Last-Event-ID", "2"),
            404,
            "unknown-sandbox",
            None,
        ),
        refused(
            "a foreign page, an unknown sandbox, a body that is not JSON",
            pay(&nowhere("transfers"), "{").header("Origin", FOREIGN),
            403,
            "foreign-origin",
            None,
        ),
        refused(
            "a form's type, an unknown sandbox",
            Call::new(Method::POST, &nowhere("transfers"))
                .header("content-type", "application/x-www-form-urlencoded")
                .raw(b"to=tithi"),
            415,
            "unsupported-media-type",
            None,
        ),
    ]
}

/// When a request is wrong in several ways, the answer is the first refusal in the contract's
/// order (`several_things_wrong`), and nothing changes.
#[tokio::test]
async fn the_first_refusal_is_the_answer() {
    let edge = Edge::start().await;
    let id = edge.sandbox(13).await;
    let mut before = everything(&edge, &[&id]).await;
    for case in several_things_wrong(&id) {
        let answer = edge.call(case.call.clone()).await;
        let problem = expect_problem(&answer, case.status, case.kind, case.what);
        assert_eq!(
            problem.get("field").and_then(Value::as_str),
            case.field,
            "{}: {problem}",
            case.what
        );
        let after = everything(&edge, &[&id]).await;
        assert!(after == before, "{} changed something", case.what);
        before = after;
    }
    // Behind a balancer, the id it names for a new sandbox is read before the body.
    let edge = Edge::start_with(Config {
        new_sandbox_header: Some(axum::http::HeaderName::from_static("x-lab-new-sandbox")),
        ..Config::default()
    })
    .await;
    for path in ["/api/sandboxes", "/api/runs"] {
        let answer = edge
            .call(
                Call::new(Method::POST, path)
                    .json(r#"{"seed":1,"seed":2}"#)
                    .header("x-lab-new-sandbox", "not-hex"),
            )
            .await;
        let problem = expect_problem(&answer, 400, "invalid-field", path);
        assert_eq!(problem["field"], "x-lab-new-sandbox", "{path}");
        assert_eq!(edge.sandboxes_on_disk(), 0, "{path}");
    }
}

/// The edges of what is accepted: a 255-character key, JSON with a charset, this server's own
/// pages (same Origin, either scheme), a reset with no body and no type, and reads from
/// anywhere.
#[tokio::test]
async fn what_the_lab_itself_sends_is_accepted() {
    let edge = Edge::start().await;
    let id = edge.sandbox(21).await;
    let sb = |rest: &str| format!("/api/sandboxes/{id}/{rest}");

    let longest = "k".repeat(255);
    let paid = edge
        .transfer(&id, &longest, json!({"to": "tithi", "amount": 500}))
        .await;
    assert_eq!(paid.status, StatusCode::CREATED, "{:?}", paid.body);
    let printable: String = (b'!'..=b'~').map(char::from).collect();
    let paid = edge
        .transfer(&id, &printable, json!({"to": "tithi", "amount": 1}))
        .await;
    assert_eq!(paid.status, StatusCode::CREATED, "{:?}", paid.body);

    // JSON does not tell 1 from 1.0: a whole number is one, however it is spelled.
    let paid = edge
        .transfer(&id, "whole", json!({"to": "tithi", "amount": 2.0}))
        .await;
    assert_eq!(paid.status, StatusCode::CREATED, "{:?}", paid.body);
    assert_eq!(paid.json()["amount"], 2);

    // The phone app's own request: same-origin Origin, JSON, its headers.
    let phone = Call::post(&sb("app-events"), json!({"signal": "tap_ignored"}))
        .header("Origin", "http://lab.test")
        .header("content-type", "application/json; charset=UTF-8");
    assert_eq!(edge.call(phone).await.status, StatusCode::NO_CONTENT);
    let behind_tls =
        Call::put(&sb("faults"), json!({"latency_ms": 50})).header("Origin", "https://lab.test");
    assert_eq!(edge.call(behind_tls).await.status, StatusCode::OK);
    let pause = Call::post(&sb("clock"), json!({"mode": "paused"}))
        .header("Host", "lab.test:3000")
        .header("Origin", "http://lab.test:3000");
    assert_eq!(edge.call(pause).await.status, StatusCode::OK);
    // A reset is a POST with no body: no type needed.
    let reset = Call::new(Method::POST, &sb("reset")).header("Origin", "http://lab.test");
    assert_eq!(edge.call(reset).await.status, StatusCode::NO_CONTENT);
    // Reads carry no risk: a page anywhere may read (the browser keeps the answer from it
    // unless CORS allows, and it does not).
    let read = Call::get(&sb("state")).header("Origin", FOREIGN);
    assert_eq!(edge.call(read).await.status, StatusCode::OK);
    // The server functions live under /rpc, outside the API's edge.
    let s = edge.state(&id).await;
    assert_eq!(s["clock"]["mode"], "live", "the reset took");
}

/// Every route that takes a sandbox id, with a body that would be accepted.
fn every_sandbox_route(id: &str, event: i64) -> Vec<Call> {
    let sb = |rest: &str| format!("/api/sandboxes/{id}/{rest}");
    vec![
        Call::get(&sb("state")),
        Call::get(&sb("events")),
        Call::get(&sb("run")),
        Call::get(&sb("check")),
        Call::get(&sb(&format!("state-at/{event}"))),
        Call::put(&sb("safeguards"), json!({"outbox": false})),
        Call::put(&sb("faults"), json!({"latency_ms": 80})),
        Call::post(&sb("clock"), json!({"advance_seconds": 60})),
        Call::post(
            &sb("replay"),
            json!({"consumer": "wallet", "from_seconds_ago": 60}),
        ),
        Call::post(
            &sb("app-events"),
            json!({"signal": "tap", "key": "b-key", "key_kept": false}),
        ),
        Call::post(&sb("transfers"), json!({"to": "tithi", "amount": 500}))
            .header("Authorization", "Bearer shimul")
            .header("Idempotency-Key", "b-key"),
        Call::new(Method::POST, &sb("reset")),
    ]
}

/// No request for sandbox A reads or changes sandbox B: with B's key, B's event ids and every
/// route, B stays byte for byte as it was and A's answers hold nothing of B's. A guessed id
/// and a malformed one get 404 `unknown-sandbox` from every route.
#[tokio::test]
async fn no_request_reaches_another_sandbox() {
    // A transfer that gets no answer in time answers 504 instead of waiting on a paused clock.
    let edge = Edge::start_with(Config {
        transfer_wait: Some(Duration::from_millis(300)),
        ..Config::default()
    })
    .await;
    let a = edge.sandbox(31).await;
    let b = edge.sandbox(32).await;
    // B: a transfer with its own key, run to the end, and hours of jobs: a longer log than A's.
    let paid = edge
        .transfer(&b, "b-key", json!({"to": "tithi", "amount": 700}))
        .await;
    assert_eq!(paid.status, StatusCode::CREATED);
    let r = edge
        .call(Call::post(
            &format!("/api/sandboxes/{b}/clock"),
            json!({"advance_seconds": 4 * 3600}),
        ))
        .await;
    assert_eq!(r.status, StatusCode::OK);
    let b_state = edge.state_bytes(&b).await;
    let b_run = edge
        .call(Call::get(&format!("/api/sandboxes/{b}/run")))
        .await
        .body;
    let b_events: Vec<i64> = serde_json::from_slice::<Value>(&b_state).unwrap()["tables"]
        ["lab.events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["id"].as_i64().unwrap())
        .collect();
    assert!(b_events.len() > 10);
    let b_txn = serde_json::from_slice::<Value>(&paid.body).unwrap()["txn"].clone();

    // Every route with A's id, B's events for the rewind.
    for event in &b_events {
        let r = edge
            .call(Call::get(&format!("/api/sandboxes/{a}/state-at/{event}")))
            .await;
        if r.status == StatusCode::OK {
            let past = r.json();
            assert_eq!(past["id"], a.as_str());
            assert_eq!(past["seed"], 31);
            assert!(!String::from_utf8_lossy(&r.body).contains("b-key"));
        } else {
            expect_problem(&r, 404, "unknown-event", "B's event on A");
        }
    }
    for call in every_sandbox_route(&a, 1) {
        let what = format!("{} {}", call.method, call.path);
        let r = if call.path.ends_with("/events") {
            first_stream_bytes(&edge, call).await
        } else {
            edge.call(call).await
        };
        assert!(
            r.status.is_success() || r.status == StatusCode::GATEWAY_TIMEOUT,
            "{what}: {}",
            r.status
        );
        let text = String::from_utf8_lossy(&r.body);
        assert!(!text.contains(&b), "{what} named B");
        assert!(
            !(r.status == StatusCode::CREATED && r.headers.contains_key("idempotent-replayed")),
            "{what}: B's key replayed on A"
        );
        assert!(
            b_txn
                .as_str()
                .is_none_or(|t| !text.contains(t) || what.contains("transfers")),
            "{what} showed B's receipt"
        );
        assert_eq!(edge.state_bytes(&b).await, b_state, "{what} changed B");
    }
    // A's own key b-key is A's: claimed in A, and A's run is A's alone.
    let a_state = edge.state(&a).await;
    assert_eq!(a_state["seed"], 31);
    let a_run = edge
        .call(Call::get(&format!("/api/sandboxes/{a}/run")))
        .await
        .json();
    assert_eq!(a_run["seed"], 31);
    assert_eq!(
        edge.call(Call::get(&format!("/api/sandboxes/{b}/run")))
            .await
            .body,
        b_run
    );
    assert_eq!(edge.state_bytes(&b).await, b_state);

    // A guessed id and malformed ones: 404 unknown-sandbox from every route, B untouched.
    let simple = b.replace('-', "");
    let braced = format!("{{{b}}}");
    let urn = format!("urn:uuid:{b}");
    for id in [
        GUESSED,
        "not-a-uuid",
        "%FF",
        simple.as_str(),
        braced.as_str(),
        urn.as_str(),
        "0",
    ] {
        for call in every_sandbox_route(id, b_events[0]) {
            let what = format!("{} {}", call.method, call.path);
            let r = edge.call(call).await;
            expect_problem(&r, 404, "unknown-sandbox", &what);
        }
    }
    assert_eq!(edge.state_bytes(&b).await, b_state);
}

/// The start of an event stream: its status and headers, and what arrived in a moment.
async fn first_stream_bytes(edge: &Edge, call: Call) -> Answer {
    let response = edge.app.clone().oneshot(call.request()).await.unwrap();
    let (parts, body) = response.into_parts();
    let mut stream = body.into_data_stream();
    let mut bytes = Vec::new();
    use futures::StreamExt;
    let _ = tokio::time::timeout(Duration::from_millis(300), async {
        while let Some(Ok(chunk)) = stream.next().await {
            bytes.extend_from_slice(&chunk);
        }
    })
    .await;
    Answer {
        status: parts.status,
        headers: parts.headers,
        body: bytes.into(),
    }
}

/// No request waits without end: a transfer on a paused clock answers 504 `no-response` within
/// the wait its caller asked for (`Prefer: wait=1`), saying the clock is paused and how long it
/// waited; the transfer goes on, and once the clock runs, a retry with the same key gets its
/// answer, debited once. Without `Prefer` the server's own bound applies (10 s by default).
#[tokio::test]
async fn a_transfer_on_a_paused_clock_answers_within_its_wait() {
    assert_eq!(
        Config::default().transfer_wait,
        Some(Duration::from_secs(10)),
        "the default bound"
    );
    let edge = Edge::start().await;
    let id = edge.sandbox(41).await;
    let call = Call::post(
        &format!("/api/sandboxes/{id}/transfers"),
        json!({"to": "tithi", "amount": 500}),
    )
    .header("Authorization", "Bearer shimul")
    .header("Idempotency-Key", "paused-clock-1");
    let started = std::time::Instant::now();
    let first = edge.call(call.clone().header("Prefer", "wait=1")).await;
    let waited = started.elapsed();
    let problem = expect_problem(&first, 504, "no-response", "a transfer on a paused clock");
    assert_eq!(problem["clock_paused"], true, "{problem}");
    assert_eq!(problem["waited_seconds"], 1.0, "{problem}");
    assert!(
        problem["detail"].as_str().unwrap().contains("paused"),
        "{problem}"
    );
    // Not a speed figure: only that the answer came, long before anything like a hang.
    assert!(
        waited < Duration::from_secs(30),
        "answered after {waited:?}"
    );
    assert_eq!(edge.transfers_taken(&id).await, 1, "the transfer goes on");

    // The clock moves it to its end; the retry (carried through the network by the clock
    // too) gets the stored answer.
    let jump = edge
        .call(Call::post(
            &format!("/api/sandboxes/{id}/clock"),
            json!({"advance_seconds": 10}),
        ))
        .await;
    assert_eq!(jump.status, StatusCode::OK);
    let again = edge
        .transfer(&id, "paused-clock-1", json!({"to": "tithi", "amount": 500}))
        .await;
    assert_eq!(
        again.status,
        StatusCode::CREATED,
        "{}",
        String::from_utf8_lossy(&again.body)
    );
    assert_eq!(again.headers["idempotent-replayed"], "true");
    let s = edge.state(&id).await;
    assert_eq!(s["damage"]["debits"], 1);
    assert_eq!(s["balances"]["payments"]["shimul"], 1500);
}

/// A page names its own language's sentences and nothing of the other's: the quiz in Bangla
/// without a cookie and in English with one; the file it names is brotli at its best,
/// kept for good, holds that language alone; a wrong version or language is a 404.
#[tokio::test]
async fn a_page_is_sent_its_own_languages_sentences() {
    let edge = Edge::start().await;
    let page = |cookie: Option<&'static str>| {
        let mut request = Request::get("/quiz").header("host", HOST);
        if let Some(cookie) = cookie {
            request = request.header("cookie", cookie);
        }
        request.body(Body::empty()).unwrap()
    };
    let href_of = |html: &str| {
        let link = html
            .split("<link")
            .find(|tag| tag.contains(r#"id="strings""#))
            .expect("the page names its sentences");
        link.split(r#"href=""#)
            .nth(1)
            .unwrap()
            .split('"')
            .next()
            .unwrap()
            .to_owned()
    };
    let mut hrefs = Vec::new();
    for (cookie, lang, title) in [
        (None, "bn", "আইডেমপোটেন্সি"),
        (Some("a=1; pocketpay_lang=en"), "en", "Idempotency"),
    ] {
        let a = edge.send(page(cookie)).await;
        assert_eq!(a.status, StatusCode::OK);
        let html = String::from_utf8(a.body.to_vec()).unwrap();
        assert!(
            html.contains(&format!(r#"<html lang="{lang}""#)),
            "{lang}: {html:.300}"
        );
        let href = href_of(&html);
        assert!(href.starts_with(&format!("/strings/{lang}.")), "{href}");
        assert!(
            html.contains(title),
            "{lang}: the page is rendered in its language"
        );

        let plain = edge
            .send(
                Request::get(&href)
                    .header("host", HOST)
                    .body(Body::empty())
                    .unwrap(),
            )
            .await;
        assert_eq!(plain.status, StatusCode::OK, "{href}");
        assert_eq!(
            plain.headers["cache-control"],
            "public, max-age=31536000, immutable"
        );
        let text = String::from_utf8(plain.body.to_vec()).unwrap();
        assert!(text.contains("\napp-title = "), "{lang}: {text:.200}");
        let other_title = if lang == "bn" {
            "Idempotency Lab"
        } else {
            "ল্যাব"
        };
        assert!(
            !text.contains(other_title),
            "{lang}: the other language is not sent"
        );
        assert!(
            !text.lines().any(|l| l.starts_with('#')),
            "comments are left out"
        );
        assert!(
            !text.contains("\nhead-lab = ") && !text.contains("\ngloss-"),
            "{lang}: what only the server reads is not sent"
        );

        let br = edge
            .send(
                Request::get(&href)
                    .header("host", HOST)
                    .header("accept-encoding", "gzip, deflate, br, zstd")
                    .body(Body::empty())
                    .unwrap(),
            )
            .await;
        assert_eq!(br.status, StatusCode::OK);
        assert_eq!(br.headers["content-encoding"], "br");
        assert!(
            br.body.len() * 3 < text.len(),
            "{} of {}",
            br.body.len(),
            text.len()
        );
        hrefs.push(href);
    }
    let version = |h: &str| h.rsplit('.').nth(1).unwrap().to_owned();
    assert_eq!(
        version(&hrefs[0]),
        version(&hrefs[1]),
        "one version for both"
    );
    for wrong in [
        "/strings/bn.0000000000000000000000.ftl".to_owned(),
        hrefs[0].replace("/bn.", "/fr."),
        hrefs[0].replace(".ftl", ".txt"),
    ] {
        let a = edge
            .send(
                Request::get(&wrong)
                    .header("host", HOST)
                    .body(Body::empty())
                    .unwrap(),
            )
            .await;
        assert_eq!(a.status, StatusCode::NOT_FOUND, "{wrong}");
    }
}

/// The pages nothing changes on (the front page, the glossary, the summary) are sent whole and
/// without code: no script, no wasm, no sentences file, and marked usable on arrival; a page
/// that works in the browser (the quiz) still names its code.
#[tokio::test]
async fn a_page_nothing_changes_on_is_sent_without_code() {
    let edge = &Edge::start().await;
    let html = |path: &'static str| async move {
        let a = edge
            .send(
                Request::get(path)
                    .header("host", HOST)
                    .body(Body::empty())
                    .unwrap(),
            )
            .await;
        // (The router draws `/glossary/` as the glossary, though it answers 404 there.)
        let drawn = if path.ends_with("/") && path.len() > 1 {
            StatusCode::NOT_FOUND
        } else {
            StatusCode::OK
        };
        assert_eq!(a.status, drawn, "{path}");
        String::from_utf8(a.body.to_vec()).unwrap()
    };
    // With a slash after it too: a page drawn as one of these is sent as one, or its view would
    // reload it from the server again and again.
    for path in ["/", "/glossary", "/summary", "/glossary/", "/summary/"] {
        let page = html(path).await;
        // (Only the framework's few bytes of empty resource lists stay inline.)
        for code in [
            "/pkg/pocketpay-lab.js",
            ".wasm",
            "modulepreload",
            "hydrate()",
            "/strings/",
        ] {
            assert!(
                !page.contains(code),
                "{path} names {code}: {}",
                &page[page.find(code).unwrap_or(0).saturating_sub(200)..]
            );
        }
        assert!(
            page.contains("data-send-ready") && page.contains("data-hydrated"),
            "{path} is usable as it arrives: {page:.300}"
        );
        assert!(
            page.contains(r#"action="/lang""#),
            "{path}: the switch is a form"
        );
    }
    let quiz = html("/quiz").await;
    assert!(quiz.contains("hydrate()") && quiz.contains("/strings/bn."));
    assert!(
        !quiz.contains("data-hydrated"),
        "the quiz is live once hydrated"
    );
}

/// The language switch of a page sent without code: `POST /lang` keeps the choice in the cookie
/// and sends the browser back to where it was, which is then drawn in that language; a language
/// the course does not speak, a way back to another site or a body that is not the form is
/// refused with a problem and sets no cookie.
#[tokio::test]
async fn the_language_form_keeps_the_choice_and_goes_back() {
    let edge = Edge::start().await;
    let post = |body: &'static str, kind: &'static str| {
        Request::post("/lang")
            .header("host", HOST)
            .header("content-type", kind)
            .body(Body::from(body))
            .unwrap()
    };
    let form = "application/x-www-form-urlencoded";
    let a = edge.send(post("lang=en&back=%2Fglossary", form)).await;
    assert_eq!(a.status, StatusCode::SEE_OTHER);
    assert_eq!(a.headers["location"], "/glossary");
    let cookie = a.headers["set-cookie"].to_str().unwrap().to_owned();
    assert!(cookie.starts_with("pocketpay_lang=en;"), "{cookie}");
    assert!(
        cookie.contains("Path=/") && cookie.contains("Max-Age="),
        "{cookie}"
    );
    let page = edge
        .send(
            Request::get("/glossary")
                .header("host", HOST)
                .header("cookie", "pocketpay_lang=en")
                .body(Body::empty())
                .unwrap(),
        )
        .await;
    let text = String::from_utf8(page.body.to_vec()).unwrap();
    assert!(text.contains(r#"<html lang="en""#), "{text:.200}");
    assert!(text.contains("Glossary"));
    // With no way back named, the front page.
    let a = edge.send(post("lang=bn", form)).await;
    assert_eq!(a.status, StatusCode::SEE_OTHER);
    assert_eq!(a.headers["location"], "/");

    for (body, kind, field) in [
        ("lang=fr&back=%2F", form, "lang"),
        ("back=%2F", form, "lang"),
        ("lang=en&back=%2F%2Fevil.example", form, "back"),
        ("lang=en&back=https%3A%2F%2Fevil.example%2F", form, "back"),
        ("lang=en&back=glossary", form, "back"),
    ] {
        let a = edge.send(post(body, kind)).await;
        let problem = expect_problem(&a, 400, "invalid-field", body);
        assert!(
            problem.to_string().contains(field),
            "{body}: names {field}: {problem}"
        );
        assert!(a.headers.get("set-cookie").is_none(), "{body}");
    }
    // The gate takes a form's type here, and nothing else.
    let a = edge
        .send(post(r#"{"lang":"en"}"#, "application/json"))
        .await;
    expect_problem(&a, 415, "unsupported-media-type", "JSON to the form");
    assert!(a.headers.get("set-cookie").is_none());
}

#[tokio::test]
async fn a_page_asked_in_a_language_speaks_it_and_keeps_it() {
    let edge = Edge::start().await;
    let get = |path: &'static str, cookie: Option<&'static str>| {
        let mut r = Request::get(path).header("host", HOST);
        if let Some(c) = cookie {
            r = r.header("cookie", c);
        }
        r.body(Body::empty()).unwrap()
    };
    // `?lang=en` wins over the cookie's Bangla, and the browser keeps English after it.
    for (path, cookie) in [
        ("/glossary?lang=en", None),
        ("/glossary?q=key&lang=en", Some("pocketpay_lang=bn")),
    ] {
        let a = edge.send(get(path, cookie)).await;
        assert_eq!(a.status, StatusCode::OK, "{path}");
        let text = String::from_utf8(a.body.to_vec()).unwrap();
        assert!(text.contains(r#"<html lang="en""#), "{path}: {text:.200}");
        let set = a.headers["set-cookie"].to_str().unwrap();
        assert!(set.starts_with("pocketpay_lang=en;"), "{path}: {set}");
    }
    let a = edge.send(get("/?lang=bn", Some("pocketpay_lang=en"))).await;
    let text = String::from_utf8(a.body.to_vec()).unwrap();
    assert!(text.contains(r#"<html lang="bn""#), "{text:.200}");
    // Another language is refused, naming the parameter, and nothing is kept.
    let a = edge.send(get("/glossary?lang=fr", None)).await;
    let problem = expect_problem(&a, 400, "invalid-field", "lang=fr");
    assert!(problem.to_string().contains("lang"), "{problem}");
    assert!(a.headers.get("set-cookie").is_none());
    // The API is not a page: a `lang` there is no pin, and sets nothing.
    let a = edge.send(get("/api/openapi.json?lang=fr", None)).await;
    assert_eq!(a.status, StatusCode::OK);
    assert!(a.headers.get("set-cookie").is_none());
}

/// Every page describes itself in its head, in its language, for search engines and link
/// previews, and no two screens share a description.
#[tokio::test]
async fn every_page_carries_a_description_in_its_language() {
    let mut seen = std::collections::HashSet::new();
    for lang in ["bn", "en"] {
        // An app of its own per language, `/teach` last: in this single-threaded test runtime a
        // page after `/teach` finds its title's arena gone (not so on the served app).
        let edge = Edge::start().await;
        for path in [
            "/",
            "/glossary",
            "/summary",
            "/quiz",
            "/calculators",
            "/day",
            "/teach",
        ] {
            let a = edge
                .send(
                    Request::get(format!("{path}?lang={lang}"))
                        .header("host", HOST)
                        .body(Body::empty())
                        .unwrap(),
                )
                .await;
            assert_eq!(a.status, StatusCode::OK, "{path} {lang}");
            let html = String::from_utf8(a.body.to_vec()).unwrap();
            let description = html
                .split(r#"<meta name="description" content=""#)
                .nth(1)
                .and_then(|rest| rest.split('"').next())
                .unwrap_or_else(|| panic!("{path} {lang}: no description in {html:.400}"));
            assert!(
                description.chars().count() > 50 && !description.starts_with("head-"),
                "{path} {lang}: {description}"
            );
            let bangla = description
                .chars()
                .any(|c| ('\u{0985}'..='\u{09B9}').contains(&c));
            assert_eq!(bangla, lang == "bn", "{path} {lang}: {description}");
            assert!(
                seen.insert(description.to_owned()),
                "{path} {lang}: said twice"
            );
        }
    }
}

/// A page in Bangla asks for its font with its HTML, so nothing moves when the font comes; the
/// lab does not (its font comes once Send works), nor does a page in English.
#[tokio::test]
async fn the_bangla_font_comes_with_every_page_but_the_lab() {
    let edge = Edge::start().await;
    let page = |path: &'static str| {
        Request::get(path)
            .header("host", HOST)
            .body(Body::empty())
            .unwrap()
    };
    let preload = r#"<link rel="preload" as="font" type="font/woff2" crossorigin="anonymous" href="/fonts/noto-sans-bengali-bengali-400-normal.woff2">"#;
    for path in ["/?lang=bn", "/glossary?lang=bn", "/quiz?lang=bn"] {
        let html = String::from_utf8(edge.send(page(path)).await.body.to_vec()).unwrap();
        assert!(html.contains(preload), "{path}");
        assert!(!html.contains("data-late-font"), "{path}");
    }
    let html = String::from_utf8(edge.send(page("/quiz?lang=en")).await.body.to_vec()).unwrap();
    assert!(!html.contains(preload), "an English page");
    let lab = edge.send(page("/lab?lang=bn")).await;
    let to = lab.headers["location"].to_str().unwrap().to_owned();
    let cookie = lab.headers["set-cookie"]
        .to_str()
        .unwrap()
        .split(';')
        .next()
        .unwrap()
        .to_owned();
    let html = String::from_utf8(
        edge.send(
            Request::get(to.as_str())
                .header("host", HOST)
                .header("cookie", cookie)
                .body(Body::empty())
                .unwrap(),
        )
        .await
        .body
        .to_vec(),
    )
    .unwrap();
    assert!(html.contains("data-late-font"), "{html:.300}");
    assert!(!html.contains(preload));
}
