//! The lab screen at `/lab/{id}`: one sandbox, live.

mod clock_panel;
mod event_list;
mod stream;

use leptos::prelude::*;
use leptos::server_fn;
use leptos_router::hooks::use_params_map;

use crate::domain::{ClockCommand, ClockState};
use clock_panel::ClockPanel;
use event_list::EventList;

/// The clock of a sandbox, or `None` when there is no sandbox with that id.
#[server(prefix = "/rpc", input = server_fn::codec::Json)]
pub async fn get_clock(sandbox: String) -> Result<Option<ClockState>, ServerFnError> {
    use crate::server::{error::LabError, web::AppState};
    let state = expect_context::<AppState>();
    match state.lab.get(&sandbox).await {
        Ok(s) => Ok(Some(
            s.clock(vec![])
                .await
                .map_err(|e| ServerFnError::new(e.to_string()))?,
        )),
        Err(LabError::NotFound) => Ok(None),
        Err(e) => Err(ServerFnError::new(e.to_string())),
    }
}

/// Applies one clock control to a sandbox and returns the clock after it.
#[server(prefix = "/rpc", input = server_fn::codec::Json)]
pub async fn clock_control(
    sandbox: String,
    command: ClockCommand,
) -> Result<ClockState, ServerFnError> {
    use crate::server::web::AppState;
    let state = expect_context::<AppState>();
    let s = state
        .lab
        .get(&sandbox)
        .await
        .map_err(|e| ServerFnError::new(e.to_string()))?;
    s.clock(vec![command])
        .await
        .map_err(|e| ServerFnError::new(e.to_string()))
}

#[component]
pub fn LabPage() -> impl IntoView {
    let params = use_params_map();
    let id = move || params.read().get("id").unwrap_or_default();
    let clock = Resource::new(id, get_clock);
    view! {
        <Suspense fallback=|| view! { <p class="panel">"ল্যাব খোলা হচ্ছে…"</p> }>
            {move || Suspend::new(async move {
                match clock.await {
                    Ok(Some(initial)) => view! { <Lab id=id() initial /> }.into_any(),
                    Ok(None) => view! { <Missing /> }.into_any(),
                    Err(e) => view! {
                        <section class="panel" role="alert">
                            <h1>"ল্যাব খোলা গেল না"</h1>
                            <p>{format!("সার্ভার বলল: {e}")}</p>
                        </section>
                    }.into_any(),
                }
            })}
        </Suspense>
    }
}

#[component]
fn Lab(id: String, initial: ClockState) -> impl IntoView {
    let live = stream::LabStream::new(initial);
    live.connect(&id);
    view! {
        <div class="lab-grid">
            <ClockPanel id=id.clone() live=live.clone() />
            <EventList live />
        </div>
    }
}

#[component]
fn Missing() -> impl IntoView {
    view! {
        <section class="panel" role="alert">
            <h1>"এই ল্যাবটি আর নেই"</h1>
            <p>
                "ঠিকানাটি ভুল, অথবা অনেক দিন ব্যবহার না হওয়ায় sandbox-টি মুছে গেছে। "
                <a href="/lab" rel="external">"নতুন একটি ল্যাব খুলুন"</a>
                "।"
            </p>
        </section>
    }
}
