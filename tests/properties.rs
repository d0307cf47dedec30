//! Properties of the whole payment path, run in-process on real SQLite files: random scripts of
//! sends, retries, bursts, faults and clock jumps, with every guard on.
//! Run: `cargo test --features ssr --test properties`.

use std::time::Duration;

use pocketpay_lab::domain::transfer::IdempotencyKey;
use pocketpay_lab::domain::{ClockCommand, ClockMode, TransferBody};
use pocketpay_lab::server::calls::TransferRequest;
use pocketpay_lab::server::config::Config;
use pocketpay_lab::server::sandbox::SandboxHandle;
use pocketpay_lab::server::sandboxes::{RewindFrom, Sandboxes};
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
    /// Crash points of the pipeline, each armed to fire once.
    PipelineCrashes {
        relay: bool,
        ack: bool,
        fraud: bool,
        consumer: bool,
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
        1 => (any::<bool>(), any::<bool>(), any::<bool>(), any::<bool>())
            .prop_map(|(relay, ack, fraud, consumer)| Op::PipelineCrashes { relay, ack, fraud, consumer }),
    ]
}

fn request(key: u8) -> TransferRequest {
    // ৳100 to ৳500: all five together fit in Shimul's ৳2,000.
    let amount = 100 * (key as i64 + 1);
    TransferRequest::new(
        "shimul",
        IdempotencyKey::parse(Some(&format!("key-{key}"))).expect("a valid key"),
        TransferBody {
            to: "tithi".into(),
            amount,
        },
        format!("intent-{key}"),
    )
}

async fn run_script(lab: &Sandboxes, seed: u64, ops: Vec<Op>) -> Result<(), TestCaseError> {
    let sandbox = lab
        .create(None, Some(seed), ClockMode::Paused)
        .await
        .unwrap();
    script(&sandbox, ops).await
}

/// Runs the ops, then heals the network and retries every key; checks the promise after each
/// half.
async fn script(sandbox: &SandboxHandle, ops: Vec<Op>) -> Result<(), TestCaseError> {
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
                    .set_faults(pocketpay_lab::domain::typed::read_body(&json!({
                        "request_loss_pct": request_loss,
                        "response_loss_pct": response_loss,
                        "lb_retry": lb_retry,
                        "gateway_latency_ms": gateway_ms,
                        "crash": {"api_after_claim": mode(crash_claim), "api_after_commit": mode(crash_commit)},
                    })).unwrap())
                    .await
                    .unwrap();
            }
            Op::PipelineCrashes {
                relay,
                ack,
                fraud,
                consumer,
            } => {
                let mode = |on: bool| if on { "once" } else { "off" };
                sandbox
                    .set_faults(
                        pocketpay_lab::domain::typed::read_body(&json!({"crash": {
                            "relay_after_publish": mode(relay),
                            "broker_ack_lost": mode(ack),
                            "fraud_before_commit": mode(fraud),
                            "consumer_before_offset_commit": mode(consumer),
                        }}))
                        .unwrap(),
                    )
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
    // Whatever happened, no intent was ever debited twice, and no balance went below zero.
    let state = sandbox.state().await.unwrap();
    prop_assert_eq!(state.damage.double_charges, 0);
    prop_assert!(state.balances.payments["shimul"] >= 0);

    // Then the network heals and the phone retries every transfer it ever meant to make, until
    // each has its receipt; and the pipeline drains.
    sandbox
        .set_faults(pocketpay_lab::domain::typed::read_body(&json!({"request_loss_pct": 0, "response_loss_pct": 0, "lb_retry": false,
            "crash": {"api_after_claim": "off", "api_after_commit": "off", "relay_after_publish": "off",
                      "broker_ack_lost": "off", "fraud_before_commit": "off",
                      "consumer_before_offset_commit": "off"}})).unwrap())
        .await
        .unwrap();
    for key in 0..5u8 {
        let answer = sandbox.start_transfer(request(key)).await.unwrap();
        sandbox
            .clock(vec![ClockCommand::Advance { seconds: 120 }])
            .await
            .unwrap();
        let reply = answer.await.unwrap();
        prop_assert_eq!(reply.status, 201, "retry of key {}: {}", key, reply.body);
    }
    sandbox
        .clock(vec![ClockCommand::Advance { seconds: 600 }])
        .await
        .unwrap();
    let state = sandbox.state().await.unwrap();
    let d = &state.damage;
    prop_assert_eq!(
        (d.intents, d.debits, d.credits, d.sms),
        (5, 5, 5, 5),
        "{:?}",
        d
    );
    prop_assert_eq!(
        (
            d.double_charges,
            d.double_credits,
            d.duplicate_sms,
            d.lost_events
        ),
        (0, 0, 0, 0)
    );
    prop_assert_eq!(d.money_created, 0, "money is conserved");
    prop_assert_eq!(state.balances.payments["shimul"], 2_000 - 1_500);
    prop_assert_eq!(state.balances.wallet["tithi"], 1_500);
    Ok(())
}

