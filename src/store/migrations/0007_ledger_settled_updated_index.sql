-- The newswire's independentRevenueUsd asks "has any settlement been recorded since?"
-- on every request: answered from this index instead of summing the ledger each time.
CREATE INDEX IF NOT EXISTS payment_attempts_state_updated ON payment_attempts (state, updated_at);
