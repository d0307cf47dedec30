-- The payment API's store. Accounts hold only the opening balance: a balance is always the
-- opening balance plus the sum of the ledger, never a column that is decremented.
CREATE TABLE accounts (
    user_id         TEXT PRIMARY KEY NOT NULL,
    opening_balance INTEGER NOT NULL CHECK (opening_balance >= 0)
) STRICT;
