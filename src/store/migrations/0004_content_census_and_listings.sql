-- Census snapshots (market observations imported by the operator) and
-- external listings of this service (the presence catalog).
CREATE TABLE IF NOT EXISTS census_snapshots (
  snapshot_id  TEXT PRIMARY KEY,
  observed_us  BIGINT NOT NULL,
  imported_at  BIGINT NOT NULL,
  content_hash TEXT NOT NULL,
  doc          TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS census_snapshots_observed ON census_snapshots (observed_us, snapshot_id);

CREATE TABLE IF NOT EXISTS distribution_listings (
  id           TEXT PRIMARY KEY,
  version      INTEGER NOT NULL,
  content_hash TEXT NOT NULL,
  updated_us   BIGINT NOT NULL,
  doc          TEXT NOT NULL
);
