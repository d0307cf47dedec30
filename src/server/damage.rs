//! The damage meter, derived from the stores every time it is read: nothing is counted on the
//! side. Intents come from the lab store (ground truth no guard reads); debits from the
//! payment ledger; credits and SMS from the wallet and SMS stores; second approvals from the
//! fraud check's audit; answers replayed to another body from the payment API's note of them;
//! keys still IN_PROGRESS from the idempotency table. Each store is read once and every figure
//! is derived from those rows. Only whether a key can still finish needs the owner's memory
//! (the work it has queued and its settings): [`Claims`].

use std::collections::{HashMap, HashSet};

use super::payments::idempotency::{self, KeyStatus};
use super::store::{StoreName, Stores};
use crate::domain::pipeline::Consumer;
use crate::domain::Damage;

/// What the owner knows that the stores do not: whether a key IN_PROGRESS can still finish.
/// A claim finishes when its instance completes it, or when stuck-key recovery settles it
/// (a check is armed for every claim, at start-up and when the switch goes on); a claim older
/// than the window no longer holds its key. Anything else is stuck.
#[derive(Clone, Debug, Default)]
pub struct Claims {
    /// `stuck_recovery` is on: every key IN_PROGRESS will be settled.
    pub recovery: bool,
    /// Where the idempotency window starts now.
    pub window_start_ms: i64,
    /// (user, key) of every request an instance is still completing (its step is queued).
    pub completing: HashSet<(String, String)>,
}

/// Every figure of the meter: what the stores show ([`effects`]), and the keys stuck.
pub async fn measure(stores: &Stores, claims: &Claims) -> Result<Damage, sqlx::Error> {
    let mut damage = effects(stores).await?;
    damage.stuck_keys = stuck_keys(stores, claims).await?;
    Ok(damage)
}

/// Keys IN_PROGRESS inside the window that nothing will ever finish.
async fn stuck_keys(stores: &Stores, claims: &Claims) -> Result<i64, sqlx::Error> {
    if claims.recovery {
        return Ok(0);
    }
    let held = idempotency::held(
        &mut *stores.conn(StoreName::Payments).await?,
        KeyStatus::InProgress,
        claims.window_start_ms,
    )
    .await?;
    Ok(held
        .into_iter()
        .filter(|key| !claims.completing.contains(key))
        .count() as i64)
}

/// Rows beyond the first, summed over groups: the duplicates in a set of per-key counts.
fn beyond_first<'a>(counts: impl Iterator<Item = &'a i64>) -> i64 {
    counts.map(|n| n - 1).sum()
}

