//! The inspector: the live rows of every table of every store, grouped by the service that
//! owns them, read again after every burst of timeline events. A status is written out and
//! coloured; the broker's partitions also show their last stable offset (what a read_committed
//! reader may read up to), which the server reads from the whole log; the idempotency table
//! shows its daily partitions.

use std::collections::BTreeMap;

use crate::tr;
use leptos::prelude::*;

use super::rpc::ROWS_PER_TABLE;
use super::stream::{LabStream, View};
use super::wide::open_when_wide;
use crate::app::format::event_time_text;
use crate::app::i18n::{digits, num, tr_args, tr_id};
use crate::domain::transfer::{CLAIM_READ_SQL, CLAIM_SQL};

/// The stores in the order a transfer meets them.
const STORES: [&str; 6] = ["payments", "broker", "fraud", "wallet", "sms", "lab"];

/// Tables open when the screen first shows: where duplicates are caught or born. The fraud
/// check's audit is opened by the student when chapter 07 asks for it.
const OPEN_AT_START: [&str; 7] = [
    "payments.idempotency_keys",
    "payments.ledger",
    "payments.outbox",
    "broker.partitions",
    "wallet.credits",
    "wallet.inbox",
    "sms.inbox",
];

/// Rows shown before "show all".
const FIRST_ROWS: usize = 10;

#[component]
pub fn Inspector(live: LabStream) -> impl IntoView {
    let state = live.shown();
    let view = live.view;
    let fold = NodeRef::<leptos::html::Details>::new();
    open_when_wide(fold);
    // A rewind from the timeline shows its tables here: open them.
    Effect::new(move |_| {
        if view.get() != View::Now {
            if let Some(el) = fold.get() {
                el.set_open(true);
            }
        }
    });
    view! {
        <section class="panel inspector" aria-labelledby="inspector-title" data-testid="inspector">
            <details class="fold" node_ref=fold>
            <summary>
                <h2 id="inspector-title">{move || tr!("inspector-title")}</h2>
                <span class="hint fold-hint">{move || tr!("inspector-open")}</span>
            </summary>
            <p class="hint">{move || tr!("inspector-hint", { "rows" => num(ROWS_PER_TABLE) })}</p>
            <div class="rewound" data-testid="inspector-view" data-view=move || match view.get() {
                View::Now => "now",
                View::Loading(_) => "loading",
                View::At(..) => "past",
                View::Failed(..) => "failed",
            } role="status" aria-live="polite">
                {move || match view.get() {
                    View::Now => None,
                    View::Loading(id) => Some(view! {
                        <p class="pending"><span class="spinner" aria-hidden="true"></span>
                            {move || tr!("rewind-loading", { "event" => digits(&id.to_string()) })}</p>
                    }.into_any()),
                    View::At(id, past) => {
                        let at = past.clock.now_ms;
                        Some(view! {
                            <p class="past-banner">
                                {move || tr!("rewind-showing", { "event" => digits(&id.to_string()), "time" => event_time_text(at) })}
                                " "
                                <button type="button" on:click=move |_| view.set(View::Now)>{move || tr!("rewind-back")}</button>
                            </p>
                        }.into_any())
                    }
                    View::Failed(_, e) => Some(view! { <p class="error">{move || e.text()}</p> }.into_any()),
                }}
            </div>
            {STORES
                .into_iter()
                .map(|store| {
                    let live = live.clone();
                    let tables = move || {
                        state.with(|s| {
                            s.tables
                                .keys()
                                .filter(|k| k.split('.').next() == Some(store))
                                .cloned()
                                .collect::<Vec<_>>()
                        })
                    };
                    view! {
                        <section class="store" data-store=store>
                            <h3>{move || tr_id(&format!("store-{store}"))}</h3>
                            {(store == "payments").then(|| view! { <ClaimStatement /> })}
                            <For each=tables key=|t| t.clone() children={
                                let live = live.clone();
                                move |t| view! { <TableView live=live.clone() name=t /> }
                            } />
                        </section>
                    }
                })
                .collect_view()}
            </details>
        </section>
    }
}

/// The atomic claim's SQL, the very text the payment API runs: the INSERT that decides, then
/// the read of what won.
#[component]
fn ClaimStatement() -> impl IntoView {
    view! {
        <details class="claim" data-testid="claim-sql">
            <summary>{move || tr!("claim-title")}</summary>
            <pre><code>{CLAIM_SQL}</code></pre>
            <pre><code>{CLAIM_READ_SQL}</code></pre>
            <p class="hint">{move || tr!("claim-hint")}</p>
        </details>
    }
}

