//! Scenario 8's Two Generals beside the lab while chapter 06 is open: an SVG of two hills and
//! the valley between, the messengers drawn from the sandbox's seeded generator by the server,
//! each crossing in [`TRIP_MS`] of the sandbox's own clock (paused, they stand still; faster,
//! they run). When the last messenger has arrived or been caught, the panel says why no number
//! of messengers makes both generals sure.

use crate::tr;
use leptos::prelude::*;

use super::rpc::send_generals;
use super::stream::LabStream;
use crate::app::error::{failed, FnError};
use crate::app::i18n::{digits, tr_args};
use crate::domain::fault::Percent;
use crate::domain::generals::{Generals, DEFAULT_LOSS_PCT, TRIP_MS};

/// The hills' x positions in the picture.
const A_X: f64 = 50.0;
const B_X: f64 = 350.0;

/// Reads best whole: the send, the messengers in flight and the verdict read the one run it
/// keeps.
#[component]
pub fn GeneralsPanel(live: LabStream) -> impl IntoView {
    let run = RwSignal::new(None::<Generals>);
    // A reset (a preset's load) puts the sandbox's clock back: a run from before it is over.
    let resets = live.resets;
    Effect::watch(move || resets.get(), move |_, _, _| run.set(None), false);
    // The sandbox's virtual now: the messengers move by it.
    let now = live.ticking_now(50);
    let now = move || now.get();
    // How far the messengers have got: (messenger index, fraction of its crossing), or None
    // when all are done.
    let at = move || {
        run.with(|r| {
            r.as_ref().map(|g| {
                let t = (now() - g.start_ms).max(0);
                let i = (t / TRIP_MS) as usize;
                if i >= g.trips.len() {
                    (g.trips.len(), 1.0)
                } else {
                    (i, (t % TRIP_MS) as f64 / TRIP_MS as f64)
                }
            })
        })
    };
    // Only a run that was sent can be over.
    let done = move || {
        run.with(|r| r.as_ref().map(|g| g.trips.len()))
            .is_some_and(|n| at().map(|a| a.0) == Some(n))
    };
    let sending = Action::new({
        let live = live.clone();
        move |_: &()| {
            let live = live.clone();
            let hold = live.hold();
            async move {
                let _hold = hold;
                run.set(Some(
                    send_generals(live.sandbox(), Percent::of(DEFAULT_LOSS_PCT)).await?,
                ));
                Ok::<(), FnError>(())
            }
        }
    });
    let busy = sending.pending();
    let error = failed(sending);
    let send = move |_| {
        sending.dispatch(());
    };
    // The messenger on its way: where it is, and whether it has been caught.
    let messenger = move || {
        let (i, f) = at()?;
        run.with(|r| {
            let g = r.as_ref()?;
            let trip = g.trips.get(i)?;
            let (from, to) = if trip.from_a { (A_X, B_X) } else { (B_X, A_X) };
            let caught = trip.lost && f >= 0.5;
            let f = if trip.lost { f.min(0.5) } else { f };
            Some((from + (to - from) * f, caught))
        })
    };
    view! {
        <section class="panel generals" aria-labelledby="generals-title" data-testid="generals">
            <h2 id="generals-title">{move || tr!("generals-title")}</h2>
            <p class="hint">{move || tr!("generals-hint", { "pct" => digits(&DEFAULT_LOSS_PCT.to_string()) })}</p>
            <button type="button" data-testid="generals-send" disabled=move || busy.get() on:click=send>
                {move || tr!("generals-send")}
            </button>
            <p class="error" role="alert">{error}</p>
            <svg class="generals-picture" viewBox="0 0 400 150" role="img" aria-labelledby="generals-title">
                <path class="valley" d="M0 120 L50 60 L110 110 L200 130 L290 110 L350 60 L400 120 Z" />
                <g class="camp enemy"><rect x="180" y="104" width="40" height="16" rx="3" /></g>
                <g class="camp a"><circle cx=A_X cy="52" r="10" /><text x=A_X y="30" text-anchor="middle">"A"</text></g>
                <g class="camp b"><circle cx=B_X cy="52" r="10" /><text x=B_X y="30" text-anchor="middle">"B"</text></g>
                {move || messenger().map(|(x, caught)| view! {
                    <g class=if caught { "messenger caught" } else { "messenger" } data-testid="generals-messenger">
                        <circle cx=format!("{x:.1}") cy="95" r="7" />
                        {caught.then(|| view! { <text x=format!("{x:.1}") y="99" text-anchor="middle">"✕"</text> })}
                    </g>
                })}
            </svg>
            <ol class="generals-trips" data-testid="generals-trips">
                {move || {
                    let shown = at().map_or(0, |(i, _)| i);
                    run.with(|r| r.as_ref().map(|g| {
                        g.trips
                            .iter()
                            .take(shown)
                            .map(|t| {
                                let key = match (t.from_a, t.n) {
                                    (true, 1) => "generals-trip-attack",
                                    (true, _) => "generals-trip-a",
                                    (false, _) => "generals-trip-b",
                                };
                                let n = t.n;
                                let lost = t.lost;
                                view! {
                                    <li data-lost=lost.to_string()>
                                        {if lost { "✕ " } else { "✓ " }}
                                        {move || tr_args(key, &[("n", digits(&n.to_string()))])}
                                    </li>
                                }
                            })
                            .collect_view()
                    }))
                }}
            </ol>
            <Show when=move || done()>
                <p class="generals-verdict" data-testid="generals-verdict" role="status">
                    {move || run.with(|r| r.as_ref().and_then(|g| g.trips.last().copied())).map(|last| {
                        let n = digits(&last.n.to_string());
                        let from = if last.from_a { "A" } else { "B" };
                        if last.lost {
                            tr_args("generals-caught", &[("n", n), ("from", from.to_owned())])
                        } else {
                            tr_args("generals-all", &[("n", n), ("from", from.to_owned())])
                        }
                    })}
                    " " {move || tr!("generals-lesson")}
                </p>
            </Show>
        </section>
    }
}
