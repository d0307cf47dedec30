//! A student's way into a class: `/join/{code}` asks for a name and opens chapter 01 in a
//! sandbox of their own; the front page's code field leads here.

use crate::tr;
use leptos::prelude::*;
use leptos_router::hooks::use_params_map;

use super::{find_class, join_class};
use crate::app::error::FnError;
use crate::app::i18n::tr_args;
use crate::domain::class::{student_name, NAME_MAX};

/// `/join/{code}`.
#[component]
pub fn JoinPage() -> impl IntoView {
    let params = use_params_map();
    let code = move || params.read().get("code").unwrap_or_default();
    let class = Resource::new(code, find_class);
    view! {
        <Suspense fallback=|| view! { <p class="panel">{move || tr!("join-looking")}</p> }>
            {move || Suspend::new(async move {
                match class.await {
                    Ok(found) => view! { <JoinForm code=code() spaced=found.spaced you=found.you /> }.into_any(),
                    Err(e) => view! { <NoClass code=code() error=e /> }.into_any(),
                }
            })}
        </Suspense>
    }
}

#[component]
fn NoClass(code: String, error: FnError) -> impl IntoView {
    // Its status (404) is set by `server::web::class_page_status`.
    let text = match &error {
        FnError::UnknownClass | FnError::InvalidField { .. } => {
            tr_args("join-no-class", &[("code", code.clone())])
        }
        other => other.text(),
    };
    view! {
        <section class="panel" role="alert" data-testid="join-refused">
            <h1>{move || tr!("join-no-class-title")}</h1>
            <p>{text}</p>
            <JoinCodeForm />
            <p><a href="/">{move || tr!("join-front-page")}</a></p>
        </section>
    }
}

#[component]
fn JoinForm(code: String, spaced: String, you: Option<super::Seat>) -> impl IntoView {
    let name = RwSignal::new(String::new());
    let problem = RwSignal::new(None::<String>);
    let join =
        Action::new(move |(code, name): &(String, String)| join_class(code.clone(), name.clone()));
    Effect::new(move |_| match join.value().get() {
        Some(Ok(sandbox)) => {
            crate::app::storage::set(&super::member_key(&sandbox), "1");
            crate::app::storage::set(super::JOINED_KEY, &sandbox);
            #[cfg(feature = "hydrate")]
            let _ = window()
                .location()
                .set_href(&format!("/lab/{sandbox}?chapter=1"));
        }
        Some(Err(e)) => problem.set(Some(e.text())),
        None => {}
    });
    let submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        match student_name(&name.get_untracked()) {
            Ok(n) => {
                problem.set(None);
                join.dispatch((code.clone(), n));
            }
            Err(_) => problem.set(Some(tr!("join-name-needed"))),
        }
    };
    view! {
        <section class="panel join" aria-labelledby="join-title">
            <h1 id="join-title">{move || tr!("join-title")}</h1>
            <p>{move || tr_args("join-class", &[("code", spaced.clone())])}</p>
            // This browser already joined: the link opened again continues as that student.
            {you.map(|seat| {
                let href = format!("/lab/{}", seat.sandbox);
                let name = seat.name;
                view! {
                    <p class="join-again">
                        <a class="button primary" data-testid="join-continue" href=href rel="external">
                            {move || tr_args("join-continue", &[("name", name.clone())])}
                        </a>
                    </p>
                    <p class="hint">{move || tr!("join-someone-else")}</p>
                }
            })}
            <form on:submit=submit>
                <label for="join-name">{move || tr!("join-name")}</label>
                <input
                    id="join-name"
                    data-testid="join-name"
                    type="text"
                    autocomplete="nickname"
                    maxlength=NAME_MAX.to_string()
                    required
                    prop:value=move || name.get()
                    on:input=move |ev| name.set(event_target_value(&ev))
                />
                <p class="hint">{move || tr!("join-name-hint")}</p>
                <button type="submit" class="button primary" data-testid="join-go" disabled=move || join.pending().get()>
                    {move || tr!("join-go")}
                </button>
                <p class="error" role="alert" data-testid="join-problem">{move || problem.get()}</p>
            </form>
        </section>
    }
}

/// The code field: on the front page, and again beside a code that named no class. A plain
/// form (`GET /join?code=…`, which the server sends on to `/join/{code}`), so it works before
/// the page's code has loaded on a slow phone, and costs the front page no code.
#[component]
pub fn JoinCodeForm() -> impl IntoView {
    view! {
        <form class="join-code" action="/join" method="get">
            <label for="join-code">{move || tr!("join-code")}</label>
            <div class="join-code-row">
                <input
                    id="join-code"
                    name="code"
                    data-testid="join-code"
                    type="text"
                    autocomplete="off"
                    autocapitalize="characters"
                    spellcheck="false"
                    maxlength="12"
                    required
                />
                <button type="submit" class="button" data-testid="join-submit">{move || tr!("join-submit")}</button>
            </div>
        </form>
    }
}
