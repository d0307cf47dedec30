//! The lab's edge: what every request passes before a handler or a server function sees it,
//! and the shape of every refusal on the way out.
//!
//! A browser sends a cross-site `POST` with a `text/plain` or form body without asking first
//! (no CORS preflight), so without these checks any page an instructor or a student has open
//! could reset a sandbox, switch its safeguards, or push to a whole class with the cookies
//! their browser holds. A state-changing request (POST, PUT, PATCH, DELETE), whatever its
//! route (`/api`, the server functions under `/rpc`, `/lang`), is therefore refused by [`gate`],
//! the outermost layer of `server::web::app`, before it is rate-limited or routed, when
//! - it carries an `Origin` that is not this server's own (compared with `Host`, either
//!   scheme), or `Sec-Fetch-Site: cross-site`: 403 `foreign-origin`. Without either it comes
//!   from no page (curl, tests);
//! - it carries a body, or a `Content-Type`, that is not `application/json` (parameters such as
//!   `charset` allowed): 415 `unsupported-media-type`. A request with no body and no type
//!   (`POST …/reset`) passes. The one form the pages post (`/lang`, [`FORM_ROUTES`]) takes
//!   `application/x-www-form-urlencoded` instead.
//!
//! On the way out, answers the framework makes itself (405 for a method a route lacks, 400 for
//! a path it cannot decode) leave as problem+json like every other refusal, their headers
//! (`Allow`) kept ([`guard`], on `/api`); a server function's error leaves with its kind's
//! status (`ProblemKind::status`, the same as the REST API's) and a problem body that still
//! reads as the function's error ([`fn_answers`]).

use axum::body::{Body, HttpBody};
use axum::extract::Request;
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::domain::ProblemKind;
use crate::server::error::LabError;

/// Routes that take a form's body, not JSON: the language switch the pages without code post.
pub const FORM_ROUTES: &[&str] = &["/lang"];

/// The gate: refuses what [`check`] refuses, for every route of the lab.
pub async fn gate(request: Request, next: Next) -> Response {
    if let Err(e) = check(&request) {
        return e.into_response();
    }
    next.run(request).await
}

/// The API's dressing: framework errors leave as problem+json.
pub async fn guard(request: Request, next: Next) -> Response {
    as_problem(next.run(request).await)
}

/// Whether a request may reach a handler or a server function at all (see the module's
/// header).
pub fn check(request: &Request) -> Result<(), LabError> {
    if !changes_state(request.method()) {
        return Ok(());
    }
    let headers = request.headers();
    if headers
        .get("sec-fetch-site")
        .is_some_and(|v| v.as_bytes().eq_ignore_ascii_case(b"cross-site"))
    {
        let origin = headers
            .get(header::ORIGIN)
            .map(|o| String::from_utf8_lossy(o.as_bytes()).into_owned())
            .unwrap_or_else(|| "(a cross-site page)".to_owned());
        return Err(LabError::ForeignOrigin(origin));
    }
    if let Some(origin) = headers.get(header::ORIGIN) {
        let host = headers
            .get(header::HOST)
            .and_then(|h| h.to_str().ok())
            .or_else(|| request.uri().authority().map(|a| a.as_str()));
        let origin = String::from_utf8_lossy(origin.as_bytes()).into_owned();
        if !same_origin(&origin, host) {
            return Err(LabError::ForeignOrigin(origin));
        }
    }
    let empty = request.body().size_hint().exact() == Some(0);
    if FORM_ROUTES.contains(&request.uri().path()) {
        return match headers.get(header::CONTENT_TYPE) {
            Some(kind) if is_form(kind) => Ok(()),
            None if empty => Ok(()),
            kind => Err(LabError::UnsupportedMediaType(kind.map_or_else(
                || "(none)".to_owned(),
                |k| String::from_utf8_lossy(k.as_bytes()).into_owned(),
            ))),
        };
    }
    match headers.get(header::CONTENT_TYPE) {
        Some(kind) if !is_json(kind) => Err(LabError::UnsupportedMediaType(
            String::from_utf8_lossy(kind.as_bytes()).into_owned(),
        )),
        None if !empty => Err(LabError::UnsupportedMediaType("(none)".to_owned())),
        _ => Ok(()),
    }
}

fn changes_state(method: &Method) -> bool {
    [Method::POST, Method::PUT, Method::PATCH, Method::DELETE].contains(method)
}

/// `http(s)://host[:port]` names the same host and port as the `Host` header; a default port
/// (80, 443) may be written or not on either side.
fn same_origin(origin: &str, host: Option<&str>) -> bool {
    let Some(host) = host else {
        return false;
    };
    let Some(authority) = origin
        .strip_prefix("http://")
        .or_else(|| origin.strip_prefix("https://"))
    else {
        return false; // `null` (a sandboxed frame, a file) or another scheme
    };
    let bare = |a: &str| {
        let a = a.to_ascii_lowercase();
        a.strip_suffix(":80")
            .or_else(|| a.strip_suffix(":443"))
            .map(str::to_owned)
            .unwrap_or(a)
    };
    !authority.is_empty() && !authority.contains('/') && bare(authority) == bare(host)
}

/// `application/json`, with or without parameters (`; charset=utf-8`).
fn is_json(kind: &HeaderValue) -> bool {
    essence_is(kind, "application/json")
}

