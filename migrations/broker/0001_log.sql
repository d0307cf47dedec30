-- The broker's store: a teaching model of a Kafka log.
CREATE TABLE topics (
    name         TEXT PRIMARY KEY NOT NULL,
    partitions   INTEGER NOT NULL CHECK (partitions > 0),
    -- Records older than this (virtual ms) are deleted by the retention cleaner.
    retention_ms INTEGER NOT NULL CHECK (retention_ms > 0)
) STRICT;

CREATE TABLE partitions (
    topic            TEXT NOT NULL REFERENCES topics (name),
    partition        INTEGER NOT NULL,
    -- The first offset still in the log; it moves forward as retention deletes records.
    log_start_offset INTEGER NOT NULL DEFAULT 0,
    -- The offset the next appended record gets.
    next_offset      INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (topic, partition)
) STRICT;

CREATE TABLE records (
    topic     TEXT NOT NULL,
    partition INTEGER NOT NULL,
    "offset"  INTEGER NOT NULL,
    at_ms     INTEGER NOT NULL,
    key       TEXT,
    value     TEXT NOT NULL,
    PRIMARY KEY (topic, partition, "offset"),
    FOREIGN KEY (topic, partition) REFERENCES partitions (topic, partition)
) STRICT;

CREATE INDEX records_by_time ON records (at_ms);

CREATE TABLE consumer_offsets (
    group_id         TEXT NOT NULL,
    topic            TEXT NOT NULL,
    partition        INTEGER NOT NULL,
    committed_offset INTEGER NOT NULL,
    PRIMARY KEY (group_id, topic, partition)
) STRICT;
