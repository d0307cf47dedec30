//! The whole HTTP surface in one router: the API, the `/lab` entrance, the Leptos pages, the
//! static files, and the headers every response carries.

use axum::extract::{FromRef, Query, RawQuery, State};
use axum::http::{header, HeaderMap, HeaderValue};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use axum::Router;
use leptos::prelude::*;
use leptos_axum::{generate_route_list, LeptosRoutes};
use tower_http::compression::{CompressionLayer, CompressionLevel};

use super::error::LabError;
use super::http::{cookie, CodeLookedUp, SANDBOX_COOKIE};
use super::sandboxes::Sandboxes;
use crate::app::{shell, App};
use crate::domain::scenario::{Preset, Variant};
use crate::domain::{ClockMode, FieldError};

mod feeds;
mod language;
use feeds::*;
use language::*;

/// What every handler and server function can reach.
#[derive(Clone)]
pub struct AppState {
    pub leptos_options: LeptosOptions,
    pub sandboxes: Sandboxes,
}

impl FromRef<AppState> for LeptosOptions {
    fn from_ref(s: &AppState) -> Self {
        s.leptos_options.clone()
    }
}

impl FromRef<AppState> for Sandboxes {
    fn from_ref(s: &AppState) -> Self {
        s.sandboxes.clone()
    }
}

/// Builds the application over a lab: the pages (SSR, server functions, static files) and the
/// `/api` routes, every response with the security headers. `main.rs` serves it.
pub fn app(leptos_options: LeptosOptions, sandboxes: Sandboxes) -> Router {
    let state = AppState {
        leptos_options,
        sandboxes: sandboxes.clone(),
    };
    let routes = generate_route_list(App);
    Router::new()
        .route("/lab", get(lab_entrance))
        .route("/teach/{class}/events", get(class_events))
        .route("/show/{code}/events", get(show_events))
        .route("/teach/{class}/students/{sandbox}/open", get(open_student))
        .route("/teach/{class}/summary.csv", get(summary_csv))
        .route("/watch/{token}/events", get(mirror_events))
        .route("/join", get(join_entrance))
        .route("/lang", post(choose_language))
        .route("/strings/{file}", get(strings_file))
        // Server functions and pages find the sandboxes as a context of their own
        // (`app::lab::rpc::sandboxes`), so the UI needs nothing of this module.
        .leptos_routes_with_context(
            &state,
            routes,
            {
                let sandboxes = sandboxes.clone();
                move || provide_context(sandboxes.clone())
            },
            {
                let options = state.leptos_options.clone();
                move || shell(options.clone())
            },
        )
        .fallback(leptos_axum::file_and_error_handler::<AppState, _>(shell))
        .with_state(state)
        .merge(super::api::router(&sandboxes).with_state(sandboxes.clone()))
        .layer(axum::middleware::from_fn(super::api::edge::fn_answers))
        .layer(axum::middleware::from_fn(pin_language))
        .layer(axum::middleware::from_fn_with_state(
            sandboxes.clone(),
            class_page_status,
        ))
        // One gate for every state-changing request, whatever its route (`api::edge`).
        .layer(axum::middleware::from_fn(super::api::edge::gate))
        .layer(axum::middleware::map_response(security_headers))
        .layer(axum::middleware::from_fn(caching))
        // Pages and JSON compressed for a browser that accepts it; the files under /pkg are
        // already (the build writes .br and .gz beside each), and event streams never are.
        .layer(CompressionLayer::new().quality(CompressionLevel::Precise(5)))
}

/// The entrance's query: `/lab?seed=N` always opens a new sandbox with that seed (a shared
/// experiment, a test that must replay).
#[derive(serde::Deserialize)]
struct Entrance {
    seed: Option<String>,
    /// A chapter to open (`/lab?chapter=1`, the front page's way into the course).
    chapter: Option<String>,
    /// A scenario preset to load into the sandbox (`/lab?scenario=3&variant=unguarded`: a
    /// quiz answer's or a glossary term's live demo).
    scenario: Option<String>,
    variant: Option<String>,
    /// `fresh=1`: a new sandbox even if this browser has one, which is left as it is (a quiz's
    /// demo, a chapter's start opened beside the student's own run).
    fresh: Option<String>,
}