/// A multi-threaded runtime and a server's set of sandboxes in a fresh data folder (kept as long
/// as the folder guard lives).
fn lab_on_a_runtime() -> (tokio::runtime::Runtime, tempfile::TempDir, Sandboxes) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let lab = rt
        .block_on(Sandboxes::start(Config {
            data_dir: dir.path().to_path_buf(),
            ..Config::default()
        }))
        .unwrap();
    (rt, dir, lab)
}

/// `PROPTEST_CASES`, when set.
fn cases() -> Option<u32> {
    std::env::var("PROPTEST_CASES").ok()?.parse().ok()
}

#[test]
fn with_every_guard_on_every_intent_is_debited_credited_and_texted_exactly_once() {
    let (rt, _dir, lab) = lab_on_a_runtime();
    let cases = cases().unwrap_or(48);
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

/// Rewinding from a checkpoint rebuilds exactly the past that rerunning from the start does:
/// every table, the balances, the damage meter and the clock, at events spread over runs of
/// random scripts (long enough to take checkpoints).
#[test]
fn a_rewind_from_a_checkpoint_finds_the_same_past_as_one_from_the_start() {
    let (rt, _dir, lab) = lab_on_a_runtime();
    // Each case rewinds three times both ways: an eighth of the cases asked for.
    let cases = cases().map_or(6, |n| n.div_ceil(8));
    let mut runner = TestRunner::new(RunnerConfig {
        cases,
        ..RunnerConfig::default()
    });
    let used = std::sync::atomic::AtomicUsize::new(0);
    let strategy = (
        any::<u64>(),
        prop::collection::vec(op(), 20..40),
        prop::collection::vec(0.0f64..1.0, 2),
    );
    runner
        .run(&strategy, |(seed, ops, shares)| {
            rt.block_on(async {
                let sandbox = lab
                    .create(None, Some(seed), ClockMode::Paused)
                    .await
                    .unwrap();
                script(&sandbox, ops).await?;
                let log = sandbox.events_after(0, i64::MAX).await.unwrap();
                let taken = sandbox
                    .step_times()
                    .await
                    .unwrap()
                    .iter()
                    .find(|t| t.name == "rewind checkpoint")
                    .map_or(0, |t| t.count);
                if taken > 0 {
                    used.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                }
                // The last event and two drawn ones.
                let mut picks = vec![log.len() - 1];
                picks.extend(shares.iter().map(|s| (s * log.len() as f64) as usize));
                let id = sandbox.id.to_string();
                for i in picks {
                    let event = log[i.min(log.len() - 1)].id;
                    let past = |from| lab.state_at_from(&id, event, 1_000, from);
                    let mut fast =
                        serde_json::to_value(past(RewindFrom::Checkpoint).await.unwrap()).unwrap();
                    let mut slow =
                        serde_json::to_value(past(RewindFrom::Start).await.unwrap()).unwrap();
                    // The one row that differs by design: it names each rewind's scratch sandbox.
                    // And the version, which counts a sandbox's own states. (The rowids are
                    // compared too: a checkpoint copies the stores page by page.)
                    for v in [&mut fast, &mut slow] {
                        v["tables"].as_object_mut().unwrap().remove("lab.sandbox");
                        v.as_object_mut().unwrap().remove("version");
                    }
                    for (table, rows) in fast["tables"].as_object().unwrap() {
                        prop_assert_eq!(
                            Some(rows),
                            slow["tables"].get(table),
                            "seed {}: {} at event {} of {} ({} checkpoints)",
                            seed,
                            table,
                            event,
                            log.len(),
                            taken
                        );
                    }
                    prop_assert_eq!(&fast, &slow, "seed {}: at event {}", seed, event);
                }
                Ok(())
            })
        })
        .unwrap();
    let used = used.load(std::sync::atomic::Ordering::SeqCst);
    println!("{used} of {cases} runs took checkpoints");
    assert!(used > 0, "no run was long enough to take a checkpoint");
    rt.block_on(lab.shutdown());
}
