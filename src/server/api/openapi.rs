//! The OpenAPI 3.1 document of every `/api` route, served at `/api/openapi.json`.
//!
//! Paths, parameters and responses come from the handlers' annotations; the request bodies and
//! parameter schemas are written out here as JSON Schema, exactly as the handlers read them
//! (types, ranges, enums, required fields, `additionalProperties: false`), from the domain's own
//! constants. [`document`] puts them in place and links `POST /api/sandboxes`'s `id` to every
//! operation on `{id}`, so a client (or a fuzzer) can find a sandbox to talk to.

use std::sync::OnceLock;

use serde_json::{json, Value};
use utoipa::openapi::header::HeaderBuilder;
use utoipa::openapi::response::{Response, ResponseBuilder};
use utoipa::openapi::{Content, ObjectBuilder, Ref, RefOr, Type};
use utoipa::OpenApi;

use crate::domain::clock::{MAX_ADVANCE_SECONDS, SPEED_MAX, SPEED_MIN, START_MS};
use crate::domain::fault::{CrashPoint, MAX_DELAY_MS};
use crate::domain::pipeline::Consumer;
use crate::domain::run::{Run, RunInput, MAX_RUN_MS};
use crate::domain::safeguard::{Safeguard, SafeguardValue, MAX_WINDOW_HOURS};
use crate::domain::transfer::{MAX_AMOUNT, MAX_KEY_LEN, USERS};
use crate::domain::{
    Balances, ClockMode, ClockState, Damage, EventKind, Layer, Outcome, Receipt, SandboxState,
    TimelineEvent,
};

/// An error answer (RFC 9457), `application/problem+json`.
#[derive(utoipa::ToSchema)]
#[allow(dead_code)]
pub struct Problem {
    /// `urn:pocketpay-lab:problem:<kind>`, naming the error.
    #[schema(rename = "type")]
    kind: String,
    title: String,
    status: u16,
    detail: String,
    /// For a bad field: which one (`amount`, `Idempotency-Key`, `crash.api_after_claim` …).
    field: Option<String>,
}

/// `{"id": "<uuid>"}`.
#[derive(utoipa::ToSchema)]
#[allow(dead_code)]
pub struct Created {
    #[schema(format = "uuid")]
    id: String,
}

/// `{"id", "log_hash"}`: the sandbox a run was replayed into, and the hash of its log.
#[derive(utoipa::ToSchema)]
#[allow(dead_code)]
pub struct Imported {
    #[schema(format = "uuid")]
    id: String,
    log_hash: String,
}

/// `{"consumer", "offsets": {"<partition>": <offset>}}` after a replay.
#[derive(utoipa::ToSchema)]
#[allow(dead_code)]
pub struct Replayed {
    consumer: String,
    #[schema(value_type = Object)]
    offsets: (),
}

/// `{"scenario", "variant", "seed"}`: the preset just loaded.
#[derive(utoipa::ToSchema)]
#[allow(dead_code)]
pub struct ScenarioLoaded {
    #[schema(minimum = 1, maximum = 12)]
    scenario: u8,
    #[schema(value_type = String, pattern = "^(guarded|unguarded|at_most_once)$")]
    variant: String,
    #[schema(minimum = 0)]
    seed: u64,
}

/// The `{id}` of every sandbox route.
#[derive(utoipa::IntoParams)]
#[into_params(parameter_in = Path)]
#[allow(dead_code)]
pub struct SandboxPath {
    /// Sandbox id: the UUID `POST /api/sandboxes` answered (8-4-4-4-12 hex). Any other text,
    /// malformed or unknown, answers 404 `unknown-sandbox`.
    id: String,
}

/// Names whose schema [`document`] writes out: the utoipa side only refers to them.
macro_rules! exact_schemas {
    ($($name:ident),* $(,)?) => {$(
        #[doc = concat!("The `", stringify!($name), "` schema: see [`exact_schema`].")]
        pub struct $name;
        impl utoipa::PartialSchema for $name {
            fn schema() -> RefOr<utoipa::openapi::schema::Schema> {
                ObjectBuilder::new().into()
            }
        }
        impl utoipa::ToSchema for $name {}
    )*};
}

exact_schemas!(
    CreateBody,
    MeasureBody,
    ScenarioBody,
    NaturalBody,
    GeneralsBody,
    SafeguardsBody,
    FaultsBody,
    ClockBody,
    ReplayBody,
    AppEventBody,
    TransferBody,
    RunBody,
    Safeguards,
    Faults,
);

