//! The network panel's crafted attacks (docs/reference.md §7, scenarios 3 and 4): a buggy client, not
//! Shimul's app, sending real transfers through the sandbox's network and load balancer.
//!
//! The race needs its second request within 50 ms of virtual time of the first, which a browser
//! cannot promise; so the attack is scripted here, the way the tests script it: pause the clock,
//! queue the first request, run every step due within 50 ms of it, queue the second at the time
//! those steps reached, and let the clock go on as it was. Each answer reports the virtual time
//! its request was really queued at.

use uuid::Uuid;

use super::calls::TransferRequest;
use super::error::LabError;
use super::sandbox::SandboxHandle;
use crate::domain::phone::{Answer, Attack, AttackAnswer};
use crate::domain::transfer::IdempotencyKey;
use crate::domain::{ClockCommand, ClockMode, TransferBody};

/// How far apart the race's two requests are at most, virtual milliseconds.
pub const RACE_GAP_MS: i64 = 50;

fn request(key: &str, amount: i64, intent: &str) -> TransferRequest {
    TransferRequest::new(
        "shimul",
        IdempotencyKey::parse(Some(key)).expect("the attacks' keys are UUIDs"),
        TransferBody {
            to: "tithi".to_owned(),
            amount,
        },
        intent.to_owned(),
    )
}

fn answer(amount: i64, at_ms: i64, reply: super::calls::ApiReply) -> AttackAnswer {
    AttackAnswer {
        amount,
        at_ms,
        status: reply.status,
        answer: Answer::read(reply.status, &reply.body, reply.replayed),
    }
}

/// Runs one attack and returns what each of its requests got back (once the clock has moved
/// far enough for them to be answered).
pub async fn run(sandbox: &SandboxHandle, attack: Attack) -> Result<Vec<AttackAnswer>, LabError> {
    let key = Uuid::new_v4().to_string();
    let intent = Uuid::new_v4().to_string();
    match attack {
        Attack::Race => {
            let was_live = sandbox.clock(vec![]).await?.mode == ClockMode::Live;
            let before = sandbox.clock(vec![ClockCommand::Pause]).await?;
            let first = sandbox.start_transfer(request(&key, 500, &intent)).await?;
            let start = before.now_ms;
            loop {
                let clock = sandbox.clock(vec![]).await?;
                match clock.next_due_ms {
                    Some(due) if due <= start + RACE_GAP_MS => {
                        sandbox.clock(vec![ClockCommand::Step]).await?;
                    }
                    _ => break,
                }
            }
            let second_at = sandbox.clock(vec![]).await?.now_ms;
            let second = sandbox.start_transfer(request(&key, 500, &intent)).await?;
            if was_live {
                sandbox.clock(vec![ClockCommand::Resume]).await?;
            }
            let (a, b) = futures::join!(first, second);
            Ok(vec![answer(500, start, a?), answer(500, second_at, b?)])
        }
        Attack::ReusedKey => {
            let at = sandbox.clock(vec![]).await?.now_ms;
            let a = sandbox.transfer(request(&key, 500, &intent)).await?;
            let later = sandbox.clock(vec![]).await?.now_ms;
            let other_intent = Uuid::new_v4().to_string();
            let b = sandbox
                .transfer(request(&key, 5_000, &other_intent))
                .await?;
            Ok(vec![answer(500, at, a), answer(5_000, later, b)])
        }
    }
}
