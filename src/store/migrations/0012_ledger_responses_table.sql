-- A paid call's stored result in a table of its own, written once (with the
-- `executed` step) and never updated. Why: a result can be megabytes, and
-- SQLite rewrites a whole row, overflow pages included, on every UPDATE; in
-- `payment_attempts` every later lease renewal or state change rewrote the
-- body again. The attempt row keeps only small fields.
CREATE TABLE IF NOT EXISTS payment_responses (
  attempt_id   TEXT PRIMARY KEY REFERENCES payment_attempts (id),
  status       INTEGER NOT NULL,
  content_type TEXT NOT NULL,
  body         TEXT NOT NULL
);

INSERT INTO payment_responses (attempt_id, status, content_type, body)
SELECT id, response_status, COALESCE(response_type, 'application/json'), response_body
  FROM payment_attempts
 WHERE response_status IS NOT NULL AND response_body IS NOT NULL;

ALTER TABLE payment_attempts DROP COLUMN response_status;
ALTER TABLE payment_attempts DROP COLUMN response_type;
ALTER TABLE payment_attempts DROP COLUMN response_body;
