//! The two languages say the same things: every message is in both locale files, and every
//! message the code asks for exists, whether it names it literally (`tr!("…")`, `tr_id("…")`,
//! `"ev-…"`) or builds it from an id of the shared vocabulary (`safeguard-{id}-catches`,
//! `layer-{id}`, `damage-{figure}` …). Run: `cargo test --features ssr --test locales`.

use std::collections::BTreeSet;
use std::path::Path;

use pocketpay_lab::app::error::FnError;
use pocketpay_lab::domain::course::CHAPTERS;
use pocketpay_lab::domain::explain::STATUS_WORDS;
use pocketpay_lab::domain::glossary::TERMS;
use pocketpay_lab::domain::natural::{Effect, NaturalOp, METHODS};
use pocketpay_lab::domain::quiz::QUESTIONS;
use pocketpay_lab::domain::realworld::NOTES;
use pocketpay_lab::domain::{CrashPoint, Damage, Layer, Outcome, Safeguard, Verdict};

/// Every message id of one language, over all its files (`main.ftl`, `course.ftl`,
/// `quiz.ftl` …); an id defined twice fails here, since Fluent would keep only one.
fn messages(lang: &str) -> BTreeSet<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("locales/{lang}"));
    let mut ids = BTreeSet::new();
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "ftl"))
        .collect();
    files.sort();
    assert!(files.len() >= 5, "{lang}: {files:?}");
    for path in files {
        for line in std::fs::read_to_string(&path).unwrap().lines() {
            let Some((id, _)) = line.split_once(" =") else {
                continue;
            };
            let ok = id
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
                && id.starts_with(|c: char| c.is_ascii_lowercase());
            if ok {
                assert!(ids.insert(id.to_owned()), "{lang}: {id} is defined twice");
            }
        }
    }
    ids
}

/// Every message id the code names as a literal.
fn literal_ids() -> BTreeSet<String> {
    let mut ids = BTreeSet::new();
    let mut stack = vec![Path::new(env!("CARGO_MANIFEST_DIR")).join("src/app")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            // A calculator's field names its label's id (`label="calc-transfers"`).
            for opener in [
                "tr!(\"",
                "tr_id(\"",
                "tr_args(\"",
                "tr_count(\"",
                "label=\"",
                "Problem::Local(\"",
            ] {
                for piece in text.split(opener).skip(1) {
                    if let Some(id) = piece.split('"').next() {
                        ids.insert(id.to_owned());
                    }
                }
            }
            for piece in text.split("\"ev-").skip(1) {
                if let Some(rest) = piece.split('"').next() {
                    if rest
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
                    {
                        ids.insert(format!("ev-{rest}"));
                    }
                }
            }
        }
    }
    ids
}

/// Every message id the code builds from an id of the shared vocabulary.
fn built_ids() -> BTreeSet<String> {
    let mut ids = BTreeSet::new();
    // Every kind of a server function's error has its sentence.
    ids.extend(FnError::MESSAGE_IDS.iter().map(|id| id.to_string()));
    for s in Safeguard::ALL {
        ids.insert(format!("safeguard-{}-name", s.id()));
        ids.insert(format!("safeguard-{}-catches", s.id()));
        ids.insert(format!("safeguard-{}-without", s.id()));
    }
    for l in Layer::ALL {
        ids.insert(format!("layer-{}", l.id()));
        ids.insert(format!("lane-short-{}", l.id()));
    }
    for o in Outcome::ALL {
        ids.insert(format!("outcome-{}", o.id()));
    }
    for c in CrashPoint::ALL {
        ids.insert(format!("crash-{}", c.id()));
    }
    let damage = serde_json::to_value(Damage::default()).unwrap();
    for figure in damage.as_object().unwrap().keys() {
        if figure == "money_in_flight" {
            continue; // read by the verdict's sentence, not a figure of its own
        }
        ids.insert(format!("damage-{figure}"));
        ids.insert(format!("damage-{figure}-means"));
    }
    for verdict in Verdict::ALL {
        ids.insert(format!("damage-verdict-{}", verdict.id()));
        ids.insert(format!("summary-{}", verdict.id()));
    }
    for chapter in CHAPTERS {
        let key = chapter.key();
        for part in ["title", "opening", "look", "why-title", "why", "cost"] {
            ids.insert(format!("{key}-{part}"));
        }
        for k in 1..=chapter.steps.len() {
            ids.insert(format!("{key}-step{k}"));
            ids.insert(format!("{key}-step{k}-try"));
        }
        // Each button that loads another preset beside the chapter's first.
        for load in chapter.more_loads() {
            ids.insert(load.label_id(&chapter));
        }
    }
    for op in NaturalOp::ALL {
        for id in [
            "natural-op-{}",
            "natural-{}-title",
            "natural-{}-what",
            "natural-{}-lesson",
        ] {
            ids.insert(id.replace("{}", op.id()));
        }
    }
    for effect in Effect::ALL {
        ids.insert(format!("natural-effect-{}", effect.id()));
    }
    for (method, _) in METHODS {
        ids.insert(format!("methods-{}", method.to_lowercase()));
    }
    for code in STATUS_WORDS {
        ids.insert(format!("status-{code}"));
    }
    ids.insert("status-other".to_owned());
    for q in QUESTIONS {
        for part in ["ask", "right", "wrong"] {
            ids.insert(format!("quiz-{}-{part}", q.id));
        }
        for o in 1..=q.options() {
            ids.insert(format!("quiz-{}-o{o}", q.id));
        }
    }
    // What the quiz says when an answer cannot be read.
    ids.insert("quiz-pick-first".to_owned());
    ids.insert("quiz-number-bad".to_owned());
    for t in TERMS {
        for part in ["term", "means", "where"] {
            ids.insert(format!("gloss-{}-{part}", t.id));
        }
    }
    for n in NOTES {
        ids.insert(format!("real-{}", n.id));
    }
    // The summary's path (`app/course/summary.rs`) and the seven points to remember.
    for stop in [
        "tap", "key", "api", "ledger", "outbox", "broker", "inbox", "sms",
    ] {
        ids.insert(format!("summary-stop-{stop}"));
        ids.insert(format!("summary-stop-{stop}-stops"));
    }
    for k in 1..=7 {
        ids.insert(format!("remember-{k}"));
    }
    // What each kind of event means (`explain-…`): the literals of `explain::meaning`.
    let explain = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("src/domain/explain.rs"),
    )
    .unwrap();
    let body = explain.split("fn meaning(").nth(1).unwrap();
    let body = body.split("\n}\n").next().unwrap();
    for piece in body.split("=> \"").skip(1) {
        ids.insert(format!("explain-{}", piece.split('"').next().unwrap()));
    }
    // The day page's table rows and chart measures (`app/course/day.rs`).
    for row in [
        "sent",
        "requests",
        "timeouts",
        "retries",
        "receipts",
        "given-up",
        "double-charges",
        "double-credits",
        "duplicate-sms",
        "lost-events",
        "tickets",
        "invariants",
    ] {
        ids.insert(format!("day-row-{row}"));
    }
    for measure in ["double_charges", "double_credits", "lost_events", "tickets"] {
        ids.insert(format!("day-measure-{measure}"));
    }
    for store in ["payments", "broker", "fraud", "wallet", "sms", "lab"] {
        ids.insert(format!("store-{store}"));
    }
    for fault in [
        "request_loss_pct",
        "response_loss_pct",
        "latency_ms",
        "phone_timeout_ms",
        "auto_retries",
        "retry_backoff_ms",
        "lb_retry",
        "gateway_latency_ms",
    ] {
        ids.insert(format!("fault-{fault}"));
        ids.insert(format!("fault-{fault}-hint"));
    }
    ids
}

