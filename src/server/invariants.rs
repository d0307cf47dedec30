//! What must hold between any two steps of a sandbox, whatever the faults did: the lab's own
//! "nothing lost, nothing twice", checked the way a seeded simulator checks itself.
//!
//! The owner runs [`check`] after every step when [`every_step`] says so (debug and test builds,
//! or `LAB_CHECK_INVARIANTS=1`), and stops the whole process on a breach so no test can pass
//! over one; `GET /api/sandboxes/{id}/check` runs it on demand in any build. The promises that
//! depend on safeguards hold only while those safeguards have been on since the last reset
//! ([`Promises`]): a lesson that switched a guard off may leave damage behind on purpose.

use std::sync::OnceLock;

use serde::Serialize;
use sqlx::SqliteConnection;

use super::store::{StoreName, Stores};
use crate::domain::pipeline::{Consumer, APPROVED_TOPIC};
use crate::domain::{Promise, Safeguard, SafeguardValue, Safeguards};
use crate::server::payments::idempotency::KeyStatus;
use crate::server::store::LOG_RETENTION_MS;

/// What must hold, each named as `GET …/check` names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum Invariant {
    /// A key marked completed has its stored answer.
    CompletedKeysHaveAnswers,
    /// No ledger row leaves a balance below zero.
    NoNegativeBalance,
    /// Each partition holds every offset from its log start to its end, once.
    OffsetsContiguous,
    /// No consumer group has committed past the end of the log.
    CommittedOffsetsWithinTheLog,
    /// A read-committed consumer never reads past the last stable offset.
    ReadCommittedStopsAtTheLso,
    /// No intent is debited twice (while its safeguards have held).
    OneDebitPerIntent,
    /// Once nothing is in flight, Tithi has gained what Shimul lost (while its safeguards have
    /// held).
    MoneyConserved,
}

impl std::fmt::Display for Invariant {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match serde_json::to_value(self) {
            Ok(serde_json::Value::String(name)) => f.write_str(&name),
            _ => write!(f, "{self:?}"),
        }
    }
}

/// One invariant that did not hold, and what was seen.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct Violation {
    /// The invariant, one of [`Report::checked`].
    pub invariant: Invariant,
    pub detail: String,
}

impl std::fmt::Display for Violation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.invariant, self.detail)
    }
}

/// The answer of `GET …/check`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct Report {
    /// No violation.
    pub ok: bool,
    /// Every invariant that was checked this time (the conditional ones only while their
    /// safeguards have held since the last reset).
    pub checked: Vec<Invariant>,
    pub violations: Vec<Violation>,
}

/// Which safeguard-dependent promises the sandbox can be held to: each is true while the
/// safeguards it rests on have been on (and the windows long enough) ever since the last reset.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Promises {
    /// The app keeps one key per transfer and the ledger refuses a second debit for it: no
    /// intent is debited twice.
    pub one_debit_per_intent: bool,
    /// Outbox, transactions, wallet inbox and an inbox window as long as the log's retention:
    /// once nothing is in flight, Tithi has gained exactly what Shimul lost.
    pub money_conserved: bool,
}

impl Promises {
    /// The promises the lesson's start makes (every safeguard on).
    pub fn all() -> Promises {
        Promises {
            one_debit_per_intent: true,
            money_conserved: true,
        }
    }

    /// What is left of them once the safeguards are `now`: a promise broken once stays broken
    /// until the next reset, since the damage it allowed is still in the stores.
    /// Which safeguards a promise rests on is the safeguards' own table's to say
    /// (domain/safeguard.rs, `Safeguard::promise`): a switch must be on, a window at least as
    /// long as the log's retention (an inbox that forgets sooner lets a replay through).
    pub fn after(self, now: &Safeguards) -> Promises {
        let holds = |promise| {
            Safeguard::ALL
                .into_iter()
                .filter(|s| s.promise() == Some(promise))
                .all(|s| match now.get(s) {
                    SafeguardValue::On(on) => on,
                    SafeguardValue::Hours(h) => h * 3_600_000 >= LOG_RETENTION_MS,
                })
        };
        Promises {
            one_debit_per_intent: self.one_debit_per_intent && holds(Promise::OneDebitPerIntent),
            money_conserved: self.money_conserved && holds(Promise::MoneyConserved),
        }
    }
}

