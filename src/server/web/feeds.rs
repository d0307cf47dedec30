//! The class page's live feeds: the class view for its instructor, the projector's show, and a
//! student's sandbox mirrored read-only, each as Server-Sent Events.

use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};

use crate::server::error::LabError;
use crate::server::http::cookie;
use crate::server::sandboxes::Sandboxes;

use super::AppState;

/// `GET /teach/{class}/events`: the class view, live, for the browser holding the class's key:
/// `event: class` with the whole [`ClassView`](crate::domain::class::ClassView) when a student
/// joins or reports, and when a student's sandbox moved (looked at once a second). Nothing is
/// sent while nothing changed.
pub(super) async fn class_events(
    State(state): State<AppState>,
    axum::extract::Path(class): axum::extract::Path<String>,
    headers: HeaderMap,
) -> Result<Response, LabError> {
    use crate::server::classes::secret_cookie;
    let sandboxes = state.sandboxes;
    let classes = sandboxes.classes();
    let code = classes
        .authorize(&class, cookie(&headers, &secret_cookie(&class)).as_deref())
        .await?;
    class_feed(&sandboxes, class, code, |view| {
        // `now_ms` moves on every read: what changed is the rest.
        let shown = (
            view.students.clone(),
            view.locked,
            view.frozen,
            view.holders.clone(),
        );
        let body = serde_json::to_value(view).expect("a class view serialises");
        (shown, body)
    })
}

/// `GET /show/{code}/events`: what a class's projector page shows (its code, name and
/// totals, no names of students), live, for anyone with the code: `event: class` with a
/// [`ClassShow`](crate::domain::class::ClassShow) when it changes.
pub(super) async fn show_events(
    State(state): State<AppState>,
    axum::extract::Path(code): axum::extract::Path<String>,
) -> Result<Response, LabError> {
    let sandboxes = state.sandboxes;
    let code = crate::domain::class::ClassCode::parse(&code)?;
    let class = sandboxes.classes().find(&code).await?;
    class_feed(&sandboxes, class, code, |view| {
        let show = view.show();
        let body = serde_json::to_value(&show).expect("a class show serialises");
        (show, body)
    })
}

/// A class's live feed: the view read again when a student joins or reports and once a
/// second, shaped by `shape` into what changes and what is sent; sent as `event: class`
/// only when what changes did.
pub(super) fn class_feed<K: PartialEq + Send + 'static>(
    sandboxes: &Sandboxes,
    class: String,
    code: crate::domain::class::ClassCode,
    shape: fn(&crate::domain::class::ClassView) -> (K, serde_json::Value),
) -> Result<Response, LabError> {
    use axum::response::sse::{Event, KeepAlive, Sse};
    let changed = sandboxes.classes().watch(&class);
    let permit = sandboxes.open_stream()?;
    struct Feed<K> {
        sandboxes: Sandboxes,
        class: String,
        code: crate::domain::class::ClassCode,
        changed: tokio::sync::watch::Receiver<u64>,
        shutdown: tokio::sync::watch::Receiver<bool>,
        last: Option<K>,
        shape: fn(&crate::domain::class::ClassView) -> (K, serde_json::Value),
        _permit: crate::server::sandboxes::StreamPermit,
    }
    let feed = Feed {
        changed,
        shutdown: sandboxes.shutdown_signal(),
        sandboxes: sandboxes.clone(),
        class,
        code,
        last: None,
        shape,
        _permit: permit,
    };
    let stream = futures::stream::unfold(feed, |mut feed| async move {
        loop {
            if feed.last.is_some() {
                tokio::select! {
                    _ = feed.changed.changed() => {}
                    _ = tokio::time::sleep(std::time::Duration::from_secs(1)) => {}
                    _ = feed.shutdown.changed() => return None,
                }
            }
            if *feed.shutdown.borrow() {
                return None;
            }
            let view =
                match crate::server::teach::view(&feed.sandboxes, &feed.class, feed.code.clone())
                    .await
                {
                    Ok(view) => view,
                    Err(e) => {
                        tracing::warn!(class = %feed.class, "class stream: {e}");
                        return None;
                    }
                };
            let (shown, body) = (feed.shape)(&view);
            if feed.last.as_ref() == Some(&shown) {
                continue;
            }
            feed.last = Some(shown);
            let event = Event::default()
                .event("class")
                .json_data(&body)
                .expect("a class view serialises");
            return Some((Ok::<_, std::convert::Infallible>(event), feed));
        }
    });
    Ok(Sse::new(stream)
        .keep_alive(KeepAlive::new().interval(std::time::Duration::from_secs(15)))
        .into_response())
}

/// `GET /watch/{token}/events`: the stream of the sandbox a read-only mirror shows, exactly as
/// the sandbox's own page gets it (`api::sse`), reached by a token that gives no control.
pub(super) async fn mirror_events(
    State(state): State<AppState>,
    axum::extract::Path(token): axum::extract::Path<String>,
    axum::extract::RawQuery(query): axum::extract::RawQuery,
    headers: HeaderMap,
) -> Result<Response, LabError> {
    let follow = crate::server::api::sse::follows_state(query.as_deref())?;
    let sandboxes = state.sandboxes;
    let id = sandboxes
        .classes()
        .watched(&token)
        .await?
        .ok_or(LabError::NotFound)?;
    let sandbox = sandboxes.get(&id).await?;
    Ok(crate::server::api::sse::stream(&sandboxes, sandbox, &headers, follow)?.into_response())
}
