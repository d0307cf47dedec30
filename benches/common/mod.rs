//! The store work of one guarded transfer through the payment API, done straight (no
//! scheduler, network or timeline), for the benchmarks' raw arms: the same functions and
//! statements as `server::payments`.

use pocketpay_lab::domain::clock::START_MS;
use pocketpay_lab::domain::pipeline::TransferDone;
use pocketpay_lab::server::payments::{idempotency, ledger};
use pocketpay_lab::server::pipeline::sql;
use pocketpay_lab::server::store::{StoreName, Stores};

/// Transfer `i` of ৳1 from Shimul to Tithi under key `raw-{i}`: the claim (its INSERT and the
/// read after it, as the API runs them), then balance and receipt number, debit and stored
/// response in one transaction. With `outbox`, the transaction also writes the outbox row and counts the
/// intent's debits, as the API does with the outbox on.
pub async fn api_transfer(stores: &Stores, i: usize, outbox: bool) {
    let key = format!("raw-{i}");
    let now = START_MS + i as i64;
    let mut conn = stores.conn(StoreName::Payments).await.unwrap();
    assert_eq!(
        idempotency::claim(&mut conn, "shimul", &key, "h", 0, now)
            .await
            .unwrap(),
        idempotency::Claim::Claimed
    );
    drop(conn);
    let mut tx = stores.begin(StoreName::Payments).await.unwrap();
    let (balance, txn) = ledger::balance_and_next_txn(&mut tx, "shimul")
        .await
        .unwrap();
    let entry = ledger::Entry {
        transfer_id: ledger::transfer_id_for("shimul", &key),
        txn,
        user_id: "shimul".into(),
        counterparty: "tithi".into(),
        amount: -1,
        balance_after: balance - 1,
        idem_key: key.clone(),
        at_ms: now,
        lab_intent: key.clone(),
    };
    assert!(ledger::debit(&mut tx, &entry).await.unwrap());
    if outbox {
        let event = TransferDone {
            event_id: format!("ev-{i}"),
            transfer_id: entry.transfer_id.clone(),
            from: "shimul".into(),
            to: "tithi".into(),
            amount: 1,
            at: now,
        };
        sqlx::query(sql::OUTBOX_WRITE)
            .bind(&event.event_id)
            .bind(&event.transfer_id)
            .bind(serde_json::to_string(&event).unwrap())
            .bind(now)
            .execute(&mut *tx)
            .await
            .unwrap();
        ledger::debits_for_intent(&mut tx, &key).await.unwrap();
    }
    let body = serde_json::to_string(&entry.receipt()).unwrap();
    idempotency::store_response(&mut tx, "shimul", &key, "h", 0, now, 201, &body)
        .await
        .unwrap();
    tx.commit().await.unwrap();
}
