//! Properties of the whole payment path, run in-process on real SQLite files: random scripts of
//! sends, retries, bursts, faults and clock jumps, with every guard on.
//! Run: `cargo test --features ssr --test properties`.

use std::time::Duration;

use pocketpay_lab::domain::{ClockCommand, ClockMode, TransferBody};
use pocketpay_lab::server::config::Config;
use pocketpay_lab::server::lab::Lab;
use pocketpay_lab::server::payments::TransferRequest;
use proptest::prelude::*;
use proptest::test_runner::{Config as RunnerConfig, TestRunner};
use serde_json::json;

/// One thing the script does. Each key stands for one decision to pay (its intent) with its own
/// amount, as a phone that keeps its key across retries would send it.
#[derive(Clone, Debug)]
enum Op {
    Send {
        key: u8,
    },
    Burst {
        key: u8,
        copies: u8,
    },
    Faults {
        request_loss: i64,
        response_loss: i64,
        crash_claim: bool,
        crash_commit: bool,
        lb_retry: bool,
        gateway_ms: i64,
    },
    Advance {
        seconds: i64,
    },
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (0u8..5).prop_map(|key| Op::Send { key }),
        1 => (0u8..5, 2u8..8).prop_map(|(key, copies)| Op::Burst { key, copies }),
        2 => (0i64..=60, 0i64..=60, any::<bool>(), any::<bool>(), any::<bool>(), 0i64..=2_000).prop_map(
            |(request_loss, response_loss, crash_claim, crash_commit, lb_retry, gateway_ms)| Op::Faults {
                request_loss, response_loss, crash_claim, crash_commit, lb_retry, gateway_ms,
            }
        ),
        3 => prop_oneof![1i64..=5, 30i64..=120, 3_000i64..=200_000].prop_map(|seconds| Op::Advance { seconds }),
    ]
}

fn request(key: u8) -> TransferRequest {
    let amount = 300 + 100 * key as i64;
    TransferRequest::new(
        "shimul",
        format!("key-{key}"),
        TransferBody {
            to: "tithi".into(),
            amount,
        },
        format!("intent-{key}"),
    )
}

async fn run_script(lab: &Lab, seed: u64, ops: Vec<Op>) -> Result<(), TestCaseError> {
    let sandbox = lab.create(Some(seed), ClockMode::Paused).await.unwrap();
    let mut answers = Vec::new();
    for op in ops {
        match op {
            Op::Send { key } => answers.push(sandbox.start_transfer(request(key)).await.unwrap()),
            Op::Burst { key, copies } => {
                for _ in 0..copies {
                    answers.push(sandbox.start_transfer(request(key)).await.unwrap());
                }
            }
            Op::Faults {
                request_loss,
                response_loss,
                crash_claim,
                crash_commit,
                lb_retry,
                gateway_ms,
            } => {
                let mode = |on: bool| if on { "once" } else { "off" };
                sandbox
                    .set_faults(json!({
                        "request_loss_pct": request_loss,
                        "response_loss_pct": response_loss,
                        "lb_retry": lb_retry,
                        "gateway_latency_ms": gateway_ms,
                        "crash": {"api_after_claim": mode(crash_claim), "api_after_commit": mode(crash_commit)},
                    }))
                    .await
                    .unwrap();
            }
            Op::Advance { seconds } => {
                sandbox
                    .clock(vec![ClockCommand::Advance { seconds }])
                    .await
                    .unwrap();
            }
        }
    }
    // Let everything in flight finish: every caller times out within seconds of virtual time.
    sandbox
        .clock(vec![ClockCommand::Advance { seconds: 600 }])
        .await
        .unwrap();
    for answer in answers {
        let reply = tokio::time::timeout(Duration::from_secs(10), answer)
            .await
            .expect("every call is answered once time has passed")
            .unwrap();
        prop_assert!(
            [201, 409, 422, 504].contains(&reply.status),
            "status {}",
            reply.status
        );
    }
    let state = sandbox.state().await.unwrap();
    let ledger = state.tables["payments.ledger"].clone();
    let mut per_intent = std::collections::BTreeMap::<String, i64>::new();
    for row in &ledger {
        *per_intent
            .entry(row["lab_intent"].as_str().unwrap().to_owned())
            .or_default() += 1;
    }
    prop_assert!(
        per_intent.values().all(|n| *n == 1),
        "two debits for one intent: {per_intent:?}"
    );
    prop_assert_eq!(state.damage.double_charges, 0);
    let balance = state.balances.payments["shimul"];
    prop_assert!(balance >= 0, "negative balance {}", balance);
    let debited: i64 = ledger.iter().map(|r| r["amount"].as_i64().unwrap()).sum();
    prop_assert_eq!(balance, 2_000 + debited);
    Ok(())
}

#[test]
fn with_every_guard_on_no_intent_is_ever_debited_twice() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let lab = rt
        .block_on(Lab::start(Config {
            data_dir: dir.path().to_path_buf(),
            ..Config::default()
        }))
        .unwrap();
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(48);
    let mut runner = TestRunner::new(RunnerConfig {
        cases,
        ..RunnerConfig::default()
    });
    let strategy = (any::<u64>(), prop::collection::vec(op(), 1..30));
    runner
        .run(&strategy, |(seed, ops)| {
            rt.block_on(run_script(&lab, seed, ops))
        })
        .unwrap();
    rt.block_on(lab.shutdown());
}
