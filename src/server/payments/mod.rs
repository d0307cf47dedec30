//! The payment API: what one instance does with a transfer request, guard by guard.
//!
//! An instance runs a request in two steps with the payment gateway's latency between them, so
//! a second request with the same key can arrive in the middle:
//! 1. [`ApiStep::Receive`]: the idempotency table (`idempotency_table`), its fingerprint check
//!    (`fingerprint_check`), and the claim (`atomic_claim`: an IN_PROGRESS row committed now;
//!    off, the look-up alone, with the write left for step 2: look-then-write).
//! 2. [`ApiStep::Complete`]: one transaction that checks the balance, appends the debit (the
//!    ledger's UNIQUE(transfer_id) is `ledger_unique`'s guard) and stores the response.
//!
//! Crash points `api_after_claim` and `api_after_commit` kill the request in flight between
//! these, as a killed process would: only what was committed stays.

pub mod decide;
pub mod idempotency;
pub mod ledger;
pub mod recovery;

use serde_json::json;
use sqlx::SqliteConnection;

use self::decide::{Decision, First};
use self::idempotency::Claim;
use self::recovery::window_start;
use super::calls::{ApiReply, ApiStep, Attempt, NetStep, Req};
use super::pipeline;
use super::sim::Cx;
use super::world::{LabWorld, Step, StepError};
use crate::domain::event::Facts;
use crate::domain::explain;
use crate::domain::pipeline::TransferDone;
use crate::domain::{CrashPoint, EventKind, Layer, Outcome, ProblemKind, Safeguard, Safeguards};
use crate::server::store::StoreName;

pub async fn run(
    world: &mut LabWorld,
    step: ApiStep,
    cx: &mut Cx<'_, Step>,
) -> Result<(), StepError> {
    match step {
        ApiStep::Receive(a) => receive(world, a, cx).await,
        ApiStep::Complete(a) => complete(world, a, cx).await,
    }
}

/// The (user, key) an instance is still completing, if `step` is such work: a key it claimed
/// that it will finish.
pub fn completing(step: &Step) -> Option<(&str, &str)> {
    match step {
        Step::Api(ApiStep::Complete(a)) => Some((a.req.user.as_str(), a.req.key.as_str())),
        _ => None,
    }
}

/// Hands an instance's answer to the load balancer.
fn answer(cx: &mut Cx<'_, Step>, call: u64, attempt: u32, req: &Req, reply: ApiReply) {
    cx.schedule_in(
        0,
        Step::Net(NetStep::LbAnswer {
            call,
            attempt,
            key: req.key.to_string(),
            reply,
        }),
    );
}

/// Where a request goes once the idempotency table has had its say.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum AfterCheck {
    /// On to the payment: the gateway, then [`complete`].
    Pay,
    /// Answered from the table, or the instance died: nothing more for this attempt.
    Done,
}

/// An event's details on the API lane: which instance, attempt and call, and `extra`.
fn details(a: &Attempt, extra: serde_json::Value) -> serde_json::Value {
    let mut d = json!({"instance": a.instance, "attempt": a.attempt, "call": a.call});
    if let (Some(d), Some(extra)) = (d.as_object_mut(), extra.as_object()) {
        d.extend(extra.clone());
    }
    d
}

async fn receive(world: &mut LabWorld, a: Attempt, cx: &mut Cx<'_, Step>) -> Result<(), StepError> {
    let first = decide::first(&world.safeguards);
    let next = if first == First::RunUnchecked {
        cx.record(
            Layer::Api,
            EventKind::KeyNotChecked,
            Some(a.req.key.to_string()),
            Outcome::Ok,
            details(&a, json!({"idempotency_table": false})),
        );
        AfterCheck::Pay
    } else {
        check_key(world, &a, first, cx).await?
    };
    if next == AfterCheck::Pay {
        let latency = world.faults.gateway_latency_ms.get();
        cx.schedule_in(latency, Step::Api(ApiStep::Complete(a)));
    }
    Ok(())
}

