//! The damage meter, derived from the stores every time it is read: nothing is counted on the
//! side. Intents come from the lab store (ground truth no guard reads); debits from the
//! payment ledger; credits and SMS from the wallet and SMS stores.

use std::collections::{HashMap, HashSet};

use super::store::{StoreName, Stores};
use crate::domain::Damage;

pub async fn measure(stores: &Stores) -> Result<Damage, sqlx::Error> {
    let count = |store: StoreName, sql: &'static str| async move {
        sqlx::query_scalar::<_, i64>(sql)
            .fetch_one(stores.pool(store))
            .await
    };
    let intents = count(StoreName::Lab, "SELECT COUNT(*) FROM intents").await?;
    let debits = count(
        StoreName::Payments,
        "SELECT COUNT(*) FROM ledger WHERE amount < 0",
    )
    .await?;
    // Debits beyond the first for one intent.
    let double_charges = count(
        StoreName::Payments,
        "SELECT COALESCE(SUM(n - 1), 0) FROM
           (SELECT COUNT(*) AS n FROM ledger WHERE amount < 0 GROUP BY lab_intent)",
    )
    .await?;
    let credits = count(StoreName::Wallet, "SELECT COUNT(*) FROM credits").await?;
    let double_credits = count(
        StoreName::Wallet,
        "SELECT COALESCE(SUM(n - 1), 0) FROM (SELECT COUNT(*) AS n FROM credits GROUP BY transfer_id)",
    )
    .await?;
    let sms = count(StoreName::Sms, "SELECT COUNT(*) FROM sms").await?;
    let duplicate_sms = count(
        StoreName::Sms,
        "SELECT COALESCE(SUM(n - 1), 0) FROM (SELECT COUNT(*) AS n FROM sms GROUP BY transfer_id)",
    )
    .await?;

    // Which intent each debit came from, and which transfers went wrong downstream.
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
        debits,
        double_charges,
        credits,
        double_credits,
        sms,
        duplicate_sms,
        lost_events,
        // Tithi's credits against Shimul's debits: positive when a duplicate credit made money,
        // negative when an event was lost (or is still on its way).
        money_created: credited_total - debited_total,
        support_tickets: damaged.len() as i64,
    })
}