/// A form's body, as a page's `<form method="post">` sends it.
fn is_form(kind: &HeaderValue) -> bool {
    essence_is(kind, "application/x-www-form-urlencoded")
}

fn essence_is(kind: &HeaderValue, wanted: &str) -> bool {
    kind.to_str().is_ok_and(|k| {
        k.split(';')
            .next()
            .is_some_and(|essence| essence.trim().eq_ignore_ascii_case(wanted))
    })
}

/// The header server functions mark their errors with.
const SERVER_FN_ERROR: &str = "serverfnerror";

/// A server function's error, which the framework sends as a 500 whatever it is, leaves with
/// its kind's status (a refusal a 4xx, `Retry-After` on "not now") and as problem+json that
/// still carries the error's own fields (`kind`, `field`, `retry_after`), so the page reads it
/// back as the same `FnError`.
pub async fn fn_answers(request: Request, next: Next) -> Response {
    let response = next.run(request).await;
    if !response.headers().contains_key(SERVER_FN_ERROR) || is_problem(response.headers()) {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, 64 * 1024).await else {
        parts.status = StatusCode::INTERNAL_SERVER_ERROR;
        return as_problem(Response::from_parts(parts, Body::empty()));
    };
    let error = match serde_json::from_slice::<crate::app::error::FnError>(&bytes) {
        // On the server's side "could not read" is the request's arguments, never the network.
        Ok(crate::app::error::FnError::Unreachable) => crate::app::error::FnError::InvalidField {
            field: "arguments".to_owned(),
        },
        Ok(error) => error,
        Err(_) => return as_problem(Response::from_parts(parts, Body::from(bytes))),
    };
    let kind = error.kind();
    let status = StatusCode::from_u16(kind.status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let mut body = crate::domain::problem_body(status.as_u16(), kind, &error.to_string());
    if let (Some(problem), Ok(serde_json::Value::Object(own))) =
        (body.as_object_mut(), serde_json::to_value(&error))
    {
        problem.extend(own);
    }
    parts.status = status;
    parts.headers.remove(header::CONTENT_LENGTH);
    parts.headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/problem+json"),
    );
    if let Some(secs) = error.retry_after() {
        parts
            .headers
            .insert(header::RETRY_AFTER, HeaderValue::from(secs));
    }
    Response::from_parts(parts, Body::from(body.to_string()))
}

/// An error answer without a problem body (made by the router or an extractor, not by a
/// handler) gets one: its status, a `type` naming it, its headers kept.
fn as_problem(response: Response) -> Response {
    let status = response.status();
    if !(status.is_client_error() || status.is_server_error()) || is_problem(response.headers()) {
        return response;
    }
    let kind = match status {
        StatusCode::METHOD_NOT_ALLOWED => ProblemKind::MethodNotAllowed,
        StatusCode::NOT_FOUND => ProblemKind::NoSuchRoute,
        StatusCode::PAYLOAD_TOO_LARGE => ProblemKind::BodyTooLarge,
        StatusCode::UNSUPPORTED_MEDIA_TYPE => ProblemKind::UnsupportedMediaType,
        StatusCode::BAD_REQUEST => ProblemKind::BadRequest,
        s if s.is_server_error() => ProblemKind::Internal,
        _ => ProblemKind::Refused,
    };
    let detail = match status {
        StatusCode::METHOD_NOT_ALLOWED => {
            "this route does not take this method: see the Allow header".to_owned()
        }
        StatusCode::BAD_REQUEST => "the request's path or headers could not be read".to_owned(),
        s => s.canonical_reason().unwrap_or("refused").to_owned(),
    };
    let body = crate::domain::problem_body(status.as_u16(), kind, &detail).to_string();
    let (mut parts, _) = response.into_parts();
    parts.headers.remove(header::CONTENT_LENGTH);
    parts.headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/problem+json"),
    );
    Response::from_parts(parts, Body::from(body)).into_response()
}

fn is_problem(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes().starts_with(b"application/problem+json"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_origin_matches_its_own_host_in_either_scheme() {
        let host = Some("lab.example:3000");
        assert!(same_origin("http://lab.example:3000", host));
        assert!(same_origin("https://LAB.example:3000", host));
        assert!(!same_origin("http://evil.example:3000", host));
        assert!(!same_origin("http://lab.example:3001", host));
        assert!(!same_origin("http://lab.example", host));
        assert!(!same_origin("null", host));
        assert!(!same_origin("http://lab.example:3000", None));
        assert!(same_origin("https://lab.example", Some("lab.example:443")));
        assert!(same_origin("http://lab.example:80", Some("lab.example")));
        assert!(!same_origin("http://lab.example.evil:3000", host));
    }

    #[test]
    fn json_with_parameters_is_json() {
        for yes in [
            "application/json",
            "application/json; charset=utf-8",
            "Application/JSON;charset=UTF-8",
        ] {
            assert!(is_json(&HeaderValue::from_static(yes)), "{yes}");
        }
        for no in [
            "text/plain",
            "application/x-www-form-urlencoded",
            "multipart/form-data; boundary=x",
            "application/jsonx",
            "application/problem+json",
            "",
        ] {
            assert!(!is_json(&HeaderValue::from_static(no)), "{no}");
        }
    }
}
