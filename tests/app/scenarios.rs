//! The twelve presets of `POST …/scenario/{n}` against the app: what each sets (seed,
//! safeguards, faults, a fresh timeline with its "scenario loaded" mark), in both variants; an
//! unknown scenario or variant refused with nothing changed; a run that loaded a scenario
//! replays to the same event log; and the damage meter's verdict, the worst thing each run did.
//! Run: `cargo test --features ssr --test app scenarios::`.

use crate::common::{expect_problem, TestLab};
use pocketpay_lab::domain::scenario::{preset, Variant, SCENARIOS};
use pocketpay_lab::domain::{Damage, Faults, Safeguards, Verdict};
use reqwest::StatusCode;
use serde_json::{json, Value};

const SEED: u64 = 7_007;

/// Exports the sandbox's run, replays it into a new sandbox and checks the event log's hash is
/// the same; returns the run.
async fn replays_to_the_same_log(lab: &TestLab, id: &str) -> Value {
    let run: Value = lab
        .get(&format!("/api/sandboxes/{id}/run"))
        .await
        .json()
        .await
        .unwrap();
    let r = lab.post("/api/runs", run.clone()).await;
    assert_eq!(r.status(), StatusCode::CREATED);
    let copy: Value = r.json().await.unwrap();
    assert_eq!(copy["log_hash"], run["log_hash"], "seed {SEED}");
    run
}

/// The settings part of a state: what a refused request must leave alone.
fn settings(state: &Value) -> Value {
    json!({
        "seed": state["seed"],
        "safeguards": state["safeguards"],
        "faults": state["faults"],
        "events": state["tables"]["lab.events"].as_array().map(Vec::len),
        "speed": state["clock"]["speed"],
    })
}

#[tokio::test]
async fn every_preset_sets_what_its_scenario_needs_in_both_variants() {
    let lab = TestLab::in_process().await;
    let id = lab.sandbox(SEED).await;
    // Something to wipe: a setting and a transfer.
    lab.safeguards(&id, json!({"outbox": false})).await;
    for n in SCENARIOS {
        for variant in [Variant::Guarded, Variant::Unguarded] {
            let r = lab
                .post(
                    &format!("/api/sandboxes/{id}/scenario/{n}"),
                    json!({"variant": variant.id()}),
                )
                .await;
            assert_eq!(
                r.status(),
                StatusCode::OK,
                "scenario {n} {variant:?} (seed {SEED})"
            );
            let body: Value = r.json().await.unwrap();
            let want = preset(n, variant).unwrap();
            assert_eq!(body["scenario"], n);
            assert_eq!(body["variant"], variant.id());
            assert_eq!(body["seed"], want.seed);

            let state = lab.state(&id).await;
            assert_eq!(state["seed"], want.seed, "scenario {n}");
            let safeguards = Safeguards::default().apply(&want.safeguards);
            assert_eq!(
                state["safeguards"],
                serde_json::to_value(&safeguards).unwrap()
            );
            let faults = Faults::default().apply(&want.faults);
            assert_eq!(state["faults"], serde_json::to_value(&faults).unwrap());
            assert_eq!(state["clock"]["speed"], want.speed);
            assert_eq!(state["clock"]["mode"], "live");
            // A fresh timeline: the reset, the scenario's mark, then its settings.
            let events = lab.events_of_any_kind(&id).await;
            let kinds: Vec<&str> = events
                .iter()
                .map(|(_, e)| e["kind"].as_str().unwrap())
                .collect();
            assert!(kinds.contains(&"sandbox_reset"), "{kinds:?}");
            let loaded = lab.events_of(&id, "scenario_loaded").await;
            assert_eq!(loaded.len(), 1, "scenario {n}: {kinds:?}");
            assert_eq!(
                loaded[0]["details"],
                json!({"n": n, "variant": variant.id()})
            );
            assert!(!kinds.contains(&"debited"));
            assert_eq!(state["damage"]["debits"], 0);
        }
    }
}

