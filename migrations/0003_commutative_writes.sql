-- Appends and reinforcement need no NPC-wide guard (worker/src/d1/writes.rs).
--
-- `npcs.version` now moves only with structural writes (what a writer computes from what it
-- read: the NPC record, PKG, entities, diary, memories written whole, tokens); a retrieval's
-- reinforcement (an in-place increment) and a log append (its `seq` allocated inside its own
-- INSERT) leave it, so they never make a structural writer retry, nor each other.
--
-- Isolates' copies of memories must still see reinforcement (access counts shape strength),
-- so memory rows are stamped with a revision of their own: `npcs.memory_rev`, moved by every
-- commit that writes, deletes or touches a memory row, and stamped into `memories.rev` and
-- `memory_tombstones.rev` exactly as the version was by migration 0002.

ALTER TABLE npcs ADD COLUMN memory_rev INTEGER NOT NULL DEFAULT 0;

-- Stamps so far came from the version; continue above every one of them.
UPDATE npcs SET memory_rev = MAX(
  version,
  COALESCE((SELECT MAX(rev) FROM memories WHERE memories.npcid = npcs.npcid), 0),
  COALESCE((SELECT MAX(rev) FROM memory_tombstones t WHERE t.npcid = npcs.npcid), 0)
);

DROP TRIGGER memories_tombstone;
DROP TRIGGER memories_rev_insert;
DROP TRIGGER memories_rev_update;

-- The commit's memory revision bump is its last statement, so "memory_rev + 1" is the
-- revision the commit will have when it lands.
CREATE TRIGGER memories_tombstone AFTER DELETE ON memories BEGIN
  INSERT OR REPLACE INTO memory_tombstones (npcid, id, rev)
  VALUES (old.npcid, old.id, COALESCE((SELECT memory_rev FROM npcs WHERE npcid = old.npcid), 0) + 1);
END;

-- Writes from outside Hippo's commits are stamped too (see migration 0002).
CREATE TRIGGER memories_rev_insert AFTER INSERT ON memories WHEN new.rev = 0 BEGIN
  UPDATE memories SET rev = COALESCE((SELECT memory_rev FROM npcs WHERE npcid = new.npcid), 0) + 1
  WHERE rid = new.rid;
END;
CREATE TRIGGER memories_rev_update AFTER UPDATE ON memories WHEN new.rev = old.rev BEGIN
  UPDATE memories SET rev = COALESCE((SELECT memory_rev FROM npcs WHERE npcid = new.npcid), 0) + 1
  WHERE rid = new.rid;
END;
