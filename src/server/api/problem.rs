//! Errors on the wire: `application/problem+json` (RFC 9457) with a `type` naming the error.

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::json;

use crate::server::error::LabError;

/// The largest request body the API reads.
pub const BODY_LIMIT: usize = 64 * 1024;

pub use crate::domain::problem_type;

impl IntoResponse for LabError {
    fn into_response(self) -> Response {
        let status =
            StatusCode::from_u16(self.status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        let detail = match &self {
            // The cause goes to the log, never to the caller.
            LabError::Store(e) => {
                tracing::error!("store error: {e}");
                "the lab could not read or write its stores; the request changed nothing that was not committed".to_owned()
            }
            LabError::Io(e) => {
                tracing::error!("io error: {e}");
                "the lab could not read or write its files".to_owned()
            }
            other => other.to_string(),
        };
        let mut body = crate::domain::problem_body(status.as_u16(), self.kind(), &detail);
        if let LabError::Invalid(e) = &self {
            body["field"] = e.field.clone().into();
        }
        let mut response = (status, body.to_string()).into_response();
        let headers = response.headers_mut();
        headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/problem+json"),
        );
        if let Some(secs) = self.retry_after() {
            headers.insert(header::RETRY_AFTER, HeaderValue::from(secs));
        }
        response
    }
}

/// Reads a JSON request body. An empty body reads as `{}` where `empty_ok`, else it is an error.
pub fn json_body(
    body: Result<Bytes, BytesRejection>,
    empty_ok: bool,
) -> Result<serde_json::Value, LabError> {
    let bytes = body.map_err(|r| {
        if r.status() == StatusCode::PAYLOAD_TOO_LARGE {
            LabError::BodyTooLarge(BODY_LIMIT)
        } else {
            LabError::BadJson(r.body_text())
        }
    })?;
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return if empty_ok {
            Ok(json!({}))
        } else {
            Err(LabError::BadJson("the body is empty".to_owned()))
        };
    }
    serde_json::from_slice(&bytes).map_err(|e| LabError::BadJson(e.to_string()))
}