#[tokio::test]
async fn the_guarded_variant_is_the_default_and_an_empty_body_is_fine() {
    let lab = TestLab::in_process().await;
    let id = lab.sandbox(SEED).await;
    let r = lab
        .client
        .post(lab.url(&format!("/api/sandboxes/{id}/scenario/1")))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    let state = lab.state(&id).await;
    assert_eq!(state["safeguards"]["key_persistence"], true);
    assert_eq!(state["faults"]["response_loss_pct"], 100);
    let r = lab
        .post(&format!("/api/sandboxes/{id}/scenario/11"), json!({}))
        .await;
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(
        lab.state(&id).await["safeguards"]["inbox_window_hours"],
        168
    );
}

#[tokio::test]
async fn an_unknown_scenario_or_variant_is_refused_and_changes_nothing() {
    let lab = TestLab::in_process().await;
    let id = lab.sandbox(SEED).await;
    lab.safeguards(&id, json!({"ledger_unique": false})).await;
    let before = settings(&lab.state(&id).await);
    for n in [
        "0",
        "13",
        "255",
        "256",
        "-1",
        "1.5",
        "abc",
        "01x",
        "99999999999",
    ] {
        let r = lab
            .post(&format!("/api/sandboxes/{id}/scenario/{n}"), json!({}))
            .await;
        let problem = expect_problem(r, 404, "unknown-scenario").await;
        assert!(
            problem["detail"].as_str().unwrap().contains("1 to 12"),
            "{problem}"
        );
    }
    for body in [
        json!({"variant": "off"}),
        json!({"variant": 1}),
        json!({"varient": "guarded"}),
        json!([1]),
        json!("unguarded"),
    ] {
        let r = lab
            .post(&format!("/api/sandboxes/{id}/scenario/1"), body.clone())
            .await;
        expect_problem(r, 400, "invalid-field").await;
    }
    let r = lab
        .post(
            "/api/sandboxes/00000000-0000-4000-8000-000000000000/scenario/1",
            json!({}),
        )
        .await;
    expect_problem(r, 404, "unknown-sandbox").await;
    assert_eq!(settings(&lab.state(&id).await), before);
}

#[tokio::test]
async fn a_run_that_loaded_a_scenario_replays_to_the_same_log() {
    let lab = TestLab::in_process().await;
    let id = lab.sandbox(SEED).await;
    // Traffic before the preset: its reset must leave nothing behind that the replay, which
    // starts from a new sandbox, would not have (call numbers, the load balancer's rotation).
    lab.clock(&id, json!({"mode": "paused"})).await;
    let before = lab
        .send(&id, "key-0", json!({"to": "tithi", "amount": 500}), None)
        .await;
    assert_eq!(before.status, 201);
    let r = lab
        .post(
            &format!("/api/sandboxes/{id}/scenario/1"),
            json!({"variant": "unguarded"}),
        )
        .await;
    assert_eq!(r.status(), StatusCode::OK);
    lab.clock(&id, json!({"mode": "paused"})).await;
    let first = lab
        .send(&id, "key-a", json!({"to": "tithi", "amount": 500}), None)
        .await;
    assert_eq!(first.status, 504);
    lab.faults(&id, json!({"response_loss_pct": 0})).await;
    lab.advance_ms(&id, 10_000).await;
    let run = replays_to_the_same_log(&lab, &id).await;
    assert_eq!(run["seed"], preset(1, Variant::Unguarded).unwrap().seed);
    assert!(run["inputs"]
        .as_array()
        .unwrap()
        .iter()
        .any(|i| i["input"]["scenario"] == json!({"n": 1, "variant": "unguarded"})));
}

