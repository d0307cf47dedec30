-- The damage meter's question after every debit (how many debits has this intent had, and with
-- which key?) found by index, not by reading the whole ledger: `lab_intent` is the lab's ground
-- truth, which no guard reads.
CREATE INDEX ledger_by_intent ON ledger (lab_intent, idem_key);