/// Claims the request's key (with the atomic claim) or looks it up (without), and answers
/// from the row that holds it, if one does.
async fn check_key(
    world: &mut LabWorld,
    a: &Attempt,
    first: First,
    cx: &mut Cx<'_, Step>,
) -> Result<AfterCheck, StepError> {
    let (req, now) = (&a.req, cx.now());
    let key = Some(req.key.to_string());
    let since = window_start(world, now);
    let mut conn = world.stores.conn(StoreName::Payments).await?;
    // With the atomic claim, do not look first: one INSERT, and its conflict decides; the
    // read after it, in the claim's transaction, only reads what won.
    let claim = match first {
        First::Claim => Some(
            idempotency::claim(
                &mut conn,
                &req.user,
                req.key.as_str(),
                &req.hash,
                since,
                now,
            )
            .await?,
        ),
        _ => None,
    };
    if claim == Some(Claim::Claimed) {
        drop(conn);
        cx.record(
            Layer::Api,
            EventKind::KeyClaimed,
            key.clone(),
            Outcome::Ok,
            details(a, json!({"partition_day": idempotency::partition_of(now)})),
        );
        // Should this request die before completing, recovery looks at it after 60 s.
        cx.schedule_at(recovery::look_at(now), Step::STUCK_RECOVERY);
        if world.crash_fires_on(CrashPoint::ApiAfterClaim, a, cx.rng()) {
            cx.record(
                Layer::Api,
                EventKind::InstanceCrashed,
                key,
                Outcome::Lost,
                details(a, Facts::crashed_at(CrashPoint::ApiAfterClaim).details()),
            );
            return Ok(AfterCheck::Done);
        }
        return Ok(AfterCheck::Pay);
    }
    // A claim that lost has read the row it lost to. Look-then-write looks now and writes
    // only when the transfer completes: the gap chapter 03 shows.
    let found = match claim {
        Some(Claim::Held(row)) => Some(row),
        _ => idempotency::look_up(&mut conn, &req.user, req.key.as_str(), since).await?,
    };
    drop(conn);
    answer_from_row(world, a, first, found, cx).await
}

/// What the key's row, or its absence, makes of a request: a replay, a 409, a 422, a wrong
/// replay (the fingerprint off), or on to the payment.
///
/// Reads best whole: one arm per `decide::Decision`, each what the key's row makes of the request;
/// split, the match would hide.
async fn answer_from_row(
    world: &mut LabWorld,
    a: &Attempt,
    first: First,
    found: Option<idempotency::KeyRow>,
    cx: &mut Cx<'_, Step>,
) -> Result<AfterCheck, StepError> {
    let (req, now) = (&a.req, cx.now());
    let key = Some(req.key.to_string());
    match decide::decide(found.as_ref(), &req.hash, &world.safeguards) {
        Decision::OtherBody => {
            cx.record(
                Layer::Api,
                EventKind::KeyReused,
                key,
                Outcome::Caught,
                details(
                    a,
                    Facts::caught_by(Safeguard::FingerprintCheck)
                        .status(422)
                        .details(),
                ),
            );
            let reply = ApiReply::problem(
                422,
                ProblemKind::IdempotencyKeyReused,
                "this Idempotency-Key was already used with a different request body",
            );
            answer(cx, a.call, a.attempt, req, reply);
        }
        Decision::Replay { status, body } => {
            cx.record(
                Layer::Api,
                EventKind::ResponseReplayed,
                key,
                Outcome::Caught,
                details(
                    a,
                    Facts::caught_by(Safeguard::IdempotencyTable)
                        .status(status)
                        .details(),
                ),
            );
            answer(cx, a.call, a.attempt, req, ApiReply::replayed(status, body));
        }
        Decision::WrongReplay { status, body } => {
            // The answer goes out as the guard-on replay would (the client cannot tell), but
            // it is another body's: noted for the damage meter, and marked on the timeline as
            // what it is, an escape the fingerprint would catch.
            let stored_hash = found.as_ref().map_or("", |row| row.request_hash.as_str());
            idempotency::note_wrong_replay(
                &mut *world.stores.conn(StoreName::Payments).await?,
                &idempotency::WrongReplay {
                    user: &req.user,
                    key: req.key.as_str(),
                    stored_hash,
                    request_hash: &req.hash,
                    status,
                    at_ms: now,
                },
            )
            .await?;
            cx.record(
                Layer::Api,
                EventKind::ResponseReplayed,
                key,
                Outcome::Escaped,
                details(
                    a,
                    Facts::answered(status).with(json!({"other_body": true,
                        "damage": "wrong receipt",
                        "would_catch": [Safeguard::FingerprintCheck.id()]})),
                ),
            );
            answer(cx, a.call, a.attempt, req, ApiReply::replayed(status, body));
        }
        Decision::InProgress => {
            // A 409 is a catch only while the key can still finish: an instance is completing
            // it, or recovery will settle it. Otherwise the key is stuck (its instance died
            // after the claim): the 409 keeps Shimul's money from ever going, which the
            // timeline must not call a catch.
            let finishing = world.safeguards.is_on(Safeguard::StuckRecovery)
                || cx
                    .queued()
                    .filter_map(completing)
                    .any(|(user, k)| user == req.user && k == req.key.as_str());
            let (outcome, facts) = if finishing {
                (
                    Outcome::Caught,
                    Facts::caught_by(Safeguard::AtomicClaim)
                        .status(409)
                        .details(),
                )
            } else {
                (
                    Outcome::Lost,
                    Facts::answered(409).with(json!({"stuck": true,
                        "would_finish": [Safeguard::StuckRecovery.id()]})),
                )
            };
            cx.record(
                Layer::Api,
                EventKind::KeyInProgress,
                key,
                outcome,
                details(a, facts),
            );
            answer(cx, a.call, a.attempt, req, in_progress());
        }
        Decision::Run => {
            // A claim is held only by a row inside the window, which it answers from.
            debug_assert!(
                first != First::Claim,
                "a claim that lost has a row to answer from"
            );
            cx.record(
                Layer::Api,
                EventKind::KeyLookupEmpty,
                key,
                Outcome::Ok,
                details(a, json!({"atomic_claim": false})),
            );
            return Ok(AfterCheck::Pay);
        }
    }
    Ok(AfterCheck::Done)
}

