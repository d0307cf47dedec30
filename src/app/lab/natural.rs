//! Scenario 7 beside the lab while chapter 05 is open: the same wish written three ways (a SET,
//! an INCREMENT, one INSERT keyed by a transfer id), each sent ten times over the sandbox's
//! lossy network, the results side by side; then the HTTP methods and which are idempotent.

use crate::tr;
use leptos::prelude::*;

use super::rpc::send_natural;
use super::stream::LabStream;
use crate::app::error::{failed, FnError};
use crate::app::i18n::{digits, num, taka, tr_args, tr_id};
use crate::domain::natural::{NaturalOp, NaturalReport, Times, METHODS, TIMES};

#[component]
pub fn NaturalPanel(live: LabStream) -> impl IntoView {
    view! {
        <section class="panel natural" aria-labelledby="natural-title" data-testid="natural">
            <h2 id="natural-title">{move || tr!("natural-title")}</h2>
            <p class="hint">{move || tr!("natural-hint", { "times" => num(TIMES) })}</p>
            <div class="natural-ways">
                {NaturalOp::ALL
                    .into_iter()
                    .map(|op| view! { <Way live=live.clone() op /> })
                    .collect_view()}
            </div>
            <Methods />
        </section>
    }
}

#[component]
fn Way(live: LabStream, op: NaturalOp) -> impl IntoView {
    let id = op.id();
    let report = RwSignal::new(None::<NaturalReport>);
    // A reset empties the tables these results were read from.
    let resets = live.resets;
    Effect::watch(move || resets.get(), move |_, _, _| report.set(None), false);
    // The last report stays on screen while the next copies are on their way.
    let sending = Action::new(move |_: &()| {
        let live = live.clone();
        let hold = live.hold();
        async move {
            let _hold = hold;
            let r = send_natural(live.sandbox(), op, Times::of(TIMES)).await?;
            report.set(Some(r));
            live.refresh();
            Ok::<(), FnError>(())
        }
    });
    let busy = sending.pending();
    let error = failed(sending);
    let send = move |_| {
        sending.dispatch(());
    };
    view! {
        <div class="natural-way" data-op=id data-testid=format!("natural-way-{id}")>
            <h3>{move || tr_id(&format!("natural-{id}-title"))}</h3>
            <p class="hint">{move || tr_id(&format!("natural-{id}-what"))}</p>
            <pre><code>{op.sql()}</code></pre>
            <button type="button" data-testid=format!("natural-{id}") disabled=move || busy.get() on:click=send>
                {move || tr!("natural-send", { "times" => num(TIMES) })}
            </button>
            <p class="error" role="alert">{error}</p>
            <div class="natural-result" role="status" aria-live="polite">
                {move || report.get().map(|r| {
                    let result = match op {
                        NaturalOp::SetName => tr_args("natural-result-set_name", &[("name", r.name.clone())]),
                        NaturalOp::Add => tr_args("natural-result-add", &[("balance", taka(r.savings)), ("want", taka(crate::domain::natural::AMOUNT))]),
                        NaturalOp::Insert => tr_args("natural-result-insert", &[("rows", num(r.credit_rows))]),
                    };
                    view! {
                        <p data-testid=format!("natural-arrived-{id}") data-sent=r.sent data-arrived=r.arrived>
                            {tr_args("natural-arrived", &[("sent", num(r.sent)), ("arrived", num(r.arrived))])}
                        </p>
                        <p class="natural-after" data-testid=format!("natural-after-{id}") data-name=r.name.clone() data-savings=r.savings data-rows=r.credit_rows>
                            {result}
                        </p>
                        <p class="hint">{tr_id(&format!("natural-{id}-lesson"))}</p>
                    }
                })}
            </div>
        </div>
    }
}

/// The HTTP methods: which the standard makes idempotent, and why.
#[component]
fn Methods() -> impl IntoView {
    view! {
        <table class="methods" data-testid="http-methods">
            <caption>{move || tr!("methods-caption")}</caption>
            <thead>
                <tr>
                    <th scope="col">{move || tr!("methods-method")}</th>
                    <th scope="col">{move || tr!("methods-idempotent")}</th>
                    <th scope="col">{move || tr!("methods-why")}</th>
                </tr>
            </thead>
            <tbody>
                {METHODS
                    .into_iter()
                    .map(|(method, idempotent)| view! {
                        <tr data-method=method data-idempotent=idempotent.to_string()>
                            <th scope="row"><code>{method}</code></th>
                            <td>{move || if idempotent { tr!("methods-yes") } else { tr!("methods-no") }}</td>
                            <td>{move || tr_id(&format!("methods-{}", method.to_lowercase()))}</td>
                        </tr>
                    })
                    .collect_view()}
            </tbody>
        </table>
        <p class="hint">{move || tr!("methods-note", { "n" => digits("9110") })}</p>
    }
}
