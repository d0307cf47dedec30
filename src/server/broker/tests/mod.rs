//! The broker's guarantees, on a real store.

use super::*;
use crate::domain::clock::DAY_MS;
use crate::server::store::{StoreName, Stores};

async fn broker() -> (tempfile::TempDir, Stores) {
    let dir = tempfile::tempdir().unwrap();
    let stores = Stores::open(dir.path()).await.unwrap();
    stores.reset_services().await.unwrap();
    (dir, stores)
}

async fn read_all(conn: &mut SqliteConnection, topic: &str, read_committed: bool) -> Vec<String> {
    let mut values = vec![];
    for p in 0..3 {
        let (records, _) = fetch(conn, topic, p, 0, 1000, read_committed)
            .await
            .unwrap();
        values.extend(records.into_iter().map(|r| r.value));
    }
    values.sort();
    values
}

#[test]
fn keys_keep_to_one_partition() {
    // FNV-1a's published 32-bit test vectors: a key's partition is its hash modulo the count,
    // the same on every run and machine (a replayed run depends on it), not merely the same
    // twice in one process.
    for (key, fnv1a) in [
        ("", 0x811c_9dc5_u32),
        ("a", 0xe40c_292c),
        ("foobar", 0xbf9c_f968),
    ] {
        for partitions in [1, 3, 7] {
            assert_eq!(
                partition_for(key, partitions),
                i64::from(fnv1a) % partitions,
                "{key:?} over {partitions} partitions"
            );
        }
    }
    let spread: std::collections::BTreeSet<i64> = (0..50)
        .map(|i| partition_for(&format!("tr-{i}"), 3))
        .collect();
    assert_eq!(spread.len(), 3);
}

#[tokio::test]
async fn offsets_count_up_per_partition() {
    let (_dir, stores) = broker().await;
    let mut c = stores.conn(StoreName::Broker).await.unwrap();
    let p = init_producer(&mut c, None, 0).await.unwrap();
    let a = produce(&mut c, p, "transfers", "k", "one", None, None, 0)
        .await
        .unwrap();
    let b = produce(&mut c, p, "transfers", "k", "two", None, None, 1)
        .await
        .unwrap();
    assert_eq!((a.partition, a.offset, b.offset), (b.partition, 0, 1));
    let (records, next) = fetch(&mut c, "transfers", a.partition, 0, 10, true)
        .await
        .unwrap();
    assert_eq!(
        records.iter().map(|r| r.value.as_str()).collect::<Vec<_>>(),
        ["one", "two"]
    );
    assert_eq!(next, 2);
    assert!(matches!(
        produce(&mut c, p, "nope", "k", "x", None, None, 0).await,
        Err(BrokerError::UnknownTopic(_))
    ));
}

#[tokio::test]
async fn an_idempotent_producer_resend_is_dropped_and_answered_with_the_first_offset() {
    let (_dir, stores) = broker().await;
    let mut c = stores.conn(StoreName::Broker).await.unwrap();
    let p = init_producer(&mut c, None, 0).await.unwrap();
    let first = produce(&mut c, p, "transfers", "k", "v", Some(0), None, 0)
        .await
        .unwrap();
    // The ack was lost; the producer sends the same batch again.
    let resend = produce(&mut c, p, "transfers", "k", "v", Some(0), None, 10)
        .await
        .unwrap();
    assert!(resend.duplicate);
    assert_eq!(resend.offset, first.offset);
    assert_eq!(read_all(&mut c, "transfers", true).await, ["v"]);
}

/// A produce request of many records is one batch per partition: its resend is recognised
/// whole, even with more records in it than the broker remembers batches.
#[tokio::test]
async fn a_resent_request_of_many_records_is_dropped_whole() {
    let (_dir, stores) = broker().await;
    let mut c = stores.conn(StoreName::Broker).await.unwrap();
    let p = init_producer(&mut c, None, 0).await.unwrap();
    // Twelve records with one key, so one partition: sequences 0 to 11.
    let values: Vec<String> = (0..12).map(|i| format!("v{i}")).collect();
    let request: Vec<Outgoing> = values
        .iter()
        .enumerate()
        .map(|(i, v)| Outgoing {
            key: "k",
            value: v,
            sequence: Some(i as i64),
        })
        .collect();
    assert!(request.len() as i64 > BATCHES_REMEMBERED);
    let first = produce_batch(&mut c, p, "transfers", &request, None, 0)
        .await
        .unwrap();
    assert!(first.iter().all(|a| !a.duplicate));
    let resend = produce_batch(&mut c, p, "transfers", &request, None, 10)
        .await
        .unwrap();
    assert!(resend.iter().all(|a| a.duplicate), "{resend:?}");
    assert_eq!(
        resend.iter().map(|a| a.offset).collect::<Vec<_>>(),
        first.iter().map(|a| a.offset).collect::<Vec<_>>()
    );
    let mut sorted = values.clone();
    sorted.sort();
    assert_eq!(read_all(&mut c, "transfers", true).await, sorted);
    // The next request carries on from the batch's last sequence number.
    let next = produce(&mut c, p, "transfers", "k", "v12", Some(12), None, 20)
        .await
        .unwrap();
    assert!(!next.duplicate);
}

