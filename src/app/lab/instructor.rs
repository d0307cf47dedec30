//! The instructor's panel: the faults inside the services (the network's are in the network
//! panel, the safeguards beside Shimul's phone), the clock, consumer replay, the seed, reset,
//! presenter mode for a projector, and a link that opens this same sandbox on another screen.
//! A phone shows it folded.

use crate::tr;
use leptos::prelude::*;

use super::clock_panel::ClockPanel;
use super::controls::{apply_faults, ControlError, ErrorLine, FaultRange, Problem};
use super::rpc::{load_scenario, mirror_link, new_sandbox, reset_sandbox};
use super::stream::LabStream;
use super::wide::open_when_wide;
use crate::app::error::{failed, FnError};
use crate::app::i18n::{digits, tr_args, tr_id};
use crate::domain::class::pushable_presets;
use crate::domain::fault::NumberFault;
use crate::domain::pipeline::Consumer;
use crate::domain::run::{ReplayBody, SecondsAgo, MAX_REPLAY_DAYS};
use crate::domain::scenario::Variant;
use crate::domain::{CrashMode, CrashPoint, FaultsPatch};

/// Where presenter mode is remembered in the browser.
const PRESENTER_KEY: &str = "pocketpay-lab:presenter";

/// Presenter mode (large type), remembered in this browser.
pub fn presenter_mode() -> RwSignal<bool> {
    let on = RwSignal::new(false);
    #[cfg(feature = "hydrate")]
    {
        let storage = window().local_storage().ok().flatten();
        Effect::new(move |first: Option<()>| {
            let value = on.get();
            if let Some(s) = &storage {
                if first.is_none() {
                    if s.get_item(PRESENTER_KEY).ok().flatten().as_deref() == Some("on") {
                        on.set(true);
                    }
                } else {
                    let _ = s.set_item(PRESENTER_KEY, if value { "on" } else { "off" });
                }
            }
        });
    }
    let _ = PRESENTER_KEY;
    on
}

#[component]
pub fn InstructorPanel(live: LabStream, presenter: RwSignal<bool>) -> impl IntoView {
    let error = ControlError(RwSignal::new(None));
    let fold = NodeRef::<leptos::html::Details>::new();
    open_when_wide(fold);
    view! {
        <section class="panel instructor" aria-labelledby="instructor-title">
            <details class="fold" node_ref=fold>
                <summary>
                    <h2 id="instructor-title">{move || tr!("instructor-title")}</h2>
                    <span class="hint fold-hint">{move || tr!("instructor-open")}</span>
                </summary>
                <div class="instructor-body">
                    <div class="controls">
                        <button
                            type="button"
                            data-testid="presenter"
                            aria-pressed=move || presenter.get().to_string()
                            on:click=move |_| presenter.update(|p| *p = !*p)
                        >
                            {move || tr!("presenter-mode")}
                            <span class="state-word">{move || if presenter.get() { tr!("on") } else { tr!("off") }}</span>
                        </button>
                        <ResetButton live=live.clone() error />
                    </div>
                    <PresetPicker live=live.clone() error />
                    <ShareLink live=live.clone() />
                    <ErrorLine error />
                    {view! { <ClockPanel live=live.clone() /> }.into_any()}
                    {view! { <ServiceFaults live=live.clone() error /> }.into_any()}
                    {view! { <ConsumerReplay live=live.clone() error /> }.into_any()}
                    {view! { <SeedBox live /> }.into_any()}
                </div>
            </details>
        </section>
    }
}

/// Reset, asked twice: everything the student did in this lab goes.
#[component]
fn ResetButton(live: LabStream, error: ControlError) -> impl IntoView {
    let confirming = RwSignal::new(false);
    let reset = Action::new(move |_: &()| {
        let live = live.clone();
        let hold = live.hold();
        async move {
            let _hold = hold;
            match reset_sandbox(live.sandbox()).await {
                Ok(after) => {
                    error.0.set(None);
                    live.take_state_after_reset(after);
                }
                Err(e) => error.0.set(Some(Problem::Server(e))),
            }
        }
    });
    let busy = reset.pending();
    view! {
        {move || if confirming.get() {
            view! {
                <span class="confirm" role="group" aria-label=move || tr!("reset-ask")>
                    <span>{move || tr!("reset-ask")}</span>
                    " "
                    <button type="button" class="danger" data-testid="reset-confirm" disabled=move || busy.get()
                        on:click=move |_| {
                            confirming.set(false);
                            reset.dispatch(());
                        }>
                        {move || tr!("reset-yes")}
                    </button>
                    " "
                    <button type="button" data-testid="reset-cancel" on:click=move |_| confirming.set(false)>
                        {move || tr!("reset-no")}
                    </button>
                </span>
            }
            .into_any()
        } else {
            view! {
                <button type="button" data-testid="reset" on:click=move |_| confirming.set(true) disabled=move || busy.get()>
                    {move || tr!("reset")}
                </button>
            }
            .into_any()
        }}
    }
}

