//! Errors on the wire: `application/problem+json` (RFC 9457) with a `type` naming the error.

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};

use crate::server::error::LabError;

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
        match &self {
            LabError::Invalid(e) => body["field"] = e.field.clone().into(),
            LabError::SelfTransfer => body["field"] = "to".into(),
            LabError::DuplicateField(path) => body["field"] = path.clone().into(),
            LabError::DuplicateHeader(name) => body["field"] = (*name).into(),
            _ => {}
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
