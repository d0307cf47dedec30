//! The instructor's pages: `/teach` makes a class; `/teach/{id}` shows its code huge for the
//! projector, the join link and its QR code, and one row per student, live.

use crate::tr;
use leptos::prelude::*;
use leptos_router::hooks::use_params_map;

use super::hand_over::HandOverPanel;
use super::show::{ChapterCounts, ClassTotals};
use super::{
    class_message, class_page, class_push, class_remove, class_rename, create_class, my_classes,
    read_class_summary, ClassPageData,
};
use crate::app::error::FnError;
use crate::app::i18n::{digits, tr_args, tr_id};
use crate::app::lab::preset_name;
use crate::domain::class::{
    pushable_presets, ClassSummary, ClassView, Harm, Push, PushReport, SentWhat, StudentRow,
};
use crate::domain::scenario::Variant;
use crate::domain::Safeguard;

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
        follow(&format!("/teach/{class_id}/events"), take, live);
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

/// The end of the class: how many reached each chapter, each step's completion, the quiz
/// scores students shared, and the same as a CSV file. Read when asked, then again on asking.
#[component]
fn SummaryPanel(class: String) -> impl IntoView {
    let csv = format!("/teach/{class}/summary.csv");
    let read = Action::new(move |_: &()| read_class_summary(class.clone()));
    let summary = move || read.value().get().and_then(Result::ok);
    view! {
        <section class="panel class-summary" aria-labelledby="class-summary-title" data-testid="class-summary">
            <h2 id="class-summary-title">{move || tr!("class-summary-title")}</h2>
            <p class="hint">{move || tr!("class-summary-hint")}</p>
            <p class="class-push-row">
                <button type="button" class="button" data-testid="class-summary-open" disabled=move || read.pending().get()
                    on:click=move |_| {
                        read.dispatch(());
                    }>
                    {move || if summary().is_some() { tr!("class-summary-again") } else { tr!("class-summary-open") }}
                </button>
                <a class="button" data-testid="class-summary-csv" href=csv download="" rel="external">
                    {move || tr!("class-summary-csv")}
                </a>
            </p>
            <p class="error" role="alert">{move || read.value().get().and_then(Result::err).map(|e| e.text())}</p>
            {move || summary().map(|s| view! { <SummaryTables s /> })}
        </section>
    }
}

#[component]
fn SummaryTables(s: ClassSummary) -> impl IntoView {
    let of = s.students.len();
    let chapters = s.chapters();
    let shared: Vec<(String, u8, u8)> = s.shared().map(|(n, r, a)| (n.to_owned(), r, a)).collect();
    let questions = crate::domain::quiz::QUESTIONS.len();
    view! {
        <div class="table-wrap">
            <table class="class-table class-reach">
                <thead>
                    <tr>
                        <th scope="col">{move || tr!("class-summary-chapter")}</th>
                        <th scope="col">{move || tr!("class-summary-reached")}</th>
                        <th scope="col">{move || tr!("class-summary-steps")}</th>
                    </tr>
                </thead>
                <tbody>
                    {chapters
                        .into_iter()
                        .map(|c| {
                            let n = c.chapter;
                            let reached = c.reached;
                            view! {
                                <tr data-testid="class-summary-chapter" data-chapter=n data-reached=reached>
                                    <th scope="row">{move || format!("{} · {}", digits(&format!("{n:02}")), tr_id(&format!("ch{n:02}-title")))}</th>
                                    <td>{move || tr_args("class-summary-of", &[("n", digits(&reached.to_string())), ("of", digits(&of.to_string()))])}</td>
                                    <td>
                                        <ol class="class-steps">
                                            {c.steps
                                                .into_iter()
                                                .enumerate()
                                                .map(|(k, done)| view! {
                                                    <li data-testid="class-summary-step" data-step=k + 1 data-done=done
                                                        title=move || format!(
                                                            "{} — {}",
                                                            tr_args("class-summary-step", &[("k", digits(&(k + 1).to_string())), ("n", digits(&done.to_string()))]),
                                                            tr_id(&format!("ch{n:02}-step{}", k + 1)),
                                                        )>
                                                        // Which step, then how many did it.
                                                        <span class="class-step-k">{digits(&(k + 1).to_string())}</span>
                                                        {digits(&done.to_string())}
                                                    </li>
                                                })
                                                .collect_view()}
                                        </ol>
                                    </td>
                                </tr>
                            }
                        })
                        .collect_view()}
                </tbody>
            </table>
        </div>
        <h3>{move || tr!("class-summary-quiz")}</h3>
        <p class="hint" data-testid="class-summary-shared" data-shared=shared.len()>
            {
                let n = shared.len();
                move || tr_args("class-summary-quiz-shared", &[("n", digits(&n.to_string())), ("of", digits(&of.to_string()))])
            }
        </p>
        <ul class="class-quiz">
            {shared
                .into_iter()
                .map(|(name, right, answered)| view! {
                    <li data-testid="class-summary-score" data-right=right data-answered=answered>
                        <strong>{name}</strong> " "
                        {move || tr_args("class-summary-score", &[
                            ("right", digits(&right.to_string())),
                            ("answered", digits(&answered.to_string())),
                            ("total", digits(&questions.to_string())),
                        ])}
                    </li>
                })
                .collect_view()}
        </ul>
    }
}

