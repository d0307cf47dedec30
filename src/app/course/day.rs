//! `/day`: a day at PocketPay, fast-forwarded (`domain::day`, `server::day`). The student picks
//! a scale and runs the day; the page follows it with a progress bar, then shows what each run
//! found, measured and extrapolated to PocketPay's 2,000,000 transfers, against the lesson's 340
//! tickets a month before the key and none after.

use crate::tr;
use leptos::prelude::*;

use super::calc::decimal;
use crate::app::error::FnError;
use crate::app::i18n::{digits, tr_args, tr_id};
use crate::domain::day::{
    expected_double_charges, extrapolated, seconds_at, transfers_at, DayGuards, DayReport, DayRun,
    DayStatus, DEFAULT_SCALE, LESSON_TICKETS_AFTER, LESSON_TICKETS_BEFORE, SCALES,
};

/// Starts the day at a scale, or answers the one running or run (`server::day`).
#[server(prefix = "/rpc", input = server_fn::codec::Json)]
pub async fn start_day(scale: crate::domain::day::Scale) -> Result<DayReport, FnError> {
    Ok(crate::app::lab::rpc::sandboxes()
        .days()
        .start(scale.get())?)
}

/// The day at a scale as it stands, if it was ever started on this server.
#[server(prefix = "/rpc", input = server_fn::codec::Json)]
pub async fn read_day(scale: u32) -> Result<Option<DayReport>, FnError> {
    Ok(crate::app::lab::rpc::sandboxes().days().get(scale))
}

/// How often the page asks how far a running day has got.
const FOLLOW_MS: u64 = 1_000;

/// The four figures the chart sets side by side.
#[derive(Clone, Copy)]
enum Measure {
    DoubleCharges,
    DoubleCredits,
    LostEvents,
    Tickets,
}

impl Measure {
    const ALL: [Measure; 4] = [
        Measure::DoubleCharges,
        Measure::DoubleCredits,
        Measure::LostEvents,
        Measure::Tickets,
    ];

    fn id(self) -> &'static str {
        match self {
            Measure::DoubleCharges => "double_charges",
            Measure::DoubleCredits => "double_credits",
            Measure::LostEvents => "lost_events",
            Measure::Tickets => "tickets",
        }
    }

    /// What a run measured, once it has drained.
    fn of(self, run: &DayRun) -> Option<f64> {
        let d = run.damage.as_ref()?;
        Some(match self {
            Measure::DoubleCharges => d.double_charges as f64,
            Measure::DoubleCredits => d.double_credits as f64,
            Measure::LostEvents => d.lost_events as f64,
            Measure::Tickets => run.tickets()?,
        })
    }
}

/// "about 7 min" / "about 40 s": the time both runs of a scale take on the lab's 2-core server.
fn duration_text(seconds: f64) -> String {
    if seconds >= 90.0 {
        tr_args(
            "day-minutes",
            &[("n", decimal((seconds / 60.0).round(), 0))],
        )
    } else {
        tr_args("day-seconds", &[("n", decimal(seconds.ceil().max(1.0), 0))])
    }
}

