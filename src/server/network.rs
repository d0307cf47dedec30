//! The way between the caller and the API instances: the lossy network and the load balancer.
//!
//! A call is one HTTP request from outside. It crosses the network (it may be lost, and takes
//! `latency_ms`), reaches the load balancer, which hands it to an instance (round robin over
//! [`INSTANCES`]); with `lb_retry` on, an instance that has not answered within
//! [`LB_UPSTREAM_TIMEOUT_MS`] gets the request sent again to the other one: a duplicate the
//! load balancer itself creates. The answer crosses the network back (it may be lost too). The
//! caller gives up at `phone_timeout_ms` and then sees only a timeout: it cannot tell a lost
//! request from a lost response, so its outcome is unknown.

use std::collections::HashMap;

use serde_json::json;
use tokio::sync::oneshot;

use super::calls::{ApiReply, ApiStep, Attempt, Draw, Fate, NetStep, Req};
use super::sim::Cx;
use super::world::{LabWorld, Step};
use crate::domain::event::Facts;
use crate::domain::{EventKind, Layer, Outcome, ProblemKind};

/// API instances behind the load balancer.
pub const INSTANCES: u32 = 2;
/// How long the load balancer waits for an instance before it retries on another (`lb_retry`).
pub const LB_UPSTREAM_TIMEOUT_MS: i64 = 1_000;

/// Calls in flight and the load balancer's state.
#[derive(Default)]
pub struct Network {
    next_call: u64,
    next_instance: u32,
    calls: HashMap<u64, Call>,
}

struct Call {
    /// Where the answer goes; `None` once the caller was answered or gave up.
    reply: Option<oneshot::Sender<ApiReply>>,
    /// The attempt the load balancer is waiting on.
    lb_attempt: u32,
    /// The instance of that attempt.
    lb_instance: u32,
    /// Whether the load balancer has answered (or given up).
    lb_done: bool,
    /// The request's own random numbers, if its caller dealt them.
    fate: Option<Fate>,
}

impl Network {
    /// Registers a call from outside; its answer will go to `reply`, and its losses are drawn
    /// from `fate` when it has one.
    pub fn accept(&mut self, reply: oneshot::Sender<ApiReply>, fate: Option<Fate>) -> u64 {
        self.next_call += 1;
        self.calls.insert(
            self.next_call,
            Call {
                reply: Some(reply),
                lb_attempt: 0,
                lb_instance: 0,
                lb_done: false,
                fate,
            },
        );
        self.next_call
    }

    /// Forgets every call in flight (a reset): their callers see the sandbox go away. Call
    /// numbers and the load balancer's rotation start again too, so a run that reset (a
    /// scenario loaded) replays to the same log as the run itself.
    pub fn clear(&mut self) {
        *self = Network::default();
    }

    fn pick_instance(&mut self) -> u32 {
        self.next_instance = self.next_instance % INSTANCES + 1;
        self.next_instance
    }

    /// The calls in flight as they stand, for a rewind's checkpoint: the same calls, each
    /// answer going nowhere, as a rerun's calls do (their callers are in the past).
    pub fn fork(&self) -> Network {
        Network {
            next_call: self.next_call,
            next_instance: self.next_instance,
            calls: self
                .calls
                .iter()
                .map(|(id, c)| {
                    let reply = c.reply.as_ref().map(|_| oneshot::channel().0);
                    (
                        *id,
                        Call {
                            reply,
                            lb_attempt: c.lb_attempt,
                            lb_instance: c.lb_instance,
                            lb_done: c.lb_done,
                            fate: c.fate,
                        },
                    )
                })
                .collect(),
        }
    }

    /// Drops a call once nothing can happen to it any more.
    fn settle(&mut self, call: u64) {
        if self
            .calls
            .get(&call)
            .is_some_and(|c| c.reply.is_none() && c.lb_done)
        {
            self.calls.remove(&call);
        }
    }
}

