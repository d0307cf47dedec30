//! `/calculators`: the lesson's numbers, each a calculator with a chart drawn here as SVG
//! (`domain::calc` does the arithmetic). The dedup table's size against its window; a partition
//! drop against a row-by-row DELETE, measured live on the server's SQLite; and how timeouts
//! become support tickets. The defaults reproduce the lesson: 1 GB a day, 2 GB for 48 h,
//! 7 GB for a week, 365 GB a year; 10,000 unknown outcomes a day; 340 tickets a month.

use crate::tr;
use leptos::prelude::*;

use super::notes::RealWorld;
use crate::app::error::FnError;
use crate::app::i18n::{bn_digits, grouped, is_bn, tr_args, tr_id};
use crate::domain::calc::{log_bounds, nice_ceiling, DropReport, Tickets, Window, GB};
use crate::domain::realworld::Place;

/// Reads a typed number: ASCII or Bangla digits, commas and spaces ignored, one decimal point.
fn parse_number(text: &str) -> Option<f64> {
    let ascii: String = crate::domain::ascii_digits(text.trim())
        .chars()
        .filter(|c| !matches!(c, ',' | ' ' | '_'))
        .collect();
    if ascii.is_empty() || !ascii.chars().all(|c| c.is_ascii_digit() || c == '.') {
        return None;
    }
    ascii.parse().ok().filter(|x: &f64| x.is_finite())
}

/// A number for the page: grouped as the language groups it, at most `decimals` places, no
/// trailing zeros.
pub(crate) fn decimal(x: f64, decimals: usize) -> String {
    let bn = is_bn();
    let text = format!("{x:.decimals$}");
    let (int, frac) = text.split_once('.').unwrap_or((&text, ""));
    let frac = frac.trim_end_matches('0');
    // `grouped` writes the whole part in the language's digits and grouping already.
    let int = grouped(int.parse::<i64>().unwrap_or(0), bn);
    match (frac.is_empty(), bn) {
        (true, _) => int,
        (false, true) => format!("{int}.{}", bn_digits(frac)),
        (false, false) => format!("{int}.{frac}"),
    }
}

/// Bytes as the lesson writes sizes: `2 GB`, `365 GB`, `1.5 TB`, `500 MB`.
fn size_text(bytes: f64) -> String {
    let (value, unit) = [(1e12, "TB"), (GB, "GB"), (1e6, "MB"), (1e3, "KB")]
        .into_iter()
        .find(|(scale, _)| bytes >= *scale)
        .map(|(scale, unit)| (bytes / scale, unit))
        .unwrap_or((bytes, "B"));
    format!(
        "{} {unit}",
        decimal(value, if value < 10.0 { 2 } else { 1 })
    )
}

/// A labelled number field: keeps the last good value, says what it wants when the text is
/// not a number in range.
#[component]
fn NumberField(
    label: &'static str,
    value: RwSignal<f64>,
    min: f64,
    max: f64,
    testid: &'static str,
) -> impl IntoView {
    let text = RwSignal::new(String::new());
    let bad = RwSignal::new(false);
    // The field shows the value until the student types.
    let shown = move || {
        let t = text.get();
        if t.is_empty() {
            decimal(value.get(), 3)
        } else {
            t
        }
    };
    let on_input = move |ev| {
        let typed = event_target_value(&ev);
        match parse_number(&typed).filter(|x| (min..=max).contains(x)) {
            Some(x) => {
                bad.set(false);
                value.set(x);
            }
            None => bad.set(true),
        }
        text.set(typed);
    };
    let error_id = format!("{testid}-error");
    view! {
        <label class="calc-field">
            <span>{move || tr_id(label)}</span>
            <input
                type="text"
                inputmode="decimal"
                autocomplete="off"
                data-testid=testid
                aria-invalid=move || bad.get().to_string()
                aria-describedby=error_id.clone()
                prop:value=shown
                on:input=on_input
                on:blur=move |_| if !bad.get_untracked() { text.set(String::new()) }
            />
            <span class="form-error" id=error_id role="alert">
                {move || bad.get().then(|| tr_args("calc-bad-number", &[("min", decimal(min, 3)), ("max", decimal(max, 3))]))}
            </span>
        </label>
    }
}

/// The chart area inside every SVG: left, top, width, height of the plot.
const PLOT: (f64, f64, f64, f64) = (56.0, 12.0, 300.0, 150.0);