/// Problem answers shared by many operations, each a `components/responses` entry.
macro_rules! problem_responses {
    ($($name:ident => $description:literal, retry_after: $retry:literal;)*) => {$(
        #[doc = $description]
        pub struct $name;
        impl<'r> utoipa::ToResponse<'r> for $name {
            fn response() -> (&'r str, RefOr<Response>) {
                (stringify!($name), problem_response($description, $retry).into())
            }
        }
    )*};
}

problem_responses! {
    BadRequest => "A body that is not JSON (`invalid-json`) or a field that is wrong (`invalid-field`, naming it in `field`); nothing changed", retry_after: false;
    ForeignOrigin => "The request came from a page of another site (`foreign-origin`): its Origin is not this server's; nothing changed", retry_after: false;
    NotFound => "No such sandbox (`unknown-sandbox`), a malformed id included", retry_after: false;
    TooLarge => "The body is over 64 KiB (`body-too-large`)", retry_after: false;
    NotJson => "The body, or its Content-Type, is not application/json (`unsupported-media-type`); nothing changed", retry_after: false;
    TooFast => "This sandbox sends requests faster than the lab allows (`too-many-requests`); retry after Retry-After seconds", retry_after: true;
    Unavailable => "The sandbox was stopped or reset while this request was in flight (`sandbox-unavailable`); retry after Retry-After seconds", retry_after: true;
    Full => "The server holds its limit of sandboxes (`too-many-sandboxes`); retry after Retry-After seconds", retry_after: true;
}

fn problem_response(description: &str, retry_after: bool) -> Response {
    let mut response = ResponseBuilder::new().description(description).content(
        "application/problem+json",
        Content::new(Some(Ref::from_schema_name("Problem"))),
    );
    if retry_after {
        response = response.header(
            "Retry-After",
            HeaderBuilder::new()
                .schema(
                    ObjectBuilder::new()
                        .schema_type(Type::Integer)
                        .minimum(Some(1)),
                )
                .description(Some("Seconds to wait"))
                .build(),
        );
    }
    response.build()
}

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
        super::create,
        super::state,
        super::safeguards,
        super::faults,
        super::clock,
        super::reset,
        super::scenario,
        super::natural,
        super::generals,
        super::sse::events,
        super::transfer,
        super::app_event,
        super::replay,
        super::export_run,
        super::check,
        super::state_at,
        super::import_run,
        super::measure_drop_vs_delete,
        super::openapi_json,
    ),
    components(
        schemas(
            Problem,
            Created,
            crate::server::invariants::Report,
            crate::server::invariants::Violation,
            Imported,
            Replayed,
            ScenarioLoaded,
            crate::domain::natural::NaturalReport,
            crate::domain::natural::NaturalOp,
            crate::domain::generals::Generals,
            crate::domain::generals::Trip,
            CreateBody,
            MeasureBody,
            crate::domain::calc::DropReport,
            crate::domain::calc::DropPoint,
            ScenarioBody,
            NaturalBody,
            GeneralsBody,
            SafeguardsBody,
            FaultsBody,
            ClockBody,
            ReplayBody,
            AppEventBody,
            TransferBody,
            RunBody,
            Safeguards,
            Faults,
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
            Full
        )
    )
)]
pub struct ApiDoc;