#[test]
fn both_languages_have_the_same_messages() {
    let (bn, en) = (messages("bn"), messages("en"));
    assert!(bn.len() > 200, "{} Bangla messages", bn.len());
    let only_bn: Vec<_> = bn.difference(&en).collect();
    let only_en: Vec<_> = en.difference(&bn).collect();
    assert!(
        only_bn.is_empty() && only_en.is_empty(),
        "only in Bangla: {only_bn:?}; only in English: {only_en:?}"
    );
}

#[test]
fn every_message_the_code_asks_for_exists_in_both_languages() {
    let (bn, en) = (messages("bn"), messages("en"));
    let wanted: BTreeSet<String> = literal_ids().union(&built_ids()).cloned().collect();
    assert!(wanted.len() > 150, "only {} ids found", wanted.len());
    let missing: Vec<String> = wanted
        .iter()
        .filter(|id| !bn.contains(*id) || !en.contains(*id))
        .cloned()
        .collect();
    assert!(missing.is_empty(), "asked for but missing: {missing:?}");
}

/// The text of one message in one language, searched over all its files (one-line messages).
fn text(lang: &str, id: &str) -> String {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("locales/{lang}"));
    for entry in std::fs::read_dir(&dir).unwrap() {
        let body = std::fs::read_to_string(entry.unwrap().path()).unwrap();
        if let Some(line) = body
            .lines()
            .find_map(|l| l.strip_prefix(&format!("{id} = ")))
        {
            return line.to_owned();
        }
    }
    panic!("{lang}: no message {id}");
}

/// Chapter 04 and its quiz tell what the lab's tables show: past the window the old row is
/// ignored, its day's partition goes later, and the partition day is part of the key.
#[test]
fn chapter_04_says_a_late_key_is_ignored_before_its_day_is_dropped() {
    for lang in ["bn", "en"] {
        let look = text(lang, "ch04-look");
        assert!(look.contains("TXN-88412"), "{lang}: day 1's row stays");
        assert!(
            look.contains("(partition_day, user_id, idem_key)"),
            "{lang}: the key twice, by its primary key"
        );
        assert!(
            text(lang, "ch04-why").contains("PostgreSQL"),
            "{lang}: why the day is in the key"
        );
        assert!(
            text(lang, "quiz-late_retry_balance-right").contains("partition"),
            "{lang}: the row is still in its partition"
        );
    }
}

/// The calculators' words agree with their figures: the tickets share the day page names is
/// the calculator's, PocketPay's day is measured in rows against the run's own, and the lab's
/// 5 s timeout is set beside the lesson's 15 s.
#[test]
fn the_calculators_and_the_timeout_say_what_the_figures_are() {
    use pocketpay_lab::domain::calc::Tickets;
    let bangla = |s: &str| -> String {
        s.chars()
            .map(|c| match c.to_digit(10) {
                Some(d) => char::from_u32(0x09E6 + d).unwrap(),
                None => c,
            })
            .collect()
    };
    let per_ticket = Tickets::default().charges_per_ticket.to_string();
    for (lang, n) in [("en", per_ticket.clone()), ("bn", bangla(&per_ticket))] {
        for id in ["day-row-tickets", "day-assume-ticket", "calc-tickets-note"] {
            assert!(text(lang, id).contains(&n), "{lang}: {id} names 1 in {n}");
        }
        assert!(
            text(lang, "calc-drop-scale").contains("{ $scale }"),
            "{lang}: the scale is the measured run's"
        );
        let fifteen = if lang == "en" { "15" } else { "১৫" };
        for id in ["ch01-step2", "fault-phone_timeout_ms-hint"] {
            assert!(text(lang, id).contains(fifteen), "{lang}: {id}");
        }
    }
    assert!(!text("en", "calc-drop-note").contains("thousand"));
}
