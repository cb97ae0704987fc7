-- Which facilitator a settlement was sent to (its URL's origin and path, never
-- credentials): with several facilitators configured, the one that settled an
-- attempt, or the one whose unanswered settle the chain is asked about. NULL
-- for attempts never sent to settle, and for those recorded before this column.
ALTER TABLE payment_attempts ADD COLUMN facilitator TEXT;