impl Entrance {
    /// The preset the query asks for, if any: an unknown scenario or variant is refused
    /// before any sandbox is touched.
    fn preset(&self) -> Result<Option<Preset>, LabError> {
        let Some(n) = self.scenario.as_deref() else {
            return Ok(None);
        };
        let variant = match self.variant.as_deref() {
            None => Variant::Guarded,
            Some(v) => Variant::parse_id(v.trim())?,
        };
        super::api::preset_for(n.trim(), variant).map(Some)
    }
}

/// `GET /lab`: back to this browser's sandbox if it still exists, else a new one;
/// `GET /lab?seed=N`: a new sandbox with seed N, which becomes this browser's;
/// `GET /lab?scenario=N&variant=v`: this browser's sandbox (or a new one) with preset N loaded;
/// `GET /lab?fresh=1…`: a new sandbox whatever this browser has, which becomes its own.
async fn lab_entrance(
    State(state): State<AppState>,
    Query(entrance): Query<Entrance>,
    RawQuery(raw_query): RawQuery,
    headers: HeaderMap,
) -> Result<Response, LabError> {
    let seed = match entrance.seed.as_deref() {
        None => None,
        Some(text) => Some(text.trim().parse::<u64>().map_err(|_| {
            FieldError::new(
                "seed",
                format!(
                    "expected a whole number from 0 to {}, not {text:?}",
                    u64::MAX
                ),
            )
        })?),
    };
    let preset = entrance.preset()?;
    let query = entrance
        .chapter
        .and_then(|c| c.parse::<u8>().ok())
        .map(|c| format!("?chapter={c}"))
        .unwrap_or_default();
    if seed.is_none() && entrance.fresh.is_none() {
        if let Some(id) = cookie(&headers, SANDBOX_COOKIE) {
            if let Ok(sandbox) = state.sandboxes.get(&id).await {
                if let Some(preset) = preset {
                    sandbox.load_scenario(preset).await?;
                }
                return Ok(Redirect::to(&format!("/lab/{}{query}", sandbox.id)).into_response());
            }
            if state.sandboxes.config().new_sandbox_header.is_some() {
                // Behind a balancer this request was sent by the cookie's sandbox to the server
                // that held it, so a sandbox made here would live where the balancer never
                // sends its requests: forget the cookie and come in again, to be sent by the id
                // the new sandbox will take (ARCHITECTURE.md, "Many servers").
                let again = match raw_query {
                    Some(q) => format!("/lab?{q}"),
                    None => "/lab".to_owned(),
                };
                let mut response = Redirect::to(&again).into_response();
                response.headers_mut().insert(
                    header::SET_COOKIE,
                    HeaderValue::from_str(&format!(
                        "{SANDBOX_COOKIE}=; Path=/; Max-Age=0; SameSite=Lax"
                    ))
                    .expect("a cookie name makes a valid header"),
                );
                return Ok(response);
            }
        }
    }
    let id = state.sandboxes.new_id(&headers)?;
    let sandbox = state.sandboxes.create(id, seed, ClockMode::Live).await?;
    if let Some(preset) = preset {
        sandbox.load_scenario(preset).await?;
    }
    let max_age = state.sandboxes.config().sandbox_ttl.as_secs();
    let mut response = Redirect::to(&format!("/lab/{}{query}", sandbox.id)).into_response();
    response.headers_mut().insert(
        header::SET_COOKIE,
        HeaderValue::from_str(&format!(
            "{SANDBOX_COOKIE}={}; Path=/; Max-Age={max_age}; SameSite=Lax",
            sandbox.id
        ))
        .expect("a uuid and digits make a valid header"),
    );
    Ok(response)
}

/// `GET /teach/{class}/students/{sandbox}/open`: the instructor opens a student's lab read-only
/// (`/watch/{token}`); only the browser holding the class's key, and only its own students.
async fn open_student(
    State(state): State<AppState>,
    axum::extract::Path((class, sandbox)): axum::extract::Path<(String, String)>,
    headers: HeaderMap,
) -> Result<Redirect, LabError> {
    use super::classes::secret_cookie;
    let classes = state.sandboxes.classes();
    classes
        .authorize(&class, cookie(&headers, &secret_cookie(&class)).as_deref())
        .await?;
    let id = classes.student_sandbox(&class, &sandbox).await?;
    let token = classes.mirror(&id).await?;
    Ok(Redirect::to(&format!("/watch/{token}")))
}

