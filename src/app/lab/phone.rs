//! Shimul's phone running the PocketPay app. The app is real client code: it makes the
//! Idempotency-Key at the confirm tap, keeps it in browser storage with the pending transfer
//! (`key_persistence`), guards the Send button (`button_guard`), lets its HTTP library retry a
//! timeout on its own (`auto_retries`, `retry_backoff_ms`), and talks to the payment API over
//! HTTP exactly as `curl` would. What it cannot know, it shows as unknown: its balance is the one
//! the last receipt it received told it, never the ledger's.

use leptos::prelude::*;
use leptos_fluent::tr;

use super::stream::LabStream;
use crate::app::i18n::{digits, taka, tr_id};
use crate::domain::phone::{
    key_for_tap, parse_amount, Answer, AppSignal, ConfirmedBalance, Pending, SendLabel,
};
use crate::domain::{Receipt, Safeguard, SafeguardValue};

/// Taps closer together than this count as one when the button is guarded (a finger's
/// double tap), in milliseconds.
const DEBOUNCE_MS: f64 = 600.0;

/// What the app's screen shows below the form.
#[derive(Clone, Debug, PartialEq)]
enum Screen {
    Ready,
    Sending,
    /// The HTTP library waits before its automatic retry.
    Backoff,
    /// A pending transfer found when the app opened; it is being sent again.
    #[cfg_attr(not(feature = "hydrate"), allow(dead_code))]
    Resuming,
    Receipt {
        receipt: Receipt,
        replayed: bool,
    },
    AlreadyMade,
    Refused {
        kind: String,
    },
    InProgress,
    TryLater,
    /// No answer in time: the one generic error, outcome unknown.
    Unknown,
}

impl Screen {
    fn id(&self) -> &'static str {
        match self {
            Screen::Ready => "ready",
            Screen::Sending => "sending",
            Screen::Backoff => "backoff",
            Screen::Resuming => "resuming",
            Screen::Receipt { .. } => "receipt",
            Screen::AlreadyMade => "already-made",
            Screen::Refused { .. } => "refused",
            Screen::InProgress => "in-progress",
            Screen::TryLater => "try-later",
            Screen::Unknown => "unknown",
        }
    }

    fn from_answer(answer: Answer) -> Screen {
        match answer {
            Answer::Receipt { receipt, replayed } => Screen::Receipt { receipt, replayed },
            Answer::AlreadyMade => Screen::AlreadyMade,
            Answer::Refused { kind, .. } => Screen::Refused { kind },
            Answer::InProgress => Screen::InProgress,
            Answer::TryLater => Screen::TryLater,
            Answer::NoAnswer => Screen::Unknown,
        }
    }
}

/// The phone, its frame and the "close and reopen the app" control. Reopening drops the app
/// with everything it held in memory (answers still on their way are lost to it) and starts
/// it again from browser storage.
#[component]
pub fn ShimulPhone(live: LabStream) -> impl IntoView {
    let generation = RwSignal::new(0u32);
    // A reset of the sandbox reinstalls the app: nothing kept survives it.
    Effect::watch(
        move || live.resets.get(),
        {
            let live = live.clone();
            move |_, _, _| {
                storage::forget(&live.sandbox());
                generation.update(|g| *g += 1);
            }
        },
        false,
    );
    view! {
        <section class="panel phone-panel" aria-labelledby="shimul-title">
            <h2 id="shimul-title">{move || tr!("shimul-phone")}</h2>
            <div class="phone" role="group" aria-label=move || tr!("shimul-phone-frame")>
                <div class="phone-notch" aria-hidden="true"></div>
                {
                    let live = live.clone();
                    move || {
                        generation.get();
                        view! { <PocketPayApp live=live.clone() /> }
                    }
                }
            </div>
            <button
                type="button"
                class="reopen"
                data-testid="reopen-app"
                on:click=move |_| generation.update(|g| *g += 1)
            >
                {move || tr!("reopen-app")}
            </button>
            <p class="hint">{move || tr!("reopen-app-hint")}</p>
        </section>
    }
}

