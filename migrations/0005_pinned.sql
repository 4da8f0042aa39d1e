-- Pinned memories (issue 16): never decay below the active tier and always have a place in
-- the session brief. 0 for every memory stored before.
ALTER TABLE memories ADD COLUMN pinned INTEGER NOT NULL DEFAULT 0;