/// One thing to every student's lab at once: a scenario guarded or not, a safeguard, the
/// clocks frozen or running, a reset (asked twice). Each is one request; the line under the
/// buttons says how many labs took it.
#[component]
fn PushPanel(class: String, count: Signal<usize>, view: RwSignal<ClassView>) -> impl IntoView {
    // Each push answers with what was pushed, so the freeze button can follow what took.
    let push = Action::new(move |p: &Push| {
        let (class, p) = (class.clone(), *p);
        async move { class_push(class, p).await.map(|r| (p, r)) }
    });
    let preset = RwSignal::new((1u8, Variant::Unguarded));
    let safeguard = RwSignal::new(Safeguard::ALL[0]);
    // The lock and the freeze are the class's, as the server keeps them: they come with the
    // view on the class stream, so every window of the instructor's shows the same.
    let frozen = Signal::derive(move || view.with(|v| v.frozen));
    let locked = Signal::derive(move || view.with(|v| v.locked));
    let confirming = RwSignal::new(false);
    let send = move |p: Push| {
        confirming.set(false);
        push.dispatch(p);
    };
    Effect::new(move |_| match push.value().get() {
        Some(Ok((Push::Freeze { frozen: f }, _))) => view.update(|v| v.frozen = f),
        Some(Ok((Push::Lock { locked: l }, _))) => view.update(|v| v.locked = l),
        _ => {}
    });
    let report = move || push.value().get().and_then(Result::ok).map(|(_, r)| r);
    let busy = move || push.pending().get();
    view! {
        <section class="panel class-push" aria-labelledby="class-push-title">
            <h2 id="class-push-title">{move || tr!("class-push-title")}</h2>
            <div class="class-push-row">
                <label for="class-preset">{move || tr!("class-preset")}</label>
                <select
                    id="class-preset"
                    data-testid="class-preset"
                    on:change=move |ev| {
                        let v = event_target_value(&ev);
                        if let Some(p) = pushable_presets()
                            .into_iter()
                            .find(|(n, var)| format!("{n}-{}", var.id()) == v)
                        {
                            preset.set(p);
                        }
                    }
                >
                    {pushable_presets()
                        .into_iter()
                        .map(|(n, v)| {
                            let value = format!("{n}-{}", v.id());
                            view! {
                                <option value=value selected=move || preset.get() == (n, v)>
                                    {move || preset_name(n, v)}
                                </option>
                            }
                        })
                        .collect_view()}
                </select>
                <button
                    type="button"
                    class="button primary"
                    data-testid="class-push-preset"
                    disabled=busy
                    on:click=move |_| {
                        let (scenario, variant) = preset.get_untracked();
                        send(Push::Preset { scenario, variant });
                    }
                >
                    {move || tr!("class-push-preset")}
                </button>
            </div>
            <div class="class-push-row">
                <label for="class-safeguard">{move || tr!("class-safeguard")}</label>
                <select
                    id="class-safeguard"
                    data-testid="class-safeguard"
                    on:change=move |ev| {
                        if let Some(s) = Safeguard::from_id(&event_target_value(&ev)) {
                            safeguard.set(s);
                        }
                    }
                >
                    {Safeguard::ALL
                        .into_iter()
                        .map(|s| view! {
                            <option value=s.id() selected=move || safeguard.get() == s>
                                {move || format!("{} ({})", tr_id(&format!("safeguard-{}-name", s.id())), s.id())}
                            </option>
                        })
                        .collect_view()}
                </select>
                <button type="button" class="button" data-testid="class-push-safeguard-off" disabled=busy
                    on:click=move |_| send(Push::Safeguard { safeguard: safeguard.get_untracked(), on: false })>
                    {move || tr!("class-switch-off")}
                </button>
                <button type="button" class="button" data-testid="class-push-safeguard-on" disabled=busy
                    on:click=move |_| send(Push::Safeguard { safeguard: safeguard.get_untracked(), on: true })>
                    {move || tr!("class-switch-on")}
                </button>
            </div>
            <div class="class-push-row">
                <button type="button" class="button" data-testid="class-freeze" data-frozen=move || frozen.get().to_string()
                    aria-pressed=move || frozen.get().to_string() disabled=busy
                    on:click=move |_| send(Push::Freeze { frozen: !frozen.get_untracked() })>
                    {move || if frozen.get() { tr!("class-thaw") } else { tr!("class-freeze") }}
                </button>
                <button type="button" class="button" data-testid="class-lock" data-locked=move || locked.get().to_string()
                    aria-pressed=move || locked.get().to_string() disabled=busy
                    on:click=move |_| send(Push::Lock { locked: !locked.get_untracked() })>
                    {move || if locked.get() { tr!("class-unlock") } else { tr!("class-lock") }}
                </button>
                <span class="hint class-lock-hint">{move || tr!("class-lock-hint")}</span>
                {move || if confirming.get() {
                    view! {
                        <span class="class-confirm" role="group">
                            <span>{tr_args("class-reset-ask", &[("n", digits(&count.get().to_string()))])}</span>
                            " "
                            <button type="button" class="button danger" data-testid="class-reset-confirm" disabled=busy
                                on:click=move |_| send(Push::Reset)>
                                {tr!("class-reset-yes")}
                            </button>
                            " "
                            <button type="button" class="button" data-testid="class-reset-cancel" on:click=move |_| confirming.set(false)>
                                {tr!("class-reset-no")}
                            </button>
                        </span>
                    }.into_any()
                } else {
                    view! {
                        <button type="button" class="button" data-testid="class-reset-all" disabled=busy
                            on:click=move |_| confirming.set(true)>
                            {tr!("class-reset-all")}
                        </button>
                    }.into_any()
                }}
            </div>
            <p class="hint" role="status" aria-live="polite" data-testid="class-push-report"
                data-took=move || report().map(|r: PushReport| r.took.to_string())
                data-of=move || report().map(|r| r.of.to_string())>
                {move || match push.value().get() {
                    _ if busy() => tr!("class-pushing"),
                    // An earlier push's count is not the answer to the reset being asked.
                    _ if confirming.get() => String::new(),
                    Some(Ok((_, r))) => tr_args("class-pushed", &[("took", digits(&r.took.to_string())), ("of", digits(&r.of.to_string()))]),
                    Some(Err(e)) => e.text(),
                    None => String::new(),
                }}
            </p>
        </section>
    }
}