/// Whether the network loses a message, at a loss rate in percent: drawn from the call's own
/// fate when it has one, else from the sandbox's stream.
fn lost(pct: i64, fate: Option<(Fate, Draw)>, cx: &mut Cx<'_, Step>) -> bool {
    let p = pct as f64 / 100.0;
    match fate {
        Some((fate, draw)) => fate.chance(draw, p),
        None => cx.rng().chance(p),
    }
}

pub async fn run(
    world: &mut LabWorld,
    step: NetStep,
    cx: &mut Cx<'_, Step>,
) -> Result<(), sqlx::Error> {
    match step {
        NetStep::Send { call, req } => send(world, call, req, cx),
        NetStep::LbReceive { call, req } => route(world, call, 1, req, cx),
        NetStep::LbTimeout { call, attempt, req } => lb_timeout(world, call, attempt, req, cx),
        NetStep::LbAnswer {
            call,
            attempt,
            key,
            reply,
        } => lb_answer(world, call, attempt, key, reply, cx),
        NetStep::Deliver { call, key, reply } => deliver(world, call, key, reply, cx),
        NetStep::CallerTimeout { call, key } => caller_timeout(world, call, key, cx),
    }
    Ok(())
}

/// The phone sends a request: its timeout starts, and the network loses it or carries it to
/// the load balancer.
fn send(world: &mut LabWorld, call: u64, req: Req, cx: &mut Cx<'_, Step>) {
    let key = Some(req.key.to_string());
    cx.record(
        Layer::App,
        EventKind::RequestSent,
        key.clone(),
        Outcome::Ok,
        json!({"call": call, "user": req.user, "to": req.body.to, "amount": req.body.amount,
               "intent": req.intent}),
    );
    let timeout = world.faults.phone_timeout_ms.get();
    cx.schedule_in(
        timeout,
        Step::Net(NetStep::CallerTimeout {
            call,
            key: req.key.to_string(),
        }),
    );
    let fate = req.fate.map(|f| (f, Draw::RequestLost));
    if lost(world.faults.request_loss_pct.get(), fate, cx) {
        cx.record(
            Layer::Network,
            EventKind::RequestLost,
            key,
            Outcome::Lost,
            json!({"call": call}),
        );
        // Nothing reached the load balancer, so it will never answer.
        if let Some(c) = world.net.calls.get_mut(&call) {
            c.lb_done = true;
        }
    } else {
        let latency = world.faults.latency_ms.get();
        cx.schedule_in(latency, Step::Net(NetStep::LbReceive { call, req }));
    }
}

/// An instance did not answer the load balancer in time: with another instance left, the
/// balancer retries there; else it gives up with a 504.
fn lb_timeout(world: &mut LabWorld, call: u64, attempt: u32, req: Req, cx: &mut Cx<'_, Step>) {
    let Some(c) = world.net.calls.get(&call) else {
        return;
    };
    if c.lb_done || c.lb_attempt != attempt {
        return;
    }
    if attempt < INSTANCES {
        cx.record(
            Layer::LoadBalancer,
            EventKind::LbRetried,
            Some(req.key.to_string()),
            Outcome::Ok,
            json!({"call": call, "attempt": attempt + 1, "after_ms": LB_UPSTREAM_TIMEOUT_MS}),
        );
        route(world, call, attempt + 1, req, cx);
    } else {
        let reply = ApiReply::problem(
            504,
            ProblemKind::UpstreamTimeout,
            "no payment API instance answered the load balancer in time",
        );
        cx.record(
            Layer::LoadBalancer,
            EventKind::LbGaveUp,
            Some(req.key.to_string()),
            Outcome::Unknown,
            json!({"call": call, "attempts": attempt}),
        );
        if let Some(c) = world.net.calls.get_mut(&call) {
            c.lb_done = true;
        }
        respond(world, call, req.key.to_string(), reply, cx);
    }
}

