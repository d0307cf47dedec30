//! The newest timeline events as a list, newest first: what just happened, on which lane.

use leptos::prelude::*;

use super::stream::LabStream;
use crate::app::format::{bn_digits, clock_text, event_time_text};
use crate::domain::{EventKind, Layer, Outcome, TimelineEvent};

#[component]
pub fn EventList(live: LabStream) -> impl IntoView {
    let events = live.events;
    view! {
        <section class="panel events" aria-labelledby="events-title">
            <h2 id="events-title">"Timeline — সাম্প্রতিক ঘটনা"</h2>
            <p class="hint">
                {move || if live.connected.get() { "সার্ভারের সঙ্গে সরাসরি যুক্ত" } else { "সংযোগের অপেক্ষায়…" }}
            </p>
            <ol class="event-list" data-testid="timeline" aria-live="polite">
                <For
                    each=move || events.get().into_iter().rev()
                    key=|e| e.id
                    children=move |e| view! { <EventRow event=e /> }
                />
            </ol>
            <Show when=move || events.with(Vec::is_empty)>
                <p class="hint">"এখনও কোনো ঘটনা আসেনি।"</p>
            </Show>
        </section>
    }
}

#[component]
fn EventRow(event: TimelineEvent) -> impl IntoView {
    let text = describe(&event);
    view! {
        <li
            class=format!("event outcome-{}", event.outcome.id())
            data-testid="timeline-event"
            data-event-id=event.id
            data-layer=event.layer.id()
            data-outcome=event.outcome.id()
            data-kind=event.kind.id()
            data-at-ms=event.at_ms
        >
            <span class="event-time">{event_time_text(event.at_ms)}</span>
            <span class="event-lane">{lane_name(event.layer)}</span>
            <span class="event-text">{text}</span>
            <span class="event-outcome">{outcome_name(event.outcome)}</span>
        </li>
    }
}

fn lane_name(layer: Layer) -> &'static str {
    match layer {
        Layer::Button => "Send বোতাম",
        Layer::App => "অ্যাপ",
        Layer::Network => "নেটওয়ার্ক",
        Layer::LoadBalancer => "load balancer",
        Layer::Api => "payment API",
        Layer::Ledger => "ledger",
        Layer::Outbox => "outbox",
        Layer::Relay => "relay",
        Layer::Broker => "broker",
        Layer::Fraud => "fraud check",
        Layer::Wallet => "wallet",
        Layer::Sms => "SMS",
        Layer::Jobs => "jobs",
        Layer::Lab => "ল্যাব",
    }
}

fn outcome_name(outcome: Outcome) -> &'static str {
    match outcome {
        Outcome::Ok => "ঠিক আছে",
        Outcome::Caught => "ধরা পড়েছে",
        Outcome::Escaped => "ফসকে গেছে",
        Outcome::Lost => "হারিয়ে গেছে",
        Outcome::Unknown => "অজানা",
    }
}

/// A settings change as `atomic_claim বন্ধ, window_hours = 24, crash.api_after_claim = once`.
fn settings(details: &serde_json::Value) -> String {
    fn walk(prefix: &str, value: &serde_json::Value, out: &mut Vec<String>) {
        match value {
            serde_json::Value::Object(map) => {
                for (k, v) in map {
                    let name = if prefix.is_empty() {
                        k.clone()
                    } else {
                        format!("{prefix}.{k}")
                    };
                    walk(&name, v, out);
                }
            }
            serde_json::Value::Bool(true) => out.push(format!("{prefix} চালু")),
            serde_json::Value::Bool(false) => out.push(format!("{prefix} বন্ধ")),
            serde_json::Value::String(s) => out.push(format!("{prefix} = {s}")),
            other => out.push(format!("{prefix} = {other}")),
        }
    }
    let mut out = Vec::new();
    walk("", details, &mut out);
    out.join(", ")
}

