//! Nothing wiped without asking: an action that resets the sandbox (a chapter's start, a preset
//! from the instructor's panel) first looks at what the student did since the last reset
//! (`course::OwnWork`); if there is anything, a dialog says what would be lost and asks
//! (`wipe-confirm`, `wipe-cancel`). With nothing of theirs in the sandbox it goes ahead. Each
//! panel that can reset holds its own question and draws its dialog, so none of this is in
//! the code the phone needs before Send.

use crate::tr;
use leptos::prelude::*;

use super::stream::LabStream;
use crate::app::i18n::digits;
use crate::domain::course::OwnWork;

/// A reset waiting for the student's answer: what it runs, what it would lose, and where the
/// same start opens in a fresh sandbox instead.
type Waiting = (Callback<()>, OwnWork, Option<String>);

/// A panel's question before a reset; cheap to copy.
#[derive(Clone, Copy)]
pub struct WipeAsk {
    /// The reset waiting for an answer.
    pending: RwSignal<Option<Waiting>>,
    events: RwSignal<Vec<crate::domain::TimelineEvent>>,
}

impl WipeAsk {
    pub fn new(live: &LabStream) -> WipeAsk {
        WipeAsk {
            pending: RwSignal::new(None),
            events: live.events,
        }
    }

    /// Runs `reset` now if the sandbox holds nothing of the student's, else once they say yes;
    /// `fresh` is the link that opens the same start in a fresh sandbox instead.
    pub fn then(&self, reset: Callback<()>, fresh: Option<String>) {
        let work = self.events.with_untracked(|e| OwnWork::of(e));
        if work.any() {
            self.pending.set(Some((reset, work, fresh)));
        } else {
            reset.run(());
        }
    }
}

/// The question, over the whole lab while a reset waits for it: moved to the page's body, so no
/// panel's scrolling box (the chapter's column, the phone's drawer) clips it.
#[component]
pub fn WipeDialog(ask: WipeAsk) -> impl IntoView {
    let pending = ask.pending;
    move || {
        pending.get().map(|(reset, work, fresh)| {
            view! {
                <leptos::portal::Portal>
                    {dialog(pending, reset, work, fresh.clone())}
                </leptos::portal::Portal>
            }
        })
    }
}

fn dialog(
    pending: RwSignal<Option<Waiting>>,
    reset: Callback<()>,
    work: OwnWork,
    fresh: Option<String>,
) -> impl IntoView {
    let lost = move || {
        tr!("wipe-lost", {
            "transfers" => digits(&work.transfers.to_string()),
            "other" => digits(&work.other.to_string())
        })
    };
    view! {
        <div class="help-backdrop">
            <div
                class="help wipe"
                role="alertdialog"
                aria-modal="true"
                aria-labelledby="wipe-title"
                aria-describedby="wipe-lost"
                data-testid="wipe-ask"
                data-transfers=work.transfers
                data-other=work.other
            >
                <h2 id="wipe-title">{move || tr!("wipe-title")}</h2>
                <p id="wipe-lost">{lost}</p>
                {fresh.map(|href| view! {
                    <p class="hint">
                        {move || tr!("wipe-hint")} " "
                        <a href=href rel="external" data-testid="wipe-fresh">{move || tr!("wipe-fresh")}</a>
                    </p>
                })}
                <div class="controls">
                    <button
                        type="button"
                        class="danger"
                        data-testid="wipe-confirm"
                        on:click=move |_| {
                            pending.set(None);
                            reset.run(());
                        }
                    >
                        {move || tr!("wipe-yes")}
                    </button>
                    <button type="button" data-testid="wipe-cancel" autofocus on:click=move |_| pending.set(None)>
                        {move || tr!("wipe-no")}
                    </button>
                </div>
            </div>
        </div>
    }
}
