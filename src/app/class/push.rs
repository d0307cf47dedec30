//! What the instructor sends every lab at once from the class page: a scenario, a safeguard,
//! the clocks, a reset, a line of text; and the history of what was sent.

use crate::tr;
use leptos::prelude::*;

use super::{class_message, class_push};
use crate::app::i18n::{digits, tr_args, tr_id};
use crate::app::lab::preset_name;
use crate::domain::class::{pushable_presets, ClassView, Push, PushReport, SentWhat};
use crate::domain::scenario::Variant;
use crate::domain::Safeguard;

/// One thing to every student's lab at once: a scenario guarded or not, a safeguard, the
/// clocks frozen or running, a reset (asked twice). Each is one request; the line under the
/// buttons says how many labs took it.
///
/// Reads best whole: one form: the preset, the message and the send share its state.
#[component]
pub(super) fn PushPanel(
    class: String,
    count: Signal<usize>,
    view: RwSignal<ClassView>,
) -> impl IntoView {
    // Each push answers with what was pushed, so the freeze button can follow what took.
    let push = Action::new(move |p: &Push| {
        let (class, p) = (class.clone(), *p);
        async move { class_push(class, p).await.map(|r| (p, r)) }
    });
    let preset = RwSignal::new((1u8, Variant::Unguarded));
    let safeguard = RwSignal::new(Safeguard::ALL[0]);
    // The lock and the freeze are the class's, as the server keeps them: they come with the
    // view on the class stream, so every window of the instructor's shows the same.
    let frozen = Signal::derive(move || view.with(|v| v.frozen));
    let locked = Signal::derive(move || view.with(|v| v.locked));
    let confirming = RwSignal::new(false);
    let send = move |p: Push| {
        confirming.set(false);
        push.dispatch(p);
    };
    Effect::new(move |_| match push.value().get() {
        Some(Ok((Push::Freeze { frozen: f }, _))) => view.update(|v| v.frozen = f),
        Some(Ok((Push::Lock { locked: l }, _))) => view.update(|v| v.locked = l),
        _ => {}
    });
    let report = move || push.value().get().and_then(Result::ok).map(|(_, r)| r);
    let busy = move || push.pending().get();
    view! {
        <section class="panel class-push" aria-labelledby="class-push-title">
            <h2 id="class-push-title">{move || tr!("class-push-title")}</h2>
            <div class="class-push-row">
                <label for="class-preset">{move || tr!("class-preset")}</label>
                <select
                    id="class-preset"
                    data-testid="class-preset"
                    on:change=move |ev| {
                        let v = event_target_value(&ev);
                        if let Some(p) = pushable_presets()
                            .into_iter()
                            .find(|(n, var)| format!("{n}-{}", var.id()) == v)
                        {
                            preset.set(p);
                        }
                    }
                >
                    {pushable_presets()
                        .into_iter()
                        .map(|(n, v)| {
                            let value = format!("{n}-{}", v.id());
                            view! {
                                <option value=value selected=move || preset.get() == (n, v)>
                                    {move || preset_name(n, v)}
                                </option>
                            }
                        })
                        .collect_view()}
                </select>
                <button
                    type="button"
                    class="button primary"
                    data-testid="class-push-preset"
                    disabled=busy
                    on:click=move |_| {
                        let (scenario, variant) = preset.get_untracked();
                        send(Push::Preset { scenario, variant });
                    }
                >
                    {move || tr!("class-push-preset")}
                </button>
            </div>
            <div class="class-push-row">
                <label for="class-safeguard">{move || tr!("class-safeguard")}</label>
                <select
                    id="class-safeguard"
                    data-testid="class-safeguard"
                    on:change=move |ev| {
                        if let Some(s) = Safeguard::from_id(&event_target_value(&ev)) {
                            safeguard.set(s);
                        }
                    }
                >
                    {Safeguard::ALL
                        .into_iter()
                        .map(|s| view! {
                            <option value=s.id() selected=move || safeguard.get() == s>
                                {move || format!("{} ({})", tr_id(&format!("safeguard-{}-name", s.id())), s.id())}
                            </option>
                        })
                        .collect_view()}
                </select>
                <button type="button" class="button" data-testid="class-push-safeguard-off" disabled=busy
                    on:click=move |_| send(Push::Safeguard { safeguard: safeguard.get_untracked(), on: false })>
                    {move || tr!("class-switch-off")}
                </button>
                <button type="button" class="button" data-testid="class-push-safeguard-on" disabled=busy
                    on:click=move |_| send(Push::Safeguard { safeguard: safeguard.get_untracked(), on: true })>
                    {move || tr!("class-switch-on")}
                </button>
            </div>
            <div class="class-push-row">
                <button type="button" class="button" data-testid="class-freeze" data-frozen=move || frozen.get().to_string()
                    aria-pressed=move || frozen.get().to_string() disabled=busy
                    on:click=move |_| send(Push::Freeze { frozen: !frozen.get_untracked() })>
                    {move || if frozen.get() { tr!("class-thaw") } else { tr!("class-freeze") }}
                </button>
                <button type="button" class="button" data-testid="class-lock" data-locked=move || locked.get().to_string()
                    aria-pressed=move || locked.get().to_string() disabled=busy
                    on:click=move |_| send(Push::Lock { locked: !locked.get_untracked() })>
                    {move || if locked.get() { tr!("class-unlock") } else { tr!("class-lock") }}
                </button>
                <span class="hint class-lock-hint">{move || tr!("class-lock-hint")}</span>
                {move || if confirming.get() {
                    view! {
                        <span class="class-confirm" role="group">
                            <span>{tr_args("class-reset-ask", &[("n", digits(&count.get().to_string()))])}</span>
                            " "
                            <button type="button" class="button danger" data-testid="class-reset-confirm" disabled=busy
                                on:click=move |_| send(Push::Reset)>
                                {tr!("class-reset-yes")}
                            </button>
                            " "
                            <button type="button" class="button" data-testid="class-reset-cancel" on:click=move |_| confirming.set(false)>
                                {tr!("class-reset-no")}
                            </button>
                        </span>
                    }.into_any()
                } else {
                    view! {
                        <button type="button" class="button" data-testid="class-reset-all" disabled=busy
                            on:click=move |_| confirming.set(true)>
                            {tr!("class-reset-all")}
                        </button>
                    }.into_any()
                }}
            </div>
            <p class="hint" role="status" aria-live="polite" data-testid="class-push-report"
                data-took=move || report().map(|r: PushReport| r.took.to_string())
                data-of=move || report().map(|r| r.of.to_string())>
                {move || match push.value().get() {
                    _ if busy() => tr!("class-pushing"),
                    // An earlier push's count is not the answer to the reset being asked.
                    _ if confirming.get() => String::new(),
                    Some(Ok((_, r))) => tr_args("class-pushed", &[("took", digits(&r.took.to_string())), ("of", digits(&r.of.to_string()))]),
                    Some(Err(e)) => e.text(),
                    None => String::new(),
                }}
            </p>
        </section>
    }
}

