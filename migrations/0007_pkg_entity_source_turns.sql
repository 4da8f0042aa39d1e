-- The conversation turns a PKG field's value and a relationship entity were drawn from
-- (docs/LIFECYCLE.md, "Source links"): a JSON array of turn ids, at most 64, as
-- memories.source_turns (migration 0004_source_turns). Written by dreams; explicit writes
-- through the API keep a list field's links and clear a replaced single value's.
ALTER TABLE pkg_fields ADD COLUMN source_turns TEXT NOT NULL DEFAULT '[]';
ALTER TABLE entities ADD COLUMN source_turns TEXT NOT NULL DEFAULT '[]';

-- A search with `include_sources` reads the turns an answer's items link to, by id.
CREATE INDEX turns_npc_id ON turns (npcid, id);