#[tokio::test]
async fn scenario_7_a_set_gives_one_result_an_increment_adds_per_copy_an_insert_keeps_one_row() {
    let lab = TestLab::in_process().await;
    let id = lab.sandbox(SEED).await;
    let r = lab
        .post(&format!("/api/sandboxes/{id}/scenario/7"), json!({}))
        .await;
    assert_eq!(r.status(), StatusCode::OK);
    let natural = |op: &'static str| {
        let path = format!("/api/sandboxes/{id}/natural");
        let body = json!({"op": op, "times": 10});
        let lab = &lab;
        async move {
            let r = lab.post(&path, body).await;
            assert_eq!(r.status(), StatusCode::OK, "{op} (seed {SEED})");
            r.json::<Value>().await.unwrap()
        }
    };
    let set = natural("set_name").await;
    assert_eq!(set["sent"], 10);
    let arrived = set["arrived"].as_i64().unwrap();
    assert!(
        (1..10).contains(&arrived),
        "30 % loss over 10 copies: {set} (seed {SEED})"
    );
    assert_eq!(set["name"], "Shimul Ahmed");

    let add = natural("add").await;
    let arrived = add["arrived"].as_i64().unwrap();
    assert!(arrived > 1, "{add} (seed {SEED})");
    assert_eq!(
        add["savings"],
        500 * arrived,
        "every copy that arrived added again"
    );

    let insert = natural("insert").await;
    assert!(insert["arrived"].as_i64().unwrap() > 1, "{insert}");
    assert_eq!(insert["credit_rows"], 1, "one row however many arrived");

    // The timeline says it copy by copy: the INCREMENT's repeats escaped, the INSERT's were
    // refused.
    let applied = lab.events_of(&id, "natural_applied").await;
    let of = |op: &str, outcome: &str| {
        applied
            .iter()
            .filter(|e| e["details"]["op"] == op && e["outcome"] == outcome)
            .count() as i64
    };
    assert_eq!(of("add", "escaped"), arrived - 1);
    assert_eq!(
        of("insert", "caught"),
        insert["arrived"].as_i64().unwrap() - 1
    );
    assert_eq!(of("set_name", "escaped") + of("set_name", "caught"), 0);
    assert_eq!(
        lab.events_of(&id, "natural_lost").await.len() as i64,
        30 - set["arrived"].as_i64().unwrap() - arrived - insert["arrived"].as_i64().unwrap()
    );

    // Bad bodies change nothing.
    for body in [
        json!({"op": "multiply"}),
        json!({"op": "add", "times": 0}),
        json!({"op": "add", "times": 21}),
        json!({"op": "add", "extra": true}),
    ] {
        let r = lab
            .post(&format!("/api/sandboxes/{id}/natural"), body)
            .await;
        expect_problem(r, 400, "invalid-field").await;
    }
    assert_eq!(
        lab.state(&id).await["tables"]["payments.savings"][0]["balance"],
        500 * arrived
    );

    // A run with these experiments replays to the same log.
    replays_to_the_same_log(&lab, &id).await;
}

#[tokio::test]
async fn scenario_8_has_an_at_most_once_variant_and_the_generals_run_on_the_seed() {
    let lab = TestLab::in_process().await;
    let id = lab.sandbox(SEED).await;
    let r = lab
        .post(
            &format!("/api/sandboxes/{id}/scenario/8"),
            json!({"variant": "at_most_once"}),
        )
        .await;
    assert_eq!(r.status(), StatusCode::OK);
    let state = lab.state(&id).await;
    assert_eq!(state["safeguards"]["outbox"], false);
    assert_eq!(state["faults"]["crash"]["api_after_commit"], "once");
    // Only scenario 8 has it; elsewhere it is refused and nothing changes.
    let before = settings(&lab.state(&id).await);
    let r = lab
        .post(
            &format!("/api/sandboxes/{id}/scenario/1"),
            json!({"variant": "at_most_once"}),
        )
        .await;
    let problem = expect_problem(r, 404, "unknown-scenario").await;
    assert!(
        problem["detail"]
            .as_str()
            .unwrap()
            .contains("no at_most_once"),
        "{problem}"
    );
    assert_eq!(settings(&lab.state(&id).await), before);

    // The generals: messengers back and forth until one is caught or eight crossed, the same
    // for the same seed.
    let generals = |body: Value| {
        let path = format!("/api/sandboxes/{id}/generals");
        let lab = &lab;
        async move {
            let r = lab.post(&path, body).await;
            assert_eq!(r.status(), StatusCode::OK, "seed {SEED}");
            r.json::<Value>().await.unwrap()
        }
    };
    let none_lost = generals(json!({"loss_pct": 0})).await;
    assert_eq!(none_lost["trips"].as_array().unwrap().len(), 8);
    let all_lost = generals(json!({"loss_pct": 100})).await;
    assert_eq!(
        all_lost["trips"],
        json!([{"n": 1, "from_a": true, "lost": true}])
    );
    let some = generals(json!({})).await;
    assert_eq!(some["loss_pct"], 30);
    let trips = some["trips"].as_array().unwrap();
    for (i, t) in trips.iter().enumerate() {
        assert_eq!(t["n"], i as i64 + 1);
        assert_eq!(t["from_a"], i % 2 == 0);
        if i + 1 < trips.len() {
            assert_eq!(t["lost"], false, "only the last messenger can be caught");
        }
    }
    assert!(trips.len() == 8 || trips.last().unwrap()["lost"] == true);
    let on_timeline = lab.events_of(&id, "generals_trip").await;
    assert_eq!(on_timeline.len(), 8 + 1 + trips.len());
    for body in [json!({"loss_pct": 101}), json!({"loss": 1}), json!([])] {
        let r = lab
            .post(&format!("/api/sandboxes/{id}/generals"), body)
            .await;
        expect_problem(r, 400, "invalid-field").await;
    }
    replays_to_the_same_log(&lab, &id).await;
}

