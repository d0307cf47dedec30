//! The OpenAPI 3.1 document of every `/api` route, served at `/api/openapi.json`.
//!
//! Paths, parameters and responses come from the handlers' annotations, and the refusals every
//! route of a kind shares from one rule (`shapes::EdgeResponses`); the request bodies and
//! parameter schemas are written out here as JSON Schema, exactly as the handlers read them
//! (types, ranges, enums, required fields, `additionalProperties: false`), from the domain's own
//! constants. [`document`] puts them in place and links `POST /api/sandboxes`'s `id` to every
//! operation on `{id}`, so a client (or a fuzzer) can find a sandbox to talk to.

use std::sync::OnceLock;

use serde_json::{json, Value};
use utoipa::OpenApi;

use super::schemas;
use super::shapes::*;

use crate::domain::run::{Run, RunInput};
use crate::domain::{
    Balances, ClockMode, ClockState, Damage, EventKind, Layer, Outcome, Receipt, SandboxState,
    TimelineEvent,
};

#[derive(OpenApi)]
#[openapi(
    info(
        title = "PocketPay Idempotency Lab",
        description = "Sandboxes in which one ৳500 transfer crosses a lossy network, a load balancer, \
                       a payment API with idempotency guards and a ledger. Errors are \
                       application/problem+json. A request that changes state (POST, PUT) from a \
                       page of another site is refused (403), and so is a body that is not \
                       application/json (415).",
        version = "1"
    ),
    paths(
        super::sandboxes::create,
        super::sandboxes::state,
        super::controls::safeguards,
        super::controls::faults,
        super::controls::clock,
        super::controls::reset,
        super::controls::scenario,
        super::controls::natural,
        super::controls::generals,
        super::sse::events,
        super::transfers::transfer,
        super::transfers::app_event,
        super::controls::replay,
        super::runs::export_run,
        super::sandboxes::check,
        super::runs::state_at,
        super::runs::import_run,
        super::measure_drop_vs_delete,
        super::days::start_day,
        super::days::day_report,
        super::openapi_json,
    ),
    components(
        schemas(
            Problem,
            Created,
            crate::server::invariants::Report,
            crate::server::invariants::Violation,
            crate::domain::run::Rerun,
            Replayed,
            ScenarioLoaded,
            crate::domain::natural::NaturalReport,
            crate::domain::natural::NaturalOp,
            crate::domain::generals::Generals,
            crate::domain::generals::Trip,
            super::sandboxes::CreateBody,
            crate::domain::calc::DropVsDelete,
            crate::domain::calc::MeasureDays,
            crate::domain::calc::RowsPerDay,
            crate::domain::day::DayRequest,
            crate::domain::day::Scale,
            crate::domain::day::DayReport,
            crate::domain::day::DayRun,
            crate::domain::day::DayGuards,
            crate::domain::day::DayStatus,
            crate::domain::calc::DropReport,
            crate::domain::calc::DropPoint,
            crate::domain::scenario::ScenarioBody,
            crate::domain::scenario::Variant,
            crate::domain::natural::NaturalBody,
            crate::domain::natural::Times,
            crate::domain::generals::GeneralsBody,
            crate::domain::SafeguardsPatch,
            crate::domain::safeguard::WindowHours,
            crate::domain::FaultsPatch,
            crate::domain::fault::CrashPatch,
            crate::domain::CrashMode,
            crate::domain::fault::Percent,
            crate::domain::fault::DelayMs,
            crate::domain::fault::TimeoutMs,
            crate::domain::fault::Retries,
            ClockBody,
            crate::domain::run::ReplayBody,
            crate::domain::run::SecondsAgo,
            crate::domain::pipeline::Consumer,
            AppEventBody,
            TransferBody,
            RunBody,
            Safeguards,
            crate::domain::Faults,
            Receipt,
            ClockState,
            ClockMode,
            SandboxState,
            Balances,
            Damage,
            TimelineEvent,
            Layer,
            Outcome,
            EventKind,
            Run,
            RunInput,
        ),
        responses(
            BadRequest,
            ForeignOrigin,
            NotFound,
            TooLarge,
            NotJson,
            TooFast,
            Unavailable,
            Full,
            DayBusy,
            Held
        )
    ),
    modifiers(&EdgeResponses)
)]
pub struct ApiDoc;

