//! The exact JSON Schemas of the request bodies that have no type of their own yet, written out
//! as the handlers read them (types, ranges, enums, required fields, `additionalProperties:
//! false`), from the domain's own constants; `openapi.rs` puts them in the document. The
//! settings' changes and the faults are derived from their types (`SafeguardsPatch`,
//! `FaultsPatch`, `Faults`), and these refer to them.

use serde_json::{json, Value};

use crate::domain::clock::{MAX_ADVANCE_SECONDS, SPEED_MAX, SPEED_MIN, START_MS};
use crate::domain::run::MAX_RUN_MS;
use crate::domain::safeguard::{Safeguard, SafeguardValue, MAX_WINDOW_HOURS};
use crate::domain::transfer::{MAX_AMOUNT, MAX_KEY_LEN, USERS};

/// Every schema written out by [`exact_schema`].
pub const EXACT: [&str; 5] = [
    "ClockBody",
    "AppEventBody",
    "TransferBody",
    "RunBody",
    "Safeguards",
];

/// 1–255 printable ASCII characters (a key in a JSON body).
fn key_in_body() -> Value {
    json!({"type": "string", "minLength": 1, "maxLength": MAX_KEY_LEN, "pattern": "^[ -~]*$"})
}

fn int(min: i64, max: i64) -> Value {
    json!({"type": "integer", "minimum": min, "maximum": max})
}

fn object(properties: Value, required: &[&str]) -> Value {
    json!({
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": false,
    })
}

fn safeguard_value(s: Safeguard) -> Value {
    match s.default_value() {
        SafeguardValue::On(_) => json!({"type": "boolean"}),
        SafeguardValue::Hours(_) => int(1, MAX_WINDOW_HOURS),
    }
}

/// A reference to a schema derived from its type.
fn derived(name: &str) -> Value {
    json!({"$ref": format!("#/components/schemas/{name}")})
}

