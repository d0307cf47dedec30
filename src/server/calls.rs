//! A call through the lab's network to the payment API, as both sides see it: the request (with
//! its fingerprint), one delivery of it to an instance, the two steps an instance runs for it,
//! and the reply. The network (`network.rs`) carries these; the API (`payments/`) answers them.

use std::sync::Arc;

use sha2::{Digest, Sha256};

use crate::domain::transfer::IdempotencyKey;
use crate::domain::ProblemKind;
use crate::domain::TransferBody;

/// A transfer request as the API instances see it, shared by every step that handles it.
#[derive(Debug, PartialEq)]
pub struct TransferRequest {
    /// The user the bearer token names.
    pub user: String,
    pub key: IdempotencyKey,
    pub body: TransferBody,
    /// SHA-256 of the canonical body.
    pub hash: String,
    /// Ground truth for the damage meter: the decision to pay this came from.
    pub intent: String,
    /// This send's own random numbers, when its caller deals them (the day's paired runs);
    /// `None` draws from the sandbox's one stream, as every other call does.
    pub fate: Option<Fate>,
}

pub type Req = Arc<TransferRequest>;

impl TransferRequest {
    pub fn new(
        user: &str,
        key: IdempotencyKey,
        body: TransferBody,
        intent: String,
    ) -> TransferRequest {
        let hash = fingerprint(&body);
        TransferRequest {
            user: user.to_owned(),
            key,
            body,
            hash,
            intent,
            fate: None,
        }
    }

    /// The same request meeting the losses and crashes `fate` deals.
    pub fn with_fate(mut self, fate: Fate) -> TransferRequest {
        self.fate = Some(fate);
        self
    }
}

/// The random numbers one send of a transfer meets, from a seed of its own instead of the
/// sandbox's one stream: whether the network loses the request or the answer, and whether an
/// instance dies at a crash point while handling it. Two runs that make the same send meet the
/// same luck, however differently they got there: the day compares its guarded and unguarded
/// runs on common random numbers this way (ARCHITECTURE.md, "A day, fast-forwarded").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fate(pub u64);

/// Which of a send's random numbers is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Draw {
    RequestLost,
    AnswerLost,
    /// An instance dying at a crash point, on the load balancer's attempt (1 or 2).
    Crash(crate::domain::CrashPoint, u32),
}

impl Fate {
    /// The fate of send `send` (0 for the first) of transfer `transfer` in a day seeded `seed`.
    pub fn of(seed: u64, transfer: u64, send: u32) -> Fate {
        let mut rng = super::sim::Rng::new(seed ^ transfer.wrapping_mul(0xA24B_AED4_963E_E407));
        let base = rng.next_u64();
        Fate(base ^ u64::from(send).wrapping_mul(0x9FB2_1C65_1E98_DF25))
    }

    /// True with probability `p`: the same answer for the same fate and draw, every time.
    pub fn chance(self, draw: Draw, p: f64) -> bool {
        let salt = match draw {
            Draw::RequestLost => 1,
            Draw::AnswerLost => 2,
            Draw::Crash(point, attempt) => {
                let i = crate::domain::CrashPoint::ALL
                    .iter()
                    .position(|c| *c == point)
                    .unwrap_or(0) as u64;
                16 + i * 4 + u64::from(attempt)
            }
        };
        let mut rng = super::sim::Rng::new(self.0 ^ salt.wrapping_mul(0xD6E8_FEB8_6659_FD93));
        rng.chance(p)
    }
}

/// The request fingerprint `fingerprint_check` compares: SHA-256 of the canonical body.
pub fn fingerprint(body: &TransferBody) -> String {
    Sha256::digest(body.canonical().as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// An HTTP answer from the payment API: status and body, exactly as stored and replayed.
#[derive(Clone, Debug, PartialEq)]
pub struct ApiReply {
    pub status: u16,
    pub body: String,
    /// Set on a replay of a stored response (`Idempotent-Replayed: true`).
    pub replayed: bool,
}

impl ApiReply {
    /// A stored answer sent again (`Idempotent-Replayed: true`).
    pub fn replayed(status: u16, body: String) -> ApiReply {
        ApiReply {
            status,
            body,
            replayed: true,
        }
    }

    /// A problem+json answer.
    pub fn problem(status: u16, kind: ProblemKind, detail: &str) -> ApiReply {
        ApiReply {
            status,
            body: crate::domain::problem_body(status, kind, detail).to_string(),
            replayed: false,
        }
    }

    /// The 504 `no-response`: no answer came in time, so the outcome is unknown and the
    /// transfer may go on. A lost request or answer gives it (server/network.rs), and so does a
    /// caller's wait running out (api/transfers.rs), which also says how long it waited
    /// (`waited`, seconds) and whether the sandbox's clock is paused.
    pub fn no_response(detail: &str, waited: Option<(f64, bool)>) -> ApiReply {
        let mut body = crate::domain::problem_body(504, ProblemKind::NoResponse, detail);
        if let Some((seconds, paused)) = waited {
            body["waited_seconds"] = seconds.into();
            body["clock_paused"] = paused.into();
        }
        ApiReply {
            status: 504,
            body: body.to_string(),
            replayed: false,
        }
    }

    /// The 201 answer for a receipt.
    pub fn created(receipt: &crate::domain::Receipt) -> ApiReply {
        ApiReply {
            status: 201,
            body: serde_json::to_string(receipt).expect("receipts serialise"),
            replayed: false,
        }
    }

    pub fn content_type(&self) -> &'static str {
        if self.status < 400 {
            "application/json"
        } else {
            "application/problem+json"
        }
    }
}

/// One delivery of a call to an instance: what both of its steps work on.
#[derive(Clone, Debug, PartialEq)]
pub struct Attempt {
    pub call: u64,
    /// 1 for the first delivery, 2 for the load balancer's retry.
    pub attempt: u32,
    pub instance: u32,
    pub req: Req,
}

/// The steps of the network and the load balancer (`network.rs` runs them; an instance
/// schedules `LbAnswer` with its reply).
#[derive(Clone, Debug, PartialEq)]
pub enum NetStep {
    /// The caller sends the request.
    Send { call: u64, req: Req },
    /// The request reaches the load balancer.
    LbReceive { call: u64, req: Req },
    /// The load balancer's wait on an attempt ran out.
    LbTimeout { call: u64, attempt: u32, req: Req },
    /// An instance answers the load balancer.
    LbAnswer {
        call: u64,
        attempt: u32,
        key: String,
        reply: ApiReply,
    },
    /// The answer reaches the caller.
    Deliver {
        call: u64,
        key: String,
        reply: ApiReply,
    },
    /// The caller's timeout.
    CallerTimeout { call: u64, key: String },
}

/// The two steps an instance runs for one request (see `payments/mod.rs`).
#[derive(Clone, Debug, PartialEq)]
pub enum ApiStep {
    Receive(Attempt),
    Complete(Attempt),
}