/// Every scenario's preset, guarded and unguarded (and scenario 8's at-most-once run): what a
/// chapter's button loads, for any scenario, from one list.
#[component]
fn PresetPicker(live: LabStream, error: ControlError) -> impl IntoView {
    let chosen = RwSignal::new((1u8, Variant::Unguarded));
    let wipe = super::wipe::WipeAsk::new(&live);
    let load = Action::new(move |p: &(u8, Variant)| {
        let (live, (scenario, variant)) = (live.clone(), *p);
        let hold = live.hold();
        async move {
            let _hold = hold;
            match load_scenario(live.sandbox(), scenario, variant).await {
                Ok(after) => {
                    error.0.set(None);
                    live.take_state_after_reset(after);
                }
                Err(e) => error.0.set(Some(Problem::Server(e))),
            }
        }
    });
    let busy = load.pending();
    view! {
        <div class="preset-picker">
            <super::wipe::WipeDialog ask=wipe />
            <label for="lab-preset">{move || tr!("lab-preset")}</label>
            <div class="share-row">
                <select
                    id="lab-preset"
                    data-testid="lab-preset"
                    on:change=move |ev| {
                        let v = event_target_value(&ev);
                        if let Some(p) = pushable_presets()
                            .into_iter()
                            .find(|(n, var)| format!("{n}-{}", var.id()) == v)
                        {
                            chosen.set(p);
                        }
                    }
                >
                    {pushable_presets()
                        .into_iter()
                        .map(|(n, v)| {
                            let value = format!("{n}-{}", v.id());
                            view! {
                                <option value=value selected=move || chosen.get() == (n, v)>
                                    {move || preset_name(n, v)}
                                </option>
                            }
                        })
                        .collect_view()}
                </select>
                <button type="button" data-testid="lab-preset-load" disabled=move || busy.get()
                    on:click=move |_| {
                        let preset = chosen.get_untracked();
                        let fresh = format!("/lab?fresh=1&scenario={}&variant={}", preset.0, preset.1.id());
                        wipe.then(Callback::new(move |_| {
                            load.dispatch(preset);
                        }), Some(fresh));
                    }>
                    {move || tr!("lab-preset-load")}
                </button>
            </div>
            <p class="hint">{move || tr!("lab-preset-hint")}</p>
        </div>
    }
}

/// "Scenario 4 · a key reused · unguarded", in the page's language.
pub fn preset_name(n: u8, v: Variant) -> String {
    let variant = match v {
        Variant::Guarded => tr_id("variant-guarded"),
        Variant::Unguarded => tr_id("variant-unguarded"),
        Variant::AtMostOnce => tr_id("class-variant-at-most-once"),
    };
    format!(
        "{} · {variant}",
        tr_args(
            "class-scenario",
            &[
                ("n", digits(&n.to_string())),
                ("name", tr_id(&format!("scenario-name-{n}")))
            ]
        ),
    )
}

