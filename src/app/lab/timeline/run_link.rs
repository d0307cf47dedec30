//! A link that replays this run elsewhere: the run's seed and timed inputs in the fragment of
//! a `/run` link.

use crate::tr;
use leptos::prelude::*;

use crate::app::error::FnError;
use crate::app::lab::rpc::export_run;
use crate::app::lab::stream::LabStream;

/// A link that replays this run (seed and timed inputs) into a new sandbox elsewhere.
#[component]
pub fn RunLink(live: LabStream) -> impl IntoView {
    let export = Action::new(move |_: &()| {
        let live = live.clone();
        async move {
            let run = export_run(live.sandbox()).await?;
            let json = serde_json::to_string(&run).unwrap_or_default();
            Ok::<String, FnError>(format!("{}/run#{}", origin(), encode(&json)))
        }
    });
    let link = export.value();
    let make = move |_| {
        export.dispatch(());
    };
    view! {
        <div class="run-link">
            <button type="button" data-testid="run-link-make" on:click=make disabled=move || export.pending().get()>{move || tr!("run-link-make")}</button>
            {move || link.get().map(|l| match l {
                Ok(url) => view! {
                    <label for="run-link">{move || tr!("run-link-label")}</label>
                    <input id="run-link" data-testid="run-link" type="text" readonly=true prop:value=url />
                    <p class="hint">{move || tr!("run-link-hint")}</p>
                }.into_any(),
                Err(e) => view! { <p class="error" role="alert">{move || e.text()}</p> }.into_any(),
            })}
        </div>
    }
}

/// This page's origin (`http://host:port`), or nothing during server rendering.
fn origin() -> String {
    #[cfg(feature = "hydrate")]
    {
        window().location().origin().unwrap_or_default()
    }
    #[cfg(not(feature = "hydrate"))]
    {
        String::new()
    }
}

/// A run's JSON as a URL fragment.
fn encode(json: &str) -> String {
    #[cfg(feature = "hydrate")]
    {
        String::from(js_sys::encode_uri_component(json))
    }
    #[cfg(not(feature = "hydrate"))]
    {
        json.to_owned()
    }
}
