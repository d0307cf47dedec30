//! The presses a step counts: the student's own actions since the step became current, as
//! chips under it.

use crate::tr;
use leptos::prelude::*;

use crate::app::i18n::digits;

/// The student's own presses since the current step became current, as the server recorded
/// them: a step of several presses shows which ones counted.
#[derive(Clone, Copy)]
pub(super) struct Presses {
    pub(super) events: RwSignal<Vec<crate::domain::TimelineEvent>>,
    pub(super) since: RwSignal<i64>,
}

/// A press as its chip says it, from the event the server recorded for it.
pub(super) fn press_label(e: &crate::domain::TimelineEvent) -> Option<(&'static str, String)> {
    use crate::domain::EventKind as K;
    Some(match e.kind {
        K::Tapped => ("send", tr!("press-send")),
        K::ClockJumped => {
            let ms = e.details["to_ms"].as_i64().unwrap_or(0)
                - e.details["from_ms"].as_i64().unwrap_or(0);
            let hours = (ms as f64 / 3.6e6 * 10.0).round() / 10.0;
            (
                "jump",
                tr!("press-jump", { "hours" => digits(&hours.to_string()) }),
            )
        }
        K::ClockStepped => ("step", tr!("press-step")),
        K::FaultsChanged => ("faults", tr!("press-faults")),
        K::SafeguardsChanged => ("safeguards", tr!("press-safeguards")),
        K::ReplayStarted => ("replay", tr!("press-replay")),
        K::ScenarioLoaded => ("load", tr!("press-load")),
        _ => return None,
    })
}

#[component]
pub(super) fn PressList(presses: Presses) -> impl IntoView {
    let list = move || {
        let since = presses.since.get();
        presses.events.with(|events| {
            let start = events
                .iter()
                .rposition(|e| e.kind == crate::domain::EventKind::SandboxReset)
                .unwrap_or(0);
            events[start..]
                .iter()
                .filter(|e| e.id > since)
                .filter_map(press_label)
                .collect::<Vec<_>>()
        })
    };
    move || {
        let list = list();
        (!list.is_empty()).then(|| {
            let n = list.len();
            view! {
                <p class="hint step-presses" data-testid="chapter-presses" data-count=n>
                    {move || tr!("chapter-presses")} " "
                    {list
                        .into_iter()
                        .map(|(kind, text)| view! { <span class="press" data-testid="chapter-press" data-kind=kind>"✓ " {text}</span> " " })
                        .collect_view()}
                </p>
            }
        })
    }
}