#[tokio::test]
async fn without_sequence_numbers_a_resend_is_appended_again() {
    let (_dir, stores) = broker().await;
    let mut c = stores.conn(StoreName::Broker).await.unwrap();
    let p = init_producer(&mut c, None, 0).await.unwrap();
    produce(&mut c, p, "transfers", "k", "v", None, None, 0)
        .await
        .unwrap();
    let again = produce(&mut c, p, "transfers", "k", "v", None, None, 10)
        .await
        .unwrap();
    assert!(!again.duplicate);
    assert_eq!(again.offset, 1);
    assert_eq!(read_all(&mut c, "transfers", true).await, ["v", "v"]);
}

#[tokio::test]
async fn only_the_last_five_batches_are_remembered() {
    let (_dir, stores) = broker().await;
    let mut c = stores.conn(StoreName::Broker).await.unwrap();
    let p = init_producer(&mut c, None, 0).await.unwrap();
    for seq in 0..6 {
        produce(
            &mut c,
            p,
            "transfers",
            "k",
            &format!("v{seq}"),
            Some(seq),
            None,
            seq,
        )
        .await
        .unwrap();
    }
    // Batch 1 is among the last five; batch 0 has been forgotten.
    assert!(
        produce(&mut c, p, "transfers", "k", "v1", Some(1), None, 10)
            .await
            .unwrap()
            .duplicate
    );
    assert!(
        !produce(&mut c, p, "transfers", "k", "v0", Some(0), None, 11)
            .await
            .unwrap()
            .duplicate
    );
}

#[tokio::test]
async fn a_producer_idle_for_a_day_is_forgotten() {
    let (_dir, stores) = broker().await;
    let mut c = stores.conn(StoreName::Broker).await.unwrap();
    let p = init_producer(&mut c, None, 0).await.unwrap();
    produce(&mut c, p, "transfers", "k", "v", Some(0), None, 0)
        .await
        .unwrap();
    assert!(
        produce(&mut c, p, "transfers", "k", "v", Some(0), None, DAY_MS - 1)
            .await
            .unwrap()
            .duplicate
    );
    let late = produce(&mut c, p, "transfers", "k", "v", Some(0), None, 2 * DAY_MS)
        .await
        .unwrap();
    assert!(!late.duplicate, "the broker's own dedup is a 24 h window");
}

#[tokio::test]
async fn a_new_epoch_numbers_its_batches_from_zero_and_none_is_taken_for_a_resend() {
    let (_dir, stores) = broker().await;
    let mut c = stores.conn(StoreName::Broker).await.unwrap();
    let old = init_producer(&mut c, Some("fraud-check"), 0).await.unwrap();
    for seq in 0..3 {
        let a = produce(&mut c, old, "transfers", "k", "old", Some(seq), None, seq)
            .await
            .unwrap();
        assert!(!a.duplicate);
    }
    // The process restarts: same transactional id, a new epoch, sequences from 0 again.
    let new = init_producer(&mut c, Some("fraud-check"), 10)
        .await
        .unwrap();
    assert_eq!((new.id, new.epoch), (old.id, old.epoch + 1));
    for seq in 0..3 {
        let a = produce(
            &mut c,
            new,
            "transfers",
            "k",
            "new",
            Some(seq),
            None,
            10 + seq,
        )
        .await
        .unwrap();
        assert!(!a.duplicate, "batch {seq} of the new epoch is not a resend");
        assert_eq!(a.offset, 3 + seq);
    }
    // Within the new epoch a resend is still recognised.
    let resend = produce(&mut c, new, "transfers", "k", "new", Some(2), None, 20)
        .await
        .unwrap();
    assert!(resend.duplicate);
    assert_eq!(resend.offset, 5);
    assert_eq!(
        read_all(&mut c, "transfers", false).await,
        ["new", "new", "new", "old", "old", "old"]
    );
}

#[tokio::test]
async fn a_batch_that_skips_a_sequence_number_is_refused_and_nothing_is_appended() {
    let (_dir, stores) = broker().await;
    let mut c = stores.conn(StoreName::Broker).await.unwrap();
    let p = init_producer(&mut c, None, 0).await.unwrap();
    produce(&mut c, p, "transfers", "k", "v0", Some(0), None, 0)
        .await
        .unwrap();
    let gap = produce(&mut c, p, "transfers", "k", "v2", Some(2), None, 1).await;
    assert!(
        matches!(
            gap,
            Err(BrokerError::OutOfOrderSequence {
                expected: 1,
                got: 2,
                ..
            })
        ),
        "{gap:?}"
    );
    assert_eq!(read_all(&mut c, "transfers", false).await, ["v0"]);
    // The next number in line is taken.
    let next = produce(&mut c, p, "transfers", "k", "v1", Some(1), None, 2)
        .await
        .unwrap();
    assert_eq!((next.offset, next.duplicate), (1, false));
}

mod log;
mod transactions;
