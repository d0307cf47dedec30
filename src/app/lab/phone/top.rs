//! The top of a phone's screen: what Shimul's and Tithi's phones both draw above their app.

use crate::tr;
use leptos::prelude::*;

use crate::app::i18n::{taka, tr_id};

/// The top of the PocketPay app on either phone: its name and a balance.
#[component]
pub fn AppTop(
    /// Message id of the balance's label.
    label: &'static str,
    testid: &'static str,
    balance: Signal<i64>,
) -> impl IntoView {
    view! {
        <header class="app-bar">
            <span class="app-logo" aria-hidden="true">"৳"</span>
            <span>{move || tr!("pocketpay")}</span>
        </header>
        <div class="app-balance">
            <span class="label">{move || tr_id(label)}</span>
            <strong data-testid=testid data-value=move || balance.get()>{move || taka(balance.get())}</strong>
        </div>
    }
}
