-- The fraud check counts the audit rows of the event it has just approved (more than one is a
-- second approval escaping): found by index, not by reading every audit row.
CREATE INDEX audit_by_event ON audit (event_id);