/// One line to every student's screen, shown there until the next one.
#[component]
pub(super) fn MessagePanel(class: String, view: RwSignal<ClassView>) -> impl IntoView {
    let text = RwSignal::new(String::new());
    let sending = Action::new(move |t: &String| {
        let (class, t) = (class.clone(), t.clone());
        async move { class_message(class, t).await }
    });
    Effect::new(move |_| {
        if let Some(Ok(_)) = sending.value().get() {
            text.set(String::new());
        }
    });
    let send = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        sending.dispatch(text.get_untracked());
    };
    let now_shown = move || view.with(|v| v.cue.message.as_ref().map(|m| m.text.clone()));
    view! {
        <section class="panel class-message-panel" aria-labelledby="class-message-title">
            <h2 id="class-message-title">{move || tr!("class-message-title")}</h2>
            <form class="class-push-row" on:submit=send>
                <label for="class-message-text" class="visually-hidden">{move || tr!("class-message-title")}</label>
                <input
                    id="class-message-text"
                    type="text"
                    data-testid="class-message-text"
                    maxlength=crate::domain::class::MESSAGE_MAX
                    placeholder=move || tr!("class-message-placeholder")
                    prop:value=move || text.get()
                    on:input=move |ev| text.set(event_target_value(&ev))
                />
                <button type="submit" class="button" data-testid="class-message-send" disabled=move || sending.pending().get()>
                    {move || tr!("class-message-send")}
                </button>
            </form>
            <p class="hint" role="status" aria-live="polite" data-testid="class-message-report">
                {move || match sending.value().get() {
                    Some(Err(e)) => e.text(),
                    _ => now_shown()
                        .map(|t| tr_args("class-message-now", &[("text", t)]))
                        .unwrap_or_default(),
                }}
            </p>
        </section>
    }
}

/// What the instructor sent, newest first: each push and message, when, and how many labs
/// took it (kept with the class).
#[component]
pub(super) fn History(view: RwSignal<ClassView>, now: Signal<i64>) -> impl IntoView {
    let lines = move || view.with(|v| v.history.clone());
    view! {
        <section class="panel class-history" aria-labelledby="class-history-title">
            <h2 id="class-history-title">{move || tr!("class-history-title")}</h2>
            <Show when=move || view.with(|v| v.history.is_empty())>
                <p class="hint">{move || tr!("class-history-none")}</p>
            </Show>
            <ol class="class-history-list" data-testid="class-history">
                {move || lines().into_iter().map(|sent| {
                    let what = sent_text(&sent.what);
                    let at = sent.at_ms;
                    let (took, of) = (sent.took, sent.of);
                    view! {
                        <li data-testid="class-sent" data-took=took data-of=of>
                            <span class="class-sent-ago">{move || {
                                let minutes = ((now.get() - at).max(0) / 60_000).to_string();
                                tr_args("class-since", &[("minutes", digits(&minutes))])
                            }}</span>
                            " · " {what} " · "
                            {move || tr_args("class-pushed", &[("took", digits(&took.to_string())), ("of", digits(&of.to_string()))])}
                        </li>
                    }
                }).collect_view()}
            </ol>
        </section>
    }
}

/// A line of the history in words.
fn sent_text(what: &SentWhat) -> String {
    let push = what.push.map(|p| match p {
        Push::Preset { scenario, variant } => preset_name(scenario, variant),
        Push::Safeguard { safeguard, on } => tr_args(
            if on {
                "class-sent-safeguard-on"
            } else {
                "class-sent-safeguard-off"
            },
            &[(
                "safeguard",
                tr_id(&format!("safeguard-{}-name", safeguard.id())),
            )],
        ),
        Push::Freeze { frozen } => tr_id(if frozen {
            "class-sent-freeze"
        } else {
            "class-sent-thaw"
        }),
        Push::Reset => tr_id("class-sent-reset"),
        Push::Lock { locked } => tr_id(if locked {
            "class-sent-lock"
        } else {
            "class-sent-unlock"
        }),
    });
    let message = what.message.as_ref().map(|t| format!("“{t}”"));
    [push, message]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join(" · ")
}
