-- The conversation turns a record came from (docs/LIFECYCLE.md): a JSON array of turn ids,
-- at most 64. A chunk has its own turn; an extracted memory the turns that stated it; a
-- diary day that day's turns. Retrieval uses it to drop a quote whose fact is in the answer.
ALTER TABLE memories ADD COLUMN source_turns TEXT NOT NULL DEFAULT '[]';
