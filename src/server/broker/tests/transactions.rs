//! Transactions: read-committed, offsets inside a transaction, fencing a dead instance.

use super::*;

#[tokio::test]
async fn read_committed_hides_open_and_aborted_transactions() {
    let (_dir, stores) = broker().await;
    let mut c = stores.conn(StoreName::Broker).await.unwrap();
    let p = init_producer(&mut c, Some("fraud-check"), 0).await.unwrap();
    let txn = begin_transaction(&mut c, p, "fraud-check", 0)
        .await
        .unwrap();
    let a = produce(
        &mut c,
        p,
        "approved-transfers",
        "k",
        "pending",
        None,
        Some(txn),
        1,
    )
    .await
    .unwrap();
    assert_eq!(
        last_stable_offset(&mut c, "approved-transfers", a.partition)
            .await
            .unwrap(),
        a.offset
    );
    // Every partition's at once, as the inspector shows them: the open transaction holds
    // its partition back; the others stand at their ends.
    let all = last_stable_offsets(&mut c).await.unwrap();
    assert_eq!(all.len(), 6);
    for (topic, partition, lso) in all {
        let held = topic == "approved-transfers" && partition == a.partition;
        assert_eq!(lso, if held { a.offset } else { 0 }, "{topic} {partition}");
    }
    assert!(read_all(&mut c, "approved-transfers", true)
        .await
        .is_empty());
    assert_eq!(
        read_all(&mut c, "approved-transfers", false).await,
        ["pending"]
    );
    end_transaction(&mut c, txn, false, 2).await.unwrap();
    assert!(
        read_all(&mut c, "approved-transfers", true)
            .await
            .is_empty(),
        "aborted: never read"
    );
    // The abort marker took an offset; the next record comes after it.
    let txn = begin_transaction(&mut c, p, "fraud-check", 3)
        .await
        .unwrap();
    produce(
        &mut c,
        p,
        "approved-transfers",
        "k",
        "approved",
        None,
        Some(txn),
        3,
    )
    .await
    .unwrap();
    commit_transaction(&mut c, p, txn, 4).await.unwrap();
    assert_eq!(
        read_all(&mut c, "approved-transfers", true).await,
        ["approved"]
    );
    assert!(matches!(
        end_transaction(&mut c, txn, true, 5).await,
        Err(BrokerError::TransactionClosed)
    ));
}

#[tokio::test]
async fn offsets_sent_in_a_transaction_count_only_if_it_commits() {
    let (_dir, stores) = broker().await;
    let mut c = stores.conn(StoreName::Broker).await.unwrap();
    let p = init_producer(&mut c, Some("fraud-check"), 0).await.unwrap();
    let txn = begin_transaction(&mut c, p, "fraud-check", 0)
        .await
        .unwrap();
    send_offset_to_transaction(&mut c, txn, "fraud", "transfers", 0, 7)
        .await
        .unwrap();
    end_transaction(&mut c, txn, false, 1).await.unwrap();
    assert_eq!(position(&mut c, "fraud", "transfers", 0).await.unwrap(), 0);
    let txn = begin_transaction(&mut c, p, "fraud-check", 2)
        .await
        .unwrap();
    send_offset_to_transaction(&mut c, txn, "fraud", "transfers", 0, 7)
        .await
        .unwrap();
    commit_transaction(&mut c, p, txn, 3).await.unwrap();
    assert_eq!(position(&mut c, "fraud", "transfers", 0).await.unwrap(), 7);
}

#[tokio::test]
async fn a_new_instance_fences_the_old_one_and_aborts_its_transaction() {
    let (_dir, stores) = broker().await;
    let mut c = stores.conn(StoreName::Broker).await.unwrap();
    let old = init_producer(&mut c, Some("fraud-check"), 0).await.unwrap();
    let txn = begin_transaction(&mut c, old, "fraud-check", 0)
        .await
        .unwrap();
    produce(
        &mut c,
        old,
        "approved-transfers",
        "k",
        "half-done",
        None,
        Some(txn),
        1,
    )
    .await
    .unwrap();
    // The process crashed before committing; its replacement starts.
    let new = init_producer(&mut c, Some("fraud-check"), 5).await.unwrap();
    assert_eq!((new.id, new.epoch), (old.id, old.epoch + 1));
    assert!(read_all(&mut c, "approved-transfers", true)
        .await
        .is_empty());
    // A zombie of the old instance can no longer write or commit.
    assert!(matches!(
        produce(
            &mut c,
            old,
            "approved-transfers",
            "k",
            "zombie",
            None,
            None,
            6
        )
        .await,
        Err(BrokerError::Fenced(_))
    ));
    assert!(matches!(
        commit_transaction(&mut c, old, txn, 7).await,
        Err(BrokerError::Fenced(_))
    ));
}