/// The document as served: utoipa's, with the exact schemas and the links in place.
pub fn document() -> &'static Value {
    static DOCUMENT: OnceLock<Value> = OnceLock::new();
    DOCUMENT.get_or_init(|| {
        let mut doc =
            serde_json::to_value(ApiDoc::openapi()).expect("the OpenAPI document serialises");
        let schemas = &mut doc["components"]["schemas"];
        for name in EXACT {
            schemas[name] = exact_schema(name);
        }
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
                        p["schema"] = parameter_schema(name);
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

/// Every schema written out by [`exact_schema`].
pub const EXACT: [&str; 14] = [
    "CreateBody",
    "MeasureBody",
    "ScenarioBody",
    "NaturalBody",
    "GeneralsBody",
    "SafeguardsBody",
    "FaultsBody",
    "ClockBody",
    "ReplayBody",
    "AppEventBody",
    "TransferBody",
    "RunBody",
    "Safeguards",
    "Faults",
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

fn crash_mode() -> Value {
    json!({"oneOf": [
        {"type": "string", "enum": ["off", "once", "always"]},
        {"type": "number", "minimum": 0, "maximum": 1},
    ]})
}

/// The faults a body may set, and the schema of each (as `Faults::patched` reads them).
fn fault_properties(all_required: bool) -> Value {
    let crash: serde_json::Map<String, Value> = CrashPoint::ALL
        .into_iter()
        .map(|c| (c.id().to_owned(), crash_mode()))
        .collect();
    let crash_ids: Vec<&str> = CrashPoint::ALL.into_iter().map(|c| c.id()).collect();
    json!({
        "request_loss_pct": int(0, 100),
        "response_loss_pct": int(0, 100),
        "latency_ms": int(0, MAX_DELAY_MS),
        "phone_timeout_ms": int(100, MAX_DELAY_MS),
        "auto_retries": int(0, 5),
        "retry_backoff_ms": int(0, MAX_DELAY_MS),
        "lb_retry": {"type": "boolean"},
        "gateway_latency_ms": int(0, MAX_DELAY_MS),
        "crash": object(crash.into(), if all_required { &crash_ids } else { &[] }),
    })
}

const FAULT_IDS: [&str; 9] = [
    "request_loss_pct",
    "response_loss_pct",
    "latency_ms",
    "phone_timeout_ms",
    "auto_retries",
    "retry_backoff_ms",
    "lb_retry",
    "gateway_latency_ms",
    "crash",
];

/// The JSON Schema of one of [`EXACT`].
pub fn exact_schema(name: &str) -> Value {
    let safeguards: serde_json::Map<String, Value> = Safeguard::ALL
        .into_iter()
        .map(|s| (s.id().to_owned(), safeguard_value(s)))
        .collect();
    let safeguard_ids: Vec<&str> = Safeguard::ALL.into_iter().map(|s| s.id()).collect();
    let consumers: Vec<&str> = Consumer::ALL.into_iter().map(|c| c.id()).collect();
    let transfer = object(
        json!({"to": {"type": "string", "enum": USERS}, "amount": int(1, MAX_AMOUNT)}),
        &["to", "amount"],
    );
    let natural = object(
        json!({
            "op": {"type": "string", "enum": ["set_name", "add", "insert"]},
            "times": int(1, crate::domain::natural::MAX_TIMES),
        }),
        &["op"],
    );
    let replay = object(
        json!({
            "consumer": {"type": "string", "enum": consumers},
            "from_seconds_ago": int(0, MAX_ADVANCE_SECONDS),
        }),
        &["consumer", "from_seconds_ago"],
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
        "CreateBody" => object(json!({"seed": u64_max, "paused": {"type": "boolean"}}), &[]),
        "SafeguardsBody" => object(safeguards.into(), &[]),
        "Safeguards" => object(safeguards.into(), &safeguard_ids),
        "FaultsBody" => object(fault_properties(false), &[]),
        "Faults" => object(fault_properties(true), &FAULT_IDS),
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
            clock
        }
        "ReplayBody" => replay,
        "NaturalBody" => natural.clone(),
        "GeneralsBody" => object(json!({"loss_pct": int(0, 100)}), &[]),
        "MeasureBody" => {
            use crate::domain::calc::{MAX_DAYS, MAX_ROWS_PER_DAY, MIN_ROWS_PER_DAY};
            object(
                json!({
                    "days": int(1, MAX_DAYS.into()),
                    "rows_per_day": int(MIN_ROWS_PER_DAY.into(), MAX_ROWS_PER_DAY.into()),
                }),
                &[],
            )
        }
        "ScenarioBody" => object(
            json!({"variant": {"type": "string", "enum": ["guarded", "unguarded", "at_most_once"]}}),
            &[],
        ),
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
                one("safeguards", object(safeguards.into(), &[])),
                one("faults", object(fault_properties(false), &[])),
                one("replay", replay),
                one("app", app_event),
                one("natural", {
                    let mut n = natural.clone();
                    n["required"] = json!(["op", "times"]);
                    n
                }),
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
                    "log_hash": {"type": "string", "description": "Ignored: the replay reports its own"},
                }),
                &["seed", "inputs", "end_ms", "end_steps"],
            )
        }
        other => unreachable!("no exact schema called {other}"),
    }
}

/// The schema of a parameter, by name, as the handlers read it.
fn parameter_schema(name: &str) -> Value {
    match name {
        "id" => json!({"type": "string", "format": "uuid"}),
        "event" => json!({"type": "integer", "minimum": 1, "maximum": i64::MAX}),
        "n" => json!({"type": "integer", "minimum": 1, "maximum": 12}),
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
        other => unreachable!("no parameter called {other}"),
    }
}