async fn complete(
    world: &mut LabWorld,
    a: Attempt,
    cx: &mut Cx<'_, Step>,
) -> Result<(), StepError> {
    let now = cx.now();
    let transfer_id = if world.safeguards.is_on(Safeguard::LedgerUnique) {
        ledger::transfer_id_for(&a.req.user, a.req.key.as_str())
    } else {
        // Without the guard every execution mints a fresh transfer id, so nothing collides.
        let (x, y) = (cx.rng().next_u64(), cx.rng().next_u64());
        format!("tr-{x:016x}{y:016x}")
    };
    let mut tx = world.stores.begin(StoreName::Payments).await?;
    let (reply, new_event) = pay(&mut tx, &world.safeguards, &a, transfer_id, cx).await?;
    if world.safeguards.is_on(Safeguard::IdempotencyTable) {
        let since = window_start(world, now);
        let req = &a.req;
        idempotency::store_response(
            &mut tx,
            &req.user,
            req.key.as_str(),
            &req.hash,
            since,
            now,
            reply.status,
            &reply.body,
        )
        .await?;
    }
    tx.commit().await?;
    after_commit(world, a, reply, new_event, cx).await
}

/// The payment inside the transaction: the balance check, the debit (with the outbox, its
/// event in the same transaction) or the ledger's refusal of a second one. Returns the answer
/// and the event the debit made, if it made one.
///
/// Reads best whole: the payment in its transaction's order (balance, debit, the ledger's refusal,
/// the outbox), each with its early return.
async fn pay(
    tx: &mut SqliteConnection,
    guards: &Safeguards,
    a: &Attempt,
    transfer_id: String,
    cx: &mut Cx<'_, Step>,
) -> Result<(ApiReply, Option<TransferDone>), StepError> {
    let (req, now, instance) = (&a.req, cx.now(), a.instance);
    let key = Some(req.key.to_string());
    let (balance, txn) = ledger::balance_and_next_txn(tx, &req.user).await?;
    let amount = req.body.amount;
    if amount > balance {
        cx.record(
            Layer::Ledger,
            EventKind::InsufficientFunds,
            key,
            Outcome::Ok,
            json!({"balance": balance, "amount": amount, "instance": instance}),
        );
        let reply = ApiReply::problem(
            422,
            ProblemKind::InsufficientFunds,
            &format!("the balance is ৳{balance}, less than the ৳{amount} to send"),
        );
        return Ok((reply, None));
    }
    let entry = ledger::Entry {
        transfer_id: transfer_id.clone(),
        txn,
        user_id: req.user.clone(),
        counterparty: req.body.to.clone(),
        amount: -amount,
        balance_after: balance - amount,
        idem_key: req.key.to_string(),
        at_ms: now,
        lab_intent: req.intent.clone(),
    };
    if !ledger::debit(tx, &entry).await? {
        let first = ledger::by_transfer(tx, &transfer_id).await?;
        cx.record(
            Layer::Ledger,
            EventKind::LedgerDuplicate,
            key,
            Outcome::Caught,
            Facts::caught_by(Safeguard::LedgerUnique)
                .with(json!({"transfer_id": transfer_id, "instance": instance})),
        );
        let reply = match first {
            Some(first) => ApiReply::created(&first.receipt()),
            None => ApiReply::problem(
                409,
                ProblemKind::DuplicateTransfer,
                "this transfer was already made",
            ),
        };
        return Ok((reply, None));
    }
    let event = TransferDone {
        event_id: format!("ev-{:016x}", cx.rng().next_u64()),
        transfer_id: transfer_id.clone(),
        from: req.user.clone(),
        to: req.body.to.clone(),
        amount,
        at: now,
    };
    if guards.is_on(Safeguard::Outbox) {
        // Same transaction as the debit: the event exists if and only if the debit does.
        crate::server::outbox::write(tx, &event, now).await?;
        cx.record(
            Layer::Outbox,
            EventKind::OutboxWritten,
            key,
            Outcome::Ok,
            json!({"event_id": event.event_id, "transfer_id": event.transfer_id}),
        );
    }
    record_debit(tx, guards, a, &entry, cx).await?;
    Ok((ApiReply::created(&entry.receipt()), Some(event)))
}