/// `/day`.
///
/// Reads best whole: the page in the order it reads: the form, the run, the findings.
#[component]
pub fn DayPage() -> impl IntoView {
    let scale = RwSignal::new(DEFAULT_SCALE);
    let report = RwSignal::new(None::<DayReport>);
    let error = RwSignal::new(None::<FnError>);
    // Each look at a scale gets a number; a follow loop of an older one stops.
    let generation = StoredValue::new(0u32);
    let take = move |g: u32, r: Result<Option<DayReport>, FnError>| -> bool {
        if generation.get_value() != g {
            return false;
        }
        match r {
            Ok(r) => {
                let running = r.as_ref().is_some_and(|r| r.status == DayStatus::Running);
                error.set(None);
                report.set(r);
                running
            }
            Err(e) => {
                error.set(Some(e));
                false
            }
        }
    };
    let follow = move |g: u32| {
        fn again(g: u32, step: impl Fn(u32) + Copy + 'static) {
            set_timeout(move || step(g), std::time::Duration::from_millis(FOLLOW_MS));
        }
        fn look(
            g: u32,
            s: u32,
            take: impl Fn(u32, Result<Option<DayReport>, FnError>) -> bool + Copy + 'static,
        ) {
            leptos::task::spawn_local(async move {
                if take(g, read_day(s).await) {
                    again(g, move |g| look(g, s, take));
                }
            });
        }
        look(g, scale.get_untracked(), take);
    };
    // A scale picked (or the page opened): what this server has of that day.
    Effect::new(move |_| {
        let _ = scale.get();
        generation.update_value(|g| *g += 1);
        report.set(None);
        follow(generation.get_value());
    });
    let run = move |_| {
        let g = generation.get_value();
        let s = scale.get_untracked();
        leptos::task::spawn_local(async move {
            let r = match crate::domain::day::Scale::try_from(s) {
                Ok(s) => start_day(s).await.map(Some),
                Err(e) => Err(e.into()),
            };
            if take(g, r) {
                follow(g);
            }
        });
    };
    let status = move || report.with(|r| r.as_ref().map(|r| r.status));
    let running = move || status() == Some(DayStatus::Running);
    view! {
        <div class="course-page day-page">
            <section class="panel">
                <h1>{move || tr!("day-title")}</h1>
                <p>{move || tr!("day-intro")}</p>
                <h2>{move || tr!("day-assumptions-title")}</h2>
                <ul class="day-assumptions">
                    <li>{move || tr!("day-assume-rush")}</li>
                    <li>{move || tr!("day-assume-retry")}</li>
                    <li>{move || tr!("day-assume-crash")}</li>
                    <li>{move || tr!("day-assume-ticket")}</li>
                    <li>{move || tr!("day-assume-accounts")}</li>
                    <li>{move || tr!("day-assume-paired")}</li>
                </ul>
            </section>
            <section class="panel" aria-labelledby="day-run-title">
                <h2 id="day-run-title">{move || tr!("day-run-title")}</h2>
                <fieldset class="day-scales">
                    <legend>{move || tr!("day-scale-legend")}</legend>
                    {SCALES
                        .into_iter()
                        .map(|s| {
                            let n = transfers_at(s);
                            let seconds = f64::from(seconds_at(s));
                            view! {
                                <label class="day-scale">
                                    <input
                                        type="radio"
                                        name="day-scale"
                                        data-testid=format!("day-scale-{s}")
                                        prop:checked=move || scale.get() == s
                                        on:change=move |_| scale.set(s)
                                    />
                                    <span>
                                        {move || tr_args("day-scale-option", &[
                                            ("scale", decimal(f64::from(s), 0)),
                                            ("transfers", decimal(n as f64, 0)),
                                            ("time", duration_text(seconds)),
                                        ])}
                                    </span>
                                </label>
                            }
                        })
                        .collect_view()}
                </fieldset>
                <p class="hint">{move || tr!("day-scale-hint")}</p>
                <Expected scale=scale />
                <div class="controls">
                    <button type="button" class="primary" data-testid="day-run" disabled=move || running() || status() == Some(DayStatus::Done) on:click=run>
                        {move || match status() {
                            Some(DayStatus::Running) => tr!("day-running"),
                            Some(DayStatus::Done) => tr!("day-ran"),
                            Some(DayStatus::Failed) => tr!("day-run-again"),
                            None => tr_args("day-run", &[("scale", decimal(f64::from(scale.get()), 0))]),
                        }}
                    </button>
                </div>
                {move || error.get().map(|e| view! { <p class="form-error" role="alert">{e.text()}</p> })}
                {move || report.get().map(|r| view! { <Progress report=r /> })}
            </section>
            {move || report.get().filter(|r| r.runs.iter().any(|r| r.damage.is_some())).map(|r| view! { <Findings report=r /> })}
            <section class="panel">
                <h2>{move || tr!("day-next-title")}</h2>
                <p>{move || tr!("day-next")} " "
                    <a href="/calculators">{move || tr!("nav-calculators")}</a> " · "
                    <a href="/lab" rel="external">{move || tr!("nav-lab")}</a>
                </p>
            </section>
        </div>
    }
}

