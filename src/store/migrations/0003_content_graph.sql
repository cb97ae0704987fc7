-- The entity graph: entities and relationships, current state plus an
-- append-only history shared with other content records.
CREATE TABLE IF NOT EXISTS graph_entities (
  id           TEXT PRIMARY KEY,
  entity_type  TEXT NOT NULL,
  name         TEXT NOT NULL,
  first_party  INTEGER NOT NULL,
  source_url   TEXT NOT NULL,
  version      INTEGER NOT NULL,
  content_hash TEXT NOT NULL,
  updated_us   BIGINT NOT NULL
);
CREATE INDEX IF NOT EXISTS graph_entities_type ON graph_entities (entity_type, id);

CREATE TABLE IF NOT EXISTS graph_relationships (
  id                TEXT PRIMARY KEY,
  relationship_type TEXT NOT NULL,
  from_id           TEXT NOT NULL,
  to_id             TEXT NOT NULL,
  source_url        TEXT NOT NULL,
  version           INTEGER NOT NULL,
  content_hash      TEXT NOT NULL,
  updated_us        BIGINT NOT NULL
);
CREATE INDEX IF NOT EXISTS graph_relationships_from ON graph_relationships (from_id, id);
CREATE INDEX IF NOT EXISTS graph_relationships_to ON graph_relationships (to_id, id);
CREATE INDEX IF NOT EXISTS graph_relationships_type ON graph_relationships (relationship_type, id);

-- Versions of entities, relationships and listings. Never updated or deleted.
CREATE TABLE IF NOT EXISTS content_record_versions (
  record_kind TEXT NOT NULL,
  record_id   TEXT NOT NULL,
  version     INTEGER NOT NULL,
  updated_us  BIGINT NOT NULL,
  recorded_at BIGINT NOT NULL,
  doc         TEXT NOT NULL,
  PRIMARY KEY (record_kind, record_id, version)
);