/// `GET /teach/{class}/summary.csv`: the end-of-class summary, one line per student, for the
/// browser holding the class's key.
async fn summary_csv(
    State(state): State<AppState>,
    axum::extract::Path(class): axum::extract::Path<String>,
    headers: HeaderMap,
) -> Result<Response, LabError> {
    use super::classes::secret_cookie;
    let classes = state.sandboxes.classes();
    let code = classes
        .authorize(&class, cookie(&headers, &secret_cookie(&class)).as_deref())
        .await?;
    let csv = classes.summary(&class).await?.csv();
    let disposition = format!("attachment; filename=\"class-{}.csv\"", code.as_str());
    Ok((
        [
            (header::CONTENT_TYPE, "text/csv; charset=utf-8".to_owned()),
            (header::CONTENT_DISPOSITION, disposition),
            (header::CACHE_CONTROL, "no-store".to_owned()),
        ],
        csv,
    )
        .into_response())
}

/// A class's pages answer with their own status: `/join/{code}` and `/show/{code}` 404 for a
/// code that names no living class, `/teach/{id}` 404 for no such class and 403 for a browser without its key,
/// `/watch/{token}` 404 for a token that names no mirror. The page says why in words; a streamed page has sent its status before it knows, so it is set
/// here, from the same checks the page's server functions make.
/// A page that loads its own address again, now as a navigation of this site's.
fn come_in_again() -> Response {
    let mut response = axum::response::Html(
        "<!doctype html><meta charset=\"utf-8\"><meta http-equiv=\"refresh\" content=\"0\">\
         <title>PocketPay Idempotency Lab</title><a href=\"\">Open the class</a>",
    )
    .into_response();
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

async fn class_page_status(
    State(sandboxes): State<Sandboxes>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    use super::classes::secret_cookie;
    use crate::domain::class::ClassCode;
    let path = request.uri().path().to_owned();
    let classes = sandboxes.classes();
    let mut request = request;
    let door = path
        .strip_prefix("/join/")
        .or_else(|| path.strip_prefix("/show/").filter(|c| !c.contains('/')));
    let refused = if let Some(code) = door {
        // The page's look-up is the door's: counted once, here, with every other look-up of a
        // code (`Classes::find`), so a guesser meets 429 at every door alike; the page's own
        // server functions then only read (`app::class::look_up`).
        request.extensions_mut().insert(CodeLookedUp);
        match ClassCode::parse(code) {
            Err(_) => Some(axum::http::StatusCode::NOT_FOUND),
            Ok(code) => match classes.find(&code).await {
                Err(e @ LabError::TooManyRequests(_)) => return e.into_response(),
                Err(LabError::UnknownClass) => Some(axum::http::StatusCode::NOT_FOUND),
                _ => None,
            },
        }
    } else if let Some(token) = path.strip_prefix("/watch/").filter(|t| !t.contains('/')) {
        match classes.mirrored(token).await {
            Ok(None) => Some(axum::http::StatusCode::NOT_FOUND),
            _ => None,
        }
    } else if let Some(id) = path.strip_prefix("/teach/").filter(|id| !id.contains('/')) {
        let secret = cookie(request.headers(), &secret_cookie(id));
        let cross_site = request
            .headers()
            .get("sec-fetch-site")
            .is_some_and(|v| v.as_bytes() == b"cross-site");
        if secret.is_none() && cross_site {
            // The class's key is `SameSite=Strict`, so a link from another site (an email, a
            // calendar) arrives without it: come in again from this site, which carries it.
            return come_in_again();
        }
        match classes.authorize(id, secret.as_deref()).await {
            Err(e @ (LabError::UnknownClass | LabError::NotYourClass)) => {
                axum::http::StatusCode::from_u16(e.status()).ok()
            }
            _ => None,
        }
    } else {
        None
    };
    let mut response = next.run(request).await;
    if let Some(status) = refused.filter(|_| response.status().is_success()) {
        *response.status_mut() = status;
    }
    response
}

/// `GET /join?code=…`: the front page's code field, sent on to the class's join page
/// (`/join/{code}` with the code as the class spells it: `hkm 479` becomes `HKM479`). A code
/// that is not one still goes there, whose page says so.
async fn join_entrance(Query(query): Query<JoinQuery>) -> Redirect {
    let typed = query.code.unwrap_or_default();
    let code = match crate::domain::class::ClassCode::parse(&typed) {
        Ok(code) => code.as_str().to_owned(),
        Err(_) => typed
            .trim()
            .chars()
            .filter(char::is_ascii_alphanumeric)
            .take(12)
            .collect(),
    };
    if code.is_empty() {
        return Redirect::to("/");
    }
    Redirect::to(&format!("/join/{code}"))
}

#[derive(serde::Deserialize)]
struct JoinQuery {
    code: Option<String>,
}

/// How long a browser may keep a static file: a name with its content's hash in it
/// (`pocketpay-lab.<hash>.wasm`) never changes, so for good; the fonts and the icon for a
/// month; any other file under `/pkg` is asked for again each time (a 304 when unchanged).
pub fn cache_control(path: &str) -> Option<&'static str> {
    if let Some(name) = path
        .strip_prefix("/pkg/")
        .or_else(|| path.strip_prefix("/strings/"))
    {
        return Some(if hashed(name) {
            "public, max-age=31536000, immutable"
        } else {
            "no-cache"
        });
    }
    (path.starts_with("/fonts/") || path == "/favicon.ico").then_some("public, max-age=2592000")
}

