-- Scenario 7, natural idempotency (docs/reference.md §7): three ways to write the same wish on
-- the payment API's own database, each sent ten times over the lossy network.
-- A SET: the display name becomes a value, however often it is set.
CREATE TABLE profiles (
    user_id      TEXT PRIMARY KEY NOT NULL,
    display_name TEXT NOT NULL
) STRICT;
-- An INCREMENT: "add ৳500" depends on the value before it, so each copy adds again.
CREATE TABLE savings (
    user_id TEXT PRIMARY KEY NOT NULL,
    balance INTEGER NOT NULL
) STRICT;
-- The ledger's idea: the same ৳500 as one row keyed by its transfer id; a copy is refused, and
-- the balance is the sum of the rows.
CREATE TABLE savings_credits (
    transfer_id TEXT PRIMARY KEY NOT NULL,
    user_id     TEXT NOT NULL,
    amount      INTEGER NOT NULL,
    at_ms       INTEGER NOT NULL
) STRICT;