/// `/calculators`.
#[component]
pub fn CalculatorsPage() -> impl IntoView {
    view! {
        <div class="course-page calc-page">
            <section class="panel">
                <h1>{move || tr!("calc-title")}</h1>
                <p>{move || tr!("calc-intro")}</p>
            </section>
            <WindowCalc />
            <DropCalc />
            <TicketsCalc />
        </div>
    }
}

/// The dedup table's size: traffic × row × window, against the rule "window ≥ longest retry +
/// margin", on a log-log chart over windows from a day to a year.
///
/// Reads best whole: one calculator: its inputs, the answer and the chart share its signals.
#[component]
fn WindowCalc() -> impl IntoView {
    let d = Window::default();
    let transfers = RwSignal::new(d.transfers_per_day);
    let row = RwSignal::new(d.row_bytes);
    let hours = RwSignal::new(d.window_hours);
    let retry = RwSignal::new(d.longest_retry_hours);
    let margin = RwSignal::new(d.margin_hours);
    let w = Memo::new(move |_| Window {
        transfers_per_day: transfers.get(),
        row_bytes: row.get(),
        window_hours: hours.get(),
        longest_retry_hours: retry.get(),
        margin_hours: margin.get(),
    });
    let (left, top, width, height) = PLOT;
    // x: window in days, 1 to 365, logarithmic; y: bytes, logarithmic, a decade around.
    let x_of = move |days: f64| left + width * days.max(1.0).ln() / 365f64.ln();
    let y_range = move || {
        let w = w.get();
        let lo = 10f64.powf((w.bytes_for(24.0).max(1.0) / 2.0).log10().floor());
        let hi = 10f64.powf((w.bytes_for(365.0 * 24.0).max(1.0) * 2.0).log10().ceil());
        (lo, hi)
    };
    let y_of = move |bytes: f64| {
        let (lo, hi) = y_range();
        top + height - height * (bytes.max(lo).log10() - lo.log10()) / (hi.log10() - lo.log10())
    };
    let line = move || {
        let w = w.get();
        (0..=40)
            .map(|i| {
                let days = 365f64.powf(f64::from(i) / 40.0);
                format!("{:.1},{:.1}", x_of(days), y_of(w.bytes_for(days * 24.0)))
            })
            .collect::<Vec<_>>()
            .join(" ")
    };
    let marks = [(24.0, "1"), (48.0, "2"), (168.0, "7"), (8760.0, "365")];
    let safe_x = move || x_of(w.get().shortest_safe_hours() / 24.0);
    view! {
        <section class="panel calc" data-testid="calc-window" aria-labelledby="calc-window-title">
            <h2 id="calc-window-title">{move || tr!("calc-window-title")}</h2>
            <p>{move || tr!("calc-window-intro")}</p>
            <div class="calc-inputs">
                <NumberField label="calc-transfers" value=transfers min=1.0 max=1e10 testid="calc-window-transfers" />
                <NumberField label="calc-row-bytes" value=row min=1.0 max=1e6 testid="calc-window-row" />
                <NumberField label="calc-window-hours" value=hours min=1.0 max=87600.0 testid="calc-window-hours" />
                <NumberField label="calc-longest-retry" value=retry min=0.0 max=8760.0 testid="calc-window-retry" />
                <NumberField label="calc-margin" value=margin min=0.0 max=8760.0 testid="calc-window-margin" />
            </div>
            <dl class="calc-figures">
                <div data-testid="calc-window-per-day" data-value=move || w.get().bytes_per_day().to_string()>
                    <dt>{move || tr!("calc-per-day")}</dt>
                    <dd>{move || size_text(w.get().bytes_per_day())}</dd>
                </div>
                <div data-testid="calc-window-size" data-value=move || w.get().bytes().to_string()>
                    <dt>{move || tr_args("calc-size-at", &[("hours", decimal(hours.get(), 1))])}</dt>
                    <dd>{move || size_text(w.get().bytes())}</dd>
                </div>
                <div data-testid="calc-window-rule" data-safe=move || w.get().is_safe().to_string() class:bad=move || !w.get().is_safe()>
                    <dt>{move || tr!("calc-rule")}</dt>
                    <dd>
                        {move || {
                            let w = w.get();
                            let shortest = decimal(w.shortest_safe_hours(), 1);
                            if w.is_safe() {
                                tr_args("calc-rule-ok", &[("hours", shortest)])
                            } else {
                                tr_args("calc-rule-short", &[("hours", shortest)])
                            }
                        }}
                    </dd>
                </div>
            </dl>
            <table class="calc-lesson">
                <caption>{move || tr!("calc-window-lesson")}</caption>
                <tbody>
                    {marks
                        .into_iter()
                        .map(|(h, _)| {
                            view! {
                                <tr data-testid="calc-window-at" data-hours=h.to_string() data-value=move || w.get().bytes_for(h).to_string()>
                                    <th scope="row">{move || tr_args(if h == 24.0 { "calc-kept-one" } else { "calc-kept" }, &[("hours", decimal(h, 0)), ("days", decimal(h / 24.0, 0))])}</th>
                                    <td>{move || size_text(w.get().bytes_for(h))}</td>
                                </tr>
                            }
                        })
                        .collect_view()}
                </tbody>
            </table>
            <svg class="chart" viewBox="0 0 380 200" role="img" aria-labelledby="calc-window-chart-title" data-testid="calc-window-chart">
                <title id="calc-window-chart-title">{move || tr!("calc-window-chart")}</title>
                <rect class="chart-unsafe" x=left y=top width=move || (safe_x() - left).clamp(0.0, width) height=height />
                <line class="axis" x1=left y1=top + height x2=left + width y2=top + height />
                <line class="axis" x1=left y1=top x2=left y2=top + height />
                {[1.0, 2.0, 7.0, 30.0, 365.0]
                    .into_iter()
                    .map(|days| view! {
                        <text class="tick" x=x_of(days) y=top + height + 14.0 text-anchor="middle">{move || decimal(days, 0)}</text>
                    })
                    .collect_view()}
                <text class="axis-label" x=left + width / 2.0 y=196 text-anchor="middle">{move || tr!("calc-axis-days")}</text>
                {move || {
                    let (lo, hi) = y_range();
                    let mut ticks = Vec::new();
                    let mut t = lo;
                    while t <= hi * 1.0001 {
                        ticks.push(t);
                        t *= 10.0;
                    }
                    ticks
                        .into_iter()
                        .map(|t| view! {
                            <text class="tick" x=left - 4.0 y=y_of(t) + 4.0 text-anchor="end">{size_text(t)}</text>
                        })
                        .collect_view()
                }}
                <polyline class="series" points=line />
                // The chosen window first, so the marks' labels are drawn over it.
                <circle class="chosen" cx=move || x_of(hours.get() / 24.0) cy=move || y_of(w.get().bytes()) r="5" data-testid="calc-window-chosen" />
                {marks
                    .into_iter()
                    .map(|(h, _)| {
                        // The line rises to the right, so below-right of a mark and above-left
                        // of it are clear: a label goes below-right, or above-left past the
                        // chart's middle so it never runs off the right edge.
                        let right = x_of(h / 24.0) < left + width * 0.6;
                        view! {
                            <circle class="mark" cx=move || x_of(h / 24.0) cy=move || y_of(w.get().bytes_for(h)) r="3" />
                            <text class="mark-label" text-anchor=if right { "start" } else { "end" } x=move || x_of(h / 24.0) + if right { 7.0 } else { -7.0 } y=move || y_of(w.get().bytes_for(h)) + if right { 16.0 } else { -8.0 }>
                                {move || size_text(w.get().bytes_for(h))}
                            </text>
                        }
                    })
                    .collect_view()}
            </svg>
            <p class="hint">{move || tr!("calc-window-chart-note")}</p>
            <RealWorld place=Place::Calc("window") />
        </section>
    }
}

