-- The wallet counts the credits of the transfer it has just credited (more than one is a double
-- credit escaping): found by index, not by reading every credit.
CREATE INDEX credits_by_transfer ON credits (transfer_id);
