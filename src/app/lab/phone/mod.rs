//! Shimul's phone running the PocketPay app. The app is real client code: it makes the
//! Idempotency-Key at the confirm tap, keeps it in browser storage with the pending transfer
//! (`key_persistence`), guards the Send button (`button_guard`), lets its HTTP library retry a
//! timeout on its own (`auto_retries`, `retry_backoff_ms`), and talks to the payment API over
//! HTTP exactly as `curl` would. What it cannot know, it shows as unknown: its balance is the one
//! the last receipt it received told it, never the ledger's.
//!
//! What the app decides (a tap caught at the button, the key a tap sends, what an answer
//! changes) is `domain::phone_app::AppMemory`; this component wires it to the screen, to
//! browser storage (`storage.rs`) and to HTTP (`http.rs`).

pub(super) mod http;
pub(super) mod key_wait;
mod storage;
pub(super) mod top;

use crate::tr;
use leptos::prelude::*;

use super::stream::LabStream;
use crate::app::i18n::{digits, taka, tr_id};
use crate::domain::phone::{AppSignal, SendLabel};
use crate::domain::phone_app::{AppMemory, AppScreen, AppSwitches, PhoneView, Tap};
use crate::domain::{Safeguard, SafeguardValue};
use top::AppTop;

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
///
/// Reads best whole: the phone's screens in one view, switched by the one phone state.
#[component]
fn PocketPayApp(live: LabStream) -> impl IntoView {
    let sandbox = live.sandbox();
    let state = live.state;
    let switch = move |s: Safeguard| {
        state.with(|st| matches!(st.safeguards.get(s), SafeguardValue::On(true)))
    };
    let app = RwSignal::new(AppMemory::opened(None));
    let screen = RwSignal::new(AppScreen::Ready);
    // What the user typed; `None` shows the usual ৳500 in the page's digits.
    let amount_text = RwSignal::new(None::<String>);
    let amount_error = RwSignal::new(None::<&'static str>);

    // Only what the app was told; the stores' balance is for the other panels.
    let balance = move || app.with(|a| a.known.taka());
    let busy = move || app.with(AppMemory::busy);
    let disabled = move || switch(Safeguard::ButtonGuard) && busy();
    let pending = move || app.with(|a| a.pending.clone());
    let last_key = move || app.with(|a| a.last_key.clone());
    let taps = move || app.with(|a| a.taps);

    let send = sender(&live, app, screen);

    #[cfg(feature = "hydrate")]
    take_back_pending(&live, app, screen);

    let on_send = {
        let live = live.clone();
        let sandbox = sandbox.clone();
        move |ev: leptos::ev::SubmitEvent| {
            ev.prevent_default();
            let switches = AppSwitches {
                button_guard: switch_untracked(&live, Safeguard::ButtonGuard),
                key_persistence: switch_untracked(&live, Safeguard::KeyPersistence),
            };
            let text = amount_text.get_untracked();
            let fresh = uuid::Uuid::new_v4().to_string();
            let now = super::stream::now_ms();
            let tap = app
                .try_update(|a| a.tap(now, switches, text.as_deref(), fresh))
                .expect("the app is open while its form is on the page");
            match tap {
                Tap::Ignored(signal) => {
                    // Caught at the button: the lab hears of it, the server does not.
                    let sandbox = sandbox.clone();
                    leptos::task::spawn_local(async move {
                        http::post_app_signal(&sandbox, &signal).await;
                    });
                }
                Tap::BadAmount(e) => amount_error.set(Some(e.message_id())),
                Tap::Send {
                    key,
                    amount,
                    signal,
                    save,
                } => {
                    amount_error.set(None);
                    // The decision to pay this tap belongs to is of this run: a reload keeps it
                    // (the same decision, retried), a reset it never heard of drops it.
                    storage::note_seen(&sandbox, seen(&live));
                    if save {
                        if let Some(p) = app.with_untracked(|a| a.pending.clone()) {
                            storage::save_pending(&sandbox, &p, seen(&live));
                        }
                    }
                    send(key, amount, storage::intent(&sandbox), Some(signal));
                }
            }
        }
    };

    // On a phone with a chapter's drawer open, Send and its answer stay above the drawer,
    // also when the other language's words move them.
    Effect::new(move |_| {
        screen.track();
        let _ = crate::app::i18n::is_bn();
        super::wide::keep_phone_above_drawer();
    });

    let amount_locked = move || app.with(|a| a.amount_locked(switch(Safeguard::KeyPersistence)));
    let face = Memo::new(move |_| PhoneView {
        screen: screen.get(),
        balance: balance(),
        amount_text: amount_text.get(),
        amount_locked: pending().filter(|_| amount_locked()).map(|p| p.amount),
        amount_error: amount_error.get().map(str::to_owned),
        key: pending().map(|p| p.key).or_else(last_key),
        pending_requests: pending().map(|p| p.requests),
        taps: taps(),
        busy: busy(),
        guarded: disabled(),
        label: SendLabel::of(busy(), amount_locked())
            .message_id()
            .to_owned(),
    });
    // The phone goes to the sandbox's stream as it changes, and again whenever the stream
    // (re)connects, so a read-only mirror shows this phone (docs/reference.md §10).
    #[cfg(feature = "hydrate")]
    Effect::new(move |_| {
        let view = face.get();
        if !live.connected.get() {
            return;
        }
        let sandbox = sandbox.clone();
        leptos::task::spawn_local(async move {
            let _ = super::rpc::show_phone(sandbox, view).await;
        });
    });
    #[cfg(not(feature = "hydrate"))]
    let _ = sandbox;
    // The key on screen has left the phone: the network's first step took its request.
    let events = live.events;
    let sent = Signal::derive(move || {
        face.with(|f| f.key.clone()).is_some_and(|key| {
            events.with(|e| {
                e.iter().rev().any(|e| {
                    e.kind == crate::domain::EventKind::RequestSent
                        && e.correlation.as_deref() == Some(key.as_str())
                })
            })
        })
    });

    view! {
        <AppFace
            face=face.into()
            sent
            on_send=Callback::new(on_send)
            on_amount=Callback::new(move |text| amount_text.set(Some(text)))
        />
        {super::later::later(super::later::Later::KeyWait(face.into()), live.clone())}
    }
}

/// Sends one tap's request, with the HTTP library's automatic retries, and shows the outcome.
fn sender(
    live: &LabStream,
    app: RwSignal<AppMemory>,
    screen: RwSignal<AppScreen>,
) -> impl Fn(String, i64, String, Option<AppSignal>) + Clone {
    let live = live.clone();
    let sandbox = live.sandbox();
    move |key: String, amount: i64, intent: String, tap: Option<AppSignal>| {
        let live = live.clone();
        let sandbox = sandbox.clone();
        app.update(|a| a.sending(&key));
        screen.set(AppScreen::Sending);
        let hold = live.hold();
        leptos::task::spawn_local(async move {
            let _hold = hold;
            // The tap goes on the timeline before its request leaves.
            if let Some(signal) = tap {
                http::post_app_signal(&sandbox, &signal).await;
            }
            let (retries, backoff_ms) = live
                .state
                .with_untracked(|s| (s.faults.auto_retries.get(), s.faults.retry_backoff_ms.get()));
            let mut attempt = 0;
            let answer = loop {
                let keep = switch_untracked(&live, Safeguard::KeyPersistence);
                let open = app
                    .try_update(|a| {
                        if let Some(p) = a.request_leaves(&key).filter(|_| keep) {
                            storage::save_pending(&sandbox, p, seen(&live));
                        }
                    })
                    .is_some();
                // An app closed meanwhile (reopened, or reinstalled by a reset) took its
                // HTTP library's retries with it: nothing more goes out for this tap.
                if !open {
                    return;
                }
                let answer = http::post_transfer(&sandbox, &key, &intent, amount).await;
                if answer.library_retries() && attempt < retries {
                    attempt += 1;
                    let _ = screen.try_set(AppScreen::Backoff);
                    let speed = live.clock.with_untracked(|c| c.speed).max(0.1);
                    http::sleep((backoff_ms as f64 / speed) as i32).await;
                    let _ = screen.try_set(AppScreen::Sending);
                    continue;
                }
                break answer;
            };
            // Kept only by an app still open: one closed meanwhile never heard this answer.
            if let Some(balance) = app
                .try_update(|a| a.answered(&answer))
                .and_then(|d| d.balance)
            {
                storage::save_balance(&sandbox, balance, seen(&live));
            }
            if answer.is_final() {
                storage::clear_pending(&sandbox);
                storage::clear_intent(&sandbox);
            }
            let _ = screen.try_set(AppScreen::after(answer));
        });
    }
}

/// On opening: a pending transfer in storage is taken back with its own key and shown as
/// unfinished; only a tap sends it again (a reload is no tap).
#[cfg(feature = "hydrate")]
fn take_back_pending(live: &LabStream, app: RwSignal<AppMemory>, screen: RwSignal<AppScreen>) {
    let live = live.clone();
    let sandbox = live.sandbox();
    Effect::new(move |_| {
        // Kept before a reset this page never heard of (a preset loaded by a link): that
        // run is gone, and its pending transfer must not go out again on its own.
        if let Some(reset) = live.state.with_untracked(|s| s.last_reset_id()) {
            if storage::kept_before(&sandbox, reset) {
                storage::forget(&sandbox);
            }
        }
        app.set(AppMemory::opened(storage::load_balance(&sandbox)));
        if !switch_untracked(&live, Safeguard::KeyPersistence) {
            storage::clear_pending(&sandbox);
            return;
        }
        if let Some(p) = storage::load_pending(&sandbox) {
            app.update(|a| a.resume(p));
            screen.set(AppScreen::Unfinished);
        }
    });
}

/// A read-only mirror's phone: the phone as the app's browser last sent it to the stream.
#[component]
pub fn MirroredPhone(live: LabStream) -> impl IntoView {
    let phone = Memo::new(move |_| live.presence.with(|p| p.phone.clone()));
    view! {
        <section class="panel phone-panel" aria-labelledby="shimul-title">
            <h2 id="shimul-title">{move || tr!("shimul-phone")}</h2>
            <div class="phone" role="group" aria-label=move || tr!("shimul-phone-frame")>
                <div class="phone-notch" aria-hidden="true"></div>
                {move || match phone.get() {
                    Some(_) => view! {
                        <AppFace
                            face=Signal::derive(move || phone.get().unwrap_or_else(PhoneView::untouched))
                            on_send=Callback::new(|_| {})
                            on_amount=Callback::new(|_| {})
                        />
                    }
                    .into_any(),
                    None => view! {
                        <div class="app" data-screen="waiting">
                            <p class="hint" data-testid="phone-message" data-state="waiting">{move || tr!("mirror-phone-waiting")}</p>
                        </div>
                    }
                    .into_any(),
                }}
            </div>
        </section>
    }
}

/// The app's screen, drawn from what it shows: the live app and a read-only mirror draw the
/// same phone.
#[component]
fn AppFace(
    face: Signal<PhoneView>,
    /// Whether the request of the key on screen has left the phone (`data-request-sent`);
    /// a mirror does not know.
    #[prop(optional, into)]
    sent: Signal<bool>,
    on_send: Callback<leptos::ev::SubmitEvent>,
    on_amount: Callback<String>,
) -> impl IntoView {
    let with = move |f: fn(&PhoneView) -> bool| Signal::derive(move || face.with(f));
    let guarded = with(|f| f.guarded);
    let busy = with(|f| f.busy);
    let error = move || face.with(|f| f.amount_error.clone());
    view! {
        <div class="app" data-screen=move || face.with(|f| f.screen.id())>
            <AppTop label="your-balance" testid="shimul-balance" balance=Signal::derive(move || face.with(|f| f.balance)) />
            <form class="app-form" on:submit=move |ev| on_send.run(ev) novalidate=true>
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
                            prop:value=move || face.with(|f| match f.amount_locked {
                                Some(amount) => digits(&amount.to_string()),
                                None => f.amount_text.clone().unwrap_or_else(|| digits("500")),
                            })
                            on:input=move |ev| on_amount.run(event_target_value(&ev))
                            readonly=move || face.with(|f| f.amount_locked.is_some())
                            aria-invalid=move || error().is_some().to_string()
                            aria-describedby="amount-error"
                        />
                    </span>
                </label>
                <p id="amount-error" class="error" role="alert">
                    {move || error().map(|id| tr_id(&id))}
                </p>
                <button
                    type="submit"
                    class="send"
                    data-testid="send-button"
                    aria-disabled=move || guarded.get().to_string()
                    class:guarded=guarded
                    aria-busy=move || busy.get().to_string()
                >
                    <Show when=move || guarded.get()>
                        <span class="spinner" aria-hidden="true"></span>
                    </Show>
                    {move || face.with(|f| tr_id(&f.label))}
                </button>
            </form>
            <div class="app-message" data-testid="phone-message" data-state=move || face.with(|f| f.screen.id()) data-taps=move || face.with(|f| f.taps) data-request-sent=move || sent.get().to_string() role="status" aria-live="polite">
                {move || message(face.with(|f| f.screen.clone()))}
            </div>
            <p class="app-key">
                <span class="label">"Idempotency-Key"</span>
                <code data-testid="idempotency-key" data-pending=move || face.with(|f| f.pending_requests.is_some()).to_string()>
                    {move || face.with(|f| f.key.clone()).unwrap_or_else(|| "—".to_owned())}
                </code>
                <span class="hint" data-testid="key-requests">
                    {move || match face.with(|f| (f.pending_requests, f.key.is_some())) {
                        (Some(n), _) => tr!("key-pending", { "n" => n, "requests" => digits(&n.to_string()) }),
                        (None, true) => tr!("key-last"),
                        (None, false) => tr!("key-none"),
                    }}
                </span>
            </p>
        </div>
    }
}

/// The newest timeline event this screen has taken in, by the stream or by a state read.
fn seen(live: &LabStream) -> i64 {
    let streamed = live.events.with_untracked(|e| e.last().map_or(0, |e| e.id));
    streamed.max(live.state.with_untracked(|s| s.last_event_id()))
}

fn switch_untracked(live: &LabStream, s: Safeguard) -> bool {
    live.state
        .with_untracked(|st| matches!(st.safeguards.get(s), SafeguardValue::On(true)))
}

fn message(screen: AppScreen) -> AnyView {
    match screen {
        AppScreen::Ready => view! { <p class="hint">{move || tr!("phone-ready")}</p> }.into_any(),
        AppScreen::Sending | AppScreen::Backoff => {
            let id = match screen {
                AppScreen::Backoff => "phone-backoff",
                _ => "phone-sending",
            };
            view! { <p class="pending"><span class="spinner" aria-hidden="true"></span>{move || tr_id(id)}</p> }
                .into_any()
        }
        AppScreen::Receipt { receipt, replayed } => {
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
        AppScreen::AlreadyMade => {
            view! { <p><span aria-hidden="true">"✓ "</span>{move || tr!("phone-already-made")}</p> }
                .into_any()
        }
        AppScreen::Refused { kind } => {
            let id = match kind.as_str() {
                "insufficient-funds" => "phone-insufficient",
                "idempotency-key-reused" => "phone-key-reused",
                _ => "phone-refused",
            };
            view! { <p class="error"><span aria-hidden="true">"✕ "</span>{move || tr_id(id)}</p> }
                .into_any()
        }
        AppScreen::InProgress => {
            view! { <p class="unknown">{move || tr!("phone-in-progress")}</p> }.into_any()
        }
        AppScreen::TryLater => {
            view! { <p class="unknown">{move || tr!("phone-try-later")}</p> }.into_any()
        }
        AppScreen::Unfinished => view! {
            <p class="unknown">{move || tr!("phone-unfinished")}</p>
            <p class="lab-note" data-outcome="unknown">{move || tr!("outcome-unknown-note")}</p>
        }
        .into_any(),
        AppScreen::Unknown => view! {
            <p class="error"><span aria-hidden="true">"! "</span>{move || tr!("generic-error")}</p>
            <p class="lab-note" data-outcome="unknown">{move || tr!("outcome-unknown-note")}</p>
        }
        .into_any(),
    }
}
