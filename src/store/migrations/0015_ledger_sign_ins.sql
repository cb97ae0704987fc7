-- A sign-in (x402 sign-in-with-x) is accepted once: its nonce is recorded
-- here when it gets a buyer a stored result again, in the same database every
-- instance writes, so a captured sign-in recovers nothing a second time on any
-- of them. Each row is also the ledger's record of that redelivery.
CREATE TABLE IF NOT EXISTS sign_ins (
  nonce       TEXT PRIMARY KEY,
  attempt_id  TEXT NOT NULL,
  signer      TEXT NOT NULL,
  network     TEXT NOT NULL,
  used_at     BIGINT NOT NULL,
  expires_at  BIGINT NOT NULL
);

CREATE INDEX IF NOT EXISTS sign_ins_attempt ON sign_ins (attempt_id);

-- A sign-in names the payer and the request, not the payment: the paid
-- attempts of one request body by one payer are found through this index.
CREATE INDEX IF NOT EXISTS payment_attempts_request_payer ON payment_attempts (request_fingerprint, payer);
