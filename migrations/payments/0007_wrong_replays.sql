-- Stored answers the API sent to a request whose body differs from the one that made them:
-- with the fingerprint check off, the ৳5,000 request gets the ৳500 receipt. One row per such
-- answer, written where the replay runs, so the damage meter can count them after the key's
-- partition is gone. No guard reads it.
CREATE TABLE wrong_replays (
    replay_id    INTEGER PRIMARY KEY,
    user_id      TEXT NOT NULL,
    idem_key     TEXT NOT NULL,
    -- SHA-256 of the body that made the stored answer, and of the body it was sent to.
    stored_hash  TEXT NOT NULL,
    request_hash TEXT NOT NULL,
    status       INTEGER NOT NULL,
    at_ms        INTEGER NOT NULL
) STRICT;
