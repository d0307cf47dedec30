//! The sandbox clock: where virtual time stands, and the controls that move it (pause, resume,
//! step, speed, jump).

use crate::tr;
use leptos::prelude::*;

use super::rpc::clock_control;
use super::stream::LabStream;
use crate::app::error::{failed, FnError};
use crate::app::format::{clock_text, speed_text};
use crate::domain::clock::{HOUR_MS, MINUTE_MS};
use crate::domain::{ClockCommand, ClockMode};

/// Live speeds on offer, slow motion to fast forward.
const SPEEDS: [f64; 7] = [0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0];

/// Reads best whole: the clock's controls as one panel on the one clock signal.
#[component]
pub fn ClockPanel(live: LabStream) -> impl IntoView {
    let id = live.sandbox();
    let clock = live.clock;
    // Ticks the face between server reports while the clock is live.
    let now = live.ticking_now(100);
    let shown = move || now.get();
    let paused = move || clock.with(|c| c.mode == ClockMode::Paused);
    // One clock command at a time; the controls wait while it is on its way.
    let command = Action::new({
        let live = live.clone();
        move |command: &ClockCommand| {
            let (id, live, command) = (id.clone(), live.clone(), *command);
            let hold = live.hold();
            async move {
                let _hold = hold;
                live.answered_clock(clock_control(id, command).await?);
                Ok::<(), FnError>(())
            }
        }
    });
    let busy = command.pending();
    let error = failed(command);
    let send = move |c: ClockCommand| {
        command.dispatch(c);
    };
    let toggle = move |_| {
        send(if paused() {
            ClockCommand::Resume
        } else {
            ClockCommand::Pause
        })
    };
    let step = move |_| send(ClockCommand::Step);
    let jump = move |ms: i64| {
        send(ClockCommand::Advance {
            seconds: ms / 1_000,
        })
    };
    let jump_min = move |_| jump(MINUTE_MS);
    let jump_hour = move |_| jump(HOUR_MS);
    let jump_day = move |_| jump(24 * HOUR_MS);
    let on_speed = move |ev: leptos::ev::Event| {
        if let Ok(speed) = event_target_value(&ev).parse::<f64>() {
            send(ClockCommand::Speed { speed });
        }
    };

    view! {
        <section class="clock-panel" aria-labelledby="clock-title">
            <h3 id="clock-title">{move || tr!("clock-title")}</h3>
            <p
                class="clock-face"
                data-testid="clock"
                data-now-ms=move || clock.get().now_ms
                data-next-due-ms=move || clock.get().next_due_ms
                data-mode=move || if paused() { "paused" } else { "live" }
                aria-live="off"
            >
                {move || clock_text(shown())}
            </p>
            <p class="clock-mode">
                {move || {
                    let c = clock.get();
                    match c.mode {
                        ClockMode::Live => tr!("clock-live", { "speed" => speed_text(c.speed) }),
                        ClockMode::Paused => tr!("clock-paused"),
                    }
                }}
            </p>
            <p class="hint">
                {move || match clock.get().next_due_ms {
                    Some(at) => tr!("clock-next", { "at" => clock_text(at) }),
                    None => tr!("clock-nothing-due"),
                }}
            </p>
            <div class="controls" role="group" aria-label=move || tr!("clock-controls")>
                <button
                    type="button"
                    data-testid="pause"
                    aria-pressed=move || paused().to_string()
                    on:click=toggle
                    disabled=move || busy.get()
                >
                    {move || if paused() {
                        view! { <Icon shape=IconShape::Play /> {move || tr!("clock-resume")} }.into_any()
                    } else {
                        view! { <Icon shape=IconShape::Pause /> {move || tr!("clock-pause")} }.into_any()
                    }}
                </button>
                <button
                    type="button"
                    data-testid="step"
                    on:click=step
                    disabled=move || busy.get() || clock.get().next_due_ms.is_none()
                    title=move || tr!("clock-step-title")
                >
                    <Icon shape=IconShape::Step />
                    {move || tr!("clock-step")}
                </button>
                <label class="speed">
                    {move || tr!("clock-speed")}
                    <select data-testid="speed" on:change=on_speed disabled=move || busy.get()>
                        {SPEEDS
                            .into_iter()
                            .map(|s| {
                                view! {
                                    <option value=s.to_string() selected=move || clock.get().speed == s>
                                        {move || speed_text(s)}
                                    </option>
                                }
                            })
                            .collect_view()}
                    </select>
                </label>
            </div>
            <div class="controls" role="group" aria-label=move || tr!("clock-jump")>
                <button type="button" data-testid="jump-minute" on:click=jump_min disabled=move || busy.get()>
                    {move || tr!("jump-minute")}
                </button>
                <button type="button" data-testid="jump-hour" on:click=jump_hour disabled=move || busy.get()>
                    {move || tr!("jump-hour")}
                </button>
                <button type="button" data-testid="jump-day" on:click=jump_day disabled=move || busy.get()>
                    {move || tr!("jump-day")}
                </button>
            </div>
            {move || error().map(|e| view! { <p class="error" role="alert">{e}</p> })}
        </section>
    }
}

#[derive(Clone, Copy)]
enum IconShape {
    Play,
    Pause,
    Step,
}

/// A small control icon drawn in SVG, so it needs no symbol font; hidden from screen readers,
/// since every button also says what it does in words.
#[component]
fn Icon(shape: IconShape) -> impl IntoView {
    let path = match shape {
        IconShape::Play => "M4 2 L14 8 L4 14 Z",
        IconShape::Pause => "M3 2 H7 V14 H3 Z M9 2 H13 V14 H9 Z",
        IconShape::Step => "M2 2 L10 8 L2 14 Z M11 2 H14 V14 H11 Z",
    };
    view! {
        <svg class="icon" viewBox="0 0 16 16" width="16" height="16" aria-hidden="true" focusable="false">
            <path d=path fill="currentColor" />
        </svg>
    }
}
