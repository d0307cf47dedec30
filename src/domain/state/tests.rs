//! The tests of `state`.

use serde_json::json;

#[test]
fn every_figure_is_read_by_its_json_name() {
    let d = Damage {
        intents: 1,
        debits: 2,
        double_charges: 3,
        credits: 4,
        double_credits: 5,
        sms: 6,
        duplicate_sms: 7,
        lost_events: 8,
        in_flight: 9,
        money_in_flight: 10,
        money_created: 11,
        support_tickets: 12,
        duplicate_approvals: 13,
        wrong_replays: 14,
        stuck_keys: 15,
    };
    let json = serde_json::to_value(&d).unwrap();
    for (id, value) in json.as_object().unwrap() {
        assert_eq!(d.figure(id), value.as_i64(), "{id}");
    }
    assert_eq!(d.figure("nothing"), None);
    for id in Damage::SHOWN {
        assert!(d.figure(id).is_some(), "{id}");
    }
}

#[test]
fn harm_is_a_copy_or_a_loss_and_money_on_its_way_is_not() {
    let calm = Damage {
        intents: 1,
        debits: 1,
        in_flight: 1,
        money_in_flight: 500,
        money_created: -500,
        ..Damage::default()
    };
    assert!(!calm.harmed());
    let twice = Damage {
        double_charges: 1,
        ..calm.clone()
    };
    assert!(twice.harm("double_charges") && twice.harmed());
    assert!(!twice.harm("debits"));
}

/// One transfer that went through once: debited, credited, texted, approved.
fn once() -> Damage {
    Damage {
        intents: 1,
        debits: 1,
        credits: 1,
        sms: 1,
        ..Damage::default()
    }
}

#[test]
fn the_verdict_names_the_worst_thing_that_happened() {
    assert_eq!(Damage::default().verdict(), Verdict::NothingMoved);
    let unanswered = Damage {
        intents: 2,
        ..Damage::default()
    };
    assert_eq!(unanswered.verdict(), Verdict::NothingMoved, "nothing moved");
    assert_eq!(once().verdict(), Verdict::ExactlyOnce);
    let on_its_way = Damage {
        credits: 0,
        in_flight: 1,
        money_in_flight: 500,
        money_created: -500,
        ..once()
    };
    assert_eq!(on_its_way.verdict(), Verdict::InFlight);
    assert!(!on_its_way.harmed());

    // Each harm on its own, with its verdict.
    let stuck = Damage {
        stuck_keys: 1,
        ..on_its_way.clone()
    };
    assert_eq!(stuck.verdict(), Verdict::Stuck, "stuck outranks in flight");
    for figure in ["duplicate_sms", "duplicate_approvals", "wrong_replays"] {
        let mut d = Damage {
            stuck_keys: 1,
            ..once()
        };
        let json = serde_json::to_value(&d).unwrap();
        let mut json = json.as_object().unwrap().clone();
        json.insert(figure.into(), 1.into());
        d = serde_json::from_value(json.into()).unwrap();
        assert_eq!(d.verdict(), Verdict::EffectTwice, "{figure} outranks stuck");
        assert!(d.harm(figure) && d.harmed(), "{figure}");
    }
    let money = [
        Damage {
            double_charges: 1,
            debits: 2,
            money_created: -500,
            ..once()
        },
        Damage {
            double_credits: 1,
            credits: 2,
            money_created: 500,
            ..once()
        },
        Damage {
            lost_events: 1,
            credits: 0,
            money_created: -500,
            ..once()
        },
    ];
    for d in money {
        let d = Damage {
            duplicate_approvals: 1,
            wrong_replays: 1,
            stuck_keys: 1,
            in_flight: 1,
            ..d
        };
        assert_eq!(d.verdict(), Verdict::MoneyWrong, "{d:?}");
    }
}

#[test]
fn verdicts_are_ranked_worst_first_and_the_first_three_are_harm() {
    let mut sorted = Verdict::ALL;
    sorted.sort();
    assert_eq!(sorted, Verdict::ALL);
    let harm: Vec<_> = Verdict::ALL.iter().filter(|v| v.is_harm()).collect();
    assert_eq!(
        harm,
        [&Verdict::MoneyWrong, &Verdict::EffectTwice, &Verdict::Stuck]
    );
    let ids: std::collections::BTreeSet<_> = Verdict::ALL.iter().map(|v| v.id()).collect();
    assert_eq!(ids.len(), Verdict::ALL.len());
}

#[test]
fn an_older_meter_without_the_new_figures_still_reads() {
    let old = json!({"intents": 1, "debits": 1, "double_charges": 0, "credits": 1,
        "double_credits": 0, "sms": 1, "duplicate_sms": 0, "lost_events": 0,
        "money_created": 0, "support_tickets": 0});
    let d: Damage = serde_json::from_value(old).unwrap();
    assert_eq!(d, once());
    assert_eq!(d.verdict(), Verdict::ExactlyOnce);
}

use super::*;
use crate::domain::{Safeguard, SafeguardValue};

