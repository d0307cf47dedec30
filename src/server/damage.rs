//! The damage meter, derived from the stores every time it is read: nothing is counted on the
//! side. Intents come from the lab store (ground truth no guard reads); debits from the
//! payment ledger; credits and SMS from the wallet and SMS stores. Each store is read once and
//! every figure is derived from those rows.

use std::collections::{HashMap, HashSet};

use super::store::{StoreName, Stores};
use crate::domain::Damage;

/// Rows beyond the first, summed over groups: the duplicates in a set of per-key counts.
fn beyond_first<'a>(counts: impl Iterator<Item = &'a i64>) -> i64 {
    counts.map(|n| n - 1).sum()
}

pub async fn measure(stores: &Stores) -> Result<Damage, sqlx::Error> {
    let intents: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM intents")
        .fetch_one(stores.pool(StoreName::Lab))
        .await?;
    // Which intent each debit came from, and how much it took.
    let debited: Vec<(String, String, i64)> =
        sqlx::query_as("SELECT transfer_id, lab_intent, -amount FROM ledger WHERE amount < 0")
            .fetch_all(stores.pool(StoreName::Payments))
            .await?;
    let in_outbox: HashSet<String> = sqlx::query_scalar("SELECT transfer_id FROM outbox")
        .fetch_all(stores.pool(StoreName::Payments))
        .await?
        .into_iter()
        .collect();
    let in_log: HashSet<String> = sqlx::query_scalar(
        "SELECT DISTINCT key FROM records WHERE key IS NOT NULL AND control IS NULL",
    )
    .fetch_all(stores.pool(StoreName::Broker))
    .await?
    .into_iter()
    .collect();
    // (rows, amount) per transfer in the wallet's credits and the SMS service's messages.
    let per_transfer = |store: StoreName, sql: &'static str| async move {
        let rows: Vec<(String, i64, i64)> =
            sqlx::query_as(sql).fetch_all(stores.pool(store)).await?;
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

    let mut debits_per_intent: HashMap<&str, i64> = HashMap::new();
    let mut damaged: HashSet<&str> = HashSet::new();
    let mut lost_events = 0;
    for (transfer, intent, _) in &debited {
        let n = debits_per_intent.entry(intent.as_str()).or_default();
        *n += 1;
        if *n > 1 {
            damaged.insert(intent);
        }
        let credits = credited.get(transfer).map_or(0, |(n, _)| *n);
        if credits > 1 || texted.get(transfer).is_some_and(|(n, _)| *n > 1) {
            damaged.insert(intent);
        }
        // Never reached the outbox nor the log, and never credited: nothing can bring it now.
        if credits == 0 && !in_outbox.contains(transfer) && !in_log.contains(transfer) {
            lost_events += 1;
            damaged.insert(intent);
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
        // Tithi's credits against Shimul's debits: positive when a duplicate credit made money,
        // negative when an event was lost (or is still on its way).
        money_created: credited_total - debited_total,
        support_tickets: damaged.len() as i64,
    })
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