/// The figures the stores alone tell: every one but the stuck keys (which need [`Claims`]).
///
/// Reads best whole: one count per figure of the meter, each a query; split, the figures would be
/// in pieces.
pub async fn effects(stores: &Stores) -> Result<Damage, sqlx::Error> {
    let intents: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM intents")
        .fetch_one(&mut *stores.conn(StoreName::Lab).await?)
        .await?;
    // Which intent each debit came from, and how much it took.
    let debited: Vec<(String, String, i64)> =
        sqlx::query_as("SELECT transfer_id, lab_intent, -amount FROM ledger WHERE amount < 0")
            .fetch_all(&mut *stores.conn(StoreName::Payments).await?)
            .await?;
    let waiting = waiting(stores).await?;
    // (rows, amount) per transfer in the wallet's credits and the SMS service's messages.
    let per_transfer = |store: StoreName, sql: &'static str| async move {
        let rows: Vec<(String, i64, i64)> = sqlx::query_as(sql)
            .fetch_all(&mut *stores.conn(store).await?)
            .await?;
        Ok::<_, sqlx::Error>(
            rows.into_iter()
                .map(|(t, n, a)| (t, (n, a)))
                .collect::<HashMap<_, _>>(),
        )
    };
    let credited = per_transfer(
        StoreName::Wallet,
        "SELECT transfer_id, COUNT(*), SUM(amount) FROM credits GROUP BY transfer_id",
    )
    .await?;
    let texted = per_transfer(
        StoreName::Sms,
        "SELECT transfer_id, COUNT(*), 0 FROM sms GROUP BY transfer_id",
    )
    .await?;
    let approvals: Vec<i64> = sqlx::query_scalar("SELECT COUNT(*) FROM audit GROUP BY event_id")
        .fetch_all(&mut *stores.conn(StoreName::Fraud).await?)
        .await?;
    let wrong_replays =
        idempotency::wrong_replays(&mut *stores.conn(StoreName::Payments).await?).await?;

    let mut debits_per_intent: HashMap<&str, i64> = HashMap::new();
    let mut damaged: HashSet<&str> = HashSet::new();
    let mut lost_events = 0;
    let mut in_flight = 0;
    let mut money_in_flight = 0;
    for (transfer, intent, amount) in &debited {
        let n = debits_per_intent.entry(intent.as_str()).or_default();
        *n += 1;
        if *n > 1 {
            damaged.insert(intent);
        }
        let credits = credited.get(transfer).map_or(0, |(n, _)| *n);
        if credits > 1 || texted.get(transfer).is_some_and(|(n, _)| *n > 1) {
            damaged.insert(intent);
        }
        if credits == 0 {
            if waiting.contains(transfer) {
                in_flight += 1;
                money_in_flight += amount;
            } else {
                // Not credited and waiting nowhere: nothing can bring it now.
                lost_events += 1;
                damaged.insert(intent);
            }
        }
    }
    let debited_total: i64 = debited.iter().map(|(_, _, a)| a).sum();
    let credited_total: i64 = credited.values().map(|(_, a)| a).sum();
    Ok(Damage {
        intents,
        debits: debited.len() as i64,
        double_charges: beyond_first(debits_per_intent.values()),
        credits: credited.values().map(|(n, _)| n).sum(),
        double_credits: beyond_first(credited.values().map(|(n, _)| n)),
        sms: texted.values().map(|(n, _)| n).sum(),
        duplicate_sms: beyond_first(texted.values().map(|(n, _)| n)),
        lost_events,
        in_flight,
        money_in_flight,
        // Tithi's credits against Shimul's debits: positive when a duplicate credit made money,
        // negative when an event was lost (or is still on its way).
        money_created: credited_total - debited_total,
        support_tickets: damaged.len() as i64,
        duplicate_approvals: beyond_first(approvals.iter()),
        wrong_replays,
        stuck_keys: 0,
    })
}

/// The transfers whose event is still somewhere on its way to the wallet: an unsent outbox row,
/// a record of `transfers` at or past the fraud check's position, or an approved record (committed
/// or in a transaction still open) at or past the wallet's position. A record the fraud check read
/// whose approved copy never made it into the log is in none of these: it is lost.
async fn waiting(stores: &Stores) -> Result<HashSet<String>, sqlx::Error> {
    let mut waiting: HashSet<String> =
        sqlx::query_scalar("SELECT transfer_id FROM outbox WHERE sent_ms IS NULL")
            .fetch_all(&mut *stores.conn(StoreName::Payments).await?)
            .await?
            .into_iter()
            .collect();
    for consumer in [Consumer::Fraud, Consumer::Wallet] {
        let keys: Vec<String> = sqlx::query_scalar(
            "SELECT DISTINCT r.key FROM records r
             JOIN partitions p ON p.topic = r.topic AND p.partition = r.partition
             LEFT JOIN consumer_offsets c
               ON c.group_id = ?1 AND c.topic = r.topic AND c.partition = r.partition
             LEFT JOIN transactions t ON t.txn_id = r.txn_id
             WHERE r.topic = ?2 AND r.control IS NULL AND r.key IS NOT NULL
               AND COALESCE(t.state, 'COMMITTED') <> 'ABORTED'
               AND r.\"offset\" >= MAX(p.log_start_offset, COALESCE(c.committed_offset, 0))",
        )
        .bind(consumer.id())
        .bind(consumer.topic())
        .fetch_all(&mut *stores.conn(StoreName::Broker).await?)
        .await?;
        waiting.extend(keys);
    }
    Ok(waiting)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn duplicates_are_the_rows_beyond_the_first_of_each_group() {
        assert_eq!(beyond_first([1, 3, 1, 2].iter()), 3);
        assert_eq!(beyond_first(std::iter::empty()), 0);
    }
}
