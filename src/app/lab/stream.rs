//! The lab's live feed in the browser: the sandbox's event stream (SSE) turned into signals.
//!
//! During server rendering nothing connects; the signals hold what the server rendered. Once
//! hydrated, an `EventSource` delivers the clock and every timeline event; the browser resends
//! `Last-Event-ID` on its own when the connection drops, so nothing is missed. The same stream
//! carries what changed in the sandbox's state after each burst of work (a [`StateDelta`]:
//! the rows written or deleted, balances, damage, settings), which the page applies to its
//! copy, so every panel shows what the stores hold now without reading them all again. The
//! whole state is read when the stream opens, when a delta does not follow the copy's version
//! (a gap: a delta missed, or one the server could not list), and after a reset. Events that
//! arrive within one animation frame are added together, so a burst of thousands costs a few
//! renders, not thousands.
//!
//! A reset is taken in once, by its event's id ([`ResetMark`]): the stream replays the log from
//! its start when it connects, the reset the page opened after included, and the reset button
//! hears of its own reset before the stream does. A state read begun before a reset was taken
//! in shows the sandbox before it, and is thrown away.

use std::collections::HashMap;

use leptos::prelude::*;

use crate::domain::phone_app::Presence;
use crate::domain::state::{ResetMark, StateDelta};
use crate::domain::{ClockState, EventKind, Layer, Outcome, SandboxState, TimelineEvent};

/// How many events the screen keeps (the timeline draws only those in view).
#[cfg_attr(not(feature = "hydrate"), allow(dead_code))]
pub const KEEP_EVENTS: usize = 50_000;

/// Deltas kept while a read of the whole state is under way, to apply after it.
#[cfg_attr(not(feature = "hydrate"), allow(dead_code))]
const WAITING_DELTAS: usize = 64;

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
    /// Deltas that arrived during a read of the whole state, or ahead of the copy's version.
    waiting: StoredValue<Vec<StateDelta>>,
    sandbox: StoredValue<String>,
    /// A read-only mirror: `sandbox` is then the mirror's token, and the state and the stream
    /// are read through it.
    pub readonly: bool,
    /// What the sandbox's screens share: the phone as its app's browser shows it, the class's
    /// lock (`event: presence`).
    pub presence: RwSignal<Presence>,
    /// Requests of this page still under way: a tap's (with its library's retries), a jump,
    /// a replay, a preset, an attack … ([`LabStream::hold`]).
    pub pending: RwSignal<u32>,
    /// Events wait for the next animation frame to join the list.
    frame_due: RwSignal<bool>,
}

/// A request of the page under way, counted in [`LabStream::pending`] until it is dropped.
pub struct Hold(RwSignal<u32>);

impl Drop for Hold {
    fn drop(&mut self) {
        let _ = self.0.try_update(|n| *n = n.saturating_sub(1));
    }
}

impl LabStream {
    pub fn new(sandbox: String, initial: SandboxState, readonly: bool) -> LabStream {
        let clock = initial.clock;
        let reset_mark = StoredValue::new(ResetMark::reflecting(&initial));
        let state = RwSignal::new(initial);
        let view = RwSignal::new(View::Now);
        LabStream {
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
            waiting: StoredValue::new(Vec::new()),
            sandbox: StoredValue::new(sandbox),
            readonly,
            presence: RwSignal::new(Presence::default()),
            pending: RwSignal::new(0),
            frame_due: RwSignal::new(false),
        }
    }

    /// Counts a request of the page as under way until the returned hold is dropped.
    pub fn hold(&self) -> Hold {
        self.pending.update(|n| *n += 1);
        Hold(self.pending)
    }

    /// Whether nothing the lab started is still going (`data-settled` on the lab): the stream
    /// connected, no request of the page under way, the server's clock not busy
    /// ([`ClockState::busy`]: no request, answer or event on its way, every change sent), no
    /// read of the state under way and no event waiting for its frame.
    pub fn settled(&self) -> bool {
        self.connected.get()
            && self.pending.get() == 0
            && !self.clock.with(|c| c.busy)
            && !self.refreshing.with(|r| r.0 || r.1)
            && !self.frame_due.get()
    }

    /// The sandbox's id.
    pub fn sandbox(&self) -> String {
        self.sandbox.get_value()
    }

    /// The state the inspector and the damage meter show: the present, or the rewound past.
    pub fn shown(&self) -> Shown {
        Shown {
            view: self.view,
            state: self.state,
        }
    }

    /// Takes a delta from the stream: applied at once when it follows the copy's version,
    /// kept for later while a read is under way, and a read begun when it shows a gap.
    #[cfg_attr(not(feature = "hydrate"), allow(dead_code))]
    fn receive_delta(&self, delta: StateDelta) {
        let (busy, _) = self.refreshing.get_untracked();
        let version = self.state.with_untracked(|s| s.version);
        if busy || delta.from > version {
            self.waiting.update_value(|w| {
                w.push(delta);
                if w.len() > WAITING_DELTAS {
                    w.remove(0);
                }
            });
            if !busy {
                self.refresh();
            }
        } else if delta.from == version {
            self.apply(&delta);
        }
    }

