-- The operator's dashboard counts the attempts created in a window by state
-- and lists the oldest unresolved ones: both read attempts by creation time.
CREATE INDEX IF NOT EXISTS payment_attempts_created ON payment_attempts (created_at);
