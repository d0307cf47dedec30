-- Ground truth for the damage meter: every decision to send money (the Lab-Intent header, or
-- the Idempotency-Key when a request has none). No guard reads it.
CREATE TABLE intents (
    intent   TEXT PRIMARY KEY NOT NULL,
    user_id  TEXT NOT NULL,
    amount   INTEGER NOT NULL,
    first_ms INTEGER NOT NULL
) STRICT;
