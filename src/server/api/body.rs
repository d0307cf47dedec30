//! Request bodies, read once and strictly into their types (docs/reference.md §8: a request
//! means one thing). A handler that takes a body names it as its last argument,
//! `StrictJson<T>`: axum reads the body after every other extractor, so a body's refusal
//! (400, 413) never wins over the sandbox's 404 or a header's 400 (see `api/mod.rs`).
//! Its `Content-Type` was checked at the gate (`edge::check`, 415) before any route ran.

use axum::body::Bytes;
use axum::extract::{FromRequest, Request};
use axum::http::StatusCode;
use serde_json::{json, Value};

use crate::domain::calc::DropVsDelete;
use crate::domain::day::DayRequest;
use crate::domain::generals::GeneralsBody;
use crate::domain::natural::NaturalBody;
use crate::domain::phone::AppSignal;
use crate::domain::run::{ReplayBody, Run};
use crate::domain::scenario::ScenarioBody;
use crate::domain::typed::read_body;
use crate::domain::{ClockCommand, FaultsPatch, SafeguardsPatch, TransferBody};
use crate::server::error::LabError;

/// The largest request body the API reads.
pub const BODY_LIMIT: usize = 64 * 1024;

/// A request body read into `T`: JSON in which no member is named twice (`duplicate-field`),
/// at most [`BODY_LIMIT`] bytes (`body-too-large`), whole numbers as integers, then `T`'s own
/// reading (`invalid-field` naming the first field that does not fit, `invalid-json`).
pub struct StrictJson<T>(pub T);

/// How a body type reads from its JSON, once the JSON itself was read strictly.
pub trait JsonBody: Sized {
    /// Whether the body may be left out (no bytes, or only whitespace): it then reads as `{}`.
    /// Otherwise an empty body is `invalid-json`.
    const OPTIONAL: bool = false;

    fn read(value: Value) -> Result<Self, LabError>;
}

impl<S: Send + Sync, T: JsonBody> FromRequest<S> for StrictJson<T> {
    type Rejection = LabError;

    async fn from_request(request: Request, state: &S) -> Result<Self, LabError> {
        let bytes = Bytes::from_request(request, state).await.map_err(|r| {
            if r.status() == StatusCode::PAYLOAD_TOO_LARGE {
                LabError::BodyTooLarge(BODY_LIMIT)
            } else {
                LabError::BadJson(r.body_text())
            }
        })?;
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return if T::OPTIONAL {
                T::read(json!({})).map(StrictJson)
            } else {
                Err(LabError::BadJson("the body is empty".to_owned()))
            };
        }
        let mut value = strict::parse(&bytes)?;
        whole_numbers_as_integers(&mut value);
        T::read(value).map(StrictJson)
    }
}

/// Bodies read field by field into their serde types (`typed::read_body`, which names the first
/// field that does not fit); `optional` ones may be left out. A route's module may declare its
/// own body with it (`sandboxes.rs`).
macro_rules! typed_bodies {
    (optional: $optional:literal, $($body:ty),* $(,)?) => {$(
        impl $crate::server::api::body::JsonBody for $body {
            const OPTIONAL: bool = $optional;

            fn read(
                value: serde_json::Value,
            ) -> Result<Self, $crate::server::error::LabError> {
                Ok($crate::domain::typed::read_body(&value)?)
            }
        }
    )*};
}
pub(super) use typed_bodies;

typed_bodies!(optional: false, SafeguardsPatch, FaultsPatch, NaturalBody, ReplayBody);
typed_bodies!(optional: true, DayRequest, DropVsDelete);

/// Bodies whose every field has a default: nothing, `{}` or `null` (as these routes have always
/// taken it) is the default.
macro_rules! defaulted_bodies {
    ($($body:ty),* $(,)?) => {$(
        impl JsonBody for $body {
            const OPTIONAL: bool = true;

            fn read(value: Value) -> Result<Self, LabError> {
                match value {
                    Value::Null => Ok(Self::default()),
                    value => Ok(read_body(&value)?),
                }
            }
        }
    )*};
}

defaulted_bodies!(ScenarioBody, GeneralsBody);

/// `POST …/clock`: the commands, in the order the clock applies them.
impl JsonBody for Vec<ClockCommand> {
    fn read(value: Value) -> Result<Self, LabError> {
        Ok(ClockCommand::parse_body(&value)?)
    }
}

/// `POST …/transfers`: its shape; whether its sender may send it is asked once the user is
/// known (`TransferBody::sent_by`).
impl JsonBody for TransferBody {
    fn read(value: Value) -> Result<Self, LabError> {
        Ok(TransferBody::parse_shape(&value)?)
    }
}

impl JsonBody for AppSignal {
    fn read(value: Value) -> Result<Self, LabError> {
        Ok(AppSignal::parse(&value)?)
    }
}

/// `POST /api/runs`: a run as `GET …/run` exports it; each input is checked when it is rerun
/// (`Sandboxes::import_run`).
impl JsonBody for Run {
    fn read(value: Value) -> Result<Self, LabError> {
        serde_json::from_value(value).map_err(|e| LabError::BadJson(format!("not a run: {e}")))
    }
}

