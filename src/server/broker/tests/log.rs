//! The log itself: retention, seeking by time, polling partition by partition.

use super::*;

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