/// The JSON Schema of one of [`EXACT`].
///
/// Reads best whole: one schema per body, each written out as its handler reads it.
pub fn exact_schema(name: &str) -> Value {
    let safeguards: serde_json::Map<String, Value> = Safeguard::ALL
        .into_iter()
        .map(|s| (s.id().to_owned(), safeguard_value(s)))
        .collect();
    let safeguard_ids: Vec<&str> = Safeguard::ALL.into_iter().map(|s| s.id()).collect();
    let transfer = object(
        json!({"to": {"type": "string", "enum": USERS}, "amount": int(1, MAX_AMOUNT)}),
        &["to", "amount"],
    );
    // In a run, the copies are always written down.
    let natural = object(
        json!({
            "op": {"type": "string", "enum": ["set_name", "add", "insert"]},
            "times": int(1, crate::domain::natural::MAX_TIMES),
        }),
        &["op", "times"],
    );
    let app_event = json!({"oneOf": [
        object(json!({
            "signal": {"type": "string", "enum": ["tap"]},
            "key": key_in_body(),
            "key_kept": {"type": "boolean"},
        }), &["signal", "key", "key_kept"]),
        object(json!({
            "signal": {"type": "string", "enum": ["tap_ignored"]},
            // No pending transfer: no key, or `null`.
            "key": {"oneOf": [key_in_body(), {"type": "null"}]},
        }), &["signal"]),
    ]});
    let u64_max = json!({"type": "integer", "minimum": 0, "maximum": u64::MAX});
    let run_time = int(START_MS, MAX_RUN_MS);
    match name {
        "Safeguards" => object(safeguards.into(), &safeguard_ids),
        "ClockBody" => {
            let mut clock = object(
                json!({
                    "mode": {"type": "string", "enum": ["live", "paused"]},
                    "speed": {"type": "number", "minimum": SPEED_MIN, "maximum": SPEED_MAX},
                    "step": {"type": "boolean", "enum": [true]},
                    "advance_seconds": int(1, MAX_ADVANCE_SECONDS),
                }),
                &[],
            );
            clock["minProperties"] = 1.into();
            // One move of time per request.
            clock["not"] = json!({"required": ["step", "advance_seconds"]});
            clock
        }
        "AppEventBody" => app_event,
        "TransferBody" => transfer,
        "RunBody" => {
            let one = |kind: &str, body: Value| object(json!({ kind: body }), &[kind]);
            let op = |name: &str, extra: Value| {
                let mut properties = json!({"op": {"type": "string", "enum": [name]}});
                let mut required = vec!["op".to_owned()];
                for (k, v) in extra.as_object().expect("an object of properties") {
                    properties[k] = v.clone();
                    required.push(k.clone());
                }
                let required: Vec<&str> = required.iter().map(String::as_str).collect();
                object(properties, &required)
            };
            let input = json!({"oneOf": [
                one("transfer", object(json!({
                    "user": {"type": "string", "enum": USERS},
                    "key": key_in_body(),
                    "intent": key_in_body(),
                    "body": transfer,
                }), &["user", "key", "intent", "body"])),
                one("safeguards", derived("SafeguardsPatch")),
                one("faults", derived("FaultsPatch")),
                one("replay", derived("ReplayBody")),
                one("app", app_event),
                one("natural", natural),
                one("generals", object(json!({"loss_pct": int(0, 100)}), &["loss_pct"])),
                one("scenario", object(json!({
                    "n": int(1, 12),
                    "variant": {"type": "string", "enum": ["guarded", "unguarded", "at_most_once"]},
                }), &["n", "variant"])),
                op("pause", json!({})),
                op("resume", json!({})),
                op("step", json!({})),
                op("speed", json!({"speed": {"type": "number", "minimum": SPEED_MIN, "maximum": SPEED_MAX}})),
                op("advance", json!({"seconds": int(1, MAX_ADVANCE_SECONDS)})),
            ]});
            object(
                json!({
                    "seed": u64_max,
                    "inputs": {"type": "array", "items": object(json!({
                        "at_ms": run_time,
                        "after_step": u64_max,
                        "input": input,
                    }), &["at_ms", "after_step", "input"])},
                    "end_ms": run_time,
                    "end_steps": u64_max,
                    "log_hash": {"type": "string", "description": "The hash the run was recorded with; the answer says whether the rerun's is the same (empty or absent: nothing claimed)"},
                }),
                &["seed", "inputs", "end_ms", "end_steps"],
            )
        }
        other => unreachable!("no exact schema called {other}"),
    }
}

/// The schema of a parameter, by name, as the handlers read it.
pub fn parameter_schema(name: &str) -> Value {
    match name {
        "id" => json!({"type": "string", "format": "uuid"}),
        "event" => json!({"type": "integer", "minimum": 1, "maximum": i64::MAX}),
        "n" => json!({"type": "integer", "minimum": 1, "maximum": 12}),
        "scale" => json!({"type": "integer", "enum": crate::domain::day::SCALES}),
        "Authorization" => {
            json!({"type": "string", "pattern": format!("^Bearer [ \t]*({})$", USERS.join("|"))})
        }
        // A header's value loses its first and last spaces on the way, so a key cannot have them.
        "Idempotency-Key" => json!({
            "type": "string",
            "minLength": 1,
            "maxLength": MAX_KEY_LEN,
            "pattern": "^[!-~]([ -~]*[!-~])?$",
        }),
        "Lab-Intent" => json!({
            "type": "string",
            "format": "uuid",
            "pattern": "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$",
        }),
        "Last-Event-ID" => json!({"type": "integer", "minimum": 0, "maximum": i64::MAX}),
        // `GET …/events?state=1` (`sse::follows_state`).
        "state" => json!({"type": "string", "enum": ["1"]}),
        // `wait=N`, N from 1 to 86,400 (`headers::MAX_WAIT_SECS`).
        "Prefer" => json!({
            "type": "string",
            "pattern": "^wait=([1-9][0-9]{0,3}|[1-7][0-9]{4}|8[0-5][0-9]{3}|86[0-3][0-9]{2}|86400)$",
        }),
        other => unreachable!("no parameter called {other}"),
    }
}
