//! The bar that stays at the top of a phone's screen while the student scrolls: both balances
//! as the ledger and the wallet hold them, and the damage meter's verdict in a few words (which
//! harm, if any), with a link to the meter. A wide screen shows the phones and the meter side by side and hides it.

use crate::tr;
use leptos::prelude::*;

use super::stream::LabStream;
use crate::app::i18n::{taka, tr_id};

#[component]
pub fn SummaryBar(live: LabStream) -> impl IntoView {
    let state = live.state;
    let shimul = move || state.with(|s| s.balances.payments.get("shimul").copied().unwrap_or(0));
    let tithi = move || state.with(|s| s.balances.wallet.get("tithi").copied().unwrap_or(0));
    let verdict = move || state.with(|s| s.damage.verdict());
    let harm = move || verdict().is_harm();
    // The class's lock, said in the bar a phone keeps at its top: the banner above the lab is
    // out of sight once the student scrolls to the phone.
    let presence = live.presence;
    let locked = move || presence.with(|p| p.locked);
    view! {
        <aside class="summary-bar" data-testid="summary-bar" data-harmed=move || harm().to_string() data-verdict=move || verdict().id() aria-label=move || tr!("summary-label")>
            <span class="summary-item" data-testid="summary-shimul" data-value=shimul>
                {move || tr!("summary-shimul")} " " <strong>{move || taka(shimul())}</strong>
            </span>
            <span class="summary-item" data-testid="summary-tithi" data-value=tithi>
                {move || tr!("summary-tithi")} " " <strong>{move || taka(tithi())}</strong>
            </span>
            {move || locked().then(|| view! {
                <span class="summary-item summary-locked" data-testid="summary-locked">{move || tr!("summary-locked")}</span>
            })}
            <a class="summary-item summary-damage" class:bad=harm href="#damage-title" data-testid="summary-damage">
                // The meter's verdict in a few words: which harm, not only that there was one.
                {move || tr_id(&format!("summary-{}", verdict().id()))}
            </a>
        </aside>
    }
}
