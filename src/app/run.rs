//! `/run#…`: a run shared as a link. The fragment carries the run (seed, timed inputs and the
//! original event log's hash); this page replays it into a new sandbox and says whether the
//! replay's event log has the same hash, then opens it.

use crate::tr;
use leptos::prelude::*;

use crate::app::error::FnError;
use crate::domain::run::Rerun;

#[cfg(feature = "hydrate")]
use crate::app::lab::rpc::import_run;
#[cfg(feature = "hydrate")]
use crate::domain::run::Run;

/// What became of the link.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(not(feature = "hydrate"), allow(dead_code))]
enum Outcome {
    Reading,
    Replaying,
    /// Rerun: the page shows the server's verdict on the hashes, as `POST /api/runs` gives it.
    Done(Rerun),
    /// The link holds no run this page can read.
    Unreadable,
    Failed(FnError),
}

#[component]
pub fn RunPage() -> impl IntoView {
    let outcome = RwSignal::new(Outcome::Reading);
    #[cfg(feature = "hydrate")]
    Effect::new(move |_| {
        let hash = window().location().hash().unwrap_or_default();
        let json = js_sys::decode_uri_component(hash.trim_start_matches('#'))
            .map(String::from)
            .unwrap_or_default();
        let run: Run = match serde_json::from_str(&json) {
            Ok(run) => run,
            Err(_) => {
                outcome.set(Outcome::Unreadable);
                return;
            }
        };
        outcome.set(Outcome::Replaying);
        leptos::task::spawn_local(async move {
            outcome.set(match import_run(run).await {
                Ok(rerun) => Outcome::Done(rerun),
                Err(e) => Outcome::Failed(e),
            });
        });
    });
    view! {
        <section class="panel run-page" aria-labelledby="run-title">
            <h1 id="run-title">{move || tr!("run-page-title")}</h1>
            <div role="status" aria-live="polite" data-testid="run-result" data-state=move || match outcome.get() {
                Outcome::Reading => "reading",
                Outcome::Replaying => "replaying",
                Outcome::Done(Rerun { log_hash_matches: Some(true), .. }) => "same",
                Outcome::Done(_) => "different",
                Outcome::Unreadable | Outcome::Failed(_) => "failed",
            }>
                {move || match outcome.get() {
                    Outcome::Reading | Outcome::Replaying => view! {
                        <p class="pending"><span class="spinner" aria-hidden="true"></span>{move || tr!("run-page-replaying")}</p>
                    }.into_any(),
                    Outcome::Done(Rerun { id: sandbox, log_hash: got, expected_log_hash, log_hash_matches }) => {
                        let same = log_hash_matches == Some(true);
                        let expected = expected_log_hash.unwrap_or_default();
                        view! {
                            <p class=if same { "verdict ok" } else { "verdict bad" }>
                                <span aria-hidden="true">{if same { "✓ " } else { "✕ " }}</span>
                                {move || if same { tr!("run-page-same") } else { tr!("run-page-different") }}
                            </p>
                            <dl class="details-list">
                                <dt>{move || tr!("run-page-expected")}</dt><dd><code data-testid="hash-expected">{expected}</code></dd>
                                <dt>{move || tr!("run-page-got")}</dt><dd><code data-testid="hash-got">{got}</code></dd>
                            </dl>
                            <a class="button primary" data-testid="open-replay" href=format!("/lab/{sandbox}") rel="external">{move || tr!("run-page-open")}</a>
                        }.into_any()
                    }
                    Outcome::Unreadable => view! { <p class="error" role="alert">{move || tr!("run-link-unreadable")}</p> }.into_any(),
                    Outcome::Failed(e) => view! { <p class="error" role="alert">{move || e.text()}</p> }.into_any(),
                }}
            </div>
        </section>
    }
}
