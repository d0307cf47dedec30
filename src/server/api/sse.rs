//! `GET /api/sandboxes/{id}/events`: the timeline as Server-Sent Events.
//!
//! Each stored event goes out as `event: timeline` with its log id as the SSE `id`, so a browser
//! that reconnects sends `Last-Event-ID` and gets exactly what it missed, read back from the
//! event log. The clock goes out as `event: clock` (no id) first and after every change, and
//! so does what the sandbox's screens share (`event: presence`: the phone, the class's lock). A stream
//! never buffers more than one page of the log: a reader that falls behind the live feed drops
//! to reading the log again, page by page, at its own pace.
//!
//! With `?state=1` the stream also carries what changed in the sandbox's state after each
//! burst of work (`event: state`, a [`StateDelta`](crate::domain::state::StateDelta) from one
//! version to the next), or `event: state-gap` when the changes cannot be listed (a reset) or
//! the reader fell behind them: read `GET …/state` again then. A lab screen keeps its copy of
//! the state this way instead of reading it all after every burst.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::{RawQuery, State};
use axum::http::HeaderMap;
use axum::response::sse::{Event, KeepAlive, Sse};
use futures::Stream;
use tokio::sync::{broadcast, watch};

use crate::domain::phone_app::Presence;
use crate::domain::{ClockState, TimelineEvent};
use crate::server::error::LabError;
use crate::server::sandbox::{SandboxHandle, StateNews};
use crate::server::sandboxes::{Sandboxes, StreamPermit};

/// Events read from the log per page while catching up.
const PAGE: i64 = 256;

struct Feed {
    sandbox: SandboxHandle,
    last_sent: i64,
    backlog: VecDeque<TimelineEvent>,
    caught_up: bool,
    clock_due: bool,
    live: broadcast::Receiver<Arc<TimelineEvent>>,
    clock: watch::Receiver<ClockState>,
    presence_due: bool,
    presence: watch::Receiver<Presence>,
    /// The state's changes, when the reader asked for them (`?state=1`).
    state: Option<broadcast::Receiver<Arc<StateNews>>>,
    shutdown: watch::Receiver<bool>,
    _permit: StreamPermit,
}

/// The timeline as Server-Sent Events: `event: clock` first and on every change, then every
/// stored `event: timeline` (SSE id = log id) after `Last-Event-ID`, then live.
#[utoipa::path(get, path = "/api/sandboxes/{id}/events", tag = "sandboxes",
    params(
        super::shapes::SandboxPath,
        ("Last-Event-ID" = Option<i64>, Header, description = "Resume after this event (a whole number)"),
        super::shapes::StreamQuery,
    ),
    responses(
        (status = 200, description = "text/event-stream of clock and timeline events", body = crate::domain::TimelineEvent, content_type = "text/event-stream"),
        (status = 400, description = "Last-Event-ID is not a whole number (`invalid-last-event-id`), or is sent twice (`duplicate-header`), or `state` is not `1` (`invalid-field`)", body = super::shapes::Problem, content_type = "application/problem+json"),
        (status = 503, description = "Too many streams (`too-many-streams`) or the sandbox stopped (`sandbox-unavailable`); Retry-After", body = super::shapes::Problem, content_type = "application/problem+json",
            headers(("Retry-After" = i64, description = "Seconds to wait"))),
    ))]
pub async fn events(
    State(sandboxes): State<Sandboxes>,
    super::path::SandboxId(id): super::path::SandboxId,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
) -> Result<Sse<impl Stream<Item = Result<Event, Infallible>>>, LabError> {
    let follow = follows_state(query.as_deref())?;
    let sandbox = sandboxes.by_id(id).await?;
    stream(&sandboxes, sandbox, &headers, follow)
}

/// Whether a stream's query asks for the state's changes: `state=1`, or nothing. Other
/// parameters are left alone.
pub fn follows_state(query: Option<&str>) -> Result<bool, LabError> {
    let mut follow = false;
    for pair in query.unwrap_or_default().split('&') {
        let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
        if name == "state" {
            if value != "1" || follow {
                return Err(crate::domain::FieldError::new(
                    "state",
                    "send state=1 once to follow the state's changes, or leave it out",
                )
                .into());
            }
            follow = true;
        }
    }
    Ok(follow)
}