#[tokio::test]
async fn the_entrance_opens_the_lab_with_a_preset_loaded_and_refuses_an_unknown_one() {
    let lab = TestLab::in_process().await;
    let id = lab.sandbox(SEED).await;
    let cookie = format!("pocketpay_sandbox={id}");
    let open = |path: &str| {
        lab.client
            .get(lab.url(path))
            .header("cookie", cookie.clone())
            .send()
    };
    // A quiz answer's link: this browser's sandbox, the preset loaded, the chapter open.
    let r = open("/lab?scenario=3&variant=unguarded&chapter=3")
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::SEE_OTHER);
    assert_eq!(r.headers()["location"], format!("/lab/{id}?chapter=3"));
    let state = lab.state(&id).await;
    let p = preset(3, Variant::Unguarded).unwrap();
    assert_eq!(state["seed"], p.seed);
    assert_eq!(state["safeguards"]["atomic_claim"], false);
    let loaded = lab.events_of(&id, "scenario_loaded").await;
    assert_eq!(loaded.len(), 1);
    assert_eq!(loaded[0]["details"]["variant"], "unguarded");

    // Unknown scenario, unknown variant, a variant the scenario lacks: refused, nothing changed.
    let before = settings(&lab.state(&id).await);
    for (path, status, kind) in [
        ("/lab?scenario=13", 404, "unknown-scenario"),
        ("/lab?scenario=x", 404, "unknown-scenario"),
        ("/lab?scenario=2&variant=off", 400, "invalid-field"),
        (
            "/lab?scenario=2&variant=at_most_once",
            404,
            "unknown-scenario",
        ),
    ] {
        expect_problem(open(path).await.unwrap(), status, kind).await;
    }
    assert_eq!(settings(&lab.state(&id).await), before);
}

/// Loads scenario `n` in this variant on a sandbox with the file's seed and pauses its clock
/// (a preset runs live), so every step after it is taken by the test.
async fn load_paused(lab: &TestLab, n: u8, variant: Variant) -> String {
    let id = lab.sandbox(SEED).await;
    let r = lab
        .post(
            &format!("/api/sandboxes/{id}/scenario/{n}"),
            json!({"variant": variant.id()}),
        )
        .await;
    assert_eq!(r.status(), StatusCode::OK);
    lab.clock(&id, json!({"mode": "paused"})).await;
    id
}

/// The damage meter as the state reads it, and its headline.
async fn meter(lab: &TestLab, id: &str) -> (Damage, Verdict) {
    let d: Damage = serde_json::from_value(lab.state(id).await["damage"].clone()).unwrap();
    let v = d.verdict();
    (d, v)
}

fn pay(amount: i64) -> Value {
    json!({"to": "tithi", "amount": amount})
}

