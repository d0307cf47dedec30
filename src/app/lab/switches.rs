//! The student's switches, beside Shimul's phone: every safeguard by its human name first and
//! its id second, grouped by where it lives (the phone, the payment API, the ledger, the
//! services after the payment), each with what it catches and what breaks without it. A guard
//! that works inside the idempotency table says so while the table is off. On a phone the
//! groups after the first start folded.

use crate::tr;
use leptos::prelude::*;

use super::controls::{apply_safeguards, ControlError, ErrorLine, Problem};
use super::stream::LabStream;
use super::wide::open_when_wide;
use crate::app::i18n::{digits, tr_id};
use crate::domain::safeguard::WindowHours;
use crate::domain::{Safeguard, SafeguardValue, SafeguardsPatch, SwitchGroup};

#[component]
pub fn Switches(live: LabStream) -> impl IntoView {
    let error = ControlError(RwSignal::new(None));
    view! {
        <section class="panel switches" aria-labelledby="switches-title" data-testid="switches">
            <h2 id="switches-title">{move || tr!("safeguards-title")}</h2>
            <p class="hint">{move || tr!("switches-hint")}</p>
            <ErrorLine error />
            {SwitchGroup::ALL
                .into_iter()
                .enumerate()
                .map(|(i, group_of)| {
                    let title = group_of.title();
                    let live = live.clone();
                    let group = NodeRef::<leptos::html::Details>::new();
                    if i > 0 {
                        open_when_wide(group);
                    }
                    let off = {
                        let state = live.state;
                        move || {
                            state.with(|s| {
                                group_of
                                    .members()
                                    .filter(|g| matches!(s.safeguards.get(*g), SafeguardValue::On(false)))
                                    .count()
                            })
                        }
                    };
                    view! {
                        <details class="switch-group" node_ref=group open=i == 0 data-group=title>
                            <summary>
                                {move || tr_id(title)}
                                <span class="switch-off-count" data-off=off>
                                    {move || match off() {
                                        0 => tr!("switches-all-on"),
                                        n => tr!("switches-some-off", { "n" => n as i64, "count" => digits(&n.to_string()) }),
                                    }}
                                </span>
                            </summary>
                            <ul>
                                {group_of
                                    .members()
                                    .map(|s| view! { <SafeguardControl live=live.clone() safeguard=s error /> })
                                    .collect_view()}
                            </ul>
                        </details>
                    }
                })
                .collect_view()}
        </section>
    }
}

/// Reads best whole: one switch and its hours field, on the one setting.
#[component]
fn SafeguardControl(live: LabStream, safeguard: Safeguard, error: ControlError) -> impl IntoView {
    let id = safeguard.id();
    let state = live.state;
    // A memo: a state read that leaves this value alone must not reset a field being typed in.
    let value = Memo::new(move |_| state.with(|s| s.safeguards.get(safeguard)));
    let value = move || value.get();
    // On, but doing nothing: the safeguard it works inside is off.
    let inactive = Memo::new(move |_| state.with(|s| s.safeguards.inactive_because(safeguard)));
    let inactive = move || inactive.get();
    let input_id = format!("safeguard-{id}");
    let hint_id = format!("safeguard-{id}-hint");
    let change = move |live: &LabStream, value| match SafeguardsPatch::one(safeguard, value) {
        Ok(patch) => apply_safeguards(live, patch, error),
        Err(e) => error.0.set(Some(Problem::Server(e.into()))),
    };
    let control = match safeguard.default_value() {
        SafeguardValue::On(_) => {
            let live = live.clone();
            view! {
                <input
                    id=input_id.clone()
                    type="checkbox"
                    role="switch"
                    data-testid=input_id.clone()
                    aria-describedby=hint_id.clone()
                    prop:checked=move || matches!(value(), SafeguardValue::On(true))
                    on:change=move |ev| change(&live, SafeguardValue::On(event_target_checked(&ev)))
                />
            }
            .into_any()
        }
        SafeguardValue::Hours(_) => {
            let live = live.clone();
            view! {
                <input
                    id=input_id.clone()
                    type="number"
                    min=WindowHours::MIN
                    max=WindowHours::MAX
                    step="1"
                    data-testid=input_id.clone()
                    aria-describedby=hint_id.clone()
                    prop:value=move || match value() { SafeguardValue::Hours(h) => h.to_string(), SafeguardValue::On(_) => String::new() }
                    on:change=move |ev| {
                        let text = event_target_value(&ev);
                        match text.trim().parse::<i64>() {
                            Ok(h) => change(&live, SafeguardValue::Hours(h)),
                            Err(_) => error.0.set(Some(Problem::Local("hours-whole-number"))),
                        }
                    }
                />
            }
            .into_any()
        }
    };
    view! {
        <li
            class="safeguard"
            class:inactive=move || inactive().is_some()
            data-safeguard=id
            data-layer=safeguard.layer().id()
            data-active=move || inactive().is_none().to_string()
        >
            <div class="safeguard-head">
                {control}
                <label for=input_id.clone()>
                    <span class="safeguard-name">{move || tr_id(&format!("safeguard-{id}-name"))}</span>
                    " "
                    <code>{id}</code>
                    " "
                    <span class="state-word">
                        {move || match value() {
                            SafeguardValue::On(true) => tr!("on"),
                            SafeguardValue::On(false) => tr!("off"),
                            SafeguardValue::Hours(h) => tr!("hours", { "hours" => digits(&h.to_string()) }),
                        }}
                    </span>
                </label>
            </div>
            <p class="hint" id=hint_id>
                {move || tr_id(&format!("safeguard-{id}-catches"))}
                " "
                <span class="safeguard-without">
                    <strong>{move || tr!("safeguard-without")}</strong>
                    " "
                    {move || tr_id(&format!("safeguard-{id}-without"))}
                </span>
            </p>
            {move || {
                inactive()
                    .map(|outer| {
                        view! {
                            <p class="safeguard-inactive" role="note">
                                {tr!("safeguard-inactive", { "needs" => outer.id() })}
                            </p>
                        }
                    })
            }}
        </li>
    }
}
