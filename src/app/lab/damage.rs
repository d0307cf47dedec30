//! The damage meter: what the duplicates cost, every figure derived from the stores by the
//! server (PRODUCT.md section 8), each with one line on what it means.

use leptos::prelude::*;
use leptos_fluent::tr;

use super::stream::LabStream;
use crate::app::i18n::{num, taka, tr_id};
use crate::domain::Damage;

/// One figure: its id (the JSON field), how to read it, and whether a non-zero value is harm.
type Figure = (&'static str, fn(&Damage) -> i64, bool);

const FIGURES: [Figure; 10] = [
    ("intents", |d| d.intents, false),
    ("debits", |d| d.debits, false),
    ("double_charges", |d| d.double_charges, true),
    ("credits", |d| d.credits, false),
    ("double_credits", |d| d.double_credits, true),
    ("sms", |d| d.sms, false),
    ("duplicate_sms", |d| d.duplicate_sms, true),
    ("lost_events", |d| d.lost_events, true),
    ("money_created", |d| d.money_created, true),
    ("support_tickets", |d| d.support_tickets, true),
];

#[component]
pub fn DamageMeter(live: LabStream) -> impl IntoView {
    let state = live.shown;
    let harmed = move || {
        state.with(|s| {
            FIGURES
                .iter()
                .any(|(_, read, harm)| *harm && read(&s.damage) != 0)
        })
    };
    view! {
        <section class="panel damage" aria-labelledby="damage-title" data-testid="damage-meter" data-harmed=move || harmed().to_string()>
            <h2 id="damage-title">{move || tr!("damage-title")}</h2>
            <p class="damage-verdict" class:bad=harmed>
                {move || if harmed() { tr!("damage-verdict-bad") } else { tr!("damage-verdict-ok") }}
            </p>
            <dl class="figures">
                {FIGURES
                    .into_iter()
                    .map(|(id, read, harm)| {
                        let value = move || state.with(|s| read(&s.damage));
                        let bad = move || harm && value() != 0;
                        view! {
                            <div class="figure" class:bad=bad data-figure=id data-value=value>
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