/// Measures a partition drop against a row-by-row DELETE on the server's SQLite
/// (`server::measure`), the same service as `POST /api/measure/drop-vs-delete`.
#[server(prefix = "/rpc", input = server_fn::codec::Json)]
pub async fn measure_drop(m: crate::domain::calc::DropVsDelete) -> Result<DropReport, FnError> {
    let sandboxes = crate::app::lab::rpc::sandboxes();
    crate::server::measure::drop_vs_delete(&sandboxes.config().data_dir, m)
        .await
        .map_err(|e| {
            tracing::warn!(error = %e, "the drop-vs-delete measurement failed");
            FnError::Internal
        })
}

/// Reads best whole: one calculator: its inputs, the measurement and the chart share its signals.
#[component]
fn DropCalc() -> impl IntoView {
    use crate::domain::calc::{DropVsDelete, MAX_DAYS, MAX_ROWS_PER_DAY, MIN_ROWS_PER_DAY};
    use crate::domain::FieldError;
    let d = DropVsDelete::default();
    let days = RwSignal::new(d.days.get() as f64);
    let rows = RwSignal::new(d.rows_per_day.get() as f64);
    // A measurement the sliders cannot ask for is refused here, as the server would.
    let measure = Action::new(move |m: &Result<DropVsDelete, FieldError>| {
        let m = m.clone();
        async move { measure_drop(m?).await }
    });
    let report = move || measure.value().get().and_then(Result::ok);
    let failed = move || matches!(measure.value().get(), Some(Err(_)));
    let run = move |_| {
        measure.dispatch(DropVsDelete::new(
            days.get_untracked() as i64,
            rows.get_untracked() as i64,
        ));
    };
    let (left, top, width, height) = PLOT;
    let chart = move || {
        report().map(|r| {
            let n = r.points.len().max(1) as f64;
            // A logarithmic time axis: DROP takes a small fraction of DELETE's time, and on a
            // linear axis it would lie on the floor; here each decade is one step up, so the
            // gap between the lines is the ratio the measurement found.
            let ms = |us: u64| us.max(1) as f64 / 1000.0;
            let all = || r.points.iter().flat_map(|p| [ms(p.drop_us), ms(p.delete_us)]);
            let (lo, hi) = log_bounds(all().fold(f64::INFINITY, f64::min), all().fold(0.0, f64::max));
            let decades = (hi.log10() - lo.log10()).round().max(1.0) as i32;
            let x_of = move |i: usize| left + width * (i as f64 + 0.5) / n;
            let y_of = move |v: f64| top + height - height * (v.max(lo).log10() - lo.log10()) / (hi.log10() - lo.log10());
            let series = |f: fn(&crate::domain::calc::DropPoint) -> u64| {
                r.points
                    .iter()
                    .enumerate()
                    .map(|(i, p)| format!("{:.1},{:.1}", x_of(i), y_of(ms(f(p)))))
                    .collect::<Vec<_>>()
                    .join(" ")
            };
            let gap = r.delete_over_drop().unwrap_or(1.0);
            let delete_line = series(|p| p.delete_us);
            let drop_line = series(|p| p.drop_us);
            view! {
                <svg class="chart" viewBox="0 0 380 200" role="img" aria-labelledby="calc-drop-chart-title" data-testid="calc-drop-chart">
                    <title id="calc-drop-chart-title">{move || tr!("calc-drop-chart")}</title>
                    <line class="axis" x1=left y1=top + height x2=left + width y2=top + height />
                    <line class="axis" x1=left y1=top x2=left y2=top + height />
                    {(0..=decades)
                        .map(|k| {
                            let v = lo * 10f64.powi(k);
                            let places = (-v.log10().round()).max(0.0) as usize;
                            view! {
                                <line class="grid" x1=left y1=y_of(v) x2=left + width y2=y_of(v) />
                                <text class="tick" x=left - 4.0 y=y_of(v) + 4.0 text-anchor="end">{move || format!("{} ms", decimal(v, places))}</text>
                            }
                        })
                        .collect_view()}
                    {r.points
                        .iter()
                        .enumerate()
                        .map(|(i, p)| {
                            let days = p.days;
                            view! { <text class="tick" x=x_of(i) y=top + height + 14.0 text-anchor="middle">{move || decimal(f64::from(days), 0)}</text> }
                        })
                        .collect_view()}
                    <text class="axis-label" x=left + width / 2.0 y=196 text-anchor="middle">{move || tr!("calc-axis-days-kept")}</text>
                    <polyline class="series series-delete" points=delete_line data-testid="calc-drop-delete-line" />
                    <polyline class="series series-drop" points=drop_line data-testid="calc-drop-drop-line" />
                    <text class="mark-label" x=left + width y=top + 10.0 text-anchor="end" data-testid="calc-drop-gap" data-value=gap.to_string()>
                        {move || tr_args("calc-drop-gap", &[("times", decimal(gap, 0))])}
                    </text>
                </svg>
                <p class="legend">
                    <span class="key-delete">{move || tr!("calc-legend-delete")}</span>
                    " · "
                    <span class="key-drop">{move || tr!("calc-legend-drop")}</span>
                </p>
            }
        })
    };
    view! {
        <section class="panel calc" data-testid="calc-drop-vs-delete" aria-labelledby="calc-drop-title">
            <h2 id="calc-drop-title">{move || tr!("calc-drop-title")}</h2>
            <p>{move || tr!("calc-drop-intro")}</p>
            <div class="calc-inputs">
                <NumberField label="calc-drop-days" value=days min=1.0 max=f64::from(MAX_DAYS) testid="calc-drop-days" />
                <NumberField label="calc-drop-rows" value=rows min=f64::from(MIN_ROWS_PER_DAY) max=f64::from(MAX_ROWS_PER_DAY) testid="calc-drop-rows" />
            </div>
            <div class="controls">
                <button type="button" class="primary" data-testid="calc-drop-run" disabled=move || measure.pending().get() on:click=run>
                    {move || if measure.pending().get() { tr!("calc-drop-running") } else { tr!("calc-drop-run") }}
                </button>
            </div>
            <Show when=failed>
                <p class="form-error" role="alert">{move || tr!("calc-drop-failed")}</p>
            </Show>
            {chart}
            {move || report().map(|r| {
                let rows = r.rows_per_day;
                view! {
                    <table class="calc-points" data-testid="calc-drop-points">
                        <caption>{move || tr_args("calc-drop-caption", &[("rows", decimal(f64::from(rows), 0))])}</caption>
                        <thead>
                            <tr>
                                <th scope="col">{move || tr!("calc-drop-col-days")}</th>
                                <th scope="col">{move || tr!("calc-legend-delete")}</th>
                                <th scope="col">{move || tr!("calc-legend-drop")}</th>
                            </tr>
                        </thead>
                        <tbody>
                            {r.points
                                .into_iter()
                                .map(|p| view! {
                                    <tr data-testid="calc-drop-point" data-days=p.days.to_string() data-drop-us=p.drop_us.to_string() data-delete-us=p.delete_us.to_string()>
                                        <th scope="row">{move || decimal(f64::from(p.days), 0)}</th>
                                        <td>{move || format!("{} ms", decimal(p.delete_us as f64 / 1000.0, 2))}</td>
                                        <td>{move || format!("{} ms", decimal(p.drop_us as f64 / 1000.0, 2))}</td>
                                    </tr>
                                })
                                .collect_view()}
                        </tbody>
                    </table>
                }
            })}
            <p class="hint">{move || tr!("calc-drop-note")}</p>
            {move || report().map(|r| {
                let (times, scale, rows) = (r.delete_over_drop().unwrap_or(1.0), r.lesson_scale(), r.rows_per_day);
                view! {
                    <p class="hint" data-testid="calc-drop-scale" data-value=scale.to_string()>
                        {move || tr_args("calc-drop-scale", &[
                            ("times", decimal(times, 0)),
                            ("scale", decimal(scale, 0)),
                            ("rows", decimal(f64::from(rows), 0)),
                            ("lesson", decimal(f64::from(crate::domain::calc::LESSON_ROWS_PER_DAY), 0)),
                        ])}
                    </p>
                }
            })}
            <RealWorld place=Place::Calc("drop_vs_delete") />
        </section>
    }
}