/// The progress bar and what the running part of the day is doing.
#[component]
fn Progress(report: DayReport) -> impl IntoView {
    let pct = report.progress_pct();
    let current = report
        .runs
        .iter()
        .find(|r| r.damage.is_none())
        .or(report.runs.last())
        .cloned();
    let line = match (report.status, current) {
        (DayStatus::Done, _) => tr_args(
            "day-done",
            &[("time", duration_text(report.wall_ms() as f64 / 1000.0))],
        ),
        (DayStatus::Failed, _) => tr_args(
            "day-failed",
            &[("error", report.error.clone().unwrap_or_default())],
        ),
        (DayStatus::Running, Some(run)) => tr_args(
            if run.guards == DayGuards::On {
                "day-progress-on"
            } else {
                "day-progress-off"
            },
            &[
                ("sent", decimal(run.sent as f64, 0)),
                ("transfers", decimal(report.transfers as f64, 0)),
                ("hours", decimal((run.virtual_ms as f64 / 3.6e6).floor(), 0)),
            ],
        ),
        (DayStatus::Running, None) => String::new(),
    };
    view! {
        <div class="day-progress">
            <progress
                max="100"
                value=pct.to_string()
                data-testid="day-progress"
                aria-valuenow=pct.to_string()
                aria-valuemin="0"
                aria-valuemax="100"
                aria-label=move || tr!("day-progress-label")
            ></progress>
            <span class="day-pct">{digits(&format!("{pct} %"))}</span>
        </div>
        <p class="day-status" role="status" data-testid="day-status" data-status=format!("{:?}", report.status).to_lowercase()>{line}</p>
    }
}

/// What a day at the picked scale can show: the double charges expected with every guard off,
/// and their range. Below one expected, a 0 is chance, and the line says so.
#[component]
fn Expected(scale: RwSignal<u32>) -> impl IntoView {
    let line = move || {
        let s = scale.get();
        let (mean, lo, hi) = expected_double_charges(s);
        let args = [
            ("scale", decimal(f64::from(s), 0)),
            ("mean", decimal(mean, if mean < 10.0 { 1 } else { 0 })),
            ("lo", decimal(lo as f64, 0)),
            ("hi", decimal(hi as f64, 0)),
        ];
        let id = if mean < 1.0 {
            "day-expected-too-small"
        } else {
            "day-expected"
        };
        (mean < 1.0, tr_args(id, &args))
    };
    view! {
        <p class="day-expected" data-testid="day-expected" data-too-small=move || line().0.to_string()>
            {move || line().1}
        </p>
    }
}

/// The line over the findings: the faults both runs met (the same in both, as the runs draw
/// each send's luck from that send's own numbers) and what they became in each. `None` until
/// both runs have drained; `true` beside it when the faults match.
fn paired_line(report: &DayReport) -> Option<(bool, String)> {
    let on = report.run(DayGuards::On)?;
    let off = report.run(DayGuards::Off)?;
    let (f_on, f_off) = (on.faults?, off.faults?);
    let (d_on, d_off) = (on.damage.as_ref()?, off.damage.as_ref()?);
    let same = f_on.met() == f_off.met();
    let n = |v: u64| decimal(v as f64, 0);
    let args = [
        ("requests", n(f_on.requests_lost)),
        ("answers", n(f_on.answers_lost)),
        ("crashes", n(f_on.crashes)),
        ("replays", n(f_on.replays)),
        (
            "harm_on",
            n((d_on.double_charges + d_on.double_credits + d_on.lost_events) as u64),
        ),
        ("charges", n(d_off.double_charges as u64)),
        ("credits", n(d_off.double_credits as u64)),
        ("lost", n(d_off.lost_events as u64)),
    ];
    let id = if same {
        "day-paired"
    } else {
        "day-paired-differ"
    };
    Some((same, tr_args(id, &args)))
}

