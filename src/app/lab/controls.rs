//! The controls the network panel and the instructor panel share: a fault as a slider or a
//! switch, and the calls that change faults and safeguards on the server.

use crate::tr;
use leptos::prelude::*;

use super::rpc::{change_faults, change_safeguards};
use super::stream::LabStream;
use crate::app::error::FnError;
use crate::app::i18n::{digits, tr_id};
use crate::domain::fault::NumberFault;
use crate::domain::{FaultsPatch, SafeguardsPatch};

/// Why the last change did not happen, shown where the instructor can read it (in the page's
/// language at the time it is read, so a language switch translates it too).
#[derive(Clone, Copy)]
pub struct ControlError(pub RwSignal<Option<Problem>>);

/// Why a change did not happen.
#[derive(Clone, Debug, PartialEq)]
pub enum Problem {
    /// The server refused it or failed, or the page refused it by the same typed check the
    /// server makes (said as the server would say it).
    Server(FnError),
    /// The page refused the value before sending it: the id of the message saying why.
    Local(&'static str),
}

impl Problem {
    pub fn text(&self) -> String {
        match self {
            Problem::Server(e) => e.text(),
            Problem::Local(id) => tr_id(id),
        }
    }
}

/// Sends a faults change; the answer updates the screen.
pub fn apply_faults(live: &LabStream, changes: FaultsPatch, error: ControlError) {
    let live = live.clone();
    let hold = live.hold();
    leptos::task::spawn_local(async move {
        let _hold = hold;
        match change_faults(live.sandbox(), changes).await {
            Ok(faults) => {
                live.state.update(|s| s.faults = faults);
                error.0.set(None);
            }
            Err(e) => error.0.set(Some(Problem::Server(e))),
        }
    });
}

/// Sends a safeguards change; the answer updates the screen.
pub fn apply_safeguards(live: &LabStream, changes: SafeguardsPatch, error: ControlError) {
    let live = live.clone();
    let hold = live.hold();
    leptos::task::spawn_local(async move {
        let _hold = hold;
        match change_safeguards(live.sandbox(), changes).await {
            Ok(safeguards) => {
                live.state.update(|s| s.safeguards = safeguards);
                error.0.set(None);
            }
            Err(e) => error.0.set(Some(Problem::Server(e))),
        }
    });
}

/// The error line under a group of controls.
#[component]
pub fn ErrorLine(error: ControlError) -> impl IntoView {
    view! {
        <p class="error" role="alert" data-testid="control-error">
            {move || error.0.get().map(|e| e.text())}
        </p>
    }
}

/// One numeric fault as a slider with its value written out.
#[component]
pub fn FaultRange(
    live: LabStream,
    /// The fault; its id (docs/reference.md §4) names its message ids `fault-<id>`.
    fault: NumberFault,
    min: i64,
    max: i64,
    step: i64,
    /// The unit after the number: "%", "ms", "" …
    unit: &'static str,
    error: ControlError,
    /// Prefix of the element ids and test ids when the same fault is offered in two panels.
    #[prop(optional)]
    place: &'static str,
) -> impl IntoView {
    let id = fault.id();
    let state = live.state;
    let value = Memo::new(move |_| state.with(|s| fault.read(&s.faults)));
    let value = move || value.get();
    // The slider's position while it is being dragged; the server's value otherwise.
    let dragging = RwSignal::new(None::<i64>);
    let shown = move || dragging.get().unwrap_or_else(value);
    let input_id = format!("{place}fault-{id}");
    let on_change = {
        let live = live.clone();
        move |ev: leptos::ev::Event| {
            dragging.set(None);
            if let Ok(v) = event_target_value(&ev).parse::<i64>() {
                match fault.patch(v) {
                    Ok(patch) => apply_faults(&live, patch, error),
                    Err(e) => error.0.set(Some(Problem::Server(e.into()))),
                }
            }
        }
    };
    view! {
        <div class="range">
            <label for=input_id.clone()>
                {move || tr_id(&format!("fault-{id}"))}
                <output for=input_id.clone()>{move || digits(&format!("{}{}{}", shown(), if unit.is_empty() { "" } else { " " }, unit))}</output>
            </label>
            <input
                id=input_id.clone()
                type="range"
                data-testid=input_id.clone()
                min=min
                max=max
                step=step
                prop:value=move || shown().to_string()
                on:input=move |ev| dragging.set(event_target_value(&ev).parse().ok())
                on:change=on_change
                aria-describedby=format!("{input_id}-hint")
            />
            <p class="hint" id=format!("{input_id}-hint")>{move || tr_id(&format!("fault-{id}-hint"))}</p>
        </div>
    }
}

/// The load balancer's retry, the one fault that is a switch.
#[component]
pub fn LbRetrySwitch(
    live: LabStream,
    error: ControlError,
    /// Prefix of the test id when the same fault is offered in two panels.
    #[prop(optional)]
    place: &'static str,
) -> impl IntoView {
    let id = "lb_retry";
    let state = live.state;
    let on = Memo::new(move |_| state.with(|s| s.faults.lb_retry));
    let on = move || on.get();
    let on_change = {
        let live = live.clone();
        move |ev: leptos::ev::Event| {
            let patch = FaultsPatch {
                lb_retry: Some(event_target_checked(&ev)),
                ..FaultsPatch::default()
            };
            apply_faults(&live, patch, error);
        }
    };
    view! {
        <div class="switch-row">
            <label>
                <input type="checkbox" data-testid=format!("{place}fault-{id}") prop:checked=on on:change=on_change />
                <span>{move || tr_id(&format!("fault-{id}"))}</span>
                <span class="state-word">{move || if on() { tr!("on") } else { tr!("off") }}</span>
            </label>
            <p class="hint">{move || tr_id(&format!("fault-{id}-hint"))}</p>
        </div>
    }
}

/// The network's faults (docs/reference.md §4): what the network panel offers the student, the
/// one place they are set.
#[component]
pub fn NetworkFaults(
    live: LabStream,
    error: ControlError,
    #[prop(optional)] place: &'static str,
) -> impl IntoView {
    view! {
        <FaultRange live=live.clone() fault=NumberFault::RequestLossPct min=0 max=100 step=5 unit="%" error place />
        <FaultRange live=live.clone() fault=NumberFault::ResponseLossPct min=0 max=100 step=5 unit="%" error place />
        <FaultRange live=live.clone() fault=NumberFault::LatencyMs min=0 max=2000 step=10 unit="ms" error place />
        <FaultRange live=live.clone() fault=NumberFault::PhoneTimeoutMs min=500 max=30000 step=500 unit="ms" error place />
        <FaultRange live=live.clone() fault=NumberFault::AutoRetries min=0 max=5 step=1 unit="" error place />
        <FaultRange live=live.clone() fault=NumberFault::RetryBackoffMs min=0 max=10000 step=100 unit="ms" error place />
        <LbRetrySwitch live error place />
    }
}
