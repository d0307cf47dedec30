//! Handing a class to another browser (docs/reference.md §10): the class's page makes a
//! one-time link for someone it names (a teaching assistant, the lecture-hall PC) and lists
//! each holder, withdrawable; `/take/{token}` asks before it takes the link, and then opens
//! the class's page with a key of that browser's own.

use crate::tr;
use leptos::prelude::*;
use leptos_router::hooks::use_params_map;

use super::{class_hand_over, class_withdraw, find_hand_over, take_class};
use crate::app::i18n::tr_args;
use crate::domain::class::{HandOver, Holder, NAME_MAX};

/// On the class's page: a name and a button for a new link, the link just made (shown once),
/// and everyone the class was handed to.
#[component]
pub fn HandOverPanel(class: String, holders: Signal<Vec<Holder>>, show: String) -> impl IntoView {
    let name = RwSignal::new(String::new());
    let class_for_make = class.clone();
    let make = Action::new(move |n: &String| {
        let (class, n) = (class_for_make.clone(), n.clone());
        async move { class_hand_over(class, n).await }
    });
    let withdraw = Action::new(move |holder: &String| {
        let (class, holder) = (class.clone(), holder.clone());
        async move { class_withdraw(class, holder).await }
    });
    Effect::new(move |_| {
        if let Some(Ok(_)) = make.value().get() {
            name.set(String::new());
        }
    });
    let made = move || make.value().get().and_then(Result::ok);
    let submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        make.dispatch(name.get_untracked());
    };
    view! {
        <section class="panel class-hand-over" aria-labelledby="class-hand-over-title">
            <h2 id="class-hand-over-title">{move || tr!("class-hand-over-title")}</h2>
            <p class="hint">{move || tr!("class-hand-over-say")}</p>
            <form class="class-push-row" on:submit=submit>
                <label for="class-hand-over-name">{move || tr!("class-hand-over-name")}</label>
                <input
                    id="class-hand-over-name"
                    type="text"
                    data-testid="class-hand-over-name"
                    maxlength=NAME_MAX
                    placeholder=move || tr!("class-hand-over-placeholder")
                    prop:value=move || name.get()
                    on:input=move |ev| name.set(event_target_value(&ev))
                />
                <button type="submit" class="button" data-testid="class-hand-over" disabled=move || make.pending().get()>
                    {move || tr!("class-hand-over-make")}
                </button>
            </form>
            {move || match make.value().get() {
                Some(Err(e)) => Some(view! { <p class="error" role="alert">{e.text()}</p> }.into_any()),
                _ => made().map(|HandOver { holder, link }| view! {
                    <p class="class-hand-over-link" role="status">
                        {tr_args("class-hand-over-made", &[("name", holder.name)])}
                        " "
                        <a data-testid="class-hand-over-link" href=link.clone() rel="external">{link.clone()}</a>
                    </p>
                }.into_any()),
            }}
            <ul class="class-holders">
                {move || holders.get().into_iter().map(|h| {
                    let id = h.id.clone();
                    let taken = h.taken_ms.is_some();
                    let label = tr_args("class-holder-withdraw-label", &[("name", h.name.clone())]);
                    view! {
                        <li data-testid="class-holder" data-name=h.name.clone() data-taken=taken.to_string()>
                            <strong>{h.name.clone()}</strong>
                            " · "
                            {move || if taken { tr!("class-holder-taken") } else { tr!("class-holder-waiting") }}
                            " "
                            <button type="button" class="linkish" data-testid="class-holder-withdraw" aria-label=label
                                disabled=move || withdraw.pending().get()
                                on:click=move |_| { withdraw.dispatch(id.clone()); }>
                                {move || tr!("class-holder-withdraw")}
                            </button>
                        </li>
                    }
                }).collect_view()}
            </ul>
            <p class="hint">
                {move || tr!("class-show-say")} " "
                <a data-testid="class-show-link" href=show.clone() target="_blank">{show.clone()}</a>
            </p>
        </section>
    }
}

/// `/take/{token}`: says whose class it is and for whom, and takes the link on a press.
#[component]
pub fn TakePage() -> impl IntoView {
    let params = use_params_map();
    let token = move || params.read().get("token").unwrap_or_default();
    let found = Resource::new(token, find_hand_over);
    let take = Action::new(|t: &String| take_class(t.clone()));
    Effect::new(move |_| {
        if let Some(Ok(id)) = take.value().get() {
            #[cfg(feature = "hydrate")]
            let _ = window().location().set_href(&format!("/teach/{id}"));
            #[cfg(not(feature = "hydrate"))]
            let _ = id;
        }
    });
    view! {
        <section class="panel take-class" aria-labelledby="take-title">
            <h1 id="take-title">{move || tr!("take-title")}</h1>
            <Suspense fallback=|| view! { <p>{move || tr!("class-opening")}</p> }>
                {move || Suspend::new(async move {
                    match found.await {
                        Ok(f) => {
                            let class = if f.class_name.is_empty() { tr!("take-unnamed") } else { f.class_name.clone() };
                            view! {
                                <p data-testid="take-what">
                                    {tr_args("take-say", &[("class", class), ("name", f.holder.clone())])}
                                </p>
                                <button type="button" class="button primary" data-testid="take-class"
                                    disabled=move || take.pending().get()
                                    on:click=move |_| { take.dispatch(token()); }>
                                    {move || tr!("take-button")}
                                </button>
                                {move || match take.value().get() {
                                    Some(Err(e)) => Some(view! { <p class="error" role="alert">{e.text()}</p> }),
                                    _ => None,
                                }}
                            }.into_any()
                        }
                        Err(e) => view! {
                            <p class="error" role="alert" data-testid="take-spent">{e.text()}</p>
                            <p><a href="/teach">{move || tr!("class-refused-new")}</a></p>
                        }.into_any(),
                    }
                })}
            </Suspense>
        </section>
    }
}
