//! Every kind of timeline event and the facts it carries, declared once: the [`events!`] table
//! gives [`EventKind`] (the `kind` the log, the stream and the tests name), [`Details`] (one
//! variant per kind, holding its facts as a type) and the reading of stored facts back; the
//! structs below are those facts. The server writes them as types, the timeline, the
//! explanations and the course's checks read them as types.
//!
//! On the wire (the event log's `details` column, the stream, `GET …/state`) an event's facts
//! are a JSON object with its keys in order, as they always were: [`Details::to_json`]. They are
//! read back by the kind stored beside them ([`Details::read`]). Both go field by field through
//! [`Fact`], by hand rather than by serde's derived code, which would cost the browser a reader
//! and a writer for every struct below.

use serde_json::{Map, Value};

use crate::domain::clock::ClockMode;
use crate::domain::natural::{Effect, NaturalOp};
use crate::domain::pipeline::Consumer;
use crate::domain::scenario::Variant;
use crate::domain::{CrashPoint, FaultsPatch, Safeguard, SafeguardsPatch};

/// One value among an event's facts, written to JSON and read back.
pub trait Fact: Sized {
    fn to_fact(&self) -> Value;
    fn from_fact(v: Value) -> Option<Self>;
    /// A stand-in while a struct is read, every field of it then read over it.
    fn blank() -> Self;
}

macro_rules! fact_numbers {
    ($($ty:ty: $as:ident),*) => {$(
        impl Fact for $ty {
            fn to_fact(&self) -> Value {
                Value::from(*self)
            }
            fn from_fact(v: Value) -> Option<Self> {
                v.$as().and_then(|n| n.try_into().ok())
            }
            fn blank() -> Self {
                0
            }
        }
    )*};
}
fact_numbers!(i64: as_i64, u64: as_u64, u32: as_u64, u16: as_u64, u8: as_u64);

impl Fact for f64 {
    fn to_fact(&self) -> Value {
        Value::from(*self)
    }
    fn from_fact(v: Value) -> Option<Self> {
        v.as_f64()
    }
    fn blank() -> Self {
        0.0
    }
}

impl Fact for bool {
    fn to_fact(&self) -> Value {
        Value::Bool(*self)
    }
    fn from_fact(v: Value) -> Option<Self> {
        v.as_bool()
    }
    fn blank() -> Self {
        false
    }
}

impl Fact for String {
    fn to_fact(&self) -> Value {
        Value::String(self.clone())
    }
    fn from_fact(v: Value) -> Option<Self> {
        match v {
            Value::String(s) => Some(s),
            _ => None,
        }
    }
    fn blank() -> Self {
        String::new()
    }
}

/// `null` when there is none.
impl<T: Fact> Fact for Option<T> {
    fn to_fact(&self) -> Value {
        self.as_ref().map_or(Value::Null, Fact::to_fact)
    }
    fn from_fact(v: Value) -> Option<Self> {
        match v {
            Value::Null => Some(None),
            v => T::from_fact(v).map(Some),
        }
    }
    fn blank() -> Self {
        None
    }
}

impl<T: Fact> Fact for Vec<T> {
    fn to_fact(&self) -> Value {
        Value::Array(self.iter().map(Fact::to_fact).collect())
    }
    fn from_fact(v: Value) -> Option<Self> {
        match v {
            Value::Array(items) => items.into_iter().map(T::from_fact).collect(),
            _ => None,
        }
    }
    fn blank() -> Self {
        Vec::new()
    }
}

impl<A: Fact, B: Fact> Fact for (A, B) {
    fn to_fact(&self) -> Value {
        Value::Array(vec![self.0.to_fact(), self.1.to_fact()])
    }
    fn from_fact(v: Value) -> Option<Self> {
        let Value::Array(items) = v else { return None };
        let [a, b]: [Value; 2] = items.try_into().ok()?;
        Some((A::from_fact(a)?, B::from_fact(b)?))
    }
    fn blank() -> Self {
        (A::blank(), B::blank())
    }
}

