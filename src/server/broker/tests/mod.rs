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

#[tokio::test]
async fn retention_deletes_old_records_and_moves_the_log_start() {
    let (_dir, stores) = broker().await;
    let mut c = stores.conn(StoreName::Broker).await.unwrap();
    let p = init_producer(&mut c, None, 0).await.unwrap();
    let old = produce(&mut c, p, "transfers", "k", "old", None, None, 0)
        .await
        .unwrap();
    produce(&mut c, p, "transfers", "k", "new", None, None, 6 * DAY_MS)
        .await
        .unwrap();
    let (deleted, moved) = apply_retention(&mut c, 7 * DAY_MS + 1).await.unwrap();
    assert_eq!((deleted, moved), (1, 1));
    // A group with nothing committed now starts at the new log start, not at 0.
    assert_eq!(
        position(&mut c, "wallet", "transfers", old.partition)
            .await
            .unwrap(),
        1
    );
    let (records, _) = fetch(&mut c, "transfers", old.partition, 0, 10, true)
        .await
        .unwrap();
    assert_eq!(
        records.iter().map(|r| r.value.as_str()).collect::<Vec<_>>(),
        ["new"]
    );
}

#[tokio::test]
async fn seeking_by_time_rewinds_a_group_for_a_replay() {
    let (_dir, stores) = broker().await;
    let mut c = stores.conn(StoreName::Broker).await.unwrap();
    let p = init_producer(&mut c, None, 0).await.unwrap();
    let mut last = None;
    for day in 0..6 {
        last = Some(
            produce(
                &mut c,
                p,
                "transfers",
                "k",
                &format!("day {day}"),
                None,
                None,
                day * DAY_MS,
            )
            .await
            .unwrap(),
        );
    }
    let part = last.unwrap().partition;
    commit_offset(&mut c, "wallet", "transfers", part, 6)
        .await
        .unwrap();
    let offsets = seek_to_time(&mut c, "wallet", "transfers", DAY_MS)
        .await
        .unwrap();
    assert_eq!(offsets.iter().find(|(p, _)| *p == part).unwrap().1, 1);
    let from = position(&mut c, "wallet", "transfers", part).await.unwrap();
    let (records, _) = fetch(&mut c, "transfers", part, from, 10, true)
        .await
        .unwrap();
    assert_eq!(records.len(), 5, "days 1 to 5 are read again");
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

#[tokio::test]
async fn a_poll_reads_what_position_and_fetch_read_partition_by_partition() {
    let (_dir, stores) = broker().await;
    let mut c = stores.conn(StoreName::Broker).await.unwrap();
    let plain = init_producer(&mut c, None, 0).await.unwrap();
    let txns = init_producer(&mut c, Some("fraud-check"), 0).await.unwrap();
    // Old records retention deletes, then plenty on every partition of both topics: plain
    // ones, an aborted transaction's, a committed one's and a still open one's.
    for i in 0..6 {
        produce(
            &mut c,
            plain,
            "transfers",
            &format!("old-{i}"),
            "old",
            None,
            None,
            0,
        )
        .await
        .unwrap();
    }
    apply_retention(&mut c, 7 * DAY_MS + 1).await.unwrap();
    let now = 7 * DAY_MS + 2;
    for i in 0..40 {
        for topic in ["transfers", "approved-transfers"] {
            produce(
                &mut c,
                plain,
                topic,
                &format!("k-{i}"),
                &format!("v-{i}"),
                None,
                None,
                now,
            )
            .await
            .unwrap();
        }
    }
    for (i, outcome) in [Some(false), Some(true), None].into_iter().enumerate() {
        let txn = begin_transaction(&mut c, txns, "fraud-check", now)
            .await
            .unwrap();
        for j in 0..5 {
            let key = format!("t{i}-{j}");
            produce(
                &mut c,
                txns,
                "approved-transfers",
                &key,
                &key,
                None,
                Some(txn),
                now,
            )
            .await
            .unwrap();
        }
        if let Some(commit) = outcome {
            end_transaction(&mut c, txn, commit, now).await.unwrap();
        }
    }
    commit_offset(&mut c, "wallet", "approved-transfers", 0, 7)
        .await
        .unwrap();
    commit_offset(&mut c, "wallet", "approved-transfers", 2, 1_000)
        .await
        .unwrap();
    commit_offset(&mut c, "fraud", "transfers", 1, 3)
        .await
        .unwrap();
    for (group, topic) in [("fraud", "transfers"), ("wallet", "approved-transfers")] {
        for read_committed in [true, false] {
            for max in [1, 4, 50] {
                let polled = poll(&mut c, group, topic, 3, max, read_committed)
                    .await
                    .unwrap();
                let mut expected = Vec::new();
                for partition in 0..3 {
                    let start = position(&mut c, group, topic, partition).await.unwrap();
                    let (records, next) =
                        fetch(&mut c, topic, partition, start, max, read_committed)
                            .await
                            .unwrap();
                    if next != start {
                        expected.push((partition, start, records, next));
                    }
                }
                let got: Vec<_> = polled
                    .into_iter()
                    .map(|p| (p.partition, p.start, p.records, p.next))
                    .collect();
                let shape = |v: &[(i64, i64, Vec<Record>, i64)]| {
                    v.iter()
                        .map(|(p, s, r, n)| {
                            let r: Vec<_> = r
                                .iter()
                                .map(|r| {
                                    (
                                        r.partition,
                                        r.offset,
                                        r.at_ms,
                                        r.key.clone(),
                                        r.value.clone(),
                                    )
                                })
                                .collect();
                            (*p, *s, r, *n)
                        })
                        .collect::<Vec<_>>()
                };
                assert!(!expected.is_empty(), "{group} {topic}: something to read");
                assert_eq!(
                    shape(&got),
                    shape(&expected),
                    "{group} on {topic}, read_committed {read_committed}, max {max}"
                );
            }
        }
    }
    // A topic the broker does not have: nothing, not an error.
    assert!(poll(&mut c, "wallet", "nope", 3, 10, true)
        .await
        .unwrap()
        .is_empty());
}
