//! The instructor's pages: `/teach` makes a class; `/teach/{id}` shows its code huge for the
//! projector, the join link and its QR code, and one row per student, live.

use crate::tr;
use leptos::prelude::*;
use leptos_router::hooks::use_params_map;

use super::hand_over::HandOverPanel;
use super::live::{ChapterCounts, ClassTotals};
use super::push::{History, MessagePanel, PushPanel};
use super::students::{Renaming, StudentLine};
use super::summary::SummaryPanel;
use super::{class_page, create_class, my_classes, ClassPageData};
use crate::app::error::FnError;
use crate::app::i18n::{digits, tr_args, tr_id};
use crate::domain::class::{ClassView, Harm, StudentRow};

/// `/teach`: what a class is, and the button that makes one.
#[component]
pub fn TeachPage() -> impl IntoView {
    let name = RwSignal::new(String::new());
    let create = Action::new(|name: &String| create_class(Some(name.clone())));
    // The classes this browser made (or was handed): their keys are its cookies.
    let mine = Resource::new(|| (), |_| my_classes());
    Effect::new(move |_| {
        if let Some(Ok(id)) = create.value().get() {
            #[cfg(feature = "hydrate")]
            let _ = window().location().set_href(&format!("/teach/{id}"));
            #[cfg(not(feature = "hydrate"))]
            let _ = id;
        }
    });
    view! {
        <section class="panel teach" aria-labelledby="teach-title">
            <h1 id="teach-title">{move || tr!("teach-title")}</h1>
            <p>{move || tr!("teach-what")}</p>
            <ol class="teach-how">
                <li>{move || tr!("teach-how-1")}</li>
                <li>{move || tr!("teach-how-2")}</li>
                <li>{move || tr!("teach-how-3")}</li>
            </ol>
            <p class="hint">{move || tr!("teach-key")}</p>
            <form class="class-push-row" on:submit=move |ev: leptos::ev::SubmitEvent| {
                ev.prevent_default();
                create.dispatch(name.get_untracked());
            }>
                <label for="class-name">{move || tr!("teach-name")}</label>
                <input
                    id="class-name"
                    type="text"
                    data-testid="class-name"
                    maxlength=crate::domain::class::CLASS_NAME_MAX
                    placeholder=move || tr!("teach-name-placeholder")
                    prop:value=move || name.get()
                    on:input=move |ev| name.set(event_target_value(&ev))
                />
                <button
                    type="submit"
                    class="button primary"
                    data-testid="class-create"
                    disabled=move || create.pending().get()
                >
                    {move || tr!("teach-create")}
                </button>
            </form>
            <p class="error" role="alert">
                {move || create.value().get().and_then(Result::err).map(|e| e.text())}
            </p>
        </section>
        <Suspense fallback=|| ()>
            {move || Suspend::new(async move {
                let classes = mine.await.unwrap_or_default();
                (!classes.is_empty()).then(|| view! {
                    <section class="panel teach-classes" aria-labelledby="teach-classes-title">
                        <h2 id="teach-classes-title">{move || tr!("teach-yours")}</h2>
                        <ul class="teach-class-list">
                            {classes.into_iter().map(|c| {
                                let href = format!("/teach/{}", c.id);
                                let title = if c.name.is_empty() { c.code.spaced() } else { c.name.clone() };
                                let code = c.code.spaced();
                                let students = c.students;
                                let ago = c.used_min_ago;
                                view! {
                                    <li data-testid="teach-class" data-code=c.code.as_str().to_owned() data-students=students>
                                        <a href=href>{title}</a>
                                        " · " <span class="teach-class-code">{code}</span>
                                        " · " {move || tr_args("teach-class-students", &[("n", digits(&students.to_string()))])}
                                        " · " {move || tr_args("teach-class-used", &[("minutes", digits(&ago.to_string()))])}
                                    </li>
                                }
                            }).collect_view()}
                        </ul>
                    </section>
                })
            })}
        </Suspense>
    }
}

/// How the class table is ordered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Order {
    Joined,
    Name,
    Chapter,
    Quiet,
    Harm,
}