#[tokio::test]
async fn a_normal_transfer_is_exactly_once_and_nothing_before_it_moved() {
    let lab = TestLab::in_process().await;
    let id = lab.sandbox(SEED).await;
    assert_eq!(meter(&lab, &id).await.1, Verdict::NothingMoved);
    assert_eq!(lab.send(&id, "k", pay(500), None).await.status, 201);
    lab.advance_ms(&id, 60_000).await;
    let (d, verdict) = meter(&lab, &id).await;
    assert_eq!(
        (d.debits, d.credits, d.sms, d.in_flight),
        (1, 1, 1, 0),
        "seed {SEED}"
    );
    assert_eq!(
        (d.duplicate_approvals, d.wrong_replays, d.stuck_keys),
        (0, 0, 0)
    );
    assert_eq!(verdict, Verdict::ExactlyOnce, "{d:?}");
}

/// Scenario 4 without the fingerprint check: the ৳5,000 request gets the ৳500 receipt. The
/// money is right (one debit of ৳500), the answer is not: an effect twice, and the timeline
/// marks the replay as escaped, not as caught.
#[tokio::test]
async fn a_receipt_replayed_for_another_body_is_an_effect_twice_not_a_catch() {
    let lab = TestLab::in_process().await;
    let id = load_paused(&lab, 4, Variant::Unguarded).await;
    let first = lab.send(&id, "k", pay(500), None).await;
    assert_eq!(first.status, 201);
    let wrong = lab.send(&id, "k", pay(5_000), None).await;
    assert_eq!((wrong.status, wrong.replayed), (201, true), "seed {SEED}");
    assert_eq!(wrong.body, first.body);
    let replays = lab.events_of(&id, "response_replayed").await;
    assert_eq!(replays.len(), 1);
    assert_eq!(replays[0]["outcome"], "escaped");
    assert_eq!(replays[0]["details"]["other_body"], true);
    assert_eq!(
        replays[0]["details"]["would_catch"],
        json!(["fingerprint_check"])
    );
    assert!(replays[0]["details"].get("guard").is_none());
    lab.advance_ms(&id, 60_000).await;
    let (d, verdict) = meter(&lab, &id).await;
    assert_eq!((d.debits, d.double_charges, d.credits), (1, 0, 1));
    assert_eq!(d.wrong_replays, 1, "seed {SEED}");
    assert_eq!(verdict, Verdict::EffectTwice, "{d:?}");
    // The same body again is a true replay, caught, and adds nothing.
    let retry = lab.send(&id, "k", pay(500), None).await;
    assert_eq!((retry.status, retry.replayed), (201, true));
    let replays = lab.events_of(&id, "response_replayed").await;
    assert_eq!(replays[1]["outcome"], "caught");
    assert_eq!(meter(&lab, &id).await.0.wrong_replays, 1);
    replays_to_the_same_log(&lab, &id).await;
}

/// With the fingerprint check on nothing changes: the other body is refused with 422.
#[tokio::test]
async fn with_the_fingerprint_the_other_body_is_refused_and_nothing_is_wrong() {
    let lab = TestLab::in_process().await;
    let id = load_paused(&lab, 4, Variant::Guarded).await;
    assert_eq!(lab.send(&id, "k", pay(500), None).await.status, 201);
    assert_eq!(lab.send(&id, "k", pay(5_000), None).await.status, 422);
    lab.advance_ms(&id, 60_000).await;
    let (d, verdict) = meter(&lab, &id).await;
    assert_eq!(d.wrong_replays, 0);
    assert_eq!(verdict, Verdict::ExactlyOnce, "{d:?}");
}

/// Scenario 5 without recovery: the instance dies after its claim, and the key answers 409
/// for as long as the window lasts. Nothing moved, yet the meter says stuck.
#[tokio::test]
async fn a_crashed_claim_without_recovery_is_a_stuck_key() {
    let lab = TestLab::in_process().await;
    let id = load_paused(&lab, 5, Variant::Unguarded).await;
    assert_eq!(lab.send(&id, "k", pay(500), None).await.status, 504);
    let (d, verdict) = meter(&lab, &id).await;
    assert_eq!((d.stuck_keys, d.debits), (1, 0), "seed {SEED}");
    assert_eq!(verdict, Verdict::Stuck);
    lab.advance_ms(&id, 3_600_000).await;
    assert_eq!(lab.send(&id, "k", pay(500), None).await.status, 409);
    assert_eq!(meter(&lab, &id).await.1, Verdict::Stuck);
    // Recovery switched on settles it: the key is released and nothing is stuck any more.
    lab.safeguards(&id, json!({"stuck_recovery": true})).await;
    lab.advance_ms(&id, 1_000).await;
    let (d, verdict) = meter(&lab, &id).await;
    assert_eq!(d.stuck_keys, 0);
    assert_eq!(verdict, Verdict::NothingMoved, "{d:?}");
}