/// From timeouts to tickets: transfers × timeout rate → unknown outcomes; × the share charged
/// and retried without a key → double charges; ÷ charges per ticket → tickets a month. With
/// the key: none.
#[component]
fn TicketsCalc() -> impl IntoView {
    let d = Tickets::default();
    let transfers = RwSignal::new(d.transfers_per_day);
    let timeout = RwSignal::new(d.timeout_pct);
    let retried = RwSignal::new(d.charged_and_retried_pct);
    let per_ticket = RwSignal::new(d.charges_per_ticket);
    let days = RwSignal::new(d.days_per_month);
    let t = Memo::new(move |_| Tickets {
        transfers_per_day: transfers.get(),
        timeout_pct: timeout.get(),
        charged_and_retried_pct: retried.get(),
        charges_per_ticket: per_ticket.get(),
        days_per_month: days.get(),
    });
    let (left, top, width, height) = PLOT;
    let y_max = move || nice_ceiling(t.get().tickets_per_month().max(340.0));
    let y_of = move |v: f64| top + height - height * v / y_max();
    let bar_w = width / 4.0;
    view! {
        <section class="panel calc" data-testid="calc-tickets" aria-labelledby="calc-tickets-title">
            <h2 id="calc-tickets-title">{move || tr!("calc-tickets-title")}</h2>
            <p>{move || tr!("calc-tickets-intro")}</p>
            <div class="calc-inputs">
                <NumberField label="calc-transfers" value=transfers min=1.0 max=1e10 testid="calc-tickets-transfers" />
                <NumberField label="calc-timeout-pct" value=timeout min=0.0 max=100.0 testid="calc-tickets-timeout" />
                <NumberField label="calc-retried-pct" value=retried min=0.0 max=100.0 testid="calc-tickets-retried" />
                <NumberField label="calc-per-ticket" value=per_ticket min=1.0 max=1e9 testid="calc-tickets-per-ticket" />
                <NumberField label="calc-days-month" value=days min=1.0 max=31.0 testid="calc-tickets-days" />
            </div>
            <dl class="calc-figures">
                <div data-testid="calc-tickets-unknown" data-value=move || t.get().unknown_per_day().to_string()>
                    <dt>{move || tr!("calc-unknown-day")}</dt>
                    <dd>{move || decimal(t.get().unknown_per_day(), 1)}</dd>
                </div>
                <div data-testid="calc-tickets-doubles" data-value=move || t.get().double_charges_per_day().to_string()>
                    <dt>{move || tr!("calc-doubles-day")}</dt>
                    <dd>{move || decimal(t.get().double_charges_per_day(), 1)}</dd>
                </div>
                <div class="bad" data-testid="calc-tickets-month" data-value=move || t.get().tickets_per_month().to_string()>
                    <dt>{move || tr!("calc-tickets-before")}</dt>
                    <dd>{move || decimal(t.get().tickets_per_month(), 1)}</dd>
                </div>
                <div data-testid="calc-tickets-after" data-value="0">
                    <dt>{move || tr!("calc-tickets-after")}</dt>
                    <dd>{move || decimal(0.0, 0)}</dd>
                </div>
            </dl>
            <svg class="chart" viewBox="0 0 380 200" role="img" aria-labelledby="calc-tickets-chart-title" data-testid="calc-tickets-chart">
                <title id="calc-tickets-chart-title">{move || tr!("calc-tickets-chart")}</title>
                <line class="axis" x1=left y1=top + height x2=left + width y2=top + height />
                <line class="axis" x1=left y1=top x2=left y2=top + height />
                <text class="tick" x=left - 4.0 y=top + 4.0 text-anchor="end">{move || decimal(y_max(), 0)}</text>
                <text class="tick" x=left - 4.0 y=top + height + 4.0 text-anchor="end">{move || decimal(0.0, 0)}</text>
                <line class="reference" data-testid="calc-tickets-lesson-line" x1=left y1=move || y_of(340.0) x2=left + width y2=move || y_of(340.0) />
                <text class="mark-label" x=left + width y=move || y_of(340.0) - 4.0 text-anchor="end">{move || tr_args("calc-lesson-340", &[("n", decimal(340.0, 0))])}</text>
                <rect class="bar bar-before" data-testid="calc-tickets-bar" x=left + bar_w * 0.75 width=bar_w y=move || y_of(t.get().tickets_per_month()) height=move || (top + height - y_of(t.get().tickets_per_month())).max(0.0) />
                <rect class="bar bar-after" x=left + bar_w * 2.25 width=bar_w y=top + height - 1.0 height="1" />
                <text class="tick" x=left + bar_w * 1.25 y=top + height + 14.0 text-anchor="middle">{move || tr!("calc-bar-without")}</text>
                <text class="tick" x=left + bar_w * 2.75 y=top + height + 14.0 text-anchor="middle">{move || tr!("calc-bar-with")}</text>
            </svg>
            <p class="hint">{move || tr!("calc-tickets-note")}</p>
            <p><a href="/day">{move || tr!("calc-day-link")}</a></p>
            <RealWorld place=Place::Calc("tickets") />
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typed_numbers_are_read_in_either_script() {
        assert_eq!(parse_number("2,000,000"), Some(2e6));
        assert_eq!(parse_number("২০,০০,০০০"), Some(2e6));
        assert_eq!(parse_number("0.5"), Some(0.5));
        assert_eq!(parse_number("০.৫"), Some(0.5));
        for bad in ["", "abc", "-1", "1e3", "1.2.3", "NaN"] {
            assert_eq!(parse_number(bad), None, "{bad}");
        }
    }
}
