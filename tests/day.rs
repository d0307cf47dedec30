//! A day at PocketPay, fast-forwarded (`POST /api/days`, `GET /api/days/{scale}`), against the
//! real server: the day at 1:1,000 (2,000 transfers a run) runs with every safeguard on and then
//! off; the guarded run does no damage through the same timeouts, retries and crashes, the
//! unguarded one double-charges; the report outlives a restart; bad input is refused.
//! Run: `cargo test --features ssr --test day`.

mod common;

use std::time::{Duration, Instant};

use common::{expect_problem, TestLab};
use reqwest::StatusCode;
use serde_json::{json, Value};

/// The seed every day runs with (`server::day::SEED`), for a failure to be replayed.
const SEED: u64 = pocketpay_lab::server::day::SEED;

async fn wait_until_done(lab: &TestLab, scale: u32) -> Value {
    let started = Instant::now();
    loop {
        let r = lab.get(&format!("/api/days/{scale}")).await;
        let status = r.status();
        let report: Value = r.json().await.unwrap();
        match report["status"].as_str() {
            Some("running") => assert_eq!(status, StatusCode::ACCEPTED, "{report}"),
            Some("done") => {
                assert_eq!(status, StatusCode::OK);
                return report;
            }
            _ => panic!("the day at 1:{scale} (seed {SEED}) failed: {report}"),
        }
        assert!(
            started.elapsed() < Duration::from_secs(600),
            "the day at 1:{scale} (seed {SEED}) is still running: {report}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

fn figure(run: &Value, name: &str) -> i64 {
    run[name]
        .as_i64()
        .or_else(|| run["damage"][name].as_i64())
        .unwrap_or_else(|| panic!("no {name} in {run}"))
}

#[tokio::test]
async fn a_day_runs_guarded_then_unguarded_and_only_the_unguarded_run_does_damage() {
    let mut lab = TestLab::start().await;
    let r = lab.post("/api/days", json!({"scale": 1000})).await;
    assert_eq!(r.status(), StatusCode::ACCEPTED);
    assert_eq!(r.headers()["location"], "/api/days/1000");
    let first: Value = r.json().await.unwrap();
    assert_eq!(first["transfers"], 2_000);
    assert_eq!(first["seed"], SEED);
    // The same day asked for again is the same day, not a second one.
    let again = lab.post("/api/days", json!({"scale": 1000})).await;
    assert!(again.status() == StatusCode::ACCEPTED || again.status() == StatusCode::OK);
    // Another scale waits its turn, told for how long.
    let busy = lab.post("/api/days", json!({"scale": 100})).await;
    if busy.status() == StatusCode::SERVICE_UNAVAILABLE {
        let retry: u64 = busy.headers()["retry-after"]
            .to_str()
            .unwrap()
            .parse()
            .unwrap();
        assert!(retry >= 1);
        expect_problem(busy, 503, "day-busy").await;
    } else {
        panic!("a second day started beside the first: {}", busy.status());
    }

    let report = wait_until_done(&lab, 1000).await;
    let runs = report["runs"].as_array().unwrap();
    let (on, off) = (&runs[0], &runs[1]);
    assert_eq!(on["guards"], "on");
    assert_eq!(off["guards"], "off");
    for run in [on, off] {
        let context = format!("seed {SEED}, run {run}");
        assert_eq!(figure(run, "sent"), 2_000, "{context}");
        assert_eq!(figure(run, "refused"), 0, "{context}");
        assert_eq!(
            figure(run, "receipts") + figure(run, "given_up"),
            2_000,
            "{context}"
        );
        assert_eq!(
            figure(run, "requests"),
            2_000 + figure(run, "retries"),
            "{context}"
        );
        // The rush hours' losses happened to both runs.
        assert!(figure(run, "timeouts") > 0, "{context}");
        assert_eq!(figure(run, "intents"), 2_000, "{context}");
        assert_eq!(figure(run, "in_flight"), 0, "{context}");
        assert_eq!(figure(run, "invariants_broken"), 0, "{context}");
        assert!(
            figure(run, "virtual_ms") >= 24 * 3_600_000 - 60_000,
            "{context}"
        );
    }
    for name in [
        "double_charges",
        "double_credits",
        "duplicate_sms",
        "lost_events",
        "support_tickets",
    ] {
        assert_eq!(
            figure(on, name),
            0,
            "{name} with every guard on, seed {SEED}: {on}"
        );
    }
    assert_paired(&report, 1000);
    assert!(on["faults"]["answers_lost"].as_u64().unwrap() > 0, "{on}");
    assert!(on["faults"]["replays"].as_u64().unwrap() > 0, "{on}");
    assert_eq!(off["faults"]["replays"], 0, "{off}");
    // A timed-out transfer whose answer was lost was debited; its retry, with a new key and no
    // guard, was debited again.
    assert!(
        figure(off, "double_charges") > 0,
        "no double charge with every guard off, seed {SEED}: {off}"
    );

    // The report is kept: after a restart the day is still there, and not run again.
    lab.restart().await;
    let r = lab.get("/api/days/1000").await;
    assert_eq!(r.status(), StatusCode::OK);
    let kept: Value = r.json().await.unwrap();
    assert_eq!(kept, report);
    let r = lab.post("/api/days", json!({"scale": 1000})).await;
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(r.json::<Value>().await.unwrap(), report);
    // No day's sandbox is left on disk.
    let runs_dir = lab.data_dir().join("days").join("runs");
    assert_eq!(std::fs::read_dir(&runs_dir).unwrap().count(), 0);

    // The smallest day is paired as well: the same faults in both runs, whatever they come to.
    let r = lab.post("/api/days", json!({"scale": 10000})).await;
    assert_eq!(r.status(), StatusCode::ACCEPTED);
    let small = wait_until_done(&lab, 10000).await;
    assert_paired(&small, 10000);
}

/// Both runs of a day met the same faults at the same sends: the same lost requests, lost
/// answers and crashes, so the same timeouts and the same retries; only the guards differ.
fn assert_paired(report: &Value, scale: u32) {
    let runs = report["runs"].as_array().unwrap();
    let (on, off) = (&runs[0], &runs[1]);
    let context = format!("the day at 1:{scale}, seed {SEED}:\n{on}\n{off}");
    eprintln!("{context}");
    for name in ["requests_lost", "answers_lost", "crashes"] {
        assert!(on["faults"][name].is_u64(), "{name}: {context}");
        assert_eq!(on["faults"][name], off["faults"][name], "{name}: {context}");
    }
    for name in ["timeouts", "retries", "requests"] {
        assert_eq!(figure(on, name), figure(off, name), "{name}: {context}");
    }
}

#[tokio::test]
async fn bad_day_requests_are_refused_and_start_nothing() {
    let lab = TestLab::start().await;
    for body in [
        json!({"scale": 7}),
        json!({"scale": "10"}),
        json!({"scale": 10.5}),
        json!({"scale": null}),
        json!({"scale": 10, "speed": 2}),
        json!([10]),
    ] {
        let r = lab.post("/api/days", body.clone()).await;
        let problem = expect_problem(r, 400, "invalid-field").await;
        assert!(
            problem["detail"].as_str().unwrap().contains("scale")
                || body.is_array()
                || body.get("speed").is_some(),
            "{problem}"
        );
    }
    for path in [
        "/api/days/7",
        "/api/days/abc",
        "/api/days/+10",
        "/api/days/010",
    ] {
        let r = lab.get(path).await;
        expect_problem(r, 400, "invalid-field").await;
    }
    // Nothing started: every scale is unknown.
    for scale in [10, 100, 1000, 10000] {
        let r = lab.get(&format!("/api/days/{scale}")).await;
        expect_problem(r, 404, "unknown-day").await;
    }
}
