//! The lab's live feed in the browser: the sandbox's event stream (SSE) turned into signals.
//!
//! During server rendering nothing connects; the signals hold what the server rendered. Once
//! hydrated, an `EventSource` delivers the clock and every timeline event; the browser resends
//! `Last-Event-ID` on its own when the connection drops, so nothing is missed. Each burst of
//! events also refreshes the sandbox's state (balances, tables, damage), so every panel shows
//! what the stores hold now.

use leptos::prelude::*;

use crate::domain::{ClockState, EventKind, SandboxState, TimelineEvent};

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
    /// The whole sandbox as last read: balances, safeguards, faults, tables, damage.
    pub state: RwSignal<SandboxState>,
    /// Counts the resets seen, so the phones can forget what they kept.
    pub resets: RwSignal<u32>,
    /// A state read is under way / another one is wanted after it.
    refreshing: RwSignal<(bool, bool)>,
    sandbox: StoredValue<String>,
}

impl LabStream {
    pub fn new(sandbox: String, initial: SandboxState) -> LabStream {
        LabStream {
            clock: RwSignal::new(initial.clock),
            clock_at: RwSignal::new(0.0),
            events: RwSignal::new(Vec::new()),
            connected: RwSignal::new(false),
            state: RwSignal::new(initial),
            resets: RwSignal::new(0),
            refreshing: RwSignal::new((false, false)),
            sandbox: StoredValue::new(sandbox),
        }
    }

    /// The sandbox's id.
    pub fn sandbox(&self) -> String {
        self.sandbox.get_value()
    }

    /// Reads the sandbox's state again; calls that come while a read is under way are folded
    /// into one more read after it.
    pub fn refresh(&self) {
        let (busy, _) = self.refreshing.get_untracked();
        if busy {
            self.refreshing.set((true, true));
            return;
        }
        self.refreshing.set((true, false));
        let this = self.clone();
        leptos::task::spawn_local(async move {
            loop {
                if let Ok(Some(state)) = super::get_state(this.sandbox()).await {
                    this.clock.set(state.clock);
                    this.clock_at.set(now_ms());
                    this.state.set(state);
                }
                let (_, again) = this.refreshing.get_untracked();
                if again {
                    this.refreshing.set((true, false));
                } else {
                    this.refreshing.set((false, false));
                    break;
                }
            }
        });
    }

    /// Takes a clock report (from the stream or a control's answer).
    pub fn set_clock(&self, clock: ClockState) {
        self.clock.set(clock);
        self.clock_at.set(now_ms());
    }

    /// Adds events as they arrive; a reset starts a fresh list.
    #[cfg_attr(not(feature = "hydrate"), allow(dead_code))]
    fn push(&self, event: TimelineEvent) {
        if event.kind == EventKind::SandboxReset {
            self.resets.update(|n| *n += 1);
        }
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
    pub fn connect(&self) {
        #[cfg(feature = "hydrate")]
        {
            let url = format!("/api/sandboxes/{}/events", self.sandbox());
            let this = self.clone();
            Effect::new(move |_| browser::open(&url, this.clone()));
        }
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
                    stream.refresh();
                }
            })
        };
        let on_open = {
            let stream = stream.clone();
            Closure::<dyn Fn()>::new(move || {
                stream.connected.set(true);
                stream.refresh();
            })
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
