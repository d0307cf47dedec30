//! The shapes the API's documentation names, for the handlers' annotations: the problem answer
//! and the small JSON answers, the `{id}` parameter, the request bodies whose exact schemas
//! `schemas.rs` writes out, and the problem responses many operations share, with the rule
//! that gives each operation its share of them ([`EdgeResponses`]).

use utoipa::openapi::header::HeaderBuilder;
use utoipa::openapi::path::Operation;
use utoipa::openapi::response::{Response, ResponseBuilder};
use utoipa::openapi::{Content, ObjectBuilder, OpenApi, Ref, RefOr, Type};
use utoipa::{Modify, ToResponse};

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
    /// On a 504 after the server stopped waiting: how long it waited, in seconds.
    waited_seconds: Option<f64>,
    /// On such a 504: whether the sandbox's clock is paused (the transfer waits for it).
    clock_paused: Option<bool>,
}

/// `{"id": "<uuid>"}`.
#[derive(utoipa::ToSchema)]
#[allow(dead_code)]
pub struct Created {
    #[schema(format = "uuid")]
    id: String,
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

#[derive(utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[allow(dead_code)]
pub struct StreamQuery {
    /// `1`: the stream also carries what changes in the sandbox's state (`event: state`, a
    /// delta from one version to the next; `event: state-gap`: read `GET …/state` again).
    /// Any other value answers 400 `invalid-field`.
    state: Option<String>,
}

/// Names whose schema [`document`] writes out: the utoipa side only refers to them.
macro_rules! exact_schemas {
    ($($name:ident),* $(,)?) => {$(
        #[doc = concat!("The `", stringify!($name), "` schema: see [`super::schemas::exact_schema`].")]
        pub struct $name;
        impl utoipa::PartialSchema for $name {
            fn schema() -> RefOr<utoipa::openapi::schema::Schema> {
                ObjectBuilder::new().into()
            }
        }
        impl utoipa::ToSchema for $name {}
    )*};
}

exact_schemas!(ClockBody, AppEventBody, TransferBody, RunBody, Safeguards,);

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
    BadRequest => "A body that is not JSON (`invalid-json`), a field that is wrong (`invalid-field`), or a member named twice (`duplicate-field`), each naming it in `field` (a path such as `crash.api_after_claim`); nothing changed", retry_after: false;
    ForeignOrigin => "The request came from a page of another site (`foreign-origin`): its Origin is not this server's; nothing changed", retry_after: false;
    NotFound => "No such sandbox (`unknown-sandbox`), a malformed id included", retry_after: false;
    TooLarge => "The body is over 64 KiB (`body-too-large`)", retry_after: false;
    NotJson => "The body, or its Content-Type, is not application/json (`unsupported-media-type`); nothing changed", retry_after: false;
    TooFast => "This sandbox sends requests faster than the lab allows (`too-many-requests`); retry after Retry-After seconds", retry_after: true;
    Unavailable => "The sandbox was stopped or reset while this request was in flight (`sandbox-unavailable`); retry after Retry-After seconds", retry_after: true;
    Full => "The server holds its limit of sandboxes (`too-many-sandboxes`); retry after Retry-After seconds", retry_after: true;
    DayBusy => "Another scale's day is running; one runs at a time (`day-busy`); retry after Retry-After seconds", retry_after: true;
    Held => "The sandbox's class holds it: its instructor locked the student's controls (`locked-by-class`) or froze the clock (`frozen-by-class`); nothing changed", retry_after: false;
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

/// The refusals an operation gets from the edge by what its route is, not by what its handler
/// does, so they are declared here once rather than on every handler (docs/reference.md §8):
/// - a method that changes state (POST, PUT, PATCH, DELETE) passes the gate (`edge::check`):
///   403 [`ForeignOrigin`], 415 [`NotJson`];
/// - a request body is read by `StrictJson` (`api/body.rs`): 400 [`BadRequest`], 413
///   [`TooLarge`];
/// - a route in a sandbox (`/api/sandboxes/{id}/…`) finds it first (`path::Sandbox`) behind its
///   rate limit: 404 [`NotFound`], 429 [`TooFast`], 503 [`Unavailable`].
///
/// Each is added to an operation that does not describe that status itself: where a handler
/// says more (the transfer's 400, the scenario's 404, a stream's 503), its own words stand.
pub struct EdgeResponses;

impl Modify for EdgeResponses {
    fn modify(&self, openapi: &mut OpenApi) {
        for (path, item) in openapi.paths.paths.iter_mut() {
            let in_sandbox = path.starts_with("/api/sandboxes/{id}/");
            let operations = [
                (&mut item.get, false),
                (&mut item.post, true),
                (&mut item.put, true),
                (&mut item.patch, true),
                (&mut item.delete, true),
            ];
            for (operation, changes_state) in operations {
                if let Some(operation) = operation {
                    add_edge_responses(operation, changes_state, in_sandbox);
                }
            }
        }
    }
}

fn add_edge_responses(operation: &mut Operation, changes_state: bool, in_sandbox: bool) {
    let mut shared = Vec::new();
    if changes_state {
        shared.extend([(403, name::<ForeignOrigin>()), (415, name::<NotJson>())]);
    }
    if operation.request_body.is_some() {
        shared.extend([(400, name::<BadRequest>()), (413, name::<TooLarge>())]);
    }
    if in_sandbox {
        shared.extend([
            (404, name::<NotFound>()),
            (429, name::<TooFast>()),
            (503, name::<Unavailable>()),
        ]);
    }
    for (status, name) in shared {
        operation
            .responses
            .responses
            .entry(status.to_string())
            .or_insert_with(|| Ref::from_response_name(name).into());
    }
}

/// The `components/responses` name of a shared response.
fn name<R: ToResponse<'static>>() -> &'static str {
    R::response().0
}