/// Whether a file name is `<name>.<hash>.<extension>` as the build writes it: the hash is an
/// MD5 in 22 base64url characters.
fn hashed(name: &str) -> bool {
    let mut parts = name.rsplitn(3, '.');
    let (_extension, hash, stem) = (parts.next(), parts.next(), parts.next());
    stem.is_some()
        && hash.is_some_and(|h| {
            h.len() == 22
                && h.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        })
}

async fn caching(request: axum::extract::Request, next: axum::middleware::Next) -> Response {
    let policy = cache_control(request.uri().path());
    let mut response = next.run(request).await;
    if let Some(policy) = policy.filter(|_| response.status().is_success()) {
        let headers = response.headers_mut();
        headers.insert(header::CACHE_CONTROL, HeaderValue::from_static(policy));
        // The same name is sent as brotli, gzip or raw, as the browser asked.
        headers.insert(header::VARY, HeaderValue::from_static("accept-encoding"));
    }
    response
}

async fn security_headers(mut response: Response) -> Response {
    let h = response.headers_mut();
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    h.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    h.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("same-origin"),
    );
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_way_back_after_a_language_switch_stays_on_this_site() {
        for ok in ["/", "/glossary", "/lab?chapter=1", "/join/HKM479?x=%2F%2F"] {
            assert!(local_path(ok), "{ok}");
        }
        for bad in [
            "",
            "glossary",
            "//evil.example",
            "/\\evil.example",
            "https://evil.example/",
            "/a\nSet-Cookie: x=1",
        ] {
            assert!(!local_path(bad), "{bad:?}");
        }
    }

    #[test]
    fn hashed_files_are_kept_for_good_and_others_asked_for_again() {
        let forever = Some("public, max-age=31536000, immutable");
        assert_eq!(
            cache_control("/pkg/pocketpay-lab.kZ3u0v1Yq8W-x_AbCdEfGh.wasm"),
            forever
        );
        assert_eq!(
            cache_control("/pkg/pocketpay-lab.kZ3u0v1Yq8W-x_AbCdEfGh.css"),
            forever
        );
        assert_eq!(cache_control("/pkg/pocketpay-lab.wasm"), Some("no-cache"));
        // A hash must be the build's: 22 base64url characters.
        assert_eq!(
            cache_control("/pkg/pocketpay-lab.short.js"),
            Some("no-cache")
        );
        assert_eq!(
            cache_control("/fonts/noto-sans-bengali-bengali-400-normal.woff2"),
            Some("public, max-age=2592000")
        );
        assert_eq!(cache_control("/lab"), None);
        assert_eq!(cache_control("/api/sandboxes"), None);
    }

    #[test]
    fn the_sandbox_cookie_is_found_among_others() {
        let mut h = HeaderMap::new();
        h.insert(
            header::COOKIE,
            HeaderValue::from_static("a=1; pocketpay_sandbox=abc; b=2"),
        );
        assert_eq!(cookie(&h, SANDBOX_COOKIE).as_deref(), Some("abc"));
        assert_eq!(cookie(&HeaderMap::new(), SANDBOX_COOKIE), None);
    }
}
