-- One row per payment authorization (EIP-3009: payer + nonce on one asset and network).
-- The row is written *before* the facilitator is asked anything, so one
-- authorization can be bound to exactly one resource and request fingerprint.
CREATE TABLE IF NOT EXISTS payment_attempts (
  id                  TEXT PRIMARY KEY,
  network             TEXT NOT NULL,
  asset               TEXT NOT NULL,
  payer               TEXT NOT NULL,
  nonce               TEXT NOT NULL,
  pay_to              TEXT NOT NULL,
  amount              TEXT NOT NULL,
  resource            TEXT NOT NULL,
  request_fingerprint TEXT NOT NULL,
  payment_key         TEXT UNIQUE,
  state               TEXT NOT NULL,
  valid_before        BIGINT NOT NULL,
  payload             TEXT NOT NULL,
  requirements        TEXT NOT NULL,
  response_status     INTEGER,
  response_type       TEXT,
  response_body       TEXT,
  settle_response     TEXT,
  tx_hash             TEXT,
  failure_code        TEXT,
  failure_detail      TEXT,
  lease_owner         TEXT,
  lease_until         BIGINT NOT NULL DEFAULT 0,
  created_at          BIGINT NOT NULL,
  updated_at          BIGINT NOT NULL
);

CREATE INDEX IF NOT EXISTS payment_attempts_state ON payment_attempts (state);

-- Append-only history of every state an attempt went through.
CREATE TABLE IF NOT EXISTS payment_attempt_events (
  attempt_id TEXT NOT NULL,
  at         BIGINT NOT NULL,
  state      TEXT NOT NULL,
  note       TEXT
);

CREATE INDEX IF NOT EXISTS payment_attempt_events_attempt ON payment_attempt_events (attempt_id);
