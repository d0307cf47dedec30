//! `/show/{code}`: a class's projector page. The code to join by, the class's name and its
//! totals, no names of students, so it needs no key: the lecture-hall PC opens it with the
//! code the room already sees. Live from `GET /show/{code}/events` (`server::web`).

use crate::tr;
use leptos::prelude::*;
use leptos_router::hooks::use_params_map;

use super::class_show;
use super::live::{ChapterCounts, ClassTotals};
use crate::app::error::FnError;
use crate::domain::class::ClassShow;

/// `/show/{code}`.
#[component]
pub fn ShowPage() -> impl IntoView {
    let params = use_params_map();
    let code = move || params.read().get("code").unwrap_or_default();
    let show = Resource::new(code, class_show);
    view! {
        <Suspense fallback=|| view! { <p class="panel">{move || tr!("class-opening")}</p> }>
            {move || Suspend::new(async move {
                match show.await {
                    Ok(s) => view! { <ShowScreen initial=s /> }.into_any(),
                    Err(e) => view! { <NoShow error=e /> }.into_any(),
                }
            })}
        </Suspense>
    }
}

#[component]
fn NoShow(error: FnError) -> impl IntoView {
    // Its status (404) is set by `server::web::class_page_status`.
    let text = match &error {
        FnError::UnknownClass | FnError::InvalidField { .. } => tr!("show-no-class"),
        other => other.text(),
    };
    view! {
        <section class="panel" role="alert" data-testid="show-refused">
            <h1>{move || tr!("show-title")}</h1>
            <p>{text}</p>
            <p><a href="/">{move || tr!("not-found-home")}</a></p>
        </section>
    }
}

#[component]
fn ShowScreen(initial: ClassShow) -> impl IntoView {
    let code = initial.code.clone();
    let show = RwSignal::new(initial);
    let live = RwSignal::new(false);
    #[cfg(feature = "hydrate")]
    super::live::follow(
        &format!("/show/{}/events", code.as_str()),
        move |s| show.set(s),
        live,
    );
    let totals = Signal::derive(move || show.with(|s| s.totals));
    let name = move || show.with(|s| s.name.clone());
    view! {
        <div class="class-page presenting class-show" data-testid="class-show" data-live=move || live.get().to_string()>
            <section class="panel class-join" aria-labelledby="show-title">
                <h1 id="show-title" class="visually-hidden">{move || tr!("show-title")}</h1>
                <Show when=move || !name().is_empty()>
                    <p class="class-name" data-testid="class-title-name">{name}</p>
                </Show>
                <p class="class-join-say">{move || tr!("show-join-say")}</p>
                <p class="class-code" data-testid="class-code" data-code=code.as_str().to_owned() aria-label=move || tr!("class-code-label")>
                    {code.spaced()}
                </p>
            </section>
            <ClassTotals totals />
            <section class="panel class-show-chapters" aria-labelledby="show-chapters-title">
                <h2 id="show-chapters-title">{move || tr!("show-chapters-title")}</h2>
                <ChapterCounts counts=Signal::derive(move || show.with(|s| s.per_chapter)) />
            </section>
        </div>
    }
}
