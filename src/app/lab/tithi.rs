//! Tithi's phone: her wallet balance as the wallet service derives it, and the SMS the SMS
//! service "sent" her, newest first. A credit or SMS that arrives twice shows twice.

use crate::tr;
use leptos::prelude::*;

use super::phone::top::AppTop;
use super::stream::LabStream;
use crate::app::format::clock_text;
use crate::app::i18n::taka;

#[component]
pub fn TithiPhone(live: LabStream) -> impl IntoView {
    let state = live.state;
    let balance = move || state.with(|s| s.balances.wallet.get("tithi").copied().unwrap_or(0));
    // (sms id, amount, time) for Tithi, newest first.
    let messages = move || {
        state.with(|s| {
            let mut list: Vec<(i64, i64, i64)> = s
                .tables
                .get("sms.sms")
                .map(|rows| {
                    rows.iter()
                        .filter(|r| r["to_user"] == "tithi")
                        .map(|r| {
                            (
                                r["sms_id"].as_i64().unwrap_or(0),
                                r["amount"].as_i64().unwrap_or(0),
                                r["at_ms"].as_i64().unwrap_or(0),
                            )
                        })
                        .collect()
                })
                .unwrap_or_default();
            list.reverse();
            list
        })
    };
    view! {
        <section class="panel phone-panel" aria-labelledby="tithi-title">
            <h2 id="tithi-title">{move || tr!("tithi-phone")}</h2>
            <div class="phone phone-small" role="group" aria-label=move || tr!("tithi-phone-frame")>
                <div class="phone-notch" aria-hidden="true"></div>
                <div class="app">
                    <AppTop label="wallet-balance" testid="tithi-balance" balance=Signal::derive(balance) />
                    <h3 class="sms-title">{move || tr!("sms-title")}</h3>
                    <ol class="sms-list" data-testid="sms-list" aria-live="polite">
                        <For
                            each=messages
                            key=|(id, _, _)| *id
                            children=move |(_, amount, at)| view! {
                                <li class="sms">
                                    <span class="sms-from">{move || tr!("sms-from")}</span>
                                    <span class="sms-text">{move || tr!("sms-money-received", { "amount" => taka(amount) })}</span>
                                    <span class="sms-time">{move || clock_text(at)}</span>
                                </li>
                            }
                        />
                    </ol>
                    <Show when=move || messages().is_empty()>
                        <p class="hint">{move || tr!("sms-none")}</p>
                    </Show>
                </div>
            </div>
        </section>
    }
}