/// The PocketPay app itself, as it runs on Shimul's phone.
#[component]
fn PocketPayApp(live: LabStream) -> impl IntoView {
    let sandbox = live.sandbox();
    let state = live.state;
    let switch = move |s: Safeguard| {
        state.with(|st| matches!(st.safeguards.get(s), SafeguardValue::On(true)))
    };
    // Only what the app was told; the stores' balance is for the other panels.
    let known = RwSignal::new(ConfirmedBalance::opening());
    let balance = move || known.get().taka();

    let screen = RwSignal::new(Screen::Ready);
    let in_flight = RwSignal::new(0u32);
    let pending = RwSignal::new(None::<Pending>);
    // The key of the last request sent, shown after the outcome too.
    let last_key = RwSignal::new(None::<String>);
    // What the user typed; `None` shows the usual ৳500 in the page's digits.
    let amount_text = RwSignal::new(None::<String>);
    let amount_error = RwSignal::new(None::<&'static str>);
    let last_tap = StoredValue::new(f64::NEG_INFINITY);
    // Taps that sent something, for whoever watches the screen (and tests) to count.
    let taps = RwSignal::new(0u32);

    let busy = move || in_flight.get() > 0;
    let disabled = move || switch(Safeguard::ButtonGuard) && busy();

    // Sends one tap's request, with the HTTP library's automatic retries, and shows the outcome.
    let send = {
        let live = live.clone();
        let sandbox = sandbox.clone();
        move |key: String, amount: i64, intent: String, tap: Option<AppSignal>| {
            let live = live.clone();
            let sandbox = sandbox.clone();
            in_flight.update(|n| *n += 1);
            screen.set(Screen::Sending);
            last_key.set(Some(key.clone()));
            leptos::task::spawn_local(async move {
                // The tap goes on the timeline before its request leaves.
                if let Some(signal) = tap {
                    http::post_app_signal(&sandbox, &signal).await;
                }
                let (retries, backoff_ms) = live
                    .state
                    .with_untracked(|s| (s.faults.auto_retries, s.faults.retry_backoff_ms));
                let mut attempt = 0;
                let answer = loop {
                    let _ = pending.try_update(|p| {
                        if let Some(p) = p.as_mut().filter(|p| p.key == key) {
                            p.request_leaves();
                            if switch_untracked(&live, Safeguard::KeyPersistence) {
                                storage::save_pending(&sandbox, p);
                            }
                        }
                    });
                    let answer = http::post_transfer(&sandbox, &key, &intent, amount).await;
                    if answer.library_retries() && attempt < retries {
                        attempt += 1;
                        let _ = screen.try_set(Screen::Backoff);
                        let speed = live.clock.with_untracked(|c| c.speed).max(0.1);
                        http::sleep((backoff_ms as f64 / speed) as i32).await;
                        let _ = screen.try_set(Screen::Sending);
                        continue;
                    }
                    break answer;
                };
                // Kept only by an app still open: one closed meanwhile never heard this answer.
                let _ = known.try_update(|k| {
                    if k.learn(&answer) {
                        storage::save_balance(&sandbox, k.taka());
                    }
                });
                let _ = in_flight.try_update(|n| *n = n.saturating_sub(1));
                // An answer is on screen: the next tap is the user's reply to it, not the
                // second half of a double tap.
                let _ = last_tap.try_set_value(f64::NEG_INFINITY);
                if answer.is_final() {
                    storage::clear_pending(&sandbox);
                    storage::clear_intent(&sandbox);
                    let _ = pending.try_set(None);
                }
                let _ = screen.try_set(Screen::from_answer(answer));
            });
        }
    };

    // On opening: a pending transfer in storage is resumed with its own key.
    #[cfg(feature = "hydrate")]
    {
        let live = live.clone();
        let sandbox = sandbox.clone();
        let send = send.clone();
        Effect::new(move |_| {
            known.set(ConfirmedBalance::restored(storage::load_balance(&sandbox)));
            if !switch_untracked(&live, Safeguard::KeyPersistence) {
                storage::clear_pending(&sandbox);
                return;
            }
            if let Some(p) = storage::load_pending(&sandbox) {
                let intent = storage::intent(&sandbox);
                pending.set(Some(p.clone()));
                send(p.key.clone(), p.amount, intent, None);
                screen.set(Screen::Resuming);
            }
        });
    }

    let on_send = {
        let live = live.clone();
        let sandbox = sandbox.clone();
        move |ev: leptos::ev::SubmitEvent| {
            ev.prevent_default();
            let guard = switch_untracked(&live, Safeguard::ButtonGuard);
            let keep_keys = switch_untracked(&live, Safeguard::KeyPersistence);
            if guard {
                let now = super::stream::now_ms();
                if in_flight.get_untracked() > 0 || now - last_tap.get_value() < DEBOUNCE_MS {
                    // Caught at the button: the lab hears of it, the server does not.
                    let signal = AppSignal::TapIgnored {
                        key: pending.get_untracked().map(|p| p.key),
                    };
                    let sandbox = sandbox.clone();
                    leptos::task::spawn_local(async move {
                        http::post_app_signal(&sandbox, &signal).await;
                    });
                    return;
                }
                last_tap.set_value(now);
            }
            let current = pending.get_untracked();
            let amount = match current.as_ref().filter(|_| keep_keys) {
                Some(p) => p.amount,
                None => match parse_amount(
                    &amount_text
                        .get_untracked()
                        .unwrap_or_else(|| "500".to_owned()),
                ) {
                    Ok(a) => a,
                    Err(e) => {
                        amount_error.set(Some(e.message_id()));
                        return;
                    }
                },
            };
            amount_error.set(None);
            let intent = storage::intent(&sandbox);
            let key = key_for_tap(
                keep_keys,
                current.as_ref(),
                uuid::Uuid::new_v4().to_string(),
            );
            let p = Pending {
                key: key.clone(),
                to: "tithi".to_owned(),
                amount,
                requests: current
                    .as_ref()
                    .filter(|c| c.key == key)
                    .map_or(0, |c| c.requests),
            };
            if keep_keys {
                storage::save_pending(&sandbox, &p);
            }
            let key_kept = keep_keys && current.as_ref().is_some_and(|c| c.key == key);
            pending.set(Some(p));
            taps.update(|t| *t += 1);
            let tap = AppSignal::Tap {
                key: key.clone(),
                key_kept,
            };
            send(key, amount, intent, Some(tap));
        }
    };

    let amount_locked = move || pending.with(|p| p.is_some()) && switch(Safeguard::KeyPersistence);
    let label = move || SendLabel::of(busy(), amount_locked());

    view! {
        <div class="app" data-screen=move || screen.get().id()>
            <AppTop label="your-balance" testid="shimul-balance" balance=Signal::derive(balance) />
            <form class="app-form" on:submit=on_send novalidate=true>
                <p class="app-to">
                    <span class="label">{move || tr!("send-to")}</span>
                    <strong>{move || tr!("tithi")}</strong>
                </p>
                <label class="app-amount">
                    <span class="label">{move || tr!("amount-label")}</span>
                    <span class="amount-field">
                        <span aria-hidden="true">"৳"</span>
                        <input
                            type="text"
                            inputmode="numeric"
                            data-testid="amount"
                            prop:value=move || match pending.get().filter(|_| amount_locked()) {
                                Some(p) => digits(&p.amount.to_string()),
                                None => amount_text.get().unwrap_or_else(|| digits("500")),
                            }
                            on:input=move |ev| amount_text.set(Some(event_target_value(&ev)))
                            readonly=amount_locked
                            aria-invalid=move || amount_error.get().is_some().to_string()
                            aria-describedby="amount-error"
                        />
                    </span>
                </label>
                <p id="amount-error" class="error" role="alert">
                    {move || amount_error.get().map(tr_id)}
                </p>
                <button
                    type="submit"
                    class="send"
                    data-testid="send-button"
                    aria-disabled=move || disabled().to_string()
                    class:guarded=disabled
                    aria-busy=move || busy().to_string()
                >
                    <Show when=disabled>
                        <span class="spinner" aria-hidden="true"></span>
                    </Show>
                    {move || tr_id(label().message_id())}
                </button>
            </form>
            <div class="app-message" data-testid="phone-message" data-state=move || screen.get().id() data-taps=move || taps.get() role="status" aria-live="polite">
                {move || message(screen.get())}
            </div>
            <p class="app-key">
                <span class="label">"Idempotency-Key"</span>
                <code data-testid="idempotency-key" data-pending=move || pending.with(|p| p.is_some()).to_string()>
                    {move || pending.get().map(|p| p.key).or_else(|| last_key.get()).unwrap_or_else(|| "—".to_owned())}
                </code>
                <span class="hint" data-testid="key-requests">
                    {move || match pending.get() {
                        Some(p) => tr!("key-pending", { "n" => p.requests, "requests" => digits(&p.requests.to_string()) }),
                        None if last_key.with(Option::is_some) => tr!("key-last"),
                        None => tr!("key-none"),
                    }}
                </span>
            </p>
        </div>
    }
}

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

fn switch_untracked(live: &LabStream, s: Safeguard) -> bool {
    live.state
        .with_untracked(|st| matches!(st.safeguards.get(s), SafeguardValue::On(true)))
}

fn message(screen: Screen) -> AnyView {
    match screen {
        Screen::Ready => view! { <p class="hint">{move || tr!("phone-ready")}</p> }.into_any(),
        Screen::Sending | Screen::Resuming | Screen::Backoff => {
            let id = match screen {
                Screen::Resuming => "phone-resuming",
                Screen::Backoff => "phone-backoff",
                _ => "phone-sending",
            };
            view! { <p class="pending"><span class="spinner" aria-hidden="true"></span>{move || tr_id(id)}</p> }
                .into_any()
        }
        Screen::Receipt { receipt, replayed } => {
            let txn = receipt.txn.clone();
            let txn_attr = txn.clone();
            view! {
                <div class="receipt" data-txn=txn_attr>
                    <p class="receipt-title">
                        <span aria-hidden="true">"✓ "</span>
                        {move || tr!("receipt-sent", { "amount" => taka(receipt.amount) })}
                    </p>
                    <p class="receipt-txn">{txn}</p>
                    <p>{move || tr!("receipt-balance", { "balance" => taka(receipt.balance) })}</p>
                    <Show when=move || replayed>
                        <p class="hint">{move || tr!("receipt-replayed")}</p>
                    </Show>
                </div>
            }
            .into_any()
        }
        Screen::AlreadyMade => {
            view! { <p><span aria-hidden="true">"✓ "</span>{move || tr!("phone-already-made")}</p> }
                .into_any()
        }
        Screen::Refused { kind } => {
            let id = match kind.as_str() {
                "insufficient-funds" => "phone-insufficient",
                "idempotency-key-reused" => "phone-key-reused",
                _ => "phone-refused",
            };
            view! { <p class="error"><span aria-hidden="true">"✕ "</span>{move || tr_id(id)}</p> }
                .into_any()
        }
        Screen::InProgress => {
            view! { <p class="unknown">{move || tr!("phone-in-progress")}</p> }.into_any()
        }
        Screen::TryLater => {
            view! { <p class="unknown">{move || tr!("phone-try-later")}</p> }.into_any()
        }
        Screen::Unknown => view! {
            <p class="error"><span aria-hidden="true">"! "</span>{move || tr!("generic-error")}</p>
            <p class="lab-note" data-outcome="unknown">{move || tr!("outcome-unknown-note")}</p>
        }
        .into_any(),
    }
}

/// The app's storage: the pending transfer (the app's own, only with `key_persistence`), the
/// balance of the last receipt (the app's own, whatever the safeguards), and the lab's intent
/// marker (ground truth for the damage meter, kept whatever the app does).
mod storage {
    use crate::domain::phone::Pending;

    #[cfg(feature = "hydrate")]
    fn local() -> Option<web_sys::Storage> {
        leptos::prelude::window().local_storage().ok().flatten()
    }

    fn pending_key(sandbox: &str) -> String {
        format!("pocketpay:{sandbox}:pending")
    }

    fn intent_key(sandbox: &str) -> String {
        format!("pocketpay-lab:{sandbox}:intent")
    }

    fn get(key: &str) -> Option<String> {
        #[cfg(feature = "hydrate")]
        {
            local()?.get_item(key).ok().flatten()
        }
        #[cfg(not(feature = "hydrate"))]
        {
            let _ = key;
            None
        }
    }

    fn set(key: &str, value: &str) {
        #[cfg(feature = "hydrate")]
        if let Some(s) = local() {
            let _ = s.set_item(key, value);
        }
        #[cfg(not(feature = "hydrate"))]
        let _ = (key, value);
    }

    fn remove(key: &str) {
        #[cfg(feature = "hydrate")]
        if let Some(s) = local() {
            let _ = s.remove_item(key);
        }
        #[cfg(not(feature = "hydrate"))]
        let _ = key;
    }

    fn balance_key(sandbox: &str) -> String {
        format!("pocketpay:{sandbox}:balance")
    }

    #[cfg_attr(not(feature = "hydrate"), allow(dead_code))]
    pub fn load_pending(sandbox: &str) -> Option<Pending> {
        serde_json::from_str(&get(&pending_key(sandbox))?).ok()
    }

    pub fn save_pending(sandbox: &str, p: &Pending) {
        if let Ok(json) = serde_json::to_string(p) {
            set(&pending_key(sandbox), &json);
        }
    }

    pub fn clear_pending(sandbox: &str) {
        remove(&pending_key(sandbox));
    }

    /// The balance of the last receipt the app received, if any.
    #[cfg_attr(not(feature = "hydrate"), allow(dead_code))]
    pub fn load_balance(sandbox: &str) -> Option<i64> {
        get(&balance_key(sandbox))?.parse().ok()
    }

    pub fn save_balance(sandbox: &str, taka: i64) {
        set(&balance_key(sandbox), &taka.to_string());
    }

    /// The intent of the decision to pay now under way, made on first use.
    pub fn intent(sandbox: &str) -> String {
        let key = intent_key(sandbox);
        get(&key).unwrap_or_else(|| {
            let fresh = uuid::Uuid::new_v4().to_string();
            set(&key, &fresh);
            fresh
        })
    }

    pub fn clear_intent(sandbox: &str) {
        remove(&intent_key(sandbox));
    }

    /// Forgets everything kept for this sandbox (a reset).
    pub fn forget(sandbox: &str) {
        clear_pending(sandbox);
        clear_intent(sandbox);
        remove(&balance_key(sandbox));
    }
}

/// The app's HTTP library: one POST to the payment API, read into an [`Answer`].
mod http {
    use crate::domain::phone::{Answer, AppSignal};

    /// Sends a transfer; a failed connection is, to the app, no answer at all.
    pub async fn post_transfer(sandbox: &str, key: &str, intent: &str, amount: i64) -> Answer {
        #[cfg(feature = "hydrate")]
        {
            match browser::post(sandbox, key, intent, amount).await {
                Some((status, body, replayed)) => Answer::read(status, &body, replayed),
                None => Answer::NoAnswer,
            }
        }
        #[cfg(not(feature = "hydrate"))]
        {
            let _ = (sandbox, key, intent, amount);
            Answer::NoAnswer
        }
    }

    /// Tells the lab what the app did with a tap (the button and app lanes). Best effort: the
    /// app goes on whatever the lab says.
    pub async fn post_app_signal(sandbox: &str, signal: &AppSignal) {
        #[cfg(feature = "hydrate")]
        {
            let body = serde_json::to_string(signal).unwrap_or_default();
            let _ = browser::post_json(&format!("/api/sandboxes/{sandbox}/app-events"), &body, &[])
                .await;
        }
        #[cfg(not(feature = "hydrate"))]
        let _ = (sandbox, signal);
    }

    /// Waits `ms` of wall time.
    pub async fn sleep(ms: i32) {
        #[cfg(feature = "hydrate")]
        browser::sleep(ms).await;
        #[cfg(not(feature = "hydrate"))]
        let _ = ms;
    }

    #[cfg(feature = "hydrate")]
    mod browser {
        use wasm_bindgen::{JsCast, JsValue};
        use wasm_bindgen_futures::JsFuture;
        use web_sys::{Headers, Request, RequestInit, Response};

        pub async fn post(
            sandbox: &str,
            key: &str,
            intent: &str,
            amount: i64,
        ) -> Option<(u16, String, bool)> {
            let body = serde_json::json!({"to": "tithi", "amount": amount}).to_string();
            let response = post_json(
                &format!("/api/sandboxes/{sandbox}/transfers"),
                &body,
                &[
                    ("Authorization", "Bearer shimul"),
                    ("Idempotency-Key", key),
                    ("Lab-Intent", intent),
                ],
            )
            .await?;
            let replayed = response
                .headers()
                .get("idempotent-replayed")
                .ok()
                .flatten()
                .is_some_and(|v| v == "true");
            let text = JsFuture::from(response.text().ok()?)
                .await
                .ok()?
                .as_string()?;
            Some((response.status(), text, replayed))
        }

        /// POSTs a JSON body with extra headers; `None` when no answer came at all.
        pub async fn post_json(url: &str, body: &str, extra: &[(&str, &str)]) -> Option<Response> {
            let headers = Headers::new().ok()?;
            headers.set("Content-Type", "application/json").ok()?;
            for (name, value) in extra {
                headers.set(name, value).ok()?;
            }
            let init = RequestInit::new();
            init.set_method("POST");
            init.set_headers(&headers);
            init.set_body(&JsValue::from_str(body));
            let request = Request::new_with_str_and_init(url, &init).ok()?;
            JsFuture::from(leptos::prelude::window().fetch_with_request(&request))
                .await
                .ok()?
                .dyn_into()
                .ok()
        }

        pub async fn sleep(ms: i32) {
            let promise = js_sys::Promise::new(&mut |resolve, _| {
                let _ = leptos::prelude::window()
                    .set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms.max(0));
            });
            let _ = JsFuture::from(promise).await;
        }
    }
}