/// A row of the findings table: the figure it reads from a run.
type Figure = fn(&DayRun) -> Option<f64>;

/// What each run found: a table of the run's own figures and the chart at full scale.
///
/// Reads best whole: one report, figure after figure, in the order the page reads.
#[component]
fn Findings(report: DayReport) -> impl IntoView {
    let scale = report.scale;
    let monthly = RwSignal::new(true);
    let rows: Vec<(&'static str, Figure)> = vec![
        ("day-row-sent", |r| Some(r.sent as f64)),
        ("day-row-requests", |r| Some(r.requests as f64)),
        ("day-row-requests-lost", |r| {
            r.faults.map(|f| f.requests_lost as f64)
        }),
        ("day-row-answers-lost", |r| {
            r.faults.map(|f| f.answers_lost as f64)
        }),
        ("day-row-crashes", |r| r.faults.map(|f| f.crashes as f64)),
        ("day-row-timeouts", |r| Some(r.timeouts as f64)),
        ("day-row-retries", |r| Some(r.retries as f64)),
        ("day-row-receipts", |r| Some(r.receipts as f64)),
        ("day-row-replays", |r| r.faults.map(|f| f.replays as f64)),
        ("day-row-caught", |r| r.faults.map(|f| f.caught as f64)),
        ("day-row-given-up", |r| Some(r.given_up as f64)),
        ("day-row-double-charges", |r| Measure::DoubleCharges.of(r)),
        ("day-row-double-credits", |r| Measure::DoubleCredits.of(r)),
        ("day-row-duplicate-sms", |r| {
            r.damage.as_ref().map(|d| d.duplicate_sms as f64)
        }),
        ("day-row-lost-events", |r| Measure::LostEvents.of(r)),
        ("day-row-tickets", |r| Measure::Tickets.of(r)),
        ("day-row-invariants", |r| {
            r.invariants_broken.map(|n| n as f64)
        }),
    ];
    let paired = paired_line(&report);
    let runs = report.runs.clone();
    let value = move |guards: DayGuards, m: Measure| {
        let measured = runs
            .iter()
            .find(|r| r.guards == guards)
            .and_then(|r| m.of(r));
        measured.map(|v| {
            let (day, month) = extrapolated(v, scale);
            if monthly.get() {
                month
            } else {
                day
            }
        })
    };
    let value = StoredValue::new(value);
    let max = move || {
        Measure::ALL
            .into_iter()
            .flat_map(|m| DayGuards::ORDER.map(|g| value.with_value(|f| f(g, m)).unwrap_or(0.0)))
            .fold(LESSON_TICKETS_BEFORE, f64::max)
    };
    // A log scale: the figures run from a handful to thousands.
    let x_of = move |v: f64| 270.0 * (1.0 + v).log10() / (1.0 + max()).log10();
    view! {
        <section class="panel" aria-labelledby="day-found-title" data-testid="day-findings">
            <h2 id="day-found-title">{move || tr!("day-found-title")}</h2>
            {paired.map(|(same, line)| view! {
                <p class="day-paired" data-testid="day-paired" data-same=same.to_string()>{line}</p>
            })}
            <table class="calc-points day-table">
                <caption>{move || tr_args("day-table-caption", &[("scale", decimal(f64::from(scale), 0))])}</caption>
                <thead>
                    <tr>
                        <th scope="col">{move || tr!("day-col-figure")}</th>
                        <th scope="col">{move || tr!("day-col-on")}</th>
                        <th scope="col">{move || tr!("day-col-off")}</th>
                    </tr>
                </thead>
                <tbody>
                    {rows
                        .into_iter()
                        .map(|(id, f)| {
                            let cell = |g: DayGuards| {
                                let v = report.run(g).and_then(f);
                                view! {
                                    <td data-testid="day-figure" data-row=id data-guards=g.id() data-value=v.map(|v| v.to_string()).unwrap_or_default()>
                                        {move || v.map(|v| decimal(v, 2)).unwrap_or_else(|| "…".to_owned())}
                                    </td>
                                }
                            };
                            view! {
                                <tr>
                                    <th scope="row">{move || tr_id(id)}</th>
                                    {cell(DayGuards::On)}
                                    {cell(DayGuards::Off)}
                                </tr>
                            }
                        })
                        .collect_view()}
                </tbody>
            </table>
            <h3>{move || tr_args("day-chart-title", &[("scale", decimal(f64::from(scale), 0))])}</h3>
            <div class="controls" role="group" aria-label=move || tr!("day-period-label")>
                <button type="button" data-testid="day-period-day" aria-pressed=move || (!monthly.get()).to_string() on:click=move |_| monthly.set(false)>{move || tr!("day-period-day")}</button>
                <button type="button" data-testid="day-period-month" aria-pressed=move || monthly.get().to_string() on:click=move |_| monthly.set(true)>{move || tr!("day-period-month")}</button>
            </div>
            <svg class="chart day-chart" viewBox="0 0 360 300" role="img" aria-labelledby="day-chart-svg-title" data-testid="day-chart">
                <title id="day-chart-svg-title">{move || tr!("day-chart-alt")}</title>
                {Measure::ALL
                    .into_iter()
                    .enumerate()
                    .map(|(i, m)| {
                        let y = 16.0 + 66.0 * i as f64;
                        let bar = move |g: DayGuards, dy: f64| {
                            let v = move || value.with_value(|f| f(g, m)).unwrap_or(0.0);
                            view! {
                                <rect class=if g == DayGuards::Off { "bar bar-before" } else { "bar bar-after" }
                                    data-testid="day-bar" data-measure=m.id() data-guards=g.id() data-value=move || v().to_string()
                                    x="0" y=y + dy height="16" width=move || x_of(v()).max(1.0) />
                                <text class="mark-label" x=move || x_of(v()) + 5.0 y=y + dy + 13.0>{move || decimal(v(), 0)}</text>
                            }
                        };
                        view! {
                            <text class="tick" x="0" y=y>{move || tr_id(&format!("day-measure-{}", m.id()))}</text>
                            {bar(DayGuards::Off, 6.0)}
                            {bar(DayGuards::On, 26.0)}
                        }
                    })
                    .collect_view()}
                // The lesson's tickets a month (before the key); shown on the month's chart.
                {move || monthly.get().then(|| {
                    let x = x_of(LESSON_TICKETS_BEFORE);
                    let y = 16.0 + 66.0 * 3.0;
                    view! {
                        <line class="reference" data-testid="day-lesson-line" x1=x y1=y + 2.0 x2=x y2=y + 46.0 />
                        <text class="mark-label" x=x y=y + 62.0 text-anchor="middle">
                            {move || tr_args("day-lesson-tickets", &[("before", decimal(LESSON_TICKETS_BEFORE, 0)), ("after", decimal(LESSON_TICKETS_AFTER, 0))])}
                        </text>
                    }
                })}
            </svg>
            <p class="legend">
                <span class="key-delete">{move || tr!("day-legend-off")}</span>
                " · "
                <span class="key-ok">{move || tr!("day-legend-on")}</span>
            </p>
            <p class="hint">{move || tr_args("day-extrapolated-note", &[("scale", decimal(f64::from(scale), 0))])}</p>
            <p>{move || tr!("day-reading")}</p>
        </section>
    }
}