/// One line to every student's screen, shown there until the next one.
#[component]
fn MessagePanel(class: String, view: RwSignal<ClassView>) -> impl IntoView {
    let text = RwSignal::new(String::new());
    let sending = Action::new(move |t: &String| {
        let (class, t) = (class.clone(), t.clone());
        async move { class_message(class, t).await }
    });
    Effect::new(move |_| {
        if let Some(Ok(_)) = sending.value().get() {
            text.set(String::new());
        }
    });
    let send = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        sending.dispatch(text.get_untracked());
    };
    let now_shown = move || view.with(|v| v.cue.message.as_ref().map(|m| m.text.clone()));
    view! {
        <section class="panel class-message-panel" aria-labelledby="class-message-title">
            <h2 id="class-message-title">{move || tr!("class-message-title")}</h2>
            <form class="class-push-row" on:submit=send>
                <label for="class-message-text" class="visually-hidden">{move || tr!("class-message-title")}</label>
                <input
                    id="class-message-text"
                    type="text"
                    data-testid="class-message-text"
                    maxlength=crate::domain::class::MESSAGE_MAX
                    placeholder=move || tr!("class-message-placeholder")
                    prop:value=move || text.get()
                    on:input=move |ev| text.set(event_target_value(&ev))
                />
                <button type="submit" class="button" data-testid="class-message-send" disabled=move || sending.pending().get()>
                    {move || tr!("class-message-send")}
                </button>
            </form>
            <p class="hint" role="status" aria-live="polite" data-testid="class-message-report">
                {move || match sending.value().get() {
                    Some(Err(e)) => e.text(),
                    _ => now_shown()
                        .map(|t| tr_args("class-message-now", &[("text", t)]))
                        .unwrap_or_default(),
                }}
            </p>
        </section>
    }
}