/// The sandbox's address, to open on a second screen with every control, and a read-only
/// mirror's, for a projector: it shows the lab and Shimul's phone and changes nothing.
#[component]
fn ShareLink(live: LabStream) -> impl IntoView {
    let path = format!("/lab/{}", live.sandbox());
    let url = RwSignal::new(path.clone());
    let mirror = RwSignal::new(None::<String>);
    #[cfg(feature = "hydrate")]
    Effect::new(move |_| {
        if let Ok(origin) = window().location().origin() {
            url.set(format!("{origin}{path}"));
        }
    });
    #[cfg(not(feature = "hydrate"))]
    let _ = path;
    let make_mirror = Action::new(move |_: &()| {
        let sandbox = live.sandbox();
        async move {
            let token = mirror_link(sandbox).await?;
            #[cfg(feature = "hydrate")]
            let origin = window().location().origin().unwrap_or_default();
            #[cfg(not(feature = "hydrate"))]
            let origin = String::new();
            mirror.set(Some(format!("{origin}/watch/{token}")));
            Ok::<(), FnError>(())
        }
    });
    let refused = failed(make_mirror);
    let copied = RwSignal::new(false);
    let copy = move |text: String| {
        #[cfg(feature = "hydrate")]
        {
            let promise = window().navigator().clipboard().write_text(&text);
            leptos::task::spawn_local(async move {
                let ok = wasm_bindgen_futures::JsFuture::from(promise).await.is_ok();
                copied.set(ok);
            });
        }
        #[cfg(not(feature = "hydrate"))]
        let _ = (text, copied);
    };
    view! {
        <div class="share">
            <label for="share-link">{move || tr!("share-link")}</label>
            <div class="share-row">
                <input id="share-link" data-testid="share-link" type="text" readonly=true prop:value=move || url.get() />
                <button type="button" on:click=move |_| copy(url.get_untracked())>{move || tr!("copy")}</button>
            </div>
            <p class="hint" role="status">
                {move || if copied.get() { tr!("copied") } else { tr!("share-link-hint") }}
            </p>
            {move || match mirror.get() {
                None => view! {
                    <button type="button" data-testid="mirror-make" disabled=move || make_mirror.pending().get()
                        on:click=move |_| {
                            make_mirror.dispatch(());
                        }>
                        {move || tr!("mirror-make")}
                    </button>
                }
                .into_any(),
                Some(link) => view! {
                    <label for="mirror-link">{move || tr!("mirror-link")}</label>
                    <div class="share-row">
                        <input id="mirror-link" data-testid="mirror-link" type="text" readonly=true prop:value=link.clone() />
                        <a class="button" href=link.clone() target="_blank" rel="external">{move || tr!("mirror-open")}</a>
                    </div>
                }
                .into_any(),
            }}
            <p class="hint">{move || tr!("mirror-hint")}</p>
            <p class="error" role="alert">{refused}</p>
        </div>
    }
}

/// Faults inside the services: the gateway's latency and every crash point.
#[component]
fn ServiceFaults(live: LabStream, error: ControlError) -> impl IntoView {
    view! {
        <fieldset class="faults">
            <legend>{move || tr!("faults-title")}</legend>
            <p class="hint">
                {move || tr!("faults-network-elsewhere")} " "
                <a href="#network-title">{move || tr!("network-title")}</a>
            </p>
            <FaultRange live=live.clone() fault=NumberFault::GatewayLatencyMs min=0 max=2000 step=10 unit="ms" error />
            <ul class="crashes">
                {CrashPoint::ALL
                    .into_iter()
                    .map(|c| view! { <CrashControl live=live.clone() point=c error /> })
                    .collect_view()}
            </ul>
        </fieldset>
    }
}

#[component]
fn CrashControl(live: LabStream, point: CrashPoint, error: ControlError) -> impl IntoView {
    let id = point.id();
    let state = live.state;
    let mode =
        Memo::new(move |_| state.with(|s| s.faults.crash.get(&point).copied().unwrap_or_default()));
    let mode = move || mode.get();
    let current = move || mode().text();
    let select_id = format!("crash-{id}");
    let on_change =
        move |ev: leptos::ev::Event| match CrashMode::from_text(&event_target_value(&ev)) {
            Some(mode) => apply_faults(&live, FaultsPatch::crash(&[point], mode), error),
            None => error.0.set(Some(Problem::Server(FnError::InvalidField {
                field: format!("crash.{id}"),
            }))),
        };
    let options = ["off", "once", "always", "0.5", "0.1"];
    view! {
        <li class="crash">
            <label for=select_id.clone()>
                <code>{id}</code>
                <span class="hint">{move || tr_id(&format!("crash-{id}"))}</span>
            </label>
            <select id=select_id.clone() data-testid=select_id on:change=on_change>
                {options
                    .into_iter()
                    .map(|o| view! {
                        <option value=o selected=move || current() == o>
                            {move || tr_id(&format!("crash-mode-{}", o.replace('.', "")))}
                        </option>
                    })
                    .collect_view()}
                {move || {
                    let c = current();
                    (!options.contains(&c.as_str())).then(|| view! { <option value=c.clone() selected=true>{digits(&c)}</option> })
                }}
            </select>
        </li>
    }
}

