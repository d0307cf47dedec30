-- Idempotent producers and transactions, as Kafka has them.
-- A record names the producer and sequence it came with, the transaction it belongs to (if
-- any), and whether it is a control record (a COMMIT or ABORT marker) rather than data.
ALTER TABLE records ADD COLUMN producer_id INTEGER;
ALTER TABLE records ADD COLUMN sequence INTEGER;
ALTER TABLE records ADD COLUMN txn_id INTEGER;
ALTER TABLE records ADD COLUMN control TEXT CHECK (control IN ('COMMIT', 'ABORT'));

CREATE TABLE producers (
    producer_id      INTEGER PRIMARY KEY,
    -- Set for a transactional producer: a new one with the same id bumps the epoch and fences
    -- the old one out.
    transactional_id TEXT UNIQUE,
    epoch            INTEGER NOT NULL,
    last_active_ms   INTEGER NOT NULL
) STRICT;

-- The last few batches each producer wrote to each partition: what a resend is checked against.
CREATE TABLE producer_batches (
    producer_id INTEGER NOT NULL,
    topic       TEXT NOT NULL,
    partition   INTEGER NOT NULL,
    sequence    INTEGER NOT NULL,
    "offset"    INTEGER NOT NULL,
    PRIMARY KEY (producer_id, topic, partition, sequence)
) STRICT;

CREATE TABLE transactions (
    txn_id           INTEGER PRIMARY KEY,
    transactional_id TEXT NOT NULL,
    producer_id      INTEGER NOT NULL,
    epoch            INTEGER NOT NULL,
    state            TEXT NOT NULL CHECK (state IN ('ONGOING', 'COMMITTED', 'ABORTED')),
    started_ms       INTEGER NOT NULL,
    ended_ms         INTEGER
) STRICT;

-- Consumer offsets sent inside a transaction: they take effect only if it commits.
CREATE TABLE txn_offsets (
    txn_id           INTEGER NOT NULL,
    group_id         TEXT NOT NULL,
    topic            TEXT NOT NULL,
    partition        INTEGER NOT NULL,
    committed_offset INTEGER NOT NULL,
    PRIMARY KEY (txn_id, group_id, topic, partition)
) STRICT;