/// A sandbox's stream, for its own page or for a read-only mirror of it (`server::web`).
pub fn stream(
    sandboxes: &Sandboxes,
    sandbox: SandboxHandle,
    headers: &HeaderMap,
    follow_state: bool,
) -> Result<Sse<impl Stream<Item = Result<Event, Infallible>>>, LabError> {
    let last_sent = match super::headers::once(headers, "Last-Event-ID")? {
        None => 0,
        Some(v) => v
            .to_str()
            .ok()
            .and_then(super::runs::parse_event_id)
            .ok_or(LabError::BadLastEventId)?,
    };
    let permit = sandboxes.open_stream()?;
    // Subscribe before the first read of the log: whatever is stored after that read is in
    // the live feed, so nothing falls between the two.
    let feed = Feed {
        live: sandbox.subscribe(),
        clock: sandbox.watch_clock(),
        presence_due: true,
        presence: sandbox.watch_presence(),
        state: follow_state.then(|| sandbox.subscribe_state()),
        sandbox,
        last_sent,
        backlog: VecDeque::new(),
        caught_up: false,
        clock_due: true,
        shutdown: sandboxes.shutdown_signal(),
        _permit: permit,
    };
    let stream = futures::stream::unfold(feed, |mut feed| async move {
        let event = feed.next().await?;
        Some((Ok(event), feed))
    });
    Ok(Sse::new(stream).keep_alive(KeepAlive::new().interval(Duration::from_secs(15))))
}

impl Feed {
    async fn next(&mut self) -> Option<Event> {
        loop {
            if *self.shutdown.borrow() {
                return None;
            }
            if self.clock_due {
                self.clock_due = false;
                let clock = *self.clock.borrow_and_update();
                return Some(clock_event(&clock));
            }
            if self.presence_due {
                self.presence_due = false;
                let presence = self.presence.borrow_and_update().clone();
                return Some(presence_event(&presence));
            }
            if let Some(e) = self.backlog.pop_front() {
                self.last_sent = e.id;
                return Some(timeline_event(&e));
            }
            if !self.caught_up {
                match self.sandbox.events_after(self.last_sent, PAGE).await {
                    Ok(page) if page.is_empty() => self.caught_up = true,
                    Ok(page) => self.backlog.extend(page),
                    Err(e) => {
                        tracing::warn!("event stream could not read the log: {e}");
                        return None;
                    }
                }
                continue;
            }
            // In this order when several are ready: the events, then the state's changes, then
            // the clock, so a clock that says settled comes after what settled it.
            tokio::select! {
                biased;
                received = self.live.recv() => match received {
                    Ok(e) if e.id > self.last_sent => {
                        self.last_sent = e.id;
                        return Some(timeline_event(&e));
                    }
                    Ok(_) => {}
                    Err(broadcast::error::RecvError::Lagged(_)) => self.caught_up = false,
                    Err(broadcast::error::RecvError::Closed) => return None,
                },
                news = next_news(&mut self.state) => match news {
                    Ok(news) => return Some(state_event(&news)),
                    Err(broadcast::error::RecvError::Lagged(_)) => {
                        return Some(state_event(&StateNews::Gap))
                    }
                    Err(broadcast::error::RecvError::Closed) => return None,
                },
                changed = self.clock.changed() => match changed {
                    Ok(()) => self.clock_due = true,
                    Err(_) => return None,
                },
                changed = self.presence.changed() => match changed {
                    Ok(()) => self.presence_due = true,
                    Err(_) => return None,
                },
                _ = self.shutdown.changed() => return None,
            }
        }
    }
}

/// A timeline event as the stream sends it: the stored event plus `sent_ms`, the wall time
/// (ms since the epoch) it was written to the stream, which the event-to-screen latency
/// benchmark measures from. It is not part of the event log.
fn timeline_event(e: &TimelineEvent) -> Event {
    #[derive(serde::Serialize)]
    struct Sent<'a> {
        #[serde(flatten)]
        event: &'a TimelineEvent,
        sent_ms: f64,
    }
    let sent_ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64() * 1_000.0);
    Event::default()
        .id(e.id.to_string())
        .event("timeline")
        .json_data(Sent { event: e, sent_ms })
        .expect("timeline events serialise")
}

/// The next state news, or never when the reader did not ask for them.
async fn next_news(
    rx: &mut Option<broadcast::Receiver<Arc<StateNews>>>,
) -> Result<Arc<StateNews>, broadcast::error::RecvError> {
    match rx {
        Some(rx) => rx.recv().await,
        None => std::future::pending().await,
    }
}

/// A state delta as `event: state`, or `event: state-gap`.
fn state_event(news: &StateNews) -> Event {
    match news {
        StateNews::Delta(delta) => Event::default()
            .event("state")
            .json_data(delta)
            .expect("state deltas serialise"),
        StateNews::Gap => Event::default().event("state-gap").data("{}"),
    }
}

/// What the sandbox's screens share (the phone, the class's lock), as `event: presence`.
fn presence_event(p: &Presence) -> Event {
    Event::default()
        .event("presence")
        .json_data(p)
        .expect("presence serialises")
}

fn clock_event(c: &ClockState) -> Event {
    Event::default()
        .event("clock")
        .json_data(c)
        .expect("clock states serialise")
}
