//! The damage meter: what the duplicates cost, every figure derived from the stores by the
//! server (ARCHITECTURE.md, "After the debit"), each with one line on what it means. Its
//! headline is the worst thing that happened (`domain::state::Verdict`): money wrong, an
//! effect twice, a key stuck, money on its way, nothing yet, or exactly once. Money still on
//! its way (a debit whose event waits in the outbox or the log) is shown as in flight, not as
//! damage: the meter is calm during every correct transfer.

use crate::tr;
use leptos::prelude::*;

use super::stream::LabStream;
use crate::app::i18n::{num, taka, tr_args, tr_id};
use crate::domain::{Damage, Verdict};

#[component]
pub fn DamageMeter(live: LabStream) -> impl IntoView {
    let state = live.shown();
    let verdict = move || state.with(|s| s.damage.verdict());
    let harmed = move || verdict().is_harm();
    let in_flight = move || state.with(|s| s.damage.in_flight > 0);
    let headline = move || {
        state.with(|s| {
            let d = &s.damage;
            let id = format!("damage-verdict-{}", d.verdict().id());
            match d.verdict() {
                Verdict::InFlight => tr_args(&id, &[("amount", taka(d.money_in_flight))]),
                Verdict::NothingMoved => tr_args(&id, &[("intents", num(d.intents))]),
                _ => tr_id(&id),
            }
        })
    };
    // A chapter's "look at the meter" step is done by a tap on it, or by moving the keyboard
    // into it.
    let looks = super::context::Looks::here();
    let look = move || {
        if let Some(l) = looks {
            l.saw("damage-meter");
        }
    };
    view! {
        <section class="panel damage" tabindex="0" on:click=move |_| look() on:focusin=move |_| look() aria-labelledby="damage-title" data-testid="damage-meter" data-harmed=move || harmed().to_string() data-in-flight=move || in_flight().to_string() data-verdict=move || verdict().id()>
            <h2 id="damage-title">{move || tr!("damage-title")}</h2>
            <p class="damage-verdict" class:bad=harmed data-testid="damage-verdict" aria-live="polite">
                {headline}
            </p>
            <dl class="figures">
                {Damage::SHOWN
                    .into_iter()
                    .map(|id| {
                        let value = move || state.with(|s| s.damage.figure(id).unwrap_or(0));
                        let bad = move || state.with(|s| s.damage.harm(id));
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
