//! The lab's live feed in the browser: the sandbox's event stream (SSE) turned into signals.
//!
//! During server rendering nothing connects; the signals hold what the server rendered. Once
//! hydrated, an `EventSource` delivers the clock and every timeline event; the browser resends
//! `Last-Event-ID` on its own when the connection drops, so nothing is missed.

use leptos::prelude::*;

use crate::domain::{ClockState, EventKind, TimelineEvent};

/// How many recent events the screen keeps.
#[cfg_attr(not(feature = "hydrate"), allow(dead_code))]
pub const KEEP_EVENTS: usize = 200;

/// What the lab screen shows live.
#[derive(Clone)]
pub struct LabStream {
    pub clock: RwSignal<ClockState>,
    /// Browser time (ms, `performance.now()`) when `clock` arrived: the base for ticking.
    pub clock_at: RwSignal<f64>,
    /// The newest events, oldest first.
    pub events: RwSignal<Vec<TimelineEvent>>,
    /// Whether the stream is connected right now.
    pub connected: RwSignal<bool>,
}

impl LabStream {
    pub fn new(initial: ClockState) -> LabStream {
        LabStream {
            clock: RwSignal::new(initial),
            clock_at: RwSignal::new(0.0),
            events: RwSignal::new(Vec::new()),
            connected: RwSignal::new(false),
        }
    }

    /// Takes a clock report (from the stream or a control's answer).
    pub fn set_clock(&self, clock: ClockState) {
        self.clock.set(clock);
        self.clock_at.set(now_ms());
    }

    /// Adds events as they arrive; a reset starts a fresh list.
    #[cfg_attr(not(feature = "hydrate"), allow(dead_code))]
    fn push(&self, event: TimelineEvent) {
        self.events.update(|list| {
            if event.kind == EventKind::SandboxReset {
                list.clear();
            }
            if list.last().is_some_and(|last| last.id >= event.id) {
                return;
            }
            list.push(event);
            if list.len() > KEEP_EVENTS {
                let extra = list.len() - KEEP_EVENTS;
                list.drain(..extra);
            }
        });
    }

    /// Connects to the sandbox's event stream once hydrated; closes it when the view goes.
    pub fn connect(&self, sandbox: &str) {
        #[cfg(feature = "hydrate")]
        {
            let url = format!("/api/sandboxes/{sandbox}/events");
            let this = self.clone();
            Effect::new(move |_| browser::open(&url, this.clone()));
        }
        #[cfg(not(feature = "hydrate"))]
        let _ = sandbox;
    }
}

/// Milliseconds on the browser's monotonic clock (0 on the server).
pub fn now_ms() -> f64 {
    #[cfg(feature = "hydrate")]
    {
        window().performance().map(|p| p.now()).unwrap_or(0.0)
    }
    #[cfg(not(feature = "hydrate"))]
    {
        0.0
    }
}

#[cfg(feature = "hydrate")]
mod browser {
    use leptos::prelude::*;
    use send_wrapper::SendWrapper;
    use wasm_bindgen::prelude::*;
    use web_sys::{EventSource, MessageEvent};

    use super::LabStream;
    use crate::domain::{ClockState, TimelineEvent};

    pub fn open(url: &str, stream: LabStream) {
        let Ok(source) = EventSource::new(url) else {
            stream.connected.set(false);
            return;
        };
        let on_clock = {
            let stream = stream.clone();
            Closure::<dyn Fn(MessageEvent)>::new(move |m: MessageEvent| {
                if let Some(clock) = m
                    .data()
                    .as_string()
                    .and_then(|s| serde_json::from_str::<ClockState>(&s).ok())
                {
                    stream.set_clock(clock);
                }
            })
        };
        let on_event = {
            let stream = stream.clone();
            Closure::<dyn Fn(MessageEvent)>::new(move |m: MessageEvent| {
                if let Some(event) = m
                    .data()
                    .as_string()
                    .and_then(|s| serde_json::from_str::<TimelineEvent>(&s).ok())
                {
                    stream.push(event);
                }
            })
        };
        let on_open = {
            let stream = stream.clone();
            Closure::<dyn Fn()>::new(move || stream.connected.set(true))
        };
        let on_error = {
            let stream = stream.clone();
            Closure::<dyn Fn()>::new(move || stream.connected.set(false))
        };
        let _ = source.add_event_listener_with_callback("clock", on_clock.as_ref().unchecked_ref());
        let _ =
            source.add_event_listener_with_callback("timeline", on_event.as_ref().unchecked_ref());
        source.set_onopen(Some(on_open.as_ref().unchecked_ref()));
        source.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        let held = SendWrapper::new((source, on_clock, on_event, on_open, on_error));
        on_cleanup(move || {
            let (source, ..) = &*held;
            source.close();
        });
    }
}
