-- payment_attempts_state (state) is a prefix of payment_attempts_state_updated
-- (state, updated_at), which answers every query by state as well. Each
-- index an attempt's state is in is written at every state change: a paid
-- call moves through five states, and each move rewrote this index's pages
-- too, in the WAL and at the checkpoint (docs/decisions/0036).
DROP INDEX IF EXISTS payment_attempts_state;