impl Order {
    const ALL: [Order; 5] = [
        Order::Joined,
        Order::Name,
        Order::Chapter,
        Order::Quiet,
        Order::Harm,
    ];

    fn id(self) -> &'static str {
        match self {
            Order::Joined => "joined",
            Order::Name => "name",
            Order::Chapter => "chapter",
            Order::Quiet => "quiet",
            Order::Harm => "harm",
        }
    }

    fn sort(self, students: &mut [StudentRow]) {
        let harm_rank = |h: Harm| match h {
            Harm::Money => 0,
            Harm::Effect => 1,
            Harm::Stuck => 2,
            Harm::None => 3,
        };
        match self {
            Order::Joined => students.sort_by_key(|s| s.joined_ms),
            Order::Name => students.sort_by_key(|s| s.name.to_lowercase()),
            // The furthest along first.
            Order::Chapter => students
                .sort_by_key(|s| std::cmp::Reverse(s.progress.map(|p| (p.chapter, p.steps_done)))),
            // The longest without a step first.
            Order::Quiet => students.sort_by_key(|s| s.progress_ms),
            Order::Harm => students.sort_by_key(|s| (harm_rank(s.harm), s.joined_ms)),
        }
    }
}

/// `/teach/{id}`: the class, live.
#[component]
pub fn ClassPage() -> impl IntoView {
    let params = use_params_map();
    let id = move || params.read().get("id").unwrap_or_default();
    let page = Resource::new(id, class_page);
    view! {
        <Suspense fallback=|| view! { <p class="panel">{move || tr!("class-opening")}</p> }>
            {move || Suspend::new(async move {
                match page.await {
                    Ok(data) => view! { <ClassScreen data /> }.into_any(),
                    Err(e) => view! { <ClassRefused error=e /> }.into_any(),
                }
            })}
        </Suspense>
    }
}

#[component]
fn ClassRefused(error: FnError) -> impl IntoView {
    // Its status (403, 404) is set by `server::web::class_page_status`.
    view! {
        <section class="panel" role="alert" data-testid="class-refused">
            <h1>{move || tr!("class-refused-title")}</h1>
            <p>{move || error.text()}</p>
            <p><a href="/teach">{move || tr!("class-refused-new")}</a></p>
        </section>
    }
}

