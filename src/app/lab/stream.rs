//! The lab's live feed in the browser: the sandbox's event stream (SSE) turned into signals.
//!
//! During server rendering nothing connects; the signals hold what the server rendered. Once
//! hydrated, an `EventSource` delivers the clock and every timeline event; the browser resends
//! `Last-Event-ID` on its own when the connection drops, so nothing is missed. Each burst of
//! events also refreshes the sandbox's state (balances, tables, damage), so every panel shows
//! what the stores hold now. Events that arrive within one animation frame are added
//! together, so a burst of thousands costs a few renders, not thousands.
//!
//! A reset is taken in once, by its event's id ([`ResetMark`]): the stream replays the log from
//! its start when it connects, the reset the page opened after included, and the reset button
//! hears of its own reset before the stream does. A state read begun before a reset was taken
//! in shows the sandbox before it, and is thrown away.

use std::collections::HashMap;

use leptos::prelude::*;

use crate::domain::phone_app::Presence;
use crate::domain::state::ResetMark;
use crate::domain::{ClockState, EventKind, Layer, Outcome, SandboxState, TimelineEvent};

/// How many events the screen keeps (the timeline draws only those in view).
#[cfg_attr(not(feature = "hydrate"), allow(dead_code))]
pub const KEEP_EVENTS: usize = 50_000;

/// How long after a burst of events the state is read again, ms: at ×10 live, 400 rather than
/// 150 halves the reads (each about 230 KB to take in), which the timeline's marks wait behind
/// on a slow machine (BENCHMARKS.md, "The timeline in a browser").
#[cfg_attr(not(feature = "hydrate"), allow(dead_code))]
const REFRESH_DELAY_MS: u64 = 400;

/// Duplicates caught and escaped on one lane.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LaneCount {
    pub caught: u32,
    pub escaped: u32,
}

/// Where the inspector is looking: the present, or the past at one event.
#[derive(Clone, Debug, PartialEq)]
pub enum View {
    Now,
    /// Rebuilding the sandbox as it was at this event.
    Loading(i64),
    At(i64, Box<SandboxState>),
    Failed(i64, crate::app::error::FnError),
}

/// What the lab screen shows live.
#[derive(Clone)]
pub struct LabStream {
    pub clock: RwSignal<ClockState>,
    /// Browser time (ms, `performance.now()`) when `clock` arrived: the base for ticking.
    pub clock_at: RwSignal<f64>,
    /// The events since the sandbox's start or last reset, oldest first.
    pub events: RwSignal<Vec<TimelineEvent>>,
    /// Duplicates caught and escaped per lane, kept as events arrive.
    pub counts: RwSignal<HashMap<Layer, LaneCount>>,
    /// When the server wrote each event to the stream (wall ms since the epoch), for the
    /// latency benchmark.
    pub sent_ms: StoredValue<HashMap<i64, f64>>,
    /// The inspector's view: now, or rewound to an event.
    pub view: RwSignal<View>,
    /// The state the inspector and the damage meter show: the present, or the rewound past.
    pub shown: Memo<SandboxState>,
    /// Events that arrived since the last frame.
    #[cfg_attr(not(feature = "hydrate"), allow(dead_code))]
    incoming: StoredValue<(Vec<TimelineEvent>, bool)>,
    /// Whether the stream is connected right now.
    pub connected: RwSignal<bool>,
    /// The whole sandbox as last read: balances, safeguards, faults, tables, damage.
    pub state: RwSignal<SandboxState>,
    /// Counts the resets taken in, so the phones can forget what they kept.
    pub resets: RwSignal<u32>,
    /// The resets already taken in (or reflected by the first state).
    reset_mark: StoredValue<ResetMark>,
    /// A state read is under way / another one is wanted after it.
    refreshing: RwSignal<(bool, bool)>,
    /// A state read is scheduled.
    refresh_due: StoredValue<bool>,
    sandbox: StoredValue<String>,
    /// A read-only mirror: `sandbox` is then the mirror's token, and the state and the stream
    /// are read through it.
    pub readonly: bool,
    /// What the sandbox's screens share: the phone as its app's browser shows it, the class's
    /// lock (`event: presence`).
    pub presence: RwSignal<Presence>,
}

