-- The content generation: every content write transaction advances it (the
-- clock row's lock statement does), cosmetic changes and census snapshots
-- included, which do not tick last_us. The free feeds key their cached bytes
-- by it, so one indexed read per request tells whether anything changed, in
-- this process or in another instance on the same database.
ALTER TABLE content_clock ADD COLUMN gen BIGINT NOT NULL DEFAULT 0;

-- The default newswire lists the newest items: newest eventDate first, then
-- newest lastUpdatedAt (unique), so a page is an index walk in reverse and
-- the next page a keyset (event_date, updated_us) range.
CREATE INDEX IF NOT EXISTS newswire_items_event_date_updated ON newswire_items (event_date, updated_us);
