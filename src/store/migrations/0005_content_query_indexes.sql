-- Indexes that keep the newswire and the graph answering from indexes at
-- 100,000+ items, whatever the filter.

-- Graph events are published items listed newest event first.
CREATE INDEX IF NOT EXISTS newswire_items_state_event_date ON newswire_items (newsroom_state, event_date, event_id);

-- Each tag row carries the store time of its version, so a filtered newswire
-- query walks one tag's index in lastUpdatedAt order (rare and common values
-- alike) instead of scanning every item and probing its tags. Item type and
-- the first-party flag become tags too ('type', 'first_party').
ALTER TABLE newswire_item_tags ADD COLUMN updated_us BIGINT NOT NULL DEFAULT 0;
UPDATE newswire_item_tags SET updated_us = (
  SELECT v.updated_us FROM newswire_item_versions v
  WHERE v.event_id = newswire_item_tags.event_id AND v.version = newswire_item_tags.version
);
INSERT INTO newswire_item_tags (event_id, version, tag_kind, tag_value, updated_us)
  -- WHERE true: SQLite needs it to tell the upsert clause from a join constraint.
  SELECT event_id, version, 'type', item_type, updated_us FROM newswire_items WHERE true ON CONFLICT DO NOTHING;
INSERT INTO newswire_item_tags (event_id, version, tag_kind, tag_value, updated_us)
  -- WHERE true: SQLite needs it to tell the upsert clause from a join constraint.
  SELECT event_id, version, 'first_party', CASE WHEN first_party = 1 THEN 'true' ELSE 'false' END, updated_us FROM newswire_items WHERE true ON CONFLICT DO NOTHING;
CREATE INDEX IF NOT EXISTS newswire_item_tags_updated ON newswire_item_tags (tag_kind, tag_value, updated_us);