fn describe(e: &TimelineEvent) -> String {
    let n = |key: &str| e.details.get(key).and_then(|v| v.as_i64()).unwrap_or(0);
    let word = |key: &str| {
        e.details
            .get(key)
            .and_then(|v| v.as_str())
            .unwrap_or_default()
            .to_owned()
    };
    let text = match e.kind {
        EventKind::SandboxCreated => "নতুন sandbox তৈরি হলো".to_owned(),
        EventKind::SandboxReset => "sandbox শুরুর অবস্থায় ফিরল".to_owned(),
        EventKind::SafeguardsChanged => format!("safeguard বদলানো হলো: {}", settings(&e.details)),
        EventKind::FaultsChanged => format!("fault বদলানো হলো: {}", settings(&e.details)),
        EventKind::ClockChanged => match e.details.get("mode").and_then(|m| m.as_str()) {
            Some("paused") => "ঘড়ি থামানো হলো".to_owned(),
            Some(_) => "ঘড়ি আবার চলছে".to_owned(),
            None => format!("ঘড়ির গতি এখন ×{}", e.details["speed"]),
        },
        EventKind::ClockStepped => format!("এক ধাপ চালানো হলো ({} পর্যন্ত)", clock_text(n("to_ms"))),
        EventKind::ClockJumped => format!("ঘড়ি এগিয়ে গেল {} পর্যন্ত", clock_text(n("to_ms"))),
        EventKind::InboxCleaned => {
            let d = &e.details["deleted"];
            format!(
                "inbox cleaner: {} ঘণ্টার পুরোনো সারি মুছল (wallet {}, SMS {})",
                n("window_hours"),
                d["wallet"].as_i64().unwrap_or(0),
                d["sms"].as_i64().unwrap_or(0)
            )
        }
        EventKind::LogRetentionApplied => {
            format!("log retention: {}টি পুরোনো record মুছল", n("deleted"))
        }
        EventKind::RequestSent => format!("৳{} পাঠানোর request রওনা হলো", n("amount")),
        EventKind::RequestLost => "নেটওয়ার্কে request হারিয়ে গেল".to_owned(),
        EventKind::LbRouted => format!("load balancer পাঠাল instance {}-এ", n("instance")),
        EventKind::LbRetried => format!(
            "instance সাড়া দেয়নি; load balancer আবার পাঠাল (চেষ্টা {})",
            n("attempt")
        ),
        EventKind::LbGaveUp => "কোনো instance সাড়া দেয়নি: load balancer 504 দিল".to_owned(),
        EventKind::LbLateAnswerDropped => "দেরিতে আসা উত্তর load balancer ফেলে দিল".to_owned(),
        EventKind::KeyClaimed => "key claim হলো: IN_PROGRESS সারি commit".to_owned(),
        EventKind::KeyLookupEmpty => {
            "look-up-এ কিছু নেই (লেখা হবে কাজের পরে: look-then-write)".to_owned()
        }
        EventKind::KeyNotChecked => "idempotency table বন্ধ: যা আসে তা-ই চলে".to_owned(),
        EventKind::KeyInProgress => "একই key এখনও চলছে: 409".to_owned(),
        EventKind::ResponseReplayed => format!("আগের উত্তর হুবহু ফেরত গেল ({})", n("status")),
        EventKind::KeyReused => "একই key, অন্য body: 422".to_owned(),
        EventKind::Debited => format!(
            "৳{} কাটা হলো, {}{}",
            n("amount"),
            word("txn"),
            if e.outcome == Outcome::Escaped {
                " — দ্বিতীয়বার!"
            } else {
                ""
            }
        ),
        EventKind::LedgerDuplicate => "ledger-এর UNIQUE(transfer_id) দ্বিতীয় debit আটকাল".to_owned(),
        EventKind::InsufficientFunds => format!("ব্যালান্স ৳{}, যথেষ্ট নয়: 422", n("balance")),
        EventKind::InstanceCrashed => format!("instance ক্র্যাশ করল ({})", word("crash")),
        EventKind::ResponseLost => "ফেরার পথে উত্তর হারিয়ে গেল".to_owned(),
        EventKind::ResponseDelivered => format!("উত্তর পৌঁছাল: {}", n("status")),
        EventKind::ResponseTooLate => "উত্তর এল, কিন্তু ফোন আগেই হাল ছেড়েছে".to_owned(),
        EventKind::CallerTimedOut => "সময় শেষ: ফোন জানে না টাকা গেছে কি না".to_owned(),
        EventKind::StuckKeyCompleted => format!(
            "আটকে থাকা key: ledger-এ debit আছে, সম্পূর্ণ করা হলো ({})",
            word("txn")
        ),
        EventKind::StuckKeyReleased => "আটকে থাকা key: debit নেই, ছেড়ে দেওয়া হলো".to_owned(),
        EventKind::PartitionsDropped => format!(
            "রাতের কাজ: window-এর বাইরের partition মুছল ({}টি সারি)",
            n("rows")
        ),
        EventKind::OutboxWritten => "debit-এর একই transaction-এ outbox-এ event লেখা হলো".to_owned(),
        EventKind::EventPublished => format!("event log-এ প্রকাশ হলো ({})", word("by")),
        EventKind::EventLost => "commit-এর পরে প্রকাশের আগেই process মরল: event হারাল".to_owned(),
        EventKind::RelayCrashed => "relay প্রকাশ করে mark-sent-এর আগেই ক্র্যাশ করল".to_owned(),
        EventKind::RecordAppended => format!(
            "{} partition {}-এ offset {}",
            word("topic"),
            n("partition"),
            n("offset")
        ),
        EventKind::AckLost => "broker-এর ack হারাল: producer আবার পাঠাবে".to_owned(),
        EventKind::ResendDropped => "একই batch আবার এল: idempotent producer ফেলে দিল".to_owned(),
        EventKind::ResendAppended => format!("একই batch আবার লেখা হলো, offset {}", n("offset")),
        EventKind::FraudApproved => {
            format!("fraud check অনুমোদন দিল (audit সারি {})", n("audit_rows"))
        }
        EventKind::FraudCrashed => "fraud check লেখার পরে commit-এর আগেই ক্র্যাশ করল".to_owned(),
        EventKind::TransactionAborted => "আধা-শেষ transaction বাতিল হলো (নতুন epoch)".to_owned(),
        EventKind::Credited => format!(
            "তিথির wallet-এ ৳{} জমা{}",
            n("amount"),
            if e.outcome == Outcome::Escaped {
                " — আবার!"
            } else {
                ""
            }
        ),
        EventKind::SmsSent => format!(
            "SMS গেল: ৳{} পেয়েছেন{}",
            n("amount"),
            if e.outcome == Outcome::Escaped {
                " — আবার!"
            } else {
                ""
            }
        ),
        EventKind::InboxDuplicate => "inbox-এ এই event আগেই আছে: বাদ".to_owned(),
        EventKind::ConsumerCrashed => "local commit-এর পরে offset commit-এর আগেই ক্র্যাশ".to_owned(),
        EventKind::ReplayStarted => format!("{} আবার পড়া শুরু হলো (replay)", word("consumer")),
    };
    bn_digits(&text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn settings_changes_read_as_words() {
        assert_eq!(
            settings(&json!({"atomic_claim": false, "outbox": true, "window_hours": 24})),
            "atomic_claim বন্ধ, outbox চালু, window_hours = 24"
        );
        assert_eq!(
            settings(&json!({"crash": {"api_after_claim": "once", "relay_after_publish": 0.5}})),
            "crash.api_after_claim = once, crash.relay_after_publish = 0.5"
        );
    }
}