/// JSON that means one thing: RFC 8259 (§4) leaves an object that names a member twice to the
/// reader, and readers differ on which one wins (`{"amount": 1, "amount": 1500}` is ৳1 to one,
/// ৳1,500 to another), so such a body is refused as `duplicate-field`, naming the member by
/// its path (`crash.api_after_claim`, `inputs[2].at_ms`).
mod strict {
    use std::cell::RefCell;
    use std::fmt;

    use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
    use serde_json::{Map, Value};

    use crate::server::error::LabError;

    pub fn parse(bytes: &[u8]) -> Result<Value, LabError> {
        let duplicate = RefCell::new(None);
        let mut de = serde_json::Deserializer::from_slice(bytes);
        let read = Member {
            path: String::new(),
            duplicate: &duplicate,
        }
        .deserialize(&mut de)
        .and_then(|value| de.end().map(|()| value));
        match (read, duplicate.into_inner()) {
            (_, Some(path)) => Err(LabError::DuplicateField(path)),
            (Ok(value), None) => Ok(value),
            (Err(e), None) => Err(LabError::BadJson(e.to_string())),
        }
    }

    /// One value at `path`; the first duplicate found anywhere is written to `duplicate`.
    struct Member<'a> {
        path: String,
        duplicate: &'a RefCell<Option<String>>,
    }

    impl Member<'_> {
        fn child(&self, name: fmt::Arguments) -> Self {
            Member {
                path: format!("{}{name}", self.path),
                duplicate: self.duplicate,
            }
        }
    }

    impl<'de> DeserializeSeed<'de> for Member<'_> {
        type Value = Value;
        fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
            d.deserialize_any(self)
        }
    }

    impl<'de> Visitor<'de> for Member<'_> {
        type Value = Value;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a JSON value")
        }
        fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
            Ok(v.into())
        }
        fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
            Ok(v.into())
        }
        fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
            Ok(v.into())
        }
        fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
            Ok(v.into())
        }
        fn visit_str<E>(self, v: &str) -> Result<Value, E> {
            Ok(v.into())
        }
        fn visit_string<E>(self, v: String) -> Result<Value, E> {
            Ok(v.into())
        }
        fn visit_unit<E>(self) -> Result<Value, E> {
            Ok(Value::Null)
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
            let mut items = Vec::new();
            while let Some(item) =
                seq.next_element_seed(self.child(format_args!("[{}]", items.len())))?
            {
                items.push(item);
            }
            Ok(Value::Array(items))
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
            let mut members = Map::new();
            while let Some(name) = map.next_key::<String>()? {
                let dot = if self.path.is_empty() { "" } else { "." };
                let member = self.child(format_args!("{dot}{name}"));
                if members.contains_key(&name) {
                    let path = member.path.clone();
                    *self.duplicate.borrow_mut() = Some(path);
                    return Err(de::Error::custom("a member named twice"));
                }
                let value = map.next_value_seed(member)?;
                members.insert(name, value);
            }
            Ok(Value::Object(members))
        }
    }
}

/// JSON does not tell `500` from `500.0`, and JSON Schema calls both an integer: a number with
/// no fraction is read as the integer it is (within `i64` or `u64`), so every handler sees
/// one spelling. Fractions, and integers too large for 64 bits, stay as they came.
fn whole_numbers_as_integers(value: &mut serde_json::Value) {
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

    fn refused_as(body: &str) -> Option<String> {
        match strict::parse(body.as_bytes()) {
            Err(LabError::DuplicateField(path)) => Some(path),
            Err(e) => panic!("{body}: {e}"),
            Ok(_) => None,
        }
    }

    #[test]
    fn a_member_named_twice_anywhere_is_refused_by_its_path() {
        assert_eq!(
            refused_as(r#"{"to":"tithi","amount":1,"amount":1500}"#).as_deref(),
            Some("amount")
        );
        assert_eq!(
            refused_as(r#"{"crash":{"api_after_claim":"once","api_after_claim":0}}"#).as_deref(),
            Some("crash.api_after_claim")
        );
        assert_eq!(
            refused_as(r#"{"inputs":[{"at_ms":1},{"at_ms":1,"at_ms":2}]}"#).as_deref(),
            Some("inputs[1].at_ms")
        );
        // The same name in two objects, or as a value, is no duplicate.
        assert_eq!(
            refused_as(r#"{"a":{"b":1},"c":{"b":1},"d":["a","a"]}"#),
            None
        );
        // Escapes spell the same name: "\u0061" is "a".
        assert_eq!(refused_as(r#"{"a":1,"\u0061":2}"#).as_deref(), Some("a"));
    }

    #[test]
    fn strict_parsing_reads_what_serde_json_reads() {
        for body in [
            r#"{"a":[1,-2,3.5,1e400,null,true,"x"],"b":{}}"#,
            "[]",
            "7",
            r#""s""#,
            "18446744073709551615",
        ] {
            let ours = strict::parse(body.as_bytes());
            let theirs = serde_json::from_str::<serde_json::Value>(body);
            match (ours, theirs) {
                (Ok(a), Ok(b)) => assert_eq!(a, b, "{body}"),
                (Err(LabError::BadJson(_)), Err(_)) => {}
                (a, b) => panic!("{body}: {a:?} vs {b:?}"),
            }
        }
        for bad in ["{", r#"{"a":1} x"#, r#"{"a":1,}"#, ""] {
            assert!(
                matches!(strict::parse(bad.as_bytes()), Err(LabError::BadJson(_))),
                "{bad}"
            );
        }
    }

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