/// Reads best whole: one table: its header, its rows and the mark on changed rows read the same
/// table signal.
#[component]
fn TableView(live: LabStream, name: String) -> impl IntoView {
    let state = live.shown();
    let open = RwSignal::new(OPEN_AT_START.contains(&name.as_str()));
    let show_all = RwSignal::new(false);
    let key = StoredValue::new(name.clone());
    // What the open table shows: its columns, its newest rows (or all of them) and how many
    // there are. A memo, so a state read that left this table as it was draws nothing again;
    // read only while the table is open.
    let shown_rows = Memo::new(move |_| {
        let all = show_all.get();
        key.with_value(|name| {
            state.with(|s| {
                let rows = s.tables.get(name).map_or(&[][..], Vec::as_slice);
                let total = rows.len();
                let from = if all {
                    0
                } else {
                    total.saturating_sub(FIRST_ROWS)
                };
                (columns(rows), rows[from..].to_vec(), total)
            })
        })
    });
    let count =
        move || key.with_value(|name| state.with(|s| s.tables.get(name).map_or(0, Vec::len)));
    let summary_extra = move || {
        let name = key.get_value();
        (name == "payments.idempotency_keys")
            .then(|| state.with(|s| partition_summary(s.tables.get(&name))))
            .flatten()
    };
    let short = name
        .split_once('.')
        .map_or(name.clone(), |(_, t)| t.to_owned());
    // Opening a table is looking at it: a chapter's step may ask for that (`context::Looks`).
    let looks = super::context::Looks::here();
    view! {
        <details
            class="table"
            data-table=name.clone()
            data-testid=format!("table-{name}")
            prop:open=move || open.get()
            on:toggle=move |ev| {
                let now = event_target::<leptos::web_sys::Element>(&ev).has_attribute("open");
                if now {
                    if let Some(l) = looks {
                        key.with_value(|name| l.saw(&format!("table-{name}")));
                    }
                }
                open.set(now)
            }
        >
            <summary>
                <code>{short}</code>
                " "
                <span class="hint" data-testid="table-rows">{move || tr!("table-rows", { "n" => count() as i64, "count" => num(count() as i64) })}</span>
                {move || summary_extra().map(|s| view! { <span class="hint">" · " {s}</span> })}
            </summary>
            {move || open.get().then(|| {
                let (columns, shown, total) = shown_rows.get();
                if total == 0 {
                    return view! { <p class="hint">{move || tr!("table-empty")}</p> }.into_any();
                }
                let hidden = total - shown.len();
                view! {
                    <div class="table-scroll" tabindex="0" role="region" aria-label=key.get_value()>
                        <table>
                            <thead>
                                <tr>{columns.iter().map(|c| view! { <th scope="col">{c.clone()}</th> }).collect_view()}</tr>
                            </thead>
                            <tbody>
                                {shown.into_iter().rev().map(|row| {
                                    let cells = columns.iter().map(|c| cell(c, &row[c.as_str()])).collect_view();
                                    view! { <tr>{cells}</tr> }
                                }).collect_view()}
                            </tbody>
                        </table>
                    </div>
                    {(hidden > 0).then(|| view! {
                        <button type="button" class="linkish" on:click=move |_| show_all.set(true)>
                            {move || tr!("table-show-all", { "n" => total as i64, "count" => num(total as i64) })}
                        </button>
                    })}
                }
                .into_any()
            })}
        </details>
    }
}

/// The columns of a table, in the order the first row has them.
fn columns(rows: &[serde_json::Value]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for row in rows.iter().take(1).chain(rows.iter().skip(1)) {
        if let Some(map) = row.as_object() {
            for k in map.keys() {
                if !out.contains(k) {
                    out.push(k.clone());
                }
            }
        }
    }
    out
}

fn cell(column: &str, value: &serde_json::Value) -> AnyView {
    let text = match value {
        serde_json::Value::Null => "NULL".to_owned(),
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    match (column, text.as_str()) {
        ("status" | "state", "IN_PROGRESS" | "COMPLETED" | "ONGOING" | "COMMITTED" | "ABORTED") => {
            let class = format!("status status-{}", text.to_lowercase());
            view! { <td><span class=class>{text}</span></td> }.into_any()
        }
        ("last_stable_offset", _) => view! { <td class="lso">{text}</td> }.into_any(),
        _ => {
            let long = text.chars().count() > 40;
            let title = long.then(|| text.clone());
            view! { <td class:long=long title=title>{text}</td> }.into_any()
        }
    }
}

/// `partitions: day 1 (3), day 2 (1)` for the idempotency table.
fn partition_summary(rows: Option<&Vec<serde_json::Value>>) -> Option<String> {
    let mut days: BTreeMap<i64, i64> = BTreeMap::new();
    for r in rows? {
        if let Some(d) = r["partition_day"].as_i64() {
            *days.entry(d).or_default() += 1;
        }
    }
    if days.is_empty() {
        return None;
    }
    let list = days
        .into_iter()
        .map(|(d, n)| digits(&format!("{} ({n})", d + 1)))
        .collect::<Vec<_>>()
        .join(", ");
    Some(tr_args("table-partitions", &[("list", list)]))
}
