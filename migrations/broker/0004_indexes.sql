-- The look-ups every step makes, by index instead of by reading the whole table:
-- a transaction's records (its markers, and the last stable offset, which looks for the first
-- record of a transaction still open) and the transactions still open.
CREATE INDEX records_by_txn ON records (txn_id, topic, partition, "offset") WHERE txn_id IS NOT NULL;
CREATE INDEX transactions_open ON transactions (state, transactional_id);
