//! What the pages' server code and the HTTP routes both read off a request: cookies, the
//! server's own address, the sandbox cookie's name and the mark a class door leaves. A leaf:
//! `app` reaches it without importing `web`, which imports `app` (ARCHITECTURE.md, "The shape").

use axum::http::{header, HeaderMap};

/// The cookie that remembers a browser's sandbox, so `/lab` brings a returning student back.
pub const SANDBOX_COOKIE: &str = "pocketpay_sandbox";

/// The value of a cookie the request carries.
pub fn cookie(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find_map(|v| crate::app::storage::cookie_in(v, name))
}

/// This server's address as the browser reached it (`http://host:port`), behind a proxy as
/// the proxy says (`X-Forwarded-Proto`, `X-Forwarded-Host`): for a link a student types or scans.
pub fn origin(headers: &HeaderMap) -> String {
    let text = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.split(',').next())
            .map(|v| v.trim().to_owned())
            .filter(|v| !v.is_empty())
    };
    let scheme = text("x-forwarded-proto")
        .filter(|s| s == "https" || s == "http")
        .unwrap_or_else(|| "http".to_owned());
    let host = text("x-forwarded-host")
        .or_else(|| text("host"))
        .filter(|h| {
            h.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"-.:[]".contains(&b))
        })
        .unwrap_or_else(|| "localhost".to_owned());
    format!("{scheme}://{host}")
}

/// Marks a request whose class code the door already looked up (and counted).
#[derive(Clone, Copy, Debug)]
pub struct CodeLookedUp;