/// Whether the owner checks after every step: `LAB_CHECK_INVARIANTS` (1 or 0), by default on in
/// debug builds (and so in every test) and off in release builds.
pub fn every_step() -> bool {
    static EVERY_STEP: OnceLock<bool> = OnceLock::new();
    *EVERY_STEP.get_or_init(|| match std::env::var("LAB_CHECK_INVARIANTS").as_deref() {
        Ok("1") | Ok("true") => true,
        Ok("0") | Ok("false") => false,
        _ => cfg!(debug_assertions),
    })
}

/// Checks every invariant on the stores as they stand now (between two steps).
pub async fn check(stores: &Stores, promises: Promises) -> Result<Report, sqlx::Error> {
    let mut f = Findings::default();
    {
        let mut payments = stores.conn(StoreName::Payments).await?;
        let mut broker = stores.conn(StoreName::Broker).await?;
        keys_and_balances(&mut payments, &mut f).await?;
        broker_log(&mut broker, &mut f).await?;
        if promises.one_debit_per_intent {
            one_debit_per_intent(&mut payments, &mut f).await?;
        }
    }
    // The damage meter reads the stores itself.
    if promises.money_conserved {
        money_conserved(stores, &mut f).await?;
    }
    Ok(Report {
        ok: f.violations.is_empty(),
        checked: f.checked,
        violations: f.violations,
    })
}

/// What [`check`] looked at, and what did not hold.
#[derive(Default)]
struct Findings {
    checked: Vec<Invariant>,
    violations: Vec<Violation>,
}

impl Findings {
    fn fail(&mut self, invariant: Invariant, detail: String) {
        self.violations.push(Violation { invariant, detail });
    }
}

/// Completed keys have their answers; no balance below zero.
async fn keys_and_balances(
    payments: &mut SqliteConnection,
    f: &mut Findings,
) -> Result<(), sqlx::Error> {
    f.checked.push(Invariant::CompletedKeysHaveAnswers);
    let unanswered: Vec<String> = sqlx::query_scalar(
        "SELECT idem_key FROM idempotency_keys WHERE status = ?1
         AND (response_status IS NULL OR response_body IS NULL) LIMIT 5",
    )
    .bind(KeyStatus::Completed)
    .fetch_all(&mut *payments)
    .await?;
    if !unanswered.is_empty() {
        f.fail(
            Invariant::CompletedKeysHaveAnswers,
            format!("COMPLETED without a stored answer: {unanswered:?}"),
        );
    }

    f.checked.push(Invariant::NoNegativeBalance);
    let negative: Vec<(String, i64)> =
        sqlx::query_as("SELECT user_id, balance_after FROM ledger WHERE balance_after < 0 LIMIT 5")
            .fetch_all(&mut *payments)
            .await?;
    if !negative.is_empty() {
        f.fail(
            Invariant::NoNegativeBalance,
            format!("ledger rows below zero: {negative:?}"),
        );
    }
    Ok(())
}

