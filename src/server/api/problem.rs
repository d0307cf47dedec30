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
        match &self {
            LabError::Invalid(e) => body["field"] = e.field.clone().into(),
            LabError::SelfTransfer => body["field"] = "to".into(),
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
    let mut value = serde_json::from_slice(&bytes).map_err(|e| LabError::BadJson(e.to_string()))?;
    whole_numbers_as_integers(&mut value);
    Ok(value)
}

/// JSON does not tell `500` from `500.0`, and JSON Schema calls both an integer: a number with
/// no fraction is read as the integer it is (within `i64` or `u64`), so every handler sees
/// one spelling. Fractions, and integers too large for 64 bits, stay as they came.
pub fn whole_numbers_as_integers(value: &mut serde_json::Value) {
    use serde_json::Value;
    match value {
        Value::Number(n) if n.is_f64() => {
            let x = n.as_f64().expect("an f64 number reads as f64");
            // 2^63 and 2^64 are exact in f64; every whole f64 below them fits.
            const I64_END: f64 = 9_223_372_036_854_775_808.0;
            const U64_END: f64 = 18_446_744_073_709_551_616.0;
            if x.fract() == 0.0 && (-I64_END..I64_END).contains(&x) {
                *value = Value::from(x as i64);
            } else if x.fract() == 0.0 && (0.0..U64_END).contains(&x) {
                *value = Value::from(x as u64);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(whole_numbers_as_integers),
        Value::Object(map) => map.values_mut().for_each(whole_numbers_as_integers),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_numbers_read_as_integers_and_fractions_stay() {
        let mut v: serde_json::Value = serde_json::from_str(
            r#"{"a": 500.0, "b": [1.5, -2.0, 1e3], "c": 1e19, "d": 1e20, "e": 0.1, "f": 7}"#,
        )
        .unwrap();
        whole_numbers_as_integers(&mut v);
        assert_eq!(v["a"].as_i64(), Some(500));
        assert_eq!(v["b"][0].as_f64(), Some(1.5));
        assert_eq!(v["b"][1].as_i64(), Some(-2));
        assert_eq!(v["b"][2].as_i64(), Some(1000));
        assert_eq!(v["c"].as_u64(), Some(10_000_000_000_000_000_000));
        assert!(v["d"].is_f64());
        assert!(v["e"].is_f64());
        assert_eq!(v["f"].as_i64(), Some(7));
    }
}