/// The debit on the timeline: an escape when the intent was already debited (a double
/// charge), naming the safeguards that would have caught it.
async fn record_debit(
    tx: &mut SqliteConnection,
    guards: &Safeguards,
    a: &Attempt,
    entry: &ledger::Entry,
    cx: &mut Cx<'_, Step>,
) -> Result<(), StepError> {
    let req = &a.req;
    let before = ledger::debits_for_intent(tx, &req.intent).await? - 1;
    let mut facts = json!({"txn": entry.txn, "amount": -entry.amount,
        "balance": entry.balance_after, "transfer_id": entry.transfer_id,
        "instance": a.instance, "damage": serde_json::Value::Null});
    let outcome = if before > 0 {
        let same_key = ledger::intent_debited_with_key(tx, &req.intent, req.key.as_str()).await?;
        let would_catch = explain::debit_escape_guards(same_key, guards);
        facts["damage"] = json!("double charge");
        facts["would_catch"] = json!(explain::ids(&would_catch));
        Outcome::Escaped
    } else {
        Outcome::Ok
    };
    cx.record(
        Layer::Ledger,
        EventKind::Debited,
        Some(req.key.to_string()),
        outcome,
        facts,
    );
    Ok(())
}

/// After the commit: the instance may die before answering (the debit and, with the outbox,
/// its event stand; without it, the event is lost); else the event goes out and the answer
/// goes back.
async fn after_commit(
    world: &mut LabWorld,
    a: Attempt,
    reply: ApiReply,
    new_event: Option<TransferDone>,
    cx: &mut Cx<'_, Step>,
) -> Result<(), StepError> {
    let key = Some(a.req.key.to_string());
    let outbox = world.safeguards.is_on(Safeguard::Outbox);
    if world.crash_fires_on(CrashPoint::ApiAfterCommit, &a, cx.rng()) {
        cx.record(
            Layer::Api,
            EventKind::InstanceCrashed,
            key.clone(),
            Outcome::Lost,
            Facts::crashed_at(CrashPoint::ApiAfterCommit)
                .with(json!({"instance": a.instance, "attempt": a.attempt})),
        );
        match new_event {
            // The outbox row was committed with the debit: the relay will still publish it.
            Some(_) if outbox => cx.wake_in(pipeline::RELAY_DELAY_MS, Step::Relay),
            // Dual write: the publish that would have followed the commit never happens.
            Some(event) => cx.record(
                Layer::Outbox,
                EventKind::EventLost,
                key,
                Outcome::Lost,
                json!({"event_id": event.event_id, "transfer_id": event.transfer_id, "dual_write": true}),
            ),
            None => {}
        }
        return Ok(());
    }
    match new_event {
        Some(_) if outbox => cx.wake_in(pipeline::RELAY_DELAY_MS, Step::Relay),
        Some(event) => pipeline::publish_from_api(world, cx, &event).await?,
        None => {}
    }
    answer(cx, a.call, a.attempt, &a.req, reply);
    Ok(())
}

/// The 409 answer while a key is being processed.
fn in_progress() -> ApiReply {
    ApiReply::problem(
        409,
        ProblemKind::IdempotencyKeyInProgress,
        "a request with this Idempotency-Key is still being processed; retry later",
    )
}