/// The document as served: utoipa's, with the exact schemas and the links in place.
pub fn document() -> &'static Value {
    static DOCUMENT: OnceLock<Value> = OnceLock::new();
    DOCUMENT.get_or_init(|| {
        let mut doc =
            serde_json::to_value(ApiDoc::openapi()).expect("the OpenAPI document serialises");
        let schemas = &mut doc["components"]["schemas"];
        for name in schemas::EXACT {
            schemas[name] = schemas::exact_schema(name);
        }
        // Every kind of problem the lab answers, from the one list of them.
        let kinds: Vec<String> = crate::domain::ProblemKind::ALL
            .iter()
            .map(|k| k.uri())
            .collect();
        schemas["Problem"]["properties"]["type"]["enum"] = kinds.into();
        let paths = doc["paths"]
            .as_object_mut()
            .expect("the document has paths");
        let mut linked = vec![];
        for (path, item) in paths.iter_mut() {
            for (_, operation) in item.as_object_mut().expect("a path item is an object") {
                if let Some(parameters) = operation
                    .get_mut("parameters")
                    .and_then(Value::as_array_mut)
                {
                    for p in parameters {
                        let name = p["name"].as_str().expect("a parameter has a name");
                        p["schema"] = schemas::parameter_schema(name);
                    }
                }
                if path.contains("{id}") {
                    linked.push(operation["operationId"].clone());
                }
            }
        }
        let links: serde_json::Map<String, Value> = linked
            .into_iter()
            .map(|op| {
                let op = op.as_str().expect("every operation has an id").to_owned();
                (
                    op.clone(),
                    json!({
                        "operationId": op,
                        "parameters": {"id": "$response.body#/id"},
                        "description": "The sandbox just made",
                    }),
                )
            })
            .collect();
        doc["paths"]["/api/sandboxes/{id}/events"]["get"]["responses"]["200"]["content"]
            ["text/event-stream"]["schema"] = stream_message();
        // A sandbox's state lists its events: the way to an event id to rewind to.
        doc["paths"]["/api/sandboxes/{id}/state"]["get"]["responses"]["200"]["links"] = json!({
            "state_at": {
                "operationId": "state_at",
                "parameters": {
                    "id": "$request.path.id",
                    "event": "$response.body#/tables/lab.events/0/id",
                },
                "description": "The sandbox at its first logged event",
            },
        });
        let create = &mut doc["paths"]["/api/sandboxes"]["post"];
        create["responses"]["201"]["links"] = links.into();
        // No body at all reads as `{}`.
        create["requestBody"]["required"] = false.into();
        doc["paths"]["/api/sandboxes/{id}/scenario/{n}"]["post"]["requestBody"]["required"] =
            false.into();
        doc["paths"]["/api/sandboxes/{id}/generals"]["post"]["requestBody"]["required"] =
            false.into();
        doc["paths"]["/api/measure/drop-vs-delete"]["post"]["requestBody"]["required"] =
            false.into();
        doc["paths"]["/api/days"]["post"]["requestBody"]["required"] = false.into();
        doc
    })
}

