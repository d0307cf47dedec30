//! The chapter beside the lab (`/lab/{id}?chapter=N`): the chapter's opening, the button that
//! loads its scenario, numbered steps that tick themselves off from the sandbox's own events
//! and state (`domain::course`), what to look for, and, once every step is done, why it broke
//! or why it held. The current step points at the control it needs. While a chapter is open
//! the lab keeps only the panels it uses in view ("show every panel" brings the rest back). On
//! a laptop the chapter is a column that stays in view; on a phone, a drawer over the lab.

use crate::tr;
use leptos::prelude::*;

use super::context::{Focus, Looks};
use super::rpc::load_scenario;
use super::stream::LabStream;

#[cfg(feature = "hydrate")]
mod guide;
mod pointer;
mod presses;
use crate::app::course::notes::RealWorld;
use crate::app::course::progress::{self as memory, load_latch, save_latch};
use crate::app::course::quiz::ChapterQuiz;
use crate::app::error::{failed, FnError};
use crate::app::i18n::{digits, tr_args, tr_id};
use crate::domain::course::{self, Chapter, Load};
use crate::domain::realworld::Place;
#[cfg(feature = "hydrate")]
use guide::*;
use pointer::*;
use presses::*;

/// Reads best whole: the steps, the loads and a load's start over share the progress it keeps;
/// the parts that stand alone are their own (`ChapterHead`, `ChapterSteps`, `ChapterNav`,
/// `guide_in_browser`, `tick_steps`).
#[component]
pub fn ChapterPanel(live: LabStream, focus: Focus, chapter: &'static Chapter) -> impl IntoView {
    let key = chapter.key();
    let n = chapter.n;
    // Steps tick off in order and stay ticked (`course::advance`), remembered per sandbox in
    // this browser so a reload keeps them. The page is drawn with no step ticked, as the server
    // (which knows nothing of this browser's storage) drew it, so hydration finds the same
    // markup; what was saved is taken in by the effect's first run, after hydration.
    let latch_key = memory::latch_key(&live.sandbox(), n);
    let progress = RwSignal::new(vec![false; chapter.steps.len()]);
    // What the student looked at while the step asking for it was the current one.
    let looked = StoredValue::new(Vec::<&'static str>::new());
    // A start over waits for its own reset: until the stream has it, the events in hand are the
    // old run's, which must not tick the fresh steps again. Holds the last reset seen then.
    let restarted = StoredValue::new(None::<i64>);
    // The newest event when the current step became current: the presses after it are its.
    let since = RwSignal::new(0i64);
    // A class's push that opened this chapter at a step: the steps before it are not asked
    // for (`course::advance_from`; the server counts the same, `server::teach::report`).
    let presence = live.presence;
    let from = Memo::new(move |_| {
        presence.with(|p| {
            p.cue
                .open
                .filter(|o| o.chapter == n)
                .map_or(0, |o| usize::from(o.step))
        })
    });
    tick_steps(
        &live,
        chapter,
        &latch_key,
        Ticking {
            progress,
            looked,
            restarted,
            since,
            from,
        },
    );
    let current = Memo::new(move |_| {
        let from = from.get();
        progress.with(|p| p.iter().enumerate().position(|(i, d)| i >= from && !d))
    });
    let finished = Memo::new(move |_| current.get().is_none());
    // The control the current step points at: past a step's own load (a push made it), what
    // the step asks for next (`course::Step::pointer`).
    let pointer = Memo::new({
        let events = live.events;
        move |_| {
            let step = chapter.steps.get(current.get()?)?;
            events.with(|e| step.pointer(e))
        }
    });
    let done_before = RwSignal::new(Vec::<u8>::new());
    let collapsed = RwSignal::new(false);
    #[cfg(feature = "hydrate")]
    guide_in_browser(
        &live,
        chapter,
        (progress, looked),
        Guide {
            current,
            finished,
            pointer,
            done_before,
            collapsed,
        },
    );
    // Loading a preset: the answer (the sandbox after its reset) is taken in at once.
    let loading = Action::new({
        let live = live.clone();
        move |preset: &Load| {
            let (live, preset) = (live.clone(), *preset);
            let hold = live.hold();
            async move {
                let _hold = hold;
                let after = load_scenario(live.sandbox(), preset.scenario, preset.variant).await?;
                live.take_state_after_reset(after);
                Ok::<(), FnError>(())
            }
        }
    });
    let busy = loading.pending();
    let error = failed(loading);
    let wipe = super::wipe::WipeAsk::new(&live);
    let load = {
        let latch_key = latch_key.clone();
        let live = live.clone();
        move |preset: Load| {
            let latch_key = latch_key.clone();
            let live_for_load = live.clone();
            let go = Callback::new(move |_| {
                // The chapter's first load starts it over; the guarded reload goes on from there.
                if preset == chapter.first_load() {
                    restarted.set_value(Some(last_reset(&live_for_load).unwrap_or(0)));
                    let fresh = vec![false; chapter.steps.len()];
                    save_latch(&latch_key, &fresh);
                    looked.set_value(Vec::new());
                    progress.set(fresh);
                }
                loading.dispatch(preset);
            });
            // A load the current step asks for is the step's own reset: the step says so.
            let asked_by_step = current
                .get_untracked()
                .and_then(|i| chapter.steps.get(i))
                .and_then(|s| s.points_at)
                .is_some_and(|t| preset != chapter.first_load() && t == preset.testid(chapter));
            if asked_by_step {
                go.run(());
            } else {
                let fresh = format!(
                    "/lab?fresh=1&scenario={}&variant={}&chapter={n}",
                    preset.scenario,
                    preset.variant.id()
                );
                wipe.then(go, Some(fresh));
            }
        }
    };
    // The other presets this chapter's steps load or point at, each with a button of its own.
    let more_loads = chapter.more_loads();
    let here = StoredValue::new(key.clone());
    let text = move |suffix: &str| tr_id(&format!("{}-{suffix}", here.get_value()));
    view! {
        <aside
            class="panel chapter"
            class:collapsed=move || collapsed.get()
            data-testid="chapter"
            data-chapter=n
            data-finished=move || finished.get().to_string()
            aria-labelledby="chapter-title"
        >
            <super::wipe::WipeDialog ask=wipe />
            <ChapterHead n text=here current collapsed />
            <div class="chapter-body">
                // Once the chapter is under way, its story folds to one line.
                {move || if progress.with(|p| p.first().copied().unwrap_or(false)) {
                    view! {
                        <details class="chapter-story">
                            <summary>{move || tr!("chapter-story")}</summary>
                            <p class="chapter-opening">{move || text("opening")}</p>
                        </details>
                    }.into_any()
                } else {
                    view! { <p class="chapter-opening">{move || text("opening")}</p> }.into_any()
                }}
                <div class="controls">
                    <button
                        type="button"
                        class="primary"
                        data-testid="preset-load"
                        disabled=move || busy.get()
                        on:click={
                            let load = load.clone();
                            move |_| load(chapter.first_load())
                        }
                    >
                        {move || tr!("chapter-load", { "n" => digits(&chapter.scenario.to_string()) })}
                    </button>
                    {more_loads
                        .into_iter()
                        .map(|preset| {
                            let load = load.clone();
                            let label = preset.label_id(chapter);
                            view! {
                                <button type="button" data-testid=preset.testid(chapter) disabled=move || busy.get() on:click=move |_| load(preset)>
                                    {move || tr_id(&label)}
                                </button>
                            }
                        })
                        .collect_view()}
                </div>
                <p class="error" role="alert">{error}</p>
                // Opened by the class's push: say so, and where to start.
                {move || (from.get() > 0).then(|| view! {
                    <p class="hint chapter-pushed" data-testid="chapter-pushed" data-step=move || from.get() + 1 role="note">
                        {move || tr_args("chapter-pushed", &[("k", digits(&(from.get() + 1).to_string()))])}
                    </p>
                })}
                <ChapterSteps chapter progress current pointer collapsed presses=Presses { events: live.events, since } />
                <section class="chapter-look">
                    <h3>{move || tr!("chapter-look-title")}</h3>
                    <p>{move || text("look")}</p>
                </section>
                {move || crate::app::i18n::has(&format!("{}-differs", here.get_value())).then(|| view! {
                    <details class="chapter-differs" data-testid="chapter-differs">
                        <summary>{move || tr!("chapter-differs-title")}</summary>
                        <p>{move || text("differs")}</p>
                    </details>
                })}
                <Show when=move || finished.get()>
                    <section class="chapter-why" data-testid="chapter-why" role="status">
                        <h3>{move || text("why-title")}</h3>
                        <p>{move || text("why")}</p>
                        <p class="chapter-cost">{move || text("cost")}</p>
                        <RealWorld place=Place::Chapter(n) />
                    </section>
                    <ChapterQuiz chapter=n />
                    {course::neighbours(n).1.is_none().then(|| view! { <CourseFinished /> })}
                </Show>
                <ChapterNav n done_before />
                <div class="controls chapter-tools">
                    <button
                        type="button"
                        data-testid="show-all-panels"
                        aria-pressed=move || focus.show_all.get().to_string()
                        on:click=move |_| focus.show_all.update(|s| *s = !*s)
                    >
                        {move || if focus.show_all.get() { tr!("chapter-focus") } else { tr!("chapter-show-all") }}
                    </button>
                    <a href="?" data-testid="chapter-close">{move || tr!("chapter-close")}</a>
                </div>
            </div>
        </aside>
    }
}

/// The chapter's title and its fold: folded, the current step in one line.
#[component]
fn ChapterHead(
    n: u8,
    text: StoredValue<String>,
    current: Memo<Option<usize>>,
    collapsed: RwSignal<bool>,
) -> impl IntoView {
    let here = text;
    let text =
        |here: &StoredValue<String>, suffix: &str| tr_id(&format!("{}-{suffix}", here.get_value()));
    view! {
            <div class="chapter-head">
                <p class="chapter-kicker">{move || tr!("chapter-kicker", { "n" => digits(&format!("{n:02}")) })}</p>
                <h2 id="chapter-title">{move || text(&here, "title")}</h2>
                <button
                    type="button"
                    class="chapter-collapse"
                    data-testid="chapter-collapse"
                    aria-expanded=move || (!collapsed.get()).to_string()
                    on:click=move |_| {
                        collapsed.update(|c| *c = !*c);
                        if !collapsed.get_untracked() {
                            reveal(".lab-chapter li.current, .lab-chapter .chapter-why");
                            super::wide::keep_phone_above_drawer();
                        }
                    }
                >
                    {move || if collapsed.get() { tr!("chapter-expand") } else { tr!("chapter-fold") }}
                </button>
                <Show when=move || collapsed.get()>
                    <p class="chapter-now" data-testid="chapter-now">
                        {move || match current.get() {
                            Some(i) => tr!("chapter-now", { "k" => digits(&(i + 1).to_string()), "text" => text(&here, &format!("step{}", i + 1)) }),
                            None => tr!("chapter-all-done"),
                        }}
                    </p>
                </Show>
            </div>
    }
}

/// The course's end, under the last chapter once its last step is done: what was learned on
/// one screen (the path from the tap to the SMS, a guard at each stop) and the ways on.
#[component]
fn CourseFinished() -> impl IntoView {
    view! {
        <section class="course-finished" data-testid="course-finished" aria-labelledby="course-finished-title">
            <h3 id="course-finished-title">{move || tr!("course-finished-title")}</h3>
            <p>{move || tr!("course-finished-text")}</p>
            <crate::app::course::summary::GuardPath links=false />
            <p class="course-finished-next">
                <a href="/quiz" data-testid="course-finished-quiz">{move || tr!("course-finished-quiz")}</a>
                " · "
                <a href="/summary" rel="external" data-testid="course-finished-summary">{move || tr!("course-finished-summary")}</a>
                " · "
                <a href="/day" data-testid="course-finished-day">{move || tr!("course-finished-day")}</a>
            </p>
        </section>
    }
}

/// The id of the newest reset the lab's stream holds (tracked).
fn last_reset(live: &LabStream) -> Option<i64> {
    live.events.with(|e| {
        e.iter()
            .rev()
            .find(|e| e.kind == crate::domain::EventKind::SandboxReset)
            .map(|e| e.id)
    })
}

/// What ticking a chapter's steps reads and writes: the steps done, what the student looked
/// at, a start over waiting for its reset, where the current step's presses start, and the
/// step a class's push opened the chapter at.
#[derive(Clone, Copy)]
struct Ticking {
    progress: RwSignal<Vec<bool>>,
    looked: StoredValue<Vec<&'static str>>,
    restarted: StoredValue<Option<i64>>,
    since: RwSignal<i64>,
    from: Memo<usize>,
}

/// Ticks the chapter's steps as their checks come to hold, in order (`course::advance`), and
/// remembers them (`latch_key`); the first run, after hydration, takes in what was saved. A
/// step that asks the student to look at something counts what they looked at while it was
/// the current one (`looked`).
fn tick_steps(live: &LabStream, chapter: &'static Chapter, latch_key: &str, ticking: Ticking) {
    let Ticking {
        progress,
        looked,
        restarted,
        since,
        from,
    } = ticking;
    let last_look = StoredValue::new(0u32);
    let looks = Looks::here();
    // A step that waits on the clock (the generals' last messenger) reads it ticking; the
    // others read the clock the sandbox last reported.
    let ticking = chapter.on_the_clock().then(|| live.ticking_now(250));
    let live = live.clone();
    let latch_key = latch_key.to_owned();
    Effect::new(move |first: Option<()>| {
        if let Some(looks) = looks {
            let (n, id) = looks.last();
            if n != last_look.get_value() {
                last_look.set_value(n);
                let from = from.get_untracked();
                let current = progress
                    .with_untracked(|p| p.iter().enumerate().position(|(i, d)| i >= from && !d));
                if let Some(wanted) = current
                    .and_then(|i| chapter.steps.get(i))
                    .and_then(|s| s.check.looks().into_iter().find(|w| *w == id))
                {
                    looked.update_value(|l| l.push(wanted));
                }
            }
        }
        let reset = last_reset(&live);
        if let Some(before) = restarted.get_value() {
            if reset.unwrap_or(0) <= before {
                return;
            }
            restarted.set_value(None);
        }
        let now = ticking.map(|t| t.get());
        let holds = looked.with_value(|l| {
            live.state.with(|s| {
                let now = now.unwrap_or(s.clock.now_ms);
                live.events.with(|e| chapter.progress_at(e, s, l, now))
            })
        });
        let mut done = progress.get_untracked();
        let mut changed = false;
        if first.is_none() {
            for (d, saved) in done
                .iter_mut()
                .zip(load_latch(&latch_key, chapter.steps.len()))
            {
                changed |= saved && !*d;
                *d |= saved;
            }
        }
        changed |= course::advance_from(&mut done, &holds, from.get());
        if changed {
            save_latch(&latch_key, &done);
            progress.set(done);
        }
        // A step's presses start when it became current: when the one before it ticked, or
        // when the chapter opened (what was pressed before belongs to another chapter).
        if changed || first.is_none() {
            // The state can come before the events that made it: the newer of the two marks.
            let streamed = live.events.with_untracked(|e| e.last().map_or(0, |e| e.id));
            since.set(streamed.max(live.state.with_untracked(|s| s.last_event_id())));
        }
    });
}

/// In a class (docs/reference.md §10), the lab tells the server which chapter is open and
/// what the student looked at, when the chapter opens and whenever a step ticks here; the
/// server works out the steps done from the sandbox itself, so the instructor's view shows
/// what the server saw, not what this browser says.
#[cfg(feature = "hydrate")]
fn report_to_class(
    live: &LabStream,
    chapter: &'static Chapter,
    progress: RwSignal<Vec<bool>>,
    looked: StoredValue<Vec<&'static str>>,
) {
    let member_key = crate::app::class::member_key(&live.sandbox());
    if crate::app::storage::get(&member_key).is_none() {
        return;
    }
    let sandbox = live.sandbox();
    let n = chapter.n;
    Effect::new(move |_| {
        progress.track();
        let report = crate::domain::class::ChapterReport {
            chapter: n,
            looked: looked.with_value(|l| l.iter().map(|id| (*id).to_owned()).collect()),
        };
        let (sandbox, member_key) = (sandbox.clone(), member_key.clone());
        leptos::task::spawn_local(async move {
            // A sandbox the server knows in no class (its class ended): stop asking.
            if let Ok(false) = crate::app::class::report_progress(sandbox, report).await {
                crate::app::storage::remove(&member_key);
            }
        });
    });
}

/// The chapter's steps: ticked, the current one with what to try and, where it points at a
/// control, a button that shows it.
#[component]
fn ChapterSteps(
    chapter: &'static Chapter,
    progress: RwSignal<Vec<bool>>,
    current: Memo<Option<usize>>,
    pointer: Memo<Option<&'static str>>,
    collapsed: RwSignal<bool>,
    presses: Presses,
) -> impl IntoView {
    let here = StoredValue::new(chapter.key());
    let text = move |suffix: &str| tr_id(&format!("{}-{suffix}", here.get_value()));
    view! {
        <ol class="chapter-steps">
            {(0..chapter.steps.len())
                .map(|i| {
                    let k = i + 1;
                    let done = move || progress.with(|p| p.get(i).copied().unwrap_or(false));
                    let is_current = move || current.get() == Some(i);
                    // Before the step a class's push opened the chapter at, and not done.
                    let skipped = move || !done() && current.get().is_none_or(|c| i < c);
                    view! {
                        <li
                            data-testid="chapter-step"
                            data-step=k
                            data-done=move || done().to_string()
                            data-skipped=move || skipped().to_string()
                            class:done=done
                            class:current=is_current
                            class:skipped=skipped
                        >
                            <span class="step-mark" aria-hidden="true">
                                {move || if done() { "✓".to_owned() } else if skipped() { "–".to_owned() } else { digits(&k.to_string()) }}
                            </span>
                            <span class="visually-hidden">
                                {move || if done() { tr!("chapter-step-done") } else { tr!("chapter-step-open") }}
                            </span>
                            <span class="step-text">{move || text(&format!("step{k}"))}</span>
                            <Show when=is_current>
                                <p class="hint step-try">{move || text(&format!("step{k}-try"))}</p>
                                <PressList presses />
                                {move || pointer.get().map(|target| view! {
                                    <button type="button" class="linkish" data-testid="chapter-show" on:click=move |_| show(target, collapsed)>
                                        {move || tr!("chapter-show")}
                                    </button>
                                })}
                            </Show>
                        </li>
                    }
                })
                .collect_view()}
        </ol>
    }
}

/// The way through the course: back, every chapter (the finished ones marked), next.
#[component]
fn ChapterNav(n: u8, done_before: RwSignal<Vec<u8>>) -> impl IntoView {
    let (back, next) = course::neighbours(n);
    view! {
        <nav class="chapter-nav" aria-label=move || tr!("chapter-nav-label")>
            {back.map(|b| view! {
                <a href=format!("?chapter={b}") data-testid="chapter-back">{move || tr!("chapter-back", { "n" => digits(&format!("{b:02}")) })}</a>
            })}
            <span class="chapter-list">
                {course::CHAPTERS
                    .iter()
                    .map(|c| {
                        let cn = c.n;
                        view! {
                            <a
                                href=format!("?chapter={cn}")
                                class:here=cn == n
                                class:finished=move || done_before.with(|d| d.contains(&cn))
                                aria-current=(cn == n).then_some("step")
                                title=move || tr_id(&format!("ch{cn:02}-title"))
                            >
                                {move || digits(&format!("{cn:02}"))}
                            </a>
                        }
                    })
                    .collect_view()}
            </span>
            {next.map(|x| view! {
                <a href=format!("?chapter={x}") data-testid="chapter-next">{move || tr!("chapter-next", { "n" => digits(&format!("{x:02}")) })}</a>
            })}
        </nav>
    }
}