/// What the instructor sent, newest first: each push and message, when, and how many labs
/// took it (kept with the class).
#[component]
fn History(view: RwSignal<ClassView>, now: Signal<i64>) -> impl IntoView {
    let lines = move || view.with(|v| v.history.clone());
    view! {
        <section class="panel class-history" aria-labelledby="class-history-title">
            <h2 id="class-history-title">{move || tr!("class-history-title")}</h2>
            <Show when=move || view.with(|v| v.history.is_empty())>
                <p class="hint">{move || tr!("class-history-none")}</p>
            </Show>
            <ol class="class-history-list" data-testid="class-history">
                {move || lines().into_iter().map(|sent| {
                    let what = sent_text(&sent.what);
                    let at = sent.at_ms;
                    let (took, of) = (sent.took, sent.of);
                    view! {
                        <li data-testid="class-sent" data-took=took data-of=of>
                            <span class="class-sent-ago">{move || {
                                let minutes = ((now.get() - at).max(0) / 60_000).to_string();
                                tr_args("class-since", &[("minutes", digits(&minutes))])
                            }}</span>
                            " · " {what} " · "
                            {move || tr_args("class-pushed", &[("took", digits(&took.to_string())), ("of", digits(&of.to_string()))])}
                        </li>
                    }
                }).collect_view()}
            </ol>
        </section>
    }
}

/// A line of the history in words.
fn sent_text(what: &SentWhat) -> String {
    let push = what.push.map(|p| match p {
        Push::Preset { scenario, variant } => preset_name(scenario, variant),
        Push::Safeguard { safeguard, on } => tr_args(
            if on {
                "class-sent-safeguard-on"
            } else {
                "class-sent-safeguard-off"
            },
            &[(
                "safeguard",
                tr_id(&format!("safeguard-{}-name", safeguard.id())),
            )],
        ),
        Push::Freeze { frozen } => tr_id(if frozen {
            "class-sent-freeze"
        } else {
            "class-sent-thaw"
        }),
        Push::Reset => tr_id("class-sent-reset"),
        Push::Lock { locked } => tr_id(if locked {
            "class-sent-lock"
        } else {
            "class-sent-unlock"
        }),
    });
    let message = what.message.as_ref().map(|t| format!("“{t}”"));
    [push, message]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join(" · ")
}

