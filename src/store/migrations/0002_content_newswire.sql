-- Newswire content: items with append-only version history, and the store
-- clock that assigns lastUpdatedAt.

-- One row. last_us is the store time (microseconds since the epoch) of the
-- last material change. Every content write first updates this row, which
-- serializes writers (the row lock is held until commit), so commit order is
-- timestamp order and a reader that bounds its query by the value it read
-- here can never miss a write that commits later with a smaller timestamp.
CREATE TABLE IF NOT EXISTS content_clock (
  id      INTEGER PRIMARY KEY,
  last_us BIGINT NOT NULL
);
INSERT INTO content_clock (id, last_us) VALUES (1, 0) ON CONFLICT DO NOTHING;

CREATE TABLE IF NOT EXISTS content_meta (
  meta_key   TEXT PRIMARY KEY,
  meta_value TEXT NOT NULL,
  updated_at BIGINT NOT NULL
);

-- Current state of each item (a projection of its latest version).
CREATE TABLE IF NOT EXISTS newswire_items (
  event_id       TEXT PRIMARY KEY,
  slug           TEXT NOT NULL UNIQUE,
  version        INTEGER NOT NULL,
  event_date     TEXT NOT NULL,
  item_type      TEXT NOT NULL,
  tier_rank      INTEGER NOT NULL,
  newsroom_state TEXT NOT NULL,
  first_party    INTEGER NOT NULL,
  material_type  INTEGER NOT NULL,
  correction_of  TEXT,
  content_hash   TEXT NOT NULL,
  published_us   BIGINT,
  updated_us     BIGINT NOT NULL UNIQUE,
  doc            TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS newswire_items_event_date ON newswire_items (event_date, event_id);
CREATE INDEX IF NOT EXISTS newswire_items_state_updated ON newswire_items (newsroom_state, updated_us);

-- Every version of every item, cosmetic ones included. Never updated or deleted.
CREATE TABLE IF NOT EXISTS newswire_item_versions (
  event_id       TEXT NOT NULL,
  version        INTEGER NOT NULL,
  change_kind    TEXT NOT NULL,
  material       INTEGER NOT NULL,
  updated_us     BIGINT NOT NULL,
  recorded_at    BIGINT NOT NULL,
  content_hash   TEXT NOT NULL,
  changed_fields TEXT NOT NULL,
  doc            TEXT NOT NULL,
  PRIMARY KEY (event_id, version)
);

-- Filter tags (entity, protocol, topic) of each version; queries join on the item's current version.
CREATE TABLE IF NOT EXISTS newswire_item_tags (
  event_id  TEXT NOT NULL,
  version   INTEGER NOT NULL,
  tag_kind  TEXT NOT NULL,
  tag_value TEXT NOT NULL,
  PRIMARY KEY (event_id, version, tag_kind, tag_value)
);
CREATE INDEX IF NOT EXISTS newswire_item_tags_value ON newswire_item_tags (tag_kind, tag_value, event_id);

-- The change log changes-since reads: one row per published material change,
-- keyed by its unique store time.
CREATE TABLE IF NOT EXISTS newswire_changes (
  changed_us  BIGINT PRIMARY KEY,
  event_id    TEXT NOT NULL,
  version     INTEGER NOT NULL,
  change_kind TEXT NOT NULL
);