/// A key IN_PROGRESS whose instance is still working (a slow gateway) is not stuck, even with
/// recovery off; neither is one recovery will settle.
#[tokio::test]
async fn a_claim_still_completing_or_to_be_recovered_is_not_stuck() {
    let lab = TestLab::in_process().await;
    let id = lab.sandbox(SEED).await;
    lab.safeguards(&id, json!({"stuck_recovery": false})).await;
    lab.faults(&id, json!({"gateway_latency_ms": 20_000})).await;
    let call = lab.transfer(&id, "slow", pay(500), None);
    lab.wait_for_transfers(&id, 1).await;
    lab.advance_ms(&id, 5_000).await;
    let s = lab.state(&id).await;
    assert_eq!(
        s["tables"]["payments.idempotency_keys"][0]["status"],
        "IN_PROGRESS"
    );
    assert_eq!(s["damage"]["stuck_keys"], 0, "seed {SEED}");
    lab.advance_ms(&id, 60_000).await;
    assert_eq!(
        call.await.unwrap().status,
        504,
        "the phone gave up at its timeout"
    );
    assert_eq!(meter(&lab, &id).await.0.stuck_keys, 0);

    // Recovery on: a crashed claim waits for its check, never stuck.
    let id = load_paused(&lab, 5, Variant::Guarded).await;
    assert_eq!(lab.send(&id, "k", pay(500), None).await.status, 504);
    assert_eq!(meter(&lab, &id).await.0.stuck_keys, 0);
}

/// Scenario 9 with every guard on: the fraud check dies before its commit and approves the
/// event again after its restart. The transaction undoes the broker's side, not the audit row
/// outside it: the money is right and the meter says an effect happened twice.
#[tokio::test]
async fn a_second_fraud_approval_is_an_effect_twice_with_every_guard_on() {
    let lab = TestLab::in_process().await;
    let id = load_paused(&lab, 9, Variant::Guarded).await;
    let a = lab.send(&id, "k", pay(500), None).await;
    assert_eq!(a.status, 201);
    lab.advance_ms(&id, 60_000).await;
    let (d, verdict) = meter(&lab, &id).await;
    assert_eq!(
        (
            d.debits,
            d.credits,
            d.double_credits,
            d.lost_events,
            d.money_created
        ),
        (1, 1, 0, 0, 0),
        "seed {SEED}"
    );
    assert!(d.duplicate_approvals >= 1, "{d:?}");
    assert_eq!(verdict, Verdict::EffectTwice, "{d:?}");
    let approvals = lab.events_of(&id, "fraud_approved").await;
    assert!(approvals.iter().any(|e| e["outcome"] == "escaped"));
}

/// Scenario 10 with both inboxes: the relay publishes the event twice, the wallet and the SMS
/// service each catch the copy, but the fraud check, which has no inbox, approves it again.
#[tokio::test]
async fn a_relay_resend_caught_by_both_inboxes_still_approves_twice() {
    let lab = TestLab::in_process().await;
    let id = load_paused(&lab, 10, Variant::Guarded).await;
    assert_eq!(lab.send(&id, "k", pay(500), None).await.status, 201);
    lab.advance_ms(&id, 60_000).await;
    let (d, verdict) = meter(&lab, &id).await;
    assert_eq!(
        (
            d.credits,
            d.double_credits,
            d.sms,
            d.duplicate_sms,
            d.money_created
        ),
        (1, 0, 1, 0, 0),
        "seed {SEED}"
    );
    assert_eq!(d.duplicate_approvals, 1, "{d:?}");
    assert_eq!(verdict, Verdict::EffectTwice);
}
