-- A producer's sequence numbers belong to one epoch, as in Kafka: a transactional producer that
-- restarts gets a new epoch and numbers its batches from 0 again. The batches a resend is
-- checked against are therefore remembered per (producer id, epoch); keyed by the id alone, the
-- restarted producer's first batches looked like resends of the old epoch's and were dropped.
CREATE TABLE producer_batches_per_epoch (
    producer_id INTEGER NOT NULL,
    epoch       INTEGER NOT NULL,
    topic       TEXT NOT NULL,
    partition   INTEGER NOT NULL,
    sequence    INTEGER NOT NULL,
    "offset"    INTEGER NOT NULL,
    PRIMARY KEY (producer_id, epoch, topic, partition, sequence)
) STRICT;

-- Batches already remembered belong to the producer's current epoch (the next start bumps it).
INSERT INTO producer_batches_per_epoch (producer_id, epoch, topic, partition, sequence, "offset")
SELECT b.producer_id, p.epoch, b.topic, b.partition, b.sequence, b."offset"
FROM producer_batches b JOIN producers p ON p.producer_id = b.producer_id;

DROP TABLE producer_batches;
ALTER TABLE producer_batches_per_epoch RENAME TO producer_batches;
