//! The network panel: how badly the train's network behaves, what the phone's HTTP library and
//! the load balancer do about it, and the two crafted attacks of scenarios 3 and 4.

use crate::tr;
use leptos::prelude::*;

use super::controls::{ControlError, ErrorLine, NetworkFaults};
use super::rpc::crafted_attack;
use super::stream::LabStream;
use super::wide::open_when_wide;
use crate::app::i18n::{digits, taka, tr_args, tr_id};
use crate::domain::explain::status_message;
use crate::domain::phone::{Answer, Attack, AttackAnswer};

#[component]
pub fn NetworkPanel(live: LabStream) -> impl IntoView {
    let error = ControlError(RwSignal::new(None));
    view! {
        <section class="panel network-panel" aria-labelledby="network-title">
            <h2 id="network-title">{move || tr!("network-title")}</h2>
            <p class="hint">{move || tr!("network-hint")}</p>
            <NetworkFaults live=live.clone() error />
            <ErrorLine error />
            <Attacks live />
        </section>
    }
}

/// The crafted attacks: a buggy client, scripted on the server so the race is exact.
#[component]
fn Attacks(live: LabStream) -> impl IntoView {
    let resets = live.resets;
    // One attack at a time; its answers (or why there are none) stay until the next.
    let attack = Action::new(move |attack: &Attack| {
        let (live, attack) = (live.clone(), *attack);
        let hold = live.hold();
        async move {
            let _hold = hold;
            crafted_attack(live.sandbox(), attack).await
        }
    });
    let running = attack.pending();
    // A reset (or the next chapter's preset) starts a new story: the last attack's answers go.
    Effect::watch(
        move || resets.get(),
        move |_, _, _| attack.value().set(None),
        false,
    );
    let launch = move |a: Attack| {
        attack.dispatch(a);
    };
    let race = move |_| launch(Attack::Race);
    let reuse = move |_| launch(Attack::ReusedKey);
    let fold = NodeRef::<leptos::html::Details>::new();
    open_when_wide(fold);
    view! {
        <details class="attacks-fold" node_ref=fold>
        <summary>{move || tr!("attacks-open")}</summary>
        <fieldset class="attacks">
            <legend>{move || tr!("attacks-title")}</legend>
            <p class="hint">{move || tr!("attacks-hint")}</p>
            <div class="controls">
                <button type="button" data-testid="attack-race" on:click=race disabled=move || running.get()>
                    {move || tr!("attack-race")}
                </button>
                <button type="button" data-testid="attack-reused-key" on:click=reuse disabled=move || running.get()>
                    {move || tr!("attack-reused-key")}
                </button>
            </div>
            <div class="attack-result" data-testid="attack-result" role="status" aria-live="polite">
                <Show when=move || running.get()>
                    <p class="pending"><span class="spinner" aria-hidden="true"></span>{move || tr!("attack-running")}</p>
                </Show>
                {move || attack.value().get().filter(|_| !running.get()).map(|r| match r {
                    Ok(answers) => view! {
                        <ol>
                            {answers.into_iter().map(|a| view! { <AttackLine a /> }).collect_view()}
                        </ol>
                    }.into_any(),
                    Err(e) => view! { <p class="error">{move || e.text()}</p> }.into_any(),
                })}
            </div>
        </fieldset>
        </details>
    }
}

#[component]
fn AttackLine(a: AttackAnswer) -> impl IntoView {
    let status = a.status;
    let amount = a.amount;
    // The status in the page's digits with its words; the protocol's own text as code.
    let what = match &a.answer {
        Answer::Receipt {
            receipt,
            replayed: false,
        } => receipt.txn.clone(),
        Answer::Receipt {
            receipt,
            replayed: true,
        } => format!("{} (Idempotent-Replayed)", receipt.txn),
        Answer::Refused { kind, .. } => kind.clone(),
        Answer::InProgress => "idempotency-key-in-progress".to_owned(),
        Answer::AlreadyMade => "duplicate-transfer".to_owned(),
        Answer::TryLater | Answer::NoAnswer => "—".to_owned(),
    };
    let note = match &a.answer {
        Answer::Receipt {
            replayed: false, ..
        } => "attack-note-executed",
        Answer::Receipt { replayed: true, .. } => "attack-note-replayed",
        Answer::InProgress => "attack-note-in-progress",
        Answer::Refused { kind, .. } if kind == "idempotency-key-reused" => "attack-note-reused",
        _ => "attack-note-other",
    };
    view! {
        <li data-status=status>
            <strong>{move || taka(amount)}</strong>
            " → "
            <span class="status-words">
                {move || tr_args("status-line", &[("code", digits(&status.to_string())), ("words", tr_id(&status_message(status.into())))])}
            </span>
            " " <code>{what}</code>
            <span class="hint">" " {move || tr_id(note)}</span>
        </li>
    }
}
