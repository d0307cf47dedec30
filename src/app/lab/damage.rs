//! The damage meter: what the duplicates cost, every figure derived from the stores by the
//! server (ARCHITECTURE.md, "After the debit"), each with one line on what it means. Money
//! still on its way (a debit whose event waits in the outbox or the log) is shown as in flight,
//! not as damage: the meter is calm during every correct transfer.

use leptos::prelude::*;
use leptos_fluent::tr;

use super::stream::LabStream;
use crate::app::i18n::{num, taka, tr_id};
use crate::domain::Damage;

/// One figure: its id (the JSON field), how to read it, and whether it shows harm now.
type Figure = (&'static str, fn(&Damage) -> i64, fn(&Damage) -> bool);

fn never(_: &Damage) -> bool {
    false
}

const FIGURES: [Figure; 11] = [
    ("intents", |d| d.intents, never),
    ("debits", |d| d.debits, never),
    (
        "double_charges",
        |d| d.double_charges,
        |d| d.double_charges != 0,
    ),
    ("credits", |d| d.credits, never),
    (
        "double_credits",
        |d| d.double_credits,
        |d| d.double_credits != 0,
    ),
    ("sms", |d| d.sms, never),
    (
        "duplicate_sms",
        |d| d.duplicate_sms,
        |d| d.duplicate_sms != 0,
    ),
    // Money on its way is not damage: a debit still waiting in the outbox or the log.
    ("in_flight", |d| d.in_flight, never),
    ("lost_events", |d| d.lost_events, |d| d.lost_events != 0),
    // Credits minus debits, less what is still on its way: only what no step will mend.
    (
        "money_created",
        |d| d.money_created,
        |d| d.money_created + d.money_in_flight != 0,
    ),
    (
        "support_tickets",
        |d| d.support_tickets,
        |d| d.support_tickets != 0,
    ),
];

/// Whether any figure shows harm: something done twice, or lost for good.
pub fn harmed(d: &Damage) -> bool {
    FIGURES.iter().any(|(_, _, harm)| harm(d))
}

#[component]
pub fn DamageMeter(live: LabStream) -> impl IntoView {
    let state = live.shown;
    let harmed = move || state.with(|s| harmed(&s.damage));
    let in_flight = move || state.with(|s| s.damage.in_flight > 0);
    let money_in_flight = move || state.with(|s| s.damage.money_in_flight);
    view! {
        <section class="panel damage" aria-labelledby="damage-title" data-testid="damage-meter" data-harmed=move || harmed().to_string() data-in-flight=move || in_flight().to_string()>
            <h2 id="damage-title">{move || tr!("damage-title")}</h2>
            <p class="damage-verdict" class:bad=harmed>
                {move || {
                    if harmed() {
                        tr!("damage-verdict-bad")
                    } else if in_flight() {
                        tr!("damage-verdict-in-flight", { "amount" => taka(money_in_flight()) })
                    } else {
                        tr!("damage-verdict-ok")
                    }
                }}
            </p>
            <dl class="figures">
                {FIGURES
                    .into_iter()
                    .map(|(id, read, harm)| {
                        let value = move || state.with(|s| read(&s.damage));
                        let bad = move || state.with(|s| harm(&s.damage));
                        view! {
                            <div class="figure" class:bad=bad data-figure=id data-value=value data-zero=move || (value() == 0).to_string()>
                                <dt>{move || tr_id(&format!("damage-{id}"))}</dt>
                                <dd>
                                    <span class="figure-value">
                                        <Show when=bad>
                                            <span class="warn-mark" aria-hidden="true">"⚠ "</span>
                                        </Show>
                                        {move || if id == "money_created" { taka(value()) } else { num(value()) }}
                                    </span>
                                    <span class="figure-meaning">{move || tr_id(&format!("damage-{id}-means"))}</span>
                                </dd>
                            </div>
                        }
                    })
                    .collect_view()}
            </dl>
        </section>
    }
}