/// One message of the event stream: `event: clock` with the clock, or `event: timeline` with a
/// timeline event (plus `sent_ms`) and its log id as the SSE id.
fn stream_message() -> Value {
    let data = |schema: &str| {
        json!({
            "type": "string",
            "contentMediaType": "application/json",
            "contentSchema": {"$ref": format!("#/components/schemas/{schema}")},
        })
    };
    json!({"oneOf": [
        {
            "type": "object",
            "properties": {"event": {"type": "string", "enum": ["clock"]}, "data": data("ClockState")},
            "required": ["event", "data"],
        },
        {
            "type": "object",
            "properties": {
                "event": {"type": "string", "enum": ["timeline"]},
                "id": {"type": "string", "pattern": "^[0-9]+$"},
                "data": data("TimelineEvent"),
            },
            "required": ["event", "id", "data"],
        },
    ]})
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::Safeguard;

    /// Every `$ref` in the document names something the document has: a response shape used
    /// by an operation and never listed among the components would leave a client (and the
    /// fuzzer) with a pointer to nothing.
    #[test]
    fn every_reference_resolves() {
        fn refs<'a>(v: &'a Value, out: &mut Vec<&'a str>) {
            match v {
                Value::Object(map) => {
                    for (k, v) in map {
                        match (k.as_str(), v) {
                            ("$ref", Value::String(r)) => out.push(r),
                            _ => refs(v, out),
                        }
                    }
                }
                Value::Array(items) => items.iter().for_each(|v| refs(v, out)),
                _ => {}
            }
        }
        let doc = document();
        let mut found = Vec::new();
        refs(doc, &mut found);
        assert!(!found.is_empty());
        for r in found {
            let pointer = r
                .strip_prefix('#')
                .expect("a reference inside the document");
            assert!(doc.pointer(pointer).is_some(), "{r} names nothing");
        }
    }

    /// Every operation describes the refusals the edge gives its kind of route
    /// (`shapes::EdgeResponses`), and an operation's own words for a status stand.
    #[test]
    fn every_operation_describes_the_edge_refusals_of_its_kind() {
        let doc = document();
        for (path, item) in doc["paths"].as_object().unwrap() {
            for (method, operation) in item.as_object().unwrap() {
                let responses = operation["responses"].as_object().unwrap();
                let mut wanted = vec![];
                if method != "get" {
                    wanted.extend(["403", "415"]);
                }
                if operation.get("requestBody").is_some() {
                    wanted.extend(["400", "413"]);
                }
                if path.starts_with("/api/sandboxes/{id}/") {
                    wanted.extend(["404", "429", "503"]);
                }
                for status in wanted {
                    assert!(
                        responses.contains_key(status),
                        "{method} {path} does not describe {status}"
                    );
                }
            }
        }
        let transfer = &doc["paths"]["/api/sandboxes/{id}/transfers"]["post"]["responses"];
        assert_eq!(
            transfer["404"]["$ref"], "#/components/responses/NotFound",
            "a shared refusal is the shared response"
        );
        assert!(
            transfer["400"]["description"]
                .as_str()
                .unwrap()
                .contains("duplicate-header"),
            "an operation's own description of a status stands"
        );
    }

    /// The schemas derived from the settings' types say what the types read: every id, no
    /// other field, nothing required in a change, no `null`.
    #[test]
    fn the_settings_schemas_come_from_their_types() {
        let schemas = &document()["components"]["schemas"];
        let names = |name: &str| -> Vec<String> {
            let s = &schemas[name];
            assert_eq!(s["additionalProperties"], false, "{name}");
            s["properties"]
                .as_object()
                .unwrap()
                .keys()
                .cloned()
                .collect()
        };
        let mut ids: Vec<String> = Safeguard::ALL.iter().map(|s| s.id().to_owned()).collect();
        ids.sort();
        assert_eq!(names("SafeguardsPatch"), ids);
        assert_eq!(names("FaultsPatch"), names("Faults"));
        for patch in ["SafeguardsPatch", "FaultsPatch", "CrashPatch"] {
            assert!(schemas[patch].get("required").is_none(), "{patch}");
            assert!(!schemas[patch].to_string().contains("null"), "{patch}");
        }
        assert_eq!(
            schemas["WindowHours"],
            serde_json::json!({"type": "integer", "minimum": 1,
                               "maximum": crate::domain::safeguard::MAX_WINDOW_HOURS})
        );
        // A seed is any u64: no `int64` format, whose cap is 2^63 - 1.
        assert_eq!(
            schemas["CreateBody"]["properties"]["seed"],
            serde_json::json!({"type": "integer", "minimum": 0, "maximum": u64::MAX})
        );
        let kinds = schemas["Problem"]["properties"]["type"]["enum"]
            .as_array()
            .unwrap();
        assert_eq!(kinds.len(), crate::domain::ProblemKind::ALL.len());
        assert!(kinds.contains(&"urn:pocketpay-lab:problem:broker-refused".into()));
        let crash = &schemas["Faults"]["properties"]["crash"];
        assert_eq!(crash["required"].as_array().unwrap().len(), 6);
        assert_eq!(names("CrashPatch").len(), 6);
    }
}