/// An instance answers the load balancer: passed on if the balancer still waits for this
/// attempt, dropped if it has moved on.
fn lb_answer(
    world: &mut LabWorld,
    call: u64,
    attempt: u32,
    key: String,
    reply: ApiReply,
    cx: &mut Cx<'_, Step>,
) {
    let waiting = world
        .net
        .calls
        .get_mut(&call)
        .filter(|c| !c.lb_done && c.lb_attempt == attempt);
    let Some(c) = waiting else {
        cx.record(
            Layer::LoadBalancer,
            EventKind::LbLateAnswerDropped,
            Some(key),
            Outcome::Lost,
            Facts::answered(reply.status).with(json!({"call": call, "attempt": attempt})),
        );
        return;
    };
    c.lb_done = true;
    respond(world, call, key, reply, cx);
}

/// An answer reaches the phone: in time, the caller gets it; after its timeout, it is too late.
fn deliver(world: &mut LabWorld, call: u64, key: String, reply: ApiReply, cx: &mut Cx<'_, Step>) {
    let waiting = world.net.calls.get_mut(&call).and_then(|c| c.reply.take());
    match waiting {
        Some(tx) => {
            cx.record(
                Layer::Network,
                EventKind::ResponseDelivered,
                Some(key),
                Outcome::Ok,
                Facts::answered(reply.status)
                    .with(json!({"call": call, "replayed": reply.replayed})),
            );
            let _ = tx.send(reply);
        }
        None => cx.record(
            Layer::Network,
            EventKind::ResponseTooLate,
            Some(key),
            Outcome::Lost,
            Facts::answered(reply.status).with(json!({"call": call})),
        ),
    }
    world.net.settle(call);
}

/// The phone stops waiting: a caller still waiting gets the 504 `no-response`.
fn caller_timeout(world: &mut LabWorld, call: u64, key: String, cx: &mut Cx<'_, Step>) {
    if let Some(tx) = world.net.calls.get_mut(&call).and_then(|c| c.reply.take()) {
        cx.record(
            Layer::App,
            EventKind::CallerTimedOut,
            Some(key),
            Outcome::Unknown,
            json!({"call": call, "after_ms": world.faults.phone_timeout_ms.get()}),
        );
        let _ = tx.send(ApiReply::no_response(
            "no answer came back in time: the transfer may or may not have happened",
            None,
        ));
    }
    world.net.settle(call);
}

/// The load balancer hands attempt `attempt` of a call to the next instance.
fn route(world: &mut LabWorld, call: u64, attempt: u32, req: Req, cx: &mut Cx<'_, Step>) {
    let previous = world
        .net
        .calls
        .get(&call)
        .map(|c| c.lb_instance)
        .unwrap_or(0);
    let mut instance = world.net.pick_instance();
    if instance == previous {
        instance = world.net.pick_instance();
    }
    if let Some(c) = world.net.calls.get_mut(&call) {
        c.lb_attempt = attempt;
        c.lb_instance = instance;
    }
    if attempt == 1 {
        cx.record(
            Layer::LoadBalancer,
            EventKind::LbRouted,
            Some(req.key.to_string()),
            Outcome::Ok,
            json!({"call": call, "instance": instance}),
        );
    }
    if world.faults.lb_retry {
        cx.schedule_in(
            LB_UPSTREAM_TIMEOUT_MS,
            Step::Net(NetStep::LbTimeout {
                call,
                attempt,
                req: req.clone(),
            }),
        );
    }
    cx.schedule_in(
        0,
        Step::Api(ApiStep::Receive(Attempt {
            call,
            attempt,
            instance,
            req,
        })),
    );
}

/// Sends an answer back across the network, where it may be lost.
fn respond(world: &mut LabWorld, call: u64, key: String, reply: ApiReply, cx: &mut Cx<'_, Step>) {
    let fate = world
        .net
        .calls
        .get(&call)
        .and_then(|c| c.fate)
        .map(|f| (f, Draw::AnswerLost));
    if lost(world.faults.response_loss_pct.get(), fate, cx) {
        cx.record(
            Layer::Network,
            EventKind::ResponseLost,
            Some(key),
            Outcome::Lost,
            Facts::answered(reply.status).with(json!({"call": call})),
        );
        world.net.settle(call);
    } else {
        cx.schedule_in(
            world.faults.latency_ms.get(),
            Step::Net(NetStep::Deliver { call, key, reply }),
        );
    }
}