/// The lab's named things travel by their ids.
macro_rules! fact_ids {
    ($($ty:ty: $from:path, $blank:expr;)*) => {$(
        impl Fact for $ty {
            fn to_fact(&self) -> Value {
                Value::from(self.id())
            }
            fn from_fact(v: Value) -> Option<Self> {
                v.as_str().and_then($from)
            }
            fn blank() -> Self {
                $blank
            }
        }
    )*};
}
fact_ids!(
    Safeguard: Safeguard::from_id, Safeguard::IdempotencyTable;
    CrashPoint: CrashPoint::from_id, CrashPoint::ApiAfterClaim;
    Variant: Variant::from_id, Variant::Guarded;
    ClockMode: ClockMode::parse, ClockMode::Live;
    Consumer: Consumer::from_id, Consumer::Fraud;
    NaturalOp: NaturalOp::from_id, NaturalOp::SetName;
    Effect: Effect::from_id, Effect::Changed;
);

/// A field of a struct of facts, reached through a trait object: every struct then shares one
/// loop that writes its fields and one that reads them, instead of code of its own for each.
trait Slot {
    fn write(&self) -> Value;
    fn read(&mut self, v: Value) -> bool;
}

impl<T: Fact> Slot for T {
    fn write(&self) -> Value {
        self.to_fact()
    }
    fn read(&mut self, v: Value) -> bool {
        match T::from_fact(v) {
            Some(value) => {
                *self = value;
                true
            }
            None => false,
        }
    }
}

/// The object of these fields; one marked optional is left out when it is `null`.
fn write_fields(fields: &[(&str, &dyn Slot, bool)]) -> Value {
    let mut map = Map::new();
    for (name, slot, optional) in fields {
        let v = slot.write();
        if !(*optional && v.is_null()) {
            map.insert((*name).to_owned(), v);
        }
    }
    Value::Object(map)
}

