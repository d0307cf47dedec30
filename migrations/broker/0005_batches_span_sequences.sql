-- A produce request carries many records, and Kafka remembers the last five *batches* of a
-- producer and partition, each with its first and last sequence number: a resend of the whole
-- request is recognised however many records it holds. A row here is one batch: `sequence` its
-- first sequence number, `last_sequence` its last, `offset` the offset of its first record.
-- Rows written before held one record each.
ALTER TABLE producer_batches ADD COLUMN last_sequence INTEGER NOT NULL DEFAULT -1;
UPDATE producer_batches SET last_sequence = sequence;
