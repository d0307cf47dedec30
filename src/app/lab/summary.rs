//! The bar that stays at the top of a phone's screen while the student scrolls: both balances
//! as the ledger and the wallet hold them, and whether any harm was done, with a link to the
//! damage meter. A wide screen shows the phones and the meter side by side and hides it.

use leptos::prelude::*;
use leptos_fluent::tr;

use super::stream::LabStream;
use crate::app::i18n::taka;

#[component]
pub fn SummaryBar(live: LabStream) -> impl IntoView {
    let state = live.state;
    let shimul = move || state.with(|s| s.balances.payments.get("shimul").copied().unwrap_or(0));
    let tithi = move || state.with(|s| s.balances.wallet.get("tithi").copied().unwrap_or(0));
    let harm = move || state.with(|s| s.damage.harmed());
    let in_flight = move || state.with(|s| s.damage.in_flight > 0);
    view! {
        <aside class="summary-bar" data-testid="summary-bar" data-harmed=move || harm().to_string() aria-label=move || tr!("summary-label")>
            <span class="summary-item" data-testid="summary-shimul" data-value=shimul>
                {move || tr!("summary-shimul")} " " <strong>{move || taka(shimul())}</strong>
            </span>
            <span class="summary-item" data-testid="summary-tithi" data-value=tithi>
                {move || tr!("summary-tithi")} " " <strong>{move || taka(tithi())}</strong>
            </span>
            <a class="summary-item summary-damage" class:bad=harm href="#damage-title" data-testid="summary-damage">
                {move || {
                    if harm() {
                        tr!("summary-harm")
                    } else if in_flight() {
                        tr!("summary-in-flight")
                    } else {
                        tr!("summary-no-harm")
                    }
                }}
            </a>
        </aside>
    }
}
