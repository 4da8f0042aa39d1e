-- Incremental sync of memories into a Worker isolate's copy (worker/src/d1/memory_cache.rs).
--
-- Every commit bumps npcs.version; each memory row it writes (insert, update, reinforcement)
-- is stamped with that new version in `rev`, and each memory it deletes leaves a tombstone
-- with the same stamp. An isolate holding an NPC's memories as of version V catches up by
-- reading the rows and tombstones with rev > V, in the same batch as the version itself.
-- `incarnation` tells a re-created NPC (version counting from 0 again) from the old one.

ALTER TABLE npcs ADD COLUMN incarnation TEXT NOT NULL DEFAULT '';

ALTER TABLE memories ADD COLUMN rev INTEGER NOT NULL DEFAULT 0;
CREATE INDEX memories_npc_rev ON memories (npcid, rev);

CREATE TABLE memory_tombstones (
  npcid TEXT    NOT NULL,
  id    TEXT    NOT NULL,
  rev   INTEGER NOT NULL,
  PRIMARY KEY (npcid, id)
);
CREATE INDEX memory_tombstones_npc_rev ON memory_tombstones (npcid, rev);

-- The commit's version bump is its last statement, so "version + 1" is the version the
-- commit will have when it lands.
CREATE TRIGGER memories_tombstone AFTER DELETE ON memories BEGIN
  INSERT OR REPLACE INTO memory_tombstones (npcid, id, rev)
  VALUES (old.npcid, old.id, COALESCE((SELECT version FROM npcs WHERE npcid = old.npcid), 0) + 1);
END;

-- Writes from outside Hippo's commits (an operator's SQL, a repair script) are stamped too,
-- so warm isolates still see them. Hippo's own statements set `rev` themselves, which these
-- conditions skip.
CREATE TRIGGER memories_rev_insert AFTER INSERT ON memories WHEN new.rev = 0 BEGIN
  UPDATE memories SET rev = COALESCE((SELECT version FROM npcs WHERE npcid = new.npcid), 0) + 1
  WHERE rid = new.rid;
END;
CREATE TRIGGER memories_rev_update AFTER UPDATE ON memories WHEN new.rev = old.rev BEGIN
  UPDATE memories SET rev = COALESCE((SELECT version FROM npcs WHERE npcid = new.npcid), 0) + 1
  WHERE rid = new.rid;
END;
