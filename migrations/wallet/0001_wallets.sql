-- The wallet service's store. A wallet's balance is its opening balance plus its credits.
CREATE TABLE wallets (
    user_id         TEXT PRIMARY KEY NOT NULL,
    opening_balance INTEGER NOT NULL CHECK (opening_balance >= 0)
) STRICT;

CREATE TABLE credits (
    credit_id   INTEGER PRIMARY KEY,
    event_id    TEXT NOT NULL,
    transfer_id TEXT NOT NULL,
    user_id     TEXT NOT NULL REFERENCES wallets (user_id),
    amount      INTEGER NOT NULL CHECK (amount > 0),
    at_ms       INTEGER NOT NULL
) STRICT;

-- Event ids already applied; inserted in the same transaction as the credit.
CREATE TABLE inbox (
    event_id     TEXT PRIMARY KEY NOT NULL,
    processed_ms INTEGER NOT NULL
) STRICT;