    /// Applies a delta that follows the copy's version; reads the state again when the copy
    /// can no longer match a fresh read (an older row came into view).
    fn apply(&self, delta: &StateDelta) {
        let mut complete = true;
        self.state.update(|s| complete = s.apply(delta));
        if !complete {
            self.refresh();
        }
    }

    /// After a read: applies the deltas that came during it, in order from the read's
    /// version; one that still does not follow means a delta was missed, so read again.
    fn apply_waiting(&self) {
        let mut waiting = Vec::new();
        self.waiting.update_value(|w| waiting = std::mem::take(w));
        // They came in the order the server sent them.
        for delta in waiting {
            let version = self.state.with_untracked(|s| s.version);
            if delta.from == version {
                self.apply(&delta);
            } else if delta.from > version {
                self.refresh();
                return;
            }
        }
    }

    /// Reads the sandbox's state again; calls that come while a read is under way are folded
    /// into one more read after it. The deltas that arrive meanwhile are applied after it.
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
                    super::rpc::mirror_state(this.sandbox()).await
                } else {
                    super::rpc::get_state(this.sandbox()).await
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
            this.apply_waiting();
        });
    }

    fn show(&self, state: SandboxState) {
        // A read that left before the stream's newest clock report is behind it.
        if state.clock.report >= self.clock.with_untracked(|c| c.report) {
            self.clock.set(state.clock);
        }
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

    /// Takes a control's answer about the clock, unless the stream already said something
    /// newer (its report came first: the answer is then behind, its `busy` stale).
    pub fn answered_clock(&self, clock: ClockState) {
        if clock.report > self.clock.with_untracked(|c| c.report) {
            self.set_clock(clock);
        }
    }

    /// Takes a clock report from the stream, in the order the server made them.
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
            self.frame_due.set(true);
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
        self.frame_due.set(false);
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
    }

    /// Connects to the sandbox's event stream once hydrated; closes it when the view goes.
    pub fn connect(&self) {
        #[cfg(feature = "hydrate")]
        {
            let url = if self.readonly {
                format!("/watch/{}/events?state=1", self.sandbox())
            } else {
                format!("/api/sandboxes/{}/events?state=1", self.sandbox())
            };
            let this = self.clone();
            Effect::new(move |_| browser::open(&url, this.clone()));
        }
    }
}

/// The state a panel shows: the present, or the rewound past while the inspector shows it.
/// Read in place (`with`), never copied.
#[derive(Clone, Copy)]
pub struct Shown {
    view: RwSignal<View>,
    state: RwSignal<SandboxState>,
}

impl Shown {
    pub fn with<R>(&self, f: impl FnOnce(&SandboxState) -> R) -> R {
        let mut f = Some(f);
        let mut out = None;
        self.with_dyn(&mut |s| out = f.take().map(|f| f(s)));
        out.expect("the state is read once")
    }

    /// The reading itself, compiled once for every panel that reads.
    fn with_dyn(&self, f: &mut dyn FnMut(&SandboxState)) {
        let state = self.state;
        self.view.with(|view| match view {
            View::At(_, past) => f(past),
            _ => state.with(|s| f(s)),
        })
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
    use crate::domain::state::StateDelta;
    use crate::domain::{ClockState, TimelineEvent};

    /// Reads best whole: one stream: a listener per kind of message it sends, each short.
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
        let on_state = {
            let stream = stream.clone();
            Closure::<dyn Fn(MessageEvent)>::new(move |m: MessageEvent| {
                match m
                    .data()
                    .as_string()
                    .and_then(|s| serde_json::from_str::<StateDelta>(&s).ok())
                {
                    Some(delta) => stream.receive_delta(delta),
                    // Unreadable: the copy cannot follow it, so read it all.
                    None => stream.refresh(),
                }
            })
        };
        let on_gap = {
            let stream = stream.clone();
            Closure::<dyn Fn()>::new(move || stream.refresh())
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
        let _ = source.add_event_listener_with_callback("state", on_state.as_ref().unchecked_ref());
        let _ =
            source.add_event_listener_with_callback("state-gap", on_gap.as_ref().unchecked_ref());
        source.set_onopen(Some(on_open.as_ref().unchecked_ref()));
        source.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        let held = SendWrapper::new((
            source,
            on_clock,
            on_event,
            on_presence,
            on_state,
            on_gap,
            on_open,
            on_error,
        ));
        on_cleanup(move || {
            let (source, ..) = &*held;
            source.close();
        });
    }
}