impl LabStream {
    pub fn new(sandbox: String, initial: SandboxState, readonly: bool) -> LabStream {
        let clock = initial.clock;
        let reset_mark = StoredValue::new(ResetMark::reflecting(&initial));
        let state = RwSignal::new(initial);
        let view = RwSignal::new(View::Now);
        let shown = Memo::new(move |_| match view.get() {
            View::At(_, past) => *past,
            _ => state.get(),
        });
        LabStream {
            shown,
            clock: RwSignal::new(clock),
            clock_at: RwSignal::new(0.0),
            events: RwSignal::new(Vec::new()),
            counts: RwSignal::new(HashMap::new()),
            sent_ms: StoredValue::new(HashMap::new()),
            view,
            incoming: StoredValue::new((Vec::new(), false)),
            connected: RwSignal::new(false),
            state,
            resets: RwSignal::new(0),
            reset_mark,
            refreshing: RwSignal::new((false, false)),
            refresh_due: StoredValue::new(false),
            sandbox: StoredValue::new(sandbox),
            readonly,
            presence: RwSignal::new(Presence::default()),
        }
    }

    /// The sandbox's id.
    pub fn sandbox(&self) -> String {
        self.sandbox.get_value()
    }

    /// Reads the state again a moment from now: a burst of events costs one read, and the
    /// marks of the timeline do not wait behind it.
    #[cfg_attr(not(feature = "hydrate"), allow(dead_code))]
    fn refresh_soon(&self) {
        let mut schedule = false;
        self.refresh_due.update_value(|due| {
            if !*due {
                *due = true;
                schedule = true;
            }
        });
        if schedule {
            let this = self.clone();
            set_timeout(
                move || {
                    this.refresh_due.set_value(false);
                    this.refresh();
                },
                std::time::Duration::from_millis(REFRESH_DELAY_MS),
            );
        }
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
                let resets = this.resets.get_untracked();
                let read = if this.readonly {
                    super::mirror_state(this.sandbox()).await
                } else {
                    super::get_state(this.sandbox()).await
                };
                if let Ok(Some(state)) = read {
                    if this.resets.get_untracked() == resets {
                        this.show(state);
                    } else {
                        // Begun before a reset: the sandbox as it was. Read it again.
                        this.refreshing.set((true, true));
                    }
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

    fn show(&self, state: SandboxState) {
        self.clock.set(state.clock);
        self.clock_at.set(now_ms());
        self.state.set(state);
    }

    /// Takes in the reset of event `reset_id`, reported by the stream or (with the state read
    /// after it) by the reset button. The first report of a reset puts the settings where the
    /// reset put them before anything can act on the old ones, then tells the phones; a reset
    /// already taken in changes nothing but the state shown.
    pub fn take_reset(&self, reset_id: i64, after: Option<SandboxState>) {
        let news = self
            .reset_mark
            .try_update_value(|mark| mark.take(reset_id))
            .unwrap_or(false);
        if news {
            let read = after.is_some();
            match after {
                Some(state) => self.show(state),
                None => self.state.update(SandboxState::settle_reset),
            }
            self.resets.update(|n| *n += 1);
            if !read {
                self.refresh();
            }
        } else if let Some(state) = after {
            self.show(state);
        }
    }

    /// Takes in the sandbox as a reset (or a preset, which begins with one) left it, from the
    /// control's own answer: the phone acts on the settings it put back at once, not only once
    /// the stream brings the reset.
    pub fn take_state_after_reset(&self, after: SandboxState) {
        match after.last_reset_id() {
            Some(reset_id) => self.take_reset(reset_id, Some(after)),
            None => self.refresh(),
        }
    }

    /// The sandbox's virtual time, ticking every `tick_ms` of wall time between the server's
    /// clock reports while the clock is live (its report alone while paused, or on the server).
    pub fn ticking_now(&self, tick_ms: u64) -> Signal<i64> {
        let (clock, clock_at) = (self.clock, self.clock_at);
        let wall = RwSignal::new(0.0);
        #[cfg(feature = "hydrate")]
        if let Ok(handle) = set_interval_with_handle(
            move || wall.set(now_ms()),
            std::time::Duration::from_millis(tick_ms),
        ) {
            on_cleanup(move || handle.clear());
        }
        #[cfg(not(feature = "hydrate"))]
        let _ = tick_ms;
        Signal::derive(move || {
            let c = clock.get();
            let base = clock_at.get();
            let w = wall.get();
            if base == 0.0 || w < base {
                c.now_ms
            } else {
                c.extrapolate(w - base)
            }
        })
    }

    /// Takes a clock report (from the stream or a control's answer).
    pub fn set_clock(&self, clock: ClockState) {
        self.clock.set(clock);
        self.clock_at.set(now_ms());
    }

    /// Takes an event from the stream; it joins the list at the next animation frame.
    #[cfg_attr(not(feature = "hydrate"), allow(dead_code))]
    fn receive(&self, event: TimelineEvent, sent_ms: Option<f64>) {
        if let Some(ms) = sent_ms {
            self.sent_ms.update_value(|m| {
                m.insert(event.id, ms);
            });
        }
        let mut schedule = false;
        self.incoming.update_value(|(list, scheduled)| {
            list.push(event);
            if !*scheduled {
                *scheduled = true;
                schedule = true;
            }
        });
        if schedule {
            let this = self.clone();
            request_animation_frame(move || this.flush());
        }
    }

    /// Adds what arrived since the last frame; a reset starts a fresh list.
    #[cfg_attr(not(feature = "hydrate"), allow(dead_code))]
    fn flush(&self) {
        let mut batch = Vec::new();
        self.incoming.update_value(|(list, scheduled)| {
            batch = std::mem::take(list);
            *scheduled = false;
        });
        if batch.is_empty() {
            return;
        }
        if let Some(at) = batch
            .iter()
            .rposition(|e| e.kind == EventKind::SandboxReset)
        {
            // The timeline starts again at the reset, news or not.
            let reset_id = batch[at].id;
            batch.drain(..at);
            self.events.update(Vec::clear);
            self.counts.update(HashMap::clear);
            self.sent_ms.update_value(HashMap::clear);
            self.view.set(View::Now);
            self.take_reset(reset_id, None);
        }
        let last = self.events.with_untracked(|l| l.last().map_or(0, |e| e.id));
        batch.retain(|e| e.id > last);
        self.counts.update(|counts| {
            for e in &batch {
                let c = counts.entry(e.layer).or_default();
                match e.outcome {
                    Outcome::Caught => c.caught += 1,
                    Outcome::Escaped => c.escaped += 1,
                    _ => {}
                }
            }
        });
        self.events.update(|list| {
            list.extend(batch);
            if list.len() > KEEP_EVENTS {
                let extra = list.len() - KEEP_EVENTS;
                list.drain(..extra);
            }
        });
        self.refresh_soon();
    }

    /// Connects to the sandbox's event stream once hydrated; closes it when the view goes.
    pub fn connect(&self) {
        #[cfg(feature = "hydrate")]
        {
            let url = if self.readonly {
                format!("/watch/{}/events", self.sandbox())
            } else {
                format!("/api/sandboxes/{}/events", self.sandbox())
            };
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
    use crate::domain::phone_app::Presence;
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
                let Some(text) = m.data().as_string() else {
                    return;
                };
                if let Ok(event) = serde_json::from_str::<TimelineEvent>(&text) {
                    let sent = serde_json::from_str::<serde_json::Value>(&text)
                        .ok()
                        .and_then(|v| v["sent_ms"].as_f64());
                    stream.receive(event, sent);
                }
            })
        };
        let on_presence = {
            let stream = stream.clone();
            Closure::<dyn Fn(MessageEvent)>::new(move |m: MessageEvent| {
                if let Some(p) = m
                    .data()
                    .as_string()
                    .and_then(|s| serde_json::from_str::<Presence>(&s).ok())
                {
                    stream.presence.set(p);
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
        let _ = source
            .add_event_listener_with_callback("presence", on_presence.as_ref().unchecked_ref());
        source.set_onopen(Some(on_open.as_ref().unchecked_ref()));
        source.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        let held = SendWrapper::new((source, on_clock, on_event, on_presence, on_open, on_error));
        on_cleanup(move || {
            let (source, ..) = &*held;
            source.close();
        });
    }
}
