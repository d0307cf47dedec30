//! The OpenAPI 3.1 document of every `/api` route, generated from the handlers' annotations and
//! the domain types, served at `/api/openapi.json`.

use utoipa::OpenApi;

use crate::domain::{
    Balances, ClockMode, ClockState, Damage, EventKind, Layer, Outcome, Receipt, SandboxState,
    TimelineEvent, TransferBody,
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
    id: String,
}

#[derive(OpenApi)]
#[openapi(
    info(
        title = "PocketPay Idempotency Lab",
        description = "Sandboxes in which one ৳500 transfer crosses a lossy network, a load balancer, \
                       a payment API with idempotency guards and a ledger. Errors are \
                       application/problem+json.",
        version = "1"
    ),
    paths(
        super::create,
        super::state,
        super::safeguards,
        super::faults,
        super::clock,
        super::reset,
        super::sse::events,
        super::transfer,
        super::app_event,
        super::replay,
        super::export_run,
        super::check,
        super::state_at,
        super::import_run,
        super::openapi_json,
    ),
    components(schemas(
        Problem,
        Created,
        crate::server::invariants::Report,
        crate::server::invariants::Violation,
        TransferBody,
        Receipt,
        ClockState,
        ClockMode,
        SandboxState,
        Balances,
        Damage,
        TimelineEvent,
        Layer,
        Outcome,
        EventKind
    ))
)]
pub struct ApiDoc;