/// The broker's log: whole partitions, committed offsets inside them, read-committed
/// consumers before the last stable offset.
async fn broker_log(broker: &mut SqliteConnection, f: &mut Findings) -> Result<(), sqlx::Error> {
    f.checked.push(Invariant::OffsetsContiguous);
    /// Topic, partition, log start, next offset, and the records' count, lowest and highest.
    type PartitionRow = (String, i64, i64, i64, i64, Option<i64>, Option<i64>);
    let partitions: Vec<PartitionRow> = sqlx::query_as(
        "SELECT p.topic, p.partition, p.log_start_offset, p.next_offset,
                COUNT(r.\"offset\"), MIN(r.\"offset\"), MAX(r.\"offset\")
         FROM partitions p
         LEFT JOIN records r ON r.topic = p.topic AND r.partition = p.partition
         GROUP BY p.topic, p.partition ORDER BY p.topic, p.partition",
    )
    .fetch_all(&mut *broker)
    .await?;
    for (topic, partition, start, next, count, min, max) in &partitions {
        let whole = *count == next - start
            && (*count == 0 || (*min == Some(*start) && *max == Some(next - 1)));
        if !whole {
            f.fail(
                Invariant::OffsetsContiguous,
                format!(
                    "{topic}/{partition}: log start {start}, next {next}, but {count} records \
                     from {min:?} to {max:?}"
                ),
            );
        }
    }

    f.checked.push(Invariant::CommittedOffsetsWithinTheLog);
    let offsets: Vec<(String, String, i64, i64, i64)> = sqlx::query_as(
        "SELECT c.group_id, c.topic, c.partition, c.committed_offset, p.next_offset
         FROM consumer_offsets c
         JOIN partitions p ON p.topic = c.topic AND p.partition = c.partition",
    )
    .fetch_all(&mut *broker)
    .await?;
    for (group, topic, partition, committed, next) in &offsets {
        if *committed < 0 || committed > next {
            f.fail(
                Invariant::CommittedOffsetsWithinTheLog,
                format!("{group} on {topic}/{partition} at {committed}, log ends at {next}"),
            );
        }
    }

    f.checked.push(Invariant::ReadCommittedStopsAtTheLso);
    let conn = &mut *broker;
    for consumer in [Consumer::Wallet, Consumer::Sms] {
        for partition in 0..super::broker::partitions(conn, APPROVED_TOPIC)
            .await?
            .unwrap_or(0)
        {
            let at =
                super::broker::position(conn, consumer.id(), APPROVED_TOPIC, partition).await?;
            let lso = super::broker::last_stable_offset(conn, APPROVED_TOPIC, partition).await?;
            if at > lso {
                f.fail(
                    Invariant::ReadCommittedStopsAtTheLso,
                    format!(
                        "{} is at {at} on {APPROVED_TOPIC}/{partition}, past the last stable \
                         offset {lso}",
                        consumer.id()
                    ),
                );
            }
        }
    }
    Ok(())
}

/// No intent debited twice (while its safeguards have held).
async fn one_debit_per_intent(
    payments: &mut SqliteConnection,
    f: &mut Findings,
) -> Result<(), sqlx::Error> {
    f.checked.push(Invariant::OneDebitPerIntent);
    let twice: Vec<(String, i64)> = sqlx::query_as(
        "SELECT lab_intent, COUNT(*) FROM ledger WHERE amount < 0
         GROUP BY lab_intent HAVING COUNT(*) > 1 LIMIT 5",
    )
    .fetch_all(&mut *payments)
    .await?;
    if !twice.is_empty() {
        f.fail(
            Invariant::OneDebitPerIntent,
            format!("intents debited more than once: {twice:?}"),
        );
    }
    Ok(())
}

/// Once nothing is in flight, no money made or lost (while its safeguards have held).
async fn money_conserved(stores: &Stores, f: &mut Findings) -> Result<(), sqlx::Error> {
    let damage = super::damage::effects(stores).await?;
    if damage.in_flight == 0 {
        f.checked.push(Invariant::MoneyConserved);
        if damage.money_created != 0 || damage.lost_events != 0 || damage.double_credits != 0 {
            f.fail(
                Invariant::MoneyConserved,
                format!(
                    "nothing in flight, yet money created {} (lost events {}, double \
                     credits {})",
                    damage.money_created, damage.lost_events, damage.double_credits
                ),
            );
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_promise_broken_once_stays_broken_until_a_reset() {
        let p = Promises::all().after(&Safeguards::default());
        assert_eq!(p, Promises::all());
        let guards = Safeguards::default().apply(
            &crate::domain::typed::read_body(&serde_json::json!({"ledger_unique": false})).unwrap(),
        );
        let broken = p.after(&guards);
        assert!(!broken.one_debit_per_intent);
        assert!(broken.money_conserved);
        // Switched back on: the damage may still be there, so the promise is not made again.
        let back = Safeguards::default();
        assert!(!broken.after(&back).one_debit_per_intent);
        assert_eq!(Promises::all().after(&back), Promises::all());
    }

    #[test]
    fn a_short_inbox_window_breaks_the_money_promise() {
        let guards = Safeguards::default().apply(
            &crate::domain::typed::read_body(&serde_json::json!({"inbox_window_hours": 24}))
                .unwrap(),
        );
        let p = Promises::all().after(&guards);
        assert!(!p.money_conserved);
        assert!(p.one_debit_per_intent);
    }
}