#[component]
fn StudentLine(
    s: StudentRow,
    class: String,
    now: Signal<i64>,
    renaming: Renaming,
) -> impl IntoView {
    let open = format!("/teach/{class}/students/{}/open", s.sandbox);
    let class_for_remove = class.clone();
    let class_for_rename = class.clone();
    let name_for_open = s.name.clone();
    let (chapter, done, total) = match s.progress {
        Some(p) => (p.chapter, p.steps_done, p.steps_total()),
        None => (0, 0, 0),
    };
    let since_ms = s.progress_ms;
    let row = s.clone();
    let stuck = Signal::derive(move || row.stuck(now.get()));
    let where_text = move || match s.progress {
        Some(_) => tr_args(
            "class-where",
            &[
                ("n", digits(&format!("{chapter:02}"))),
                ("done", digits(&done.to_string())),
                ("total", digits(&total.to_string())),
            ],
        ),
        None => tr!("class-where-none"),
    };
    let harm = s.harm;
    let last = s.last_event.clone();
    view! {
        <tr
            data-testid="class-student"
            data-name=s.name.clone()
            data-chapter=chapter.to_string()
            data-steps-done=done.to_string()
            data-damage=harm.id()
            data-stuck=move || stuck.get().to_string()
            class:stuck=move || stuck.get()
        >
            <th scope="row"><RenameStudent class=class_for_rename sandbox=s.sandbox.clone() name=s.name.clone() renaming /></th>
            <td>{where_text}</td>
            <td class=format!("harm harm-{}", harm.id())>{move || tr_id(&format!("class-harm-{}", harm.id()))}</td>
            <td class="class-last">
                {move || match &last {
                    Some(e) => crate::app::lab::describe_event(e),
                    None => tr!("class-last-none"),
                }}
            </td>
            <td>
                {move || {
                    let minutes = ((now.get() - since_ms).max(0) / 60_000).to_string();
                    tr_args("class-since", &[("minutes", digits(&minutes))])
                }}
                {move || stuck.get().then(|| view! { " " <span class="tag stuck">{move || tr!("class-stuck")}</span> })}
            </td>
            <td>
                <a
                    data-testid="class-student-open"
                    href=open
                    target="_blank"
                    rel="external"
                    aria-label=move || tr_args("class-open-label", &[("name", name_for_open.clone())])
                >
                    {move || tr!("class-open")}
                </a>
                " "
                <RemoveStudent class=class_for_remove sandbox=s.sandbox.clone() name=s.name.clone() />
            </td>
        </tr>
    }
}

/// A row's name, and a way to change it (a typo, a ghost's name fixed): the same rules as a
/// join's name, checked by the server.
#[component]
fn RenameStudent(
    class: String,
    sandbox: String,
    name: String,
    renaming: Renaming,
) -> impl IntoView {
    // The row is drawn again whenever the class's view moves on; what is being typed lives
    // with the page, not the row.
    let Renaming { row, text, rename } = renaming;
    let mine = sandbox.clone();
    let editing = Signal::derive(move || row.with(|r| r.as_deref() == Some(mine.as_str())));
    let start = {
        let (sandbox, name) = (sandbox.clone(), name.clone());
        move |_| {
            text.set(name.clone());
            row.set(Some(sandbox.clone()));
        }
    };
    let save = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        rename.dispatch((class.clone(), sandbox.clone(), text.get_untracked()));
    };
    let label = tr_args("class-student-rename-label", &[("name", name.clone())]);
    let shown = name.clone();
    view! {
        <Show
            when=move || editing.get()
            fallback=move || view! {
                <span class="class-student-name">{shown.clone()}</span>
                " "
                <button type="button" class="linkish" data-testid="class-student-rename" aria-label=label.clone() on:click=start.clone()>
                    {move || tr!("class-student-rename")}
                </button>
            }
        >
            <form class="class-rename" on:submit=save.clone()>
                <input
                    type="text"
                    data-testid="class-student-rename-text"
                    maxlength=crate::domain::class::NAME_MAX
                    aria-label=move || tr!("class-col-name")
                    prop:value=move || text.get()
                    on:input=move |ev| text.set(event_target_value(&ev))
                />
                <button type="submit" class="button" data-testid="class-student-rename-save" disabled=move || rename.pending().get()>
                    {move || tr!("class-student-rename-save")}
                </button>
                <button type="button" class="button" data-testid="class-student-rename-cancel" on:click=move |_| row.set(None)>
                    {move || tr!("class-student-rename-cancel")}
                </button>
            </form>
        </Show>
        {move || match rename.value().get() {
            Some(Err(e)) if editing.get() => Some(view! { <span class="error" role="alert" data-testid="class-student-rename-error">{e.text()}</span> }),
            _ => None,
        }}
    }
}

