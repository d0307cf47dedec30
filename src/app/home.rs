//! The front page: what the lab is, and the way in.

use crate::tr;
use leptos::prelude::*;
use leptos_router::components::A;

#[component]
pub fn Home() -> impl IntoView {
    view! {
        <section class="hero panel">
            <h1>{move || tr!("home-title")}</h1>
            <p class="home-what" data-testid="home-what">{move || tr!("home-what")}</p>
            <p>{move || tr!("home-story")}</p>
            <p>{move || tr!("home-layers")}</p>
            <div class="home-ways">
                <crate::app::course::progress::StartCourse />
                <a class="button" href="/lab" rel="external">{move || tr!("home-open-lab")}</a>
            </div>
            <p><A href="/day" attr:data-testid="home-day">{move || tr!("home-day")}</A></p>
        </section>
        <section class="panel">
            <h2>{move || tr!("home-own-title")}</h2>
            <p>{move || tr!("home-own-text")}</p>
        </section>
        <section class="panel home-class" aria-labelledby="home-class-title">
            <h2 id="home-class-title">{move || tr!("home-class-title")}</h2>
            <crate::app::class::join::JoinCodeForm />
            <p class="hint">
                {move || tr!("home-teach")} " "
                <a href="/teach" data-testid="home-teach">{move || tr!("home-teach-link")}</a>
            </p>
        </section>
    }
}