#[test]
fn a_reset_the_first_state_came_after_is_no_news_when_the_stream_replays_it() {
    // The page opened after a reset (event 7) and three more events.
    let opened = state_with_log(vec![
        json!({"id": 7, "kind": "sandbox_reset"}),
        json!({"id": 8, "kind": "safeguards_changed"}),
        json!({"id": 10, "kind": "clock_changed"}),
    ]);
    assert_eq!(opened.last_event_id(), 10);
    assert_eq!(opened.last_reset_id(), Some(7));
    let mut mark = ResetMark::reflecting(&opened);
    assert!(
        !mark.take(7),
        "the replayed reset is the one the page opened after"
    );
    assert!(mark.take(11), "a reset after the page opened is news");
    assert!(
        !mark.take(11),
        "and news once: the stream and the button both report it"
    );
    assert!(mark.take(12));
}

#[test]
fn a_page_with_an_empty_log_takes_any_reset_as_news() {
    let mut mark = ResetMark::reflecting(&state_with_log(vec![]));
    assert_eq!(state_with_log(vec![]).last_reset_id(), None);
    assert!(mark.take(1));
}

#[test]
fn a_reset_puts_every_setting_back_to_its_default() {
    let mut s = state_with_log(vec![]);
    s.safeguards = s.safeguards.apply(
        &crate::domain::typed::read_body(
            &json!({"key_persistence": false, "ledger_unique": false}),
        )
        .unwrap(),
    );
    s.faults = s
        .faults
        .apply(&crate::domain::typed::read_body(&json!({"response_loss_pct": 100})).unwrap());
    s.balances.payments.insert("shimul".into(), 1_500);
    s.settle_reset();
    assert_eq!(
        s.safeguards.get(Safeguard::KeyPersistence),
        SafeguardValue::On(true)
    );
    assert_eq!(s.safeguards, Safeguards::default());
    assert_eq!(s.faults, Faults::default());
    assert_eq!(
        s.balances.payments["shimul"], 1_500,
        "balances wait for a read"
    );
}

/// One table changed at random, its changes sent as the server sends them (the changed
/// rows in view, each as it is now, and the rowids in view), taken in by a copy:
/// after every batch the copy equals a fresh read (`keep` rows), or says it must read
/// again. Some rows are replaced as `INSERT OR REPLACE` does: the old rowid leaves unseen.
#[test]
fn changes_taken_in_match_a_fresh_read() {
    use std::collections::BTreeSet;
    let keep = 5usize;
    let read = |table: &BTreeMap<i64, serde_json::Value>, version: u64| {
        let newest: Vec<(&i64, &serde_json::Value)> = table.iter().rev().take(keep).rev().collect();
        let mut s = state_with_log(vec![]);
        s.tables = BTreeMap::from([("t".to_owned(), newest.iter().map(|r| r.1.clone()).collect())]);
        s.rowids = json!({ "t": newest.iter().map(|r| *r.0).collect::<Vec<_>>() });
        s.version = version;
        s
    };
    let mut reads = 0;
    for seed in 1..=60u64 {
        let mut rng = seed;
        let mut next = move |n: u64| {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng % n
        };
        let mut table = BTreeMap::new();
        let mut next_id = 1;
        let mut copy = read(&table, 0);
        for version in 1..150u64 {
            let mut changed = BTreeSet::new();
            for _ in 0..next(6) {
                let existing: Vec<i64> = table.keys().copied().collect();
                let op = if existing.is_empty() { 0 } else { next(3) };
                let id = if op == 0 {
                    next_id += 1;
                    next_id
                } else {
                    existing[next(existing.len() as u64) as usize]
                };
                if op == 2 {
                    table.remove(&id);
                } else if op == 1 && next(4) == 0 {
                    // Replaced: the old row goes without a word, the new one takes a new id.
                    table.remove(&id);
                    next_id += 1;
                    table.insert(next_id, json!({ "id": next_id, "v": version }));
                    changed.insert(next_id);
                    continue;
                } else {
                    table.insert(id, json!({ "id": id, "v": version }));
                }
                changed.insert(id);
            }
            if changed.is_empty() {
                continue;
            }
            // As the server sends them: the changed rows in view, and the view.
            let fresh = read(&table, version);
            let in_view = &ints(fresh.rowids.get("t"));
            let (ids, rows): (Vec<i64>, Vec<serde_json::Value>) = in_view
                .iter()
                .filter(|id| changed.contains(id))
                .map(|id| (*id, table[id].clone()))
                .unzip();
            let mut now = fresh.clone();
            now.tables = BTreeMap::from([("t".to_owned(), rows)]);
            now.rowids = json!({ "t": ids });
            let delta = StateDelta {
                from: version - 1,
                changed: now,
                window: json!({ "t": runs(in_view) }),
            };
            if !copy.apply(&delta) {
                reads += 1;
                copy = read(&table, version);
            }
            assert_eq!(copy, fresh, "seed {seed}, version {version}");
        }
    }
    // Most batches are taken in without a read.
    assert!(reads < 60 * 149 / 3, "{reads} reads");
}