/// Reads best whole: the class page top to bottom, each part reading the one class view it follows.
#[component]
fn ClassScreen(data: ClassPageData) -> impl IntoView {
    let ClassPageData {
        view: initial,
        join_url,
        qr_svg,
    } = data;
    let class_id = initial.id.clone();
    let class_id_view = initial.id.clone();
    let class_id_rows = initial.id.clone();
    let class_id_summary = initial.id.clone();
    let code = initial.code.clone();
    let initial_name = initial.name.clone();
    let view = RwSignal::new(initial);
    let live = RwSignal::new(false);
    // The browser's clock minus the server's at the last view: "since" counts on this side.
    let skew = RwSignal::new(0.0_f64);
    let now = RwSignal::new(0.0_f64);
    #[cfg(feature = "hydrate")]
    {
        let take = move |v: ClassView| {
            skew.set(js_sys::Date::now() - v.now_ms as f64);
            view.set(v);
        };
        skew.set(js_sys::Date::now() - view.with_untracked(|v| v.now_ms) as f64);
        now.set(js_sys::Date::now());
        let tick = set_interval_with_handle(
            move || now.set(js_sys::Date::now()),
            std::time::Duration::from_secs(1),
        );
        if let Ok(tick) = tick {
            on_cleanup(move || tick.clear());
        }
        super::live::follow(&format!("/teach/{class_id}/events"), take, live);
    }
    #[cfg(not(feature = "hydrate"))]
    let _ = (&class_id, live, skew);
    let server_now = move || {
        let n = now.get();
        if n == 0.0 {
            view.with(|v| v.now_ms)
        } else {
            (n - skew.get()) as i64
        }
    };
    let order = RwSignal::new(Order::Joined);
    let renaming = Renaming::new();
    let rows = move || {
        let mut students = view.with(|v| v.students.clone());
        order.get().sort(&mut students);
        students
    };
    let counts = move || view.with(ClassView::per_chapter);
    let spaced = code.spaced();
    // The projector's layout: the code and the totals, no names.
    let presenting = RwSignal::new(false);
    view! {
        <div class="class-page" class:presenting=move || presenting.get()>
            <p class="class-present-row">
                <button
                    type="button"
                    class="button"
                    data-testid="class-present"
                    aria-pressed=move || presenting.get().to_string()
                    on:click=move |_| presenting.update(|p| *p = !*p)
                >
                    {move || if presenting.get() { tr!("class-present-off") } else { tr!("class-present-on") }}
                </button>
            </p>
            <div class="class-side">
            <section class="panel class-join" aria-labelledby="class-join-title">
                <h1 id="class-join-title" class="visually-hidden">{move || tr!("class-title")}</h1>
                {(!initial_name.is_empty()).then(|| view! {
                    <p class="class-name" data-testid="class-title-name">{initial_name.clone()}</p>
                })}
                <p class="class-join-say">{move || tr!("class-join-say")}</p>
                <p class="class-code" data-testid="class-code" data-code=code.as_str().to_owned() aria-label=move || tr!("class-code-label")>
                    {spaced}
                </p>
                <p>
                    <a data-testid="class-join-link" href=join_url.clone() rel="external">{join_url.clone()}</a>
                </p>
                <div class="class-qr" role="img" aria-label=move || tr!("class-qr-label") inner_html=qr_svg></div>
            </section>
            <ClassTotals totals=Signal::derive(move || view.with(ClassView::totals)) />
            <PushPanel
                class=class_id_view.clone()
                count=Signal::derive(move || view.with(|v| v.students.len()))
                view=view
            />
            <MessagePanel class=class_id_view.clone() view=view />
            <HandOverPanel
                class=class_id_view.clone()
                holders=Signal::derive(move || view.with(|v| v.holders.clone()))
                show=format!("/show/{}", code.as_str())
            />
            <History view=view now=Signal::derive(server_now) />

            </div>
            <section class="panel class-students" aria-labelledby="class-students-title">
                <h2 id="class-students-title">
                    {move || tr_args("class-students-title", &[("n", digits(&view.with(|v| v.students.len()).to_string()))])}
                </h2>
                <p class="hint" data-testid="class-live" data-live=move || live.get().to_string()>
                    {move || if live.get() { tr!("class-live") } else { tr!("class-not-live") }}
                </p>
                <ChapterCounts counts=Signal::derive(counts) />
                <label class="class-order">
                    {move || tr!("class-order")} " "
                    <select
                        data-testid="class-order"
                        on:change=move |ev| {
                            let id = event_target_value(&ev);
                            if let Some(o) = Order::ALL.into_iter().find(|o| o.id() == id) {
                                order.set(o);
                            }
                        }
                    >
                        {Order::ALL
                            .into_iter()
                            .map(|o| view! {
                                <option value=o.id() selected=move || order.get() == o>
                                    {move || tr_id(&format!("class-order-{}", o.id()))}
                                </option>
                            })
                            .collect_view()}
                    </select>
                </label>
                <p class="hint">{move || if view.with(|v| v.students.is_empty()) { tr!("class-empty") } else { String::new() }}</p>
                <div class="table-wrap">
                    <table class="class-table">
                        <thead>
                            <tr>
                                <th scope="col">{move || tr!("class-col-name")}</th>
                                <th scope="col">{move || tr!("class-col-where")}</th>
                                <th scope="col">{move || tr!("class-col-harm")}</th>
                                <th scope="col">{move || tr!("class-col-last")}</th>
                                <th scope="col">{move || tr!("class-col-since")}</th>
                                <th scope="col"><span class="visually-hidden">{move || tr!("class-col-open")}</span></th>
                            </tr>
                        </thead>
                        <tbody>
                            {move || {
                                rows()
                                    .into_iter()
                                    .map(|s| view! { <StudentLine s class=class_id_rows.clone() now=Signal::derive(server_now) renaming /> })
                                    .collect_view()
                            }}
                        </tbody>
                    </table>
                </div>
            </section>
            <SummaryPanel class=class_id_summary />
        </div>
    }
}
