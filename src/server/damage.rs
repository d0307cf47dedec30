//! The damage meter, derived from the stores every time it is read: nothing is counted on the
//! side. Intents come from the lab store (ground truth no guard reads); debits from the
//! payment ledger; credits and SMS from the wallet and SMS stores.

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
    let double_charged_intents = count(
        StoreName::Payments,
        "SELECT COUNT(*) FROM
           (SELECT lab_intent FROM ledger WHERE amount < 0 GROUP BY lab_intent HAVING COUNT(*) > 1)",
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
    Ok(Damage {
        intents,
        debits,
        double_charges,
        credits,
        double_credits,
        sms,
        duplicate_sms,
        // The event pipeline (outbox to wallet) adds these: until it runs, no debit can be
        // paired with a credit, so neither figure can be told yet.
        lost_events: 0,
        money_created: 0,
        support_tickets: double_charged_intents,
    })
}
