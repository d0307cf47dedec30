-- The SMS service counts the messages of the transfer it has just announced (more than one is a
-- second SMS escaping): found by index, not by reading every message.
CREATE INDEX sms_by_transfer ON sms (transfer_id);
