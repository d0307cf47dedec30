-- The SMS service's store. A message is kept as a key and an amount so a screen can show it in
-- either language.
CREATE TABLE sms (
    sms_id      INTEGER PRIMARY KEY,
    event_id    TEXT NOT NULL,
    transfer_id TEXT NOT NULL,
    to_user     TEXT NOT NULL,
    message_key TEXT NOT NULL,
    amount      INTEGER NOT NULL,
    at_ms       INTEGER NOT NULL
) STRICT;

CREATE TABLE inbox (
    event_id     TEXT PRIMARY KEY NOT NULL,
    processed_ms INTEGER NOT NULL
) STRICT;
