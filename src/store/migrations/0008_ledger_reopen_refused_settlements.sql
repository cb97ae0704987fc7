-- Before this migration a settlement the facilitator refused was marked
-- `failed` at once, although a broadcast transfer could still be mined
-- afterwards (a facilitator answering "settlement_pending"). Such attempts
-- had their result stored; reopen them as `unknown` so the reconciler asks
-- the chain: used → settled (deliverable on retry), dead → failed again.
UPDATE payment_attempts
   SET state = 'unknown', lease_owner = NULL, lease_until = 0
 WHERE state = 'failed' AND failure_code = 'settlement_failed' AND response_body IS NOT NULL;