/// Rewinds a consumer group by time: the replay of scenario 11.
#[component]
fn ConsumerReplay(live: LabStream, error: ControlError) -> impl IntoView {
    let consumer = RwSignal::new(Consumer::Wallet);
    let days = RwSignal::new("5".to_owned());
    let done = RwSignal::new(false);
    // A number of days the form cannot send: said beside the field, nothing sent.
    let invalid = RwSignal::new(false);
    // One replay at a time: the button waits for the server's answer.
    let replay = Action::new(move |body: &ReplayBody| {
        let (sandbox, body) = (live.sandbox(), *body);
        let hold = live.hold();
        async move {
            let _hold = hold;
            match super::rpc::replay_consumer(sandbox, body).await {
                Ok(()) => {
                    error.0.set(None);
                    done.set(true);
                }
                Err(e) => error.0.set(Some(Problem::Server(e))),
            }
        }
    });
    let busy = replay.pending();
    let on_submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        if busy.get_untracked() {
            return;
        }
        let d = days.get_untracked().trim().parse::<f64>().ok();
        let seconds = d
            .filter(|d| d.is_finite())
            .and_then(|d| SecondsAgo::try_from((d * 86_400.0) as i64).ok());
        let Some(from_seconds_ago) = seconds else {
            invalid.set(true);
            return;
        };
        invalid.set(false);
        done.set(false);
        replay.dispatch(ReplayBody {
            consumer: consumer.get_untracked(),
            from_seconds_ago,
        });
    };
    view! {
        <form class="replay" on:submit=on_submit>
            <fieldset>
                <legend>{move || tr!("replay-title")}</legend>
                <p class="hint">{move || tr!("replay-hint")}</p>
                <label>
                    {move || tr!("replay-consumer")}
                    <select data-testid="replay-consumer" on:change=move |ev| if let Some(c) = Consumer::from_id(&event_target_value(&ev)) { consumer.set(c) }>
                        <option value="wallet">{move || tr!("replay-consumer-wallet")}</option>
                        <option value="sms">{move || tr!("replay-consumer-sms")}</option>
                        <option value="fraud">{move || tr!("replay-consumer-fraud")}</option>
                    </select>
                </label>
                <label>
                    {move || tr!("replay-days")}
                    <input type="number" data-testid="replay-days" min="0" max=MAX_REPLAY_DAYS step="0.5" prop:value=move || days.get() on:input=move |ev| days.set(event_target_value(&ev)) aria-invalid=move || invalid.get().to_string() aria-describedby="replay-days-error" />
                </label>
                <p id="replay-days-error" class="error" role="alert">
                    {move || invalid.get().then(|| tr!("replay-days-invalid", { "max" => digits(&MAX_REPLAY_DAYS.to_string()) }))}
                </p>
                <button type="submit" data-testid="replay-start" disabled=move || busy.get()>{move || tr!("replay-start")}</button>
                <Show when=move || done.get()>
                    <p class="hint" role="status">{move || tr!("replay-done")}</p>
                </Show>
            </fieldset>
        </form>
    }
}

/// The seed of this sandbox, and a new sandbox with a seed of one's choosing.
#[component]
fn SeedBox(live: LabStream) -> impl IntoView {
    let seed = move || live.state.with(|s| s.seed);
    let wanted = RwSignal::new(String::new());
    // The seed typed cannot be read (false: no problem), or the server's answer.
    let unreadable = RwSignal::new(false);
    let opening = Action::new(move |seed: &Option<u64>| {
        let seed = *seed;
        async move {
            let id = new_sandbox(seed).await?;
            #[cfg(feature = "hydrate")]
            let _ = window().location().set_href(&format!("/lab/{id}"));
            #[cfg(not(feature = "hydrate"))]
            let _ = id;
            Ok::<(), FnError>(())
        }
    });
    let refused = failed(opening);
    let problem = move || {
        if unreadable.get() {
            Some(tr!("seed-invalid"))
        } else {
            refused()
        }
    };
    let on_submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let text = wanted.get_untracked();
        let seed = if text.trim().is_empty() {
            None
        } else {
            match text.trim().parse::<u64>() {
                Ok(s) => Some(s),
                Err(_) => {
                    unreadable.set(true);
                    return;
                }
            }
        };
        unreadable.set(false);
        opening.dispatch(seed);
    };
    view! {
        <form class="seed" on:submit=on_submit>
            <fieldset>
                <legend>{move || tr!("seed-title")}</legend>
                <p>{move || tr!("seed-current")} " " <code data-testid="seed">{seed}</code></p>
                <p class="hint">{move || tr!("seed-hint")}</p>
                <label>
                    {move || tr!("seed-new")}
                    <input type="text" inputmode="numeric" prop:value=move || wanted.get() on:input=move |ev| wanted.set(event_target_value(&ev)) />
                </label>
                <button type="submit">{move || tr!("seed-open")}</button>
                <p class="error" role="alert">{problem}</p>
            </fieldset>
        </form>
    }
}
