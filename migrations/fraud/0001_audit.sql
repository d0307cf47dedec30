-- The fraud check's own store: one audit row per event it processed. It lives outside the
-- broker, so no broker transaction can undo it.
CREATE TABLE audit (
    audit_id INTEGER PRIMARY KEY,
    event_id TEXT NOT NULL,
    decision TEXT NOT NULL,
    at_ms    INTEGER NOT NULL
) STRICT;