/// Reads each field from the object (absent reads as `null`), or names the first that does not
/// fit.
fn read_fields(
    map: &mut Map<String, Value>,
    fields: &mut [(&'static str, &mut dyn Slot)],
) -> Result<(), &'static str> {
    for (name, slot) in fields {
        if !slot.read(map.remove(*name).unwrap_or(Value::Null)) {
            return Err(name);
        }
    }
    Ok(())
}

/// An event's facts as one JSON object, written and read back; a read that fails names the
/// field.
pub trait FactsObject: Sized {
    fn to_json(&self) -> Value;
    fn read(map: &mut Map<String, Value>) -> Result<Self, &'static str>;
}

/// Declares the event kinds: each with its words for the code (the doc) and the type of its
/// facts.
macro_rules! events {
    ($(
        $(#[$doc:meta])*
        $kind:ident($facts:ty)
    ),* $(,)?) => {
        /// What kind of thing happened (docs/reference.md §9). Declared with its facts in
        /// [`events!`], so the timeline, the tests and the event store share one list.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
        #[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
        #[serde(rename_all = "snake_case")]
        pub enum EventKind {
            $($(#[$doc])* $kind,)*
        }

        impl EventKind {
            /// Every kind, in the table's order.
            pub const ALL: &[EventKind] = &[$(EventKind::$kind,)*];
        }

        /// An event's facts, by its kind.
        #[derive(Clone, Debug, PartialEq)]
        pub enum Details {
            $($kind($facts),)*
        }

        impl Details {
            /// The kind these facts belong to.
            pub fn kind(&self) -> EventKind {
                match self {
                    $(Details::$kind(_) => EventKind::$kind,)*
                }
            }

            /// The facts as stored and sent: a JSON object, keys in order.
            pub fn to_json(&self) -> Value {
                match self {
                    $(Details::$kind(f) => f.to_json(),)*
                }
            }

            /// Reads the stored facts of an event of this kind, or says what does not fit.
            pub fn read(kind: EventKind, value: Value) -> Result<Details, String> {
                let Value::Object(mut map) = value else {
                    return Err("an event's details are an object".to_owned());
                };
                let read = match kind {
                    $(EventKind::$kind => FactsObject::read(&mut map).map(Details::$kind),)*
                };
                read.map_err(|field| format!("{field}: not what a {kind:?} event holds"))
            }
        }
    };
}

/// Declares a struct of facts: its fields, then after `;` those left out when they have no
/// value (each an `Option`).
macro_rules! facts {
    ($(
        $(#[$doc:meta])*
        $name:ident {
            $($field:ident: $ty:ty),* $(,)?
            $(; $($opt:ident: $oty:ty),* $(,)?)?
        }
    )*) => {$(
        $(#[$doc])*
        #[derive(Clone, Debug, PartialEq)]
        pub struct $name {
            $(pub $field: $ty,)*
            $($(pub $opt: Option<$oty>,)*)?
        }

        impl FactsObject for $name {
            fn to_json(&self) -> Value {
                write_fields(&[
                    $((stringify!($field), &self.$field as &dyn Slot, false),)*
                    $($((stringify!($opt), &self.$opt as &dyn Slot, true),)*)?
                ])
            }

            #[allow(unused_mut)]
            fn read(map: &mut Map<String, Value>) -> Result<Self, &'static str> {
                let mut facts = $name {
                    $($field: Fact::blank(),)*
                    $($($opt: None,)*)?
                };
                read_fields(map, &mut [
                    $((stringify!($field), &mut facts.$field as &mut dyn Slot),)*
                    $($((stringify!($opt), &mut facts.$opt as &mut dyn Slot),)*)?
                ])?;
                Ok(facts)
            }
        }
    )*};
}

/// A settings change's facts are the change itself, as the body that asked for it.
macro_rules! whole {
    ($($ty:ty),*) => {$(
        impl FactsObject for $ty {
            fn to_json(&self) -> Value {
                serde_json::to_value(self).expect("a change serialises")
            }
            fn read(map: &mut Map<String, Value>) -> Result<Self, &'static str> {
                serde_json::from_value(Value::Object(std::mem::take(map))).map_err(|_| "the change")
            }
        }
    )*};
}
whole!(SafeguardsPatch, FaultsPatch);

impl Fact for InboxRows {
    fn to_fact(&self) -> Value {
        write_fields(&[("sms", &self.sms, false), ("wallet", &self.wallet, false)])
    }
    fn from_fact(v: Value) -> Option<Self> {
        Some(InboxRows {
            sms: v.get("sms")?.as_u64()?,
            wallet: v.get("wallet")?.as_u64()?,
        })
    }
    fn blank() -> Self {
        InboxRows { sms: 0, wallet: 0 }
    }
}

events! {
    /// The sandbox was made, with its seed.
    SandboxCreated(Seeded),
    /// The sandbox went back to the lesson's start.
    SandboxReset(Seeded),
    /// A scenario's preset was loaded (`POST …/scenario/{n}`): the sandbox was reset and set up.
    ScenarioLoaded(ScenarioLoaded),
    /// The instructor changed safeguards (the new settings of those changed).
    SafeguardsChanged(SafeguardsPatch),
    /// The instructor changed faults (what changed).
    FaultsChanged(FaultsPatch),
    /// The clock was paused, resumed or given a new speed.
    ClockChanged(ClockChanged),
    /// One scheduled step was run by hand.
    ClockStepped(ClockMoved),
    /// The clock jumped ahead, running everything due on the way.
    ClockJumped(ClockMoved),
    /// The inbox cleaner deleted inbox rows older than the inbox window.
    InboxCleaned(InboxCleaned),
    /// The log retention cleaner deleted records older than the retention and moved the log start.
    LogRetentionApplied(LogRetentionApplied),

    // The payment path: caller, network, load balancer, API instance, ledger.
    /// The caller sent a transfer request.
    RequestSent(RequestSent),
    /// The network lost the request on its way in.
    RequestLost(Call),
    /// The load balancer passed the request to an instance.
    LbRouted(LbRouted),
    /// The load balancer gave up waiting on an instance and sent the request to another one.
    LbRetried(LbRetried),
    /// The load balancer gave up for good and answered 504.
    LbGaveUp(LbGaveUp),
    /// An instance answered after the load balancer stopped waiting for it; the answer is dropped.
    LbLateAnswerDropped(LbLateAnswerDropped),
    /// The API claimed the key: an IN_PROGRESS row committed before the work.
    KeyClaimed(KeyClaimed),
    /// Look-then-write: the look-up found no row (the write comes after the work).
    KeyLookupEmpty(KeyLookupEmpty),
    /// The idempotency table is off: the API runs every request it gets.
    KeyNotChecked(KeyNotChecked),
    /// The key is in progress: 409.
    KeyInProgress(KeyInProgress),
    /// The key is completed: the stored response is replayed.
    ResponseReplayed(ResponseReplayed),
    /// The key came with another body: 422.
    KeyReused(Refused),
    /// Money left the sender's account (escaped when the intent was already debited).
    Debited(Debited),
    /// The ledger's UNIQUE(transfer_id) refused a second debit.
    LedgerDuplicate(LedgerDuplicate),
    /// Not enough money: 422, stored like a success.
    InsufficientFunds(InsufficientFunds),
    /// An API instance died at a crash point; its work in flight is gone.
    InstanceCrashed(InstanceCrashed),
    /// The network lost the response on its way out.
    ResponseLost(Answered),
    /// The response reached the caller.
    ResponseDelivered(ResponseDelivered),
    /// The response arrived after the caller had given up.
    ResponseTooLate(Answered),
    /// The caller's timeout ran out: it cannot know what happened.
    CallerTimedOut(CallerTimedOut),
    /// Recovery found a stuck IN_PROGRESS key whose debit is in the ledger and completed it.
    StuckKeyCompleted(StuckKeyCompleted),
    /// Recovery found a stuck IN_PROGRESS key with no debit and released it for a retry.
    StuckKeyReleased(StuckKeyReleased),
    /// The nightly job dropped whole daily partitions older than the window.
    PartitionsDropped(PartitionsDropped),

    // The event pipeline: outbox, relay, broker, fraud check, wallet, SMS.
    /// The TransferDone event was written to the outbox in the debit's transaction.
    OutboxWritten(OutboxWritten),
    /// The event was published to the log (by the relay, or by the API itself in a dual write).
    EventPublished(EventPublished),
    /// The event of a committed debit was never published: the process died before it.
    EventLost(EventLost),
    /// The relay died after publishing and before marking the row sent.
    RelayCrashed(RelayCrashed),
    /// The broker appended a record.
    RecordAppended(RecordAppended),
    /// The broker's acknowledgement was lost; the producer sends the batch again.
    AckLost(AckLost),
    /// The idempotent producer's resend was recognised and not appended again.
    ResendDropped(ResendDropped),
    /// A resend was appended a second time (no idempotent producer).
    ResendAppended(AckLost),
    /// The fraud check approved a transfer (and wrote its audit row).
    FraudApproved(FraudApproved),
    /// The fraud check died after writing and before committing.
    FraudCrashed(ConsumerCrashed),
    /// A transaction left open by a dead instance was aborted when its successor started.
    TransactionAborted(TransactionAborted),
    /// The wallet credited the recipient.
    Credited(Applied),
    /// The SMS service sent the "money received" message.
    SmsSent(Applied),
    /// An inbox recognised an event it had already applied.
    InboxDuplicate(InboxDuplicate),
    /// A consumer died after its local commit and before committing its offset.
    ConsumerCrashed(ConsumerCrashed),
    /// The instructor rewound a consumer group by time.
    ReplayStarted(ReplayStarted),

    // Scenario 7, natural idempotency.
    /// A copy of a SET, an INCREMENT or a keyed INSERT reached the payment API and ran.
    NaturalApplied(NaturalApplied),
    /// A copy of one of those was lost on the network.
    NaturalLost(NaturalLost),

    // Scenario 8, the Two Generals.
    /// A messenger crossed the valley, or was caught (`lost`).
    GeneralsTrip(GeneralsTrip),

    // Shimul's phone, as the app reports it.
    /// A tap on Send that the app acted on.
    Tapped(NoFacts),
    /// A tap the guarded button let fall: a double tap, or a tap while a request is out.
    TapIgnored(NoFacts),
    /// The app made a new Idempotency-Key at the confirm tap.
    KeyMade(NoFacts),
    /// The app sent its kept key again: a retry that looks like the same attempt.
    KeyKept(NoFacts),
}

facts! {
    /// Nothing beyond the event's kind, lane and key.
    NoFacts {}
    /// The seed the sandbox starts from.
    Seeded { seed: u64 }
    ScenarioLoaded { n: u8, variant: Variant }
    /// A pause (`mode`), a resume (`mode` and `speed`) or a new speed (`speed`).
    ClockChanged { ; mode: ClockMode, speed: f64 }
    /// Where a step or a jump took the clock from and to.
    ClockMoved { from_ms: i64, to_ms: i64 }
    InboxCleaned { window_hours: i64, cutoff_ms: i64, deleted: InboxRows }
    LogRetentionApplied { deleted: u64, partitions_moved: u64 }

    RequestSent { call: u64, user: String, to: String, amount: i64, intent: String }
    /// The network's number for one request and its answer.
    Call { call: u64 }
    LbRouted { call: u64, instance: u32 }
    LbRetried { call: u64, attempt: u32, after_ms: i64 }
    LbGaveUp { call: u64, attempts: u32 }
    LbLateAnswerDropped { call: u64, attempt: u32, status: u16 }
    /// An answer on its way back, and its status.
    Answered { call: u64, status: u16 }
    ResponseDelivered { call: u64, replayed: bool, status: u16 }
    CallerTimedOut { call: u64, after_ms: i64 }

    KeyNotChecked { instance: u32, attempt: u32, call: u64, idempotency_table: bool }
    KeyClaimed { instance: u32, attempt: u32, call: u64, partition_day: i64 }
    KeyLookupEmpty { instance: u32, attempt: u32, call: u64, atomic_claim: bool }
    /// A 409. Caught by the atomic claim while the key can still finish; else a stuck key,
    /// and the guard that would finish it.
    KeyInProgress {
        instance: u32, attempt: u32, call: u64, status: u16;
        guard: Safeguard, stuck: bool, would_finish: Vec<Safeguard>
    }
    /// A stored answer sent again: caught by the table, or another body's (the fingerprint
    /// off), which is damage.
    ResponseReplayed {
        instance: u32, attempt: u32, call: u64, status: u16;
        guard: Safeguard, other_body: bool, damage: String, would_catch: Vec<Safeguard>
    }
    /// A request a guard refused, and the status it answered.
    Refused { instance: u32, attempt: u32, call: u64, guard: Safeguard, status: u16 }
    /// A debit; `damage` and the guards that would have caught it when it is a double charge.
    Debited {
        txn: String, amount: i64, balance: i64, transfer_id: String, instance: u32,
        damage: Option<String>;
        would_catch: Vec<Safeguard>
    }
    LedgerDuplicate { guard: Safeguard, transfer_id: String, instance: u32 }
    InsufficientFunds { balance: i64, amount: i64, instance: u32 }
    /// The crash point, and the call when the instance died with one in hand.
    InstanceCrashed { instance: u32, attempt: u32, crash: CrashPoint; call: u64 }
    StuckKeyCompleted { txn: String, claimed_ms: i64 }
    StuckKeyReleased { claimed_ms: i64 }
    PartitionsDropped { days: Vec<i64>, rows: u64, window_hours: i64 }

    OutboxWritten { event_id: String, transfer_id: String }
    /// Who published (`api` in a dual write, else `relay`) and where.
    EventPublished { by: String, transfer_id: String; dual_write: bool, offset: i64 }
    EventLost { event_id: String, transfer_id: String, dual_write: bool }
    RelayCrashed { crash: CrashPoint, restarts_in_ms: i64, unmarked: u64 }
    RecordAppended {
        topic: String, partition: i64, offset: i64, producer: i64, sequence: Option<i64>,
        transactional: bool,
    }
    /// Where a record sits: its acknowledgement lost, or a resend appended again.
    AckLost { topic: String, partition: i64, offset: i64 }
    ResendDropped { guard: Safeguard, topic: String, offset: i64 }
    FraudApproved { offset: i64, transactional: bool, audit_rows: u64, transfer_id: String }
    /// A consumer that died before committing: its crash point, its restart, the batch lost.
    ConsumerCrashed { crash: CrashPoint, restarts_in_ms: i64, uncommitted: u64 }
    TransactionAborted { guard: Safeguard, transactional_id: String, epoch: i64 }
    /// A credit or an SMS, `times` the times this event was applied; beyond the first, the
    /// guards that would have caught it.
    Applied {
        amount: i64, to: String, offset: i64, times: u64, transfer_id: String;
        would_catch: Vec<Safeguard>
    }
    InboxDuplicate { guard: Safeguard, offset: i64, transfer_id: String }
    ReplayStarted { consumer: Consumer, from_ms: i64, offsets: Vec<(i64, i64)> }

    NaturalApplied { op: NaturalOp, copy: i64, effect: Effect, transfer_id: String }
    NaturalLost { op: NaturalOp, copy: i64 }
    /// Which messenger (`n`) and which camp it left (`a` or `b`).
    GeneralsTrip { n: i64, from: String }
}

/// Rows deleted per inbox.
#[derive(Clone, Debug, PartialEq)]
pub struct InboxRows {
    pub sms: u64,
    pub wallet: u64,
}

/// The facts of an event that something reads back the same way whatever its kind: the
/// safeguard that caught it, the crash point that fired, the HTTP status answered, the guards
/// that would have caught an escape.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Facts {
    pub guard: Option<Safeguard>,
    pub crash: Option<CrashPoint>,
    pub status: Option<u16>,
    pub would_catch: Vec<Safeguard>,
}

impl Details {
    /// The facts every reader may ask of any event.
    pub fn facts(&self) -> Facts {
        let mut f = Facts::default();
        match self {
            Details::KeyInProgress(d) => (f.guard, f.status) = (d.guard, Some(d.status)),
            Details::ResponseReplayed(d) => {
                (f.guard, f.status) = (d.guard, Some(d.status));
                f.would_catch = d.would_catch.clone().unwrap_or_default();
            }
            Details::KeyReused(d) => (f.guard, f.status) = (Some(d.guard), Some(d.status)),
            Details::LbLateAnswerDropped(d) => f.status = Some(d.status),
            Details::ResponseLost(d) | Details::ResponseTooLate(d) => f.status = Some(d.status),
            Details::ResponseDelivered(d) => f.status = Some(d.status),
            Details::Debited(d) => f.would_catch = d.would_catch.clone().unwrap_or_default(),
            Details::LedgerDuplicate(d) => f.guard = Some(d.guard),
            Details::InstanceCrashed(d) => f.crash = Some(d.crash),
            Details::RelayCrashed(d) => f.crash = Some(d.crash),
            Details::FraudCrashed(d) | Details::ConsumerCrashed(d) => f.crash = Some(d.crash),
            Details::ResendDropped(d) => f.guard = Some(d.guard),
            Details::TransactionAborted(d) => f.guard = Some(d.guard),
            Details::Credited(d) | Details::SmsSent(d) => {
                f.would_catch = d.would_catch.clone().unwrap_or_default()
            }
            Details::InboxDuplicate(d) => f.guard = Some(d.guard),
            _ => {}
        }
        f
    }

    /// The transfer and outbox event ids the facts name, which tie an event to its chain.
    pub fn ids(&self) -> (Option<&str>, Option<&str>) {
        match self {
            Details::OutboxWritten(d) => (Some(&d.event_id), Some(&d.transfer_id)),
            Details::EventLost(d) => (Some(&d.event_id), Some(&d.transfer_id)),
            Details::Debited(d) => (None, Some(&d.transfer_id)),
            Details::LedgerDuplicate(d) => (None, Some(&d.transfer_id)),
            Details::EventPublished(d) => (None, Some(&d.transfer_id)),
            Details::FraudApproved(d) => (None, Some(&d.transfer_id)),
            Details::Credited(d) | Details::SmsSent(d) => (None, Some(&d.transfer_id)),
            Details::InboxDuplicate(d) => (None, Some(&d.transfer_id)),
            Details::NaturalApplied(d) => (None, Some(&d.transfer_id)),
            _ => (None, None),
        }
    }
}

#[cfg(test)]
impl Details {
    /// Facts of this kind with made-up values, `over` written over them: for tests that care
    /// about a kind, an outcome and a few facts.
    pub fn example(kind: EventKind, over: Value) -> Details {
        let mut all = serde_json::json!({
            "seed": 1, "n": 1, "variant": "guarded", "from_ms": 0, "to_ms": 0,
            "window_hours": 24, "cutoff_ms": 0, "deleted": {"sms": 0, "wallet": 0},
            "partitions_moved": 0, "call": 1, "user": "shimul", "to": "tithi", "amount": 500,
            "intent": "i", "instance": 1, "attempt": 1, "after_ms": 0, "attempts": 1,
            "status": 201, "replayed": false, "idempotency_table": false, "partition_day": 0,
            "atomic_claim": false, "guard": "idempotency_table", "txn": "TXN-1", "balance": 0,
            "transfer_id": "t-1", "crash": "api_after_claim", "claimed_ms": 0, "days": [],
            "rows": 0, "event_id": "e-1", "by": "relay", "dual_write": false, "unmarked": 0, "topic": "transfers",
            "partition": 0, "offset": 0, "producer": 1, "transactional": false, "epoch": 0,
            "transactional_id": "fraud-check", "audit_rows": 1, "restarts_in_ms": 0,
            "uncommitted": 1, "times": 1, "consumer": "wallet", "offsets": [], "op": "add",
            "copy": 1, "effect": "changed", "from": "a",
        });
        if matches!(
            kind,
            EventKind::SafeguardsChanged | EventKind::FaultsChanged
        ) {
            all = serde_json::json!({});
        }
        if kind == EventKind::LogRetentionApplied {
            all["deleted"] = 0.into();
        }
        if let (Some(all), Value::Object(over)) = (all.as_object_mut(), over) {
            all.extend(over);
        }
        Details::read(kind, all).unwrap_or_else(|e| panic!("an example of {kind:?}: {e}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_has_an_example() {
        for &kind in EventKind::ALL {
            assert_eq!(Details::example(kind, Value::Null).kind(), kind);
        }
    }
}
