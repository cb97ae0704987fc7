-- "Corrected by" lookups (item pages) read corrections by the item they correct.
CREATE INDEX IF NOT EXISTS newswire_items_correction_of ON newswire_items (correction_of);