/// The row whose name is being changed, what is typed, and the change sent: one per page.
#[derive(Clone, Copy)]
struct Renaming {
    row: RwSignal<Option<String>>,
    text: RwSignal<String>,
    rename: Action<(String, String, String), Result<String, FnError>>,
}

impl Renaming {
    fn new() -> Renaming {
        let row = RwSignal::new(None::<String>);
        let rename = Action::new(|(class, sandbox, name): &(String, String, String)| {
            class_rename(class.clone(), sandbox.clone(), name.clone())
        });
        Effect::new(move |_| {
            if let Some(Ok(_)) = rename.value().get() {
                row.set(None);
            }
        });
        Renaming {
            row,
            text: RwSignal::new(String::new()),
            rename,
        }
    }
}

/// Takes a row off the roster (a ghost of a second join, a student who left), asked first;
/// the student's sandbox stays theirs.
#[component]
fn RemoveStudent(class: String, sandbox: String, name: String) -> impl IntoView {
    let asking = RwSignal::new(false);
    let remove = Action::new(move |_: &()| {
        let (class, sandbox) = (class.clone(), sandbox.clone());
        async move { class_remove(class, sandbox).await }
    });
    let label = tr_args("class-student-remove-label", &[("name", name.clone())]);
    view! {
        <Show
            when=move || asking.get()
            fallback=move || view! {
                <button type="button" class="linkish" data-testid="class-student-remove" aria-label=label.clone() on:click=move |_| asking.set(true)>
                    {move || tr!("class-student-remove")}
                </button>
            }
        >
            <span class="class-confirm">
                {move || tr!("class-student-remove-ask")}
                <button type="button" class="button danger" data-testid="class-student-remove-confirm" disabled=move || remove.pending().get()
                    on:click=move |_| { remove.dispatch(()); }>
                    {move || tr!("class-student-remove-yes")}
                </button>
                <button type="button" class="button" data-testid="class-student-remove-cancel" on:click=move |_| asking.set(false)>
                    {move || tr!("class-student-remove-no")}
                </button>
            </span>
        </Show>
        {move || match remove.value().get() {
            Some(Err(e)) => Some(view! { <span class="error" role="alert">{e.text()}</span> }),
            _ => None,
        }}
    }
}

/// Follows a class's live feed (`event: class`, each a `T`); the browser reconnects by
/// itself after a drop.
#[cfg(feature = "hydrate")]
pub fn follow<T: serde::de::DeserializeOwned + 'static>(
    url: &str,
    take: impl Fn(T) + 'static,
    live: RwSignal<bool>,
) {
    use send_wrapper::SendWrapper;
    use wasm_bindgen::prelude::*;
    use web_sys::{EventSource, MessageEvent};
    let Ok(source) = EventSource::new(url) else {
        return;
    };
    let on_view = Closure::<dyn Fn(MessageEvent)>::new(move |m: MessageEvent| {
        if let Some(v) = m
            .data()
            .as_string()
            .and_then(|s| serde_json::from_str::<T>(&s).ok())
        {
            take(v);
        }
    });
    let on_open = Closure::<dyn Fn()>::new(move || live.set(true));
    let on_error = Closure::<dyn Fn()>::new(move || live.set(false));
    let _ = source.add_event_listener_with_callback("class", on_view.as_ref().unchecked_ref());
    source.set_onopen(Some(on_open.as_ref().unchecked_ref()));
    source.set_onerror(Some(on_error.as_ref().unchecked_ref()));
    let held = SendWrapper::new((source, on_view, on_open, on_error));
    on_cleanup(move || {
        let (source, ..) = &*held;
        source.close();
    });
}
