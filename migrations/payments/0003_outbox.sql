-- The outbox: a TransferDone event written in the same transaction as the debit, so the event
-- exists if and only if the debit does. The relay publishes each row and then marks it sent.
CREATE TABLE outbox (
    event_id    TEXT PRIMARY KEY NOT NULL,
    transfer_id TEXT NOT NULL,
    payload     TEXT NOT NULL,
    created_ms  INTEGER NOT NULL,
    sent_ms     INTEGER
) STRICT;

CREATE INDEX outbox_unsent ON outbox (sent_ms, created_ms);
