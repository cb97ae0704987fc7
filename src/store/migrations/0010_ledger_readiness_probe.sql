-- Readiness writes here (one row, rewritten by each probe, flushed like a paid call's
-- stored result): a database that answers reads but cannot write (a full disk, a
-- read-only file or server) is not ready to take payments.
CREATE TABLE IF NOT EXISTS readiness_probe (id INTEGER PRIMARY KEY, probed_at BIGINT NOT NULL);
