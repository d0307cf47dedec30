-- The idempotency table, kept in daily partitions. SQLite has no native partitioning, so a
-- partition is the set of rows with one `partition_day`; the nightly job drops a whole day at
-- once. As in a partitioned Postgres table, the primary key must include the partition key, so
-- the key alone is only unique *within a day*: the look-up, not the primary key, is what finds a
-- key claimed on an earlier day that is still inside the window.
CREATE TABLE idempotency_keys (
    partition_day   INTEGER NOT NULL,
    user_id         TEXT NOT NULL,
    idem_key        TEXT NOT NULL,
    -- SHA-256 of the canonical request body: the same key with another body is a client bug.
    request_hash    TEXT NOT NULL,
    status          TEXT NOT NULL CHECK (status IN ('IN_PROGRESS', 'COMPLETED')),
    response_status INTEGER,
    response_body   TEXT,
    created_ms      INTEGER NOT NULL,
    updated_ms      INTEGER NOT NULL,
    PRIMARY KEY (partition_day, user_id, idem_key)
) STRICT;

CREATE INDEX idempotency_keys_by_key ON idempotency_keys (user_id, idem_key, created_ms);

-- The ledger: one row per money movement, never updated. A balance is the account's opening
-- balance plus the sum of its rows.
CREATE TABLE ledger (
    entry_id      INTEGER PRIMARY KEY,
    -- With `ledger_unique` on, derived from (user, Idempotency-Key), so a second execution of
    -- the same request collides here even when every guard above it is off.
    transfer_id   TEXT NOT NULL UNIQUE,
    txn           TEXT NOT NULL,
    user_id       TEXT NOT NULL REFERENCES accounts (user_id),
    counterparty  TEXT NOT NULL,
    amount        INTEGER NOT NULL CHECK (amount <> 0),
    balance_after INTEGER NOT NULL,
    idem_key      TEXT NOT NULL,
    at_ms         INTEGER NOT NULL,
    -- Ground truth for the damage meter only: the decision to pay this came from. No guard
    -- reads it.
    lab_intent    TEXT NOT NULL
) STRICT;

CREATE INDEX ledger_by_user ON ledger (user_id);
CREATE INDEX ledger_by_key ON ledger (user_id, idem_key);
