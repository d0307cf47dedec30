//! The API's edge: what every `/api` request passes before a handler sees it, and the shape of
//! every refusal on the way out.
//!
//! A browser sends a cross-site `POST` with a `text/plain` or form body without asking first
//! (no CORS preflight), so without these checks any page holding a sandbox's link could reset
//! it or switch its safeguards. A state-changing request (POST, PUT, PATCH, DELETE) is therefore
//! refused, before it is rate-limited or routed, when
//! - it carries an `Origin` that is not this server's own (compared with `Host`, either
//!   scheme): 403 `foreign-origin`. Without an `Origin` it comes from no page (curl, tests);
//! - it carries a body, or a `Content-Type`, that is not `application/json` (parameters such as
//!   `charset` allowed): 415 `unsupported-media-type`. A request with no body and no type
//!   (`POST …/reset`) passes.
//!
//! Answers the framework makes itself (405 for a method a route lacks, 400 for a path it
//! cannot decode) leave as problem+json like every other refusal, their headers (`Allow`) kept.

use axum::body::{Body, HttpBody};
use axum::extract::Request;
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::domain::ProblemKind;
use crate::server::error::LabError;

/// The middleware: refuses what [`check`] refuses, then dresses framework errors.
pub async fn guard(request: Request, next: Next) -> Response {
    if let Err(e) = check(&request) {
        return e.into_response();
    }
    as_problem(next.run(request).await)
}

/// Whether a request may reach the API's handlers at all (see the module's header).
pub fn check(request: &Request) -> Result<(), LabError> {
    if !changes_state(request.method()) {
        return Ok(());
    }
    let headers = request.headers();
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
    kind.to_str().is_ok_and(|k| {
        k.split(';')
            .next()
            .is_some_and(|essence| essence.trim().eq_ignore_ascii_case("application/json"))
    })
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
