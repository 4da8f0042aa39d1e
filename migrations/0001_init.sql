-- Hippo's D1 schema: the source of truth for every NPC. Every table is keyed by npcid
-- first, columns are typed (an untyped column would store integers as REAL), ids are TEXT.

CREATE TABLE npcs (
  npcid            TEXT    NOT NULL PRIMARY KEY,
  display_name     TEXT    NOT NULL DEFAULT '',
  created_at       INTEGER NOT NULL,
  voice_registered INTEGER NOT NULL DEFAULT 0,
  face_registered  INTEGER NOT NULL DEFAULT 0,
  settings         TEXT    NOT NULL DEFAULT '{}',   -- JSON of NpcSettings
  next_entity_seq  INTEGER NOT NULL DEFAULT 1,
  watermark        INTEGER NOT NULL DEFAULT 0,
  -- Incremented by every committed write batch; optimistic concurrency checks against it.
  version          INTEGER NOT NULL DEFAULT 0,
  diary_prior      TEXT    NOT NULL DEFAULT ''
);

-- Stays empty: a write batch's preconditions. When one fails, the batch inserts a row that
-- breaks the named CHECK, and D1 rolls the whole batch back (batch() is one transaction).
--   version_conflict: the NPC's version is not the one the batch expected;
--   npc_missing:      the batch writes to an NPC that does not exist.
CREATE TABLE commit_guard (
  version_ok INTEGER NOT NULL CONSTRAINT version_conflict CHECK (version_ok = 1),
  npc_ok     INTEGER NOT NULL CONSTRAINT npc_missing CHECK (npc_ok = 1)
);

-- One row per PKG field, so parallel updates of different fields never collide.
CREATE TABLE pkg_fields (
  npcid    TEXT    NOT NULL,
  key      TEXT    NOT NULL,
  value    TEXT    NOT NULL,  -- JSON: string, array of strings, or boolean
  position INTEGER NOT NULL,  -- order of first setting
  PRIMARY KEY (npcid, key)
);

CREATE TABLE entities (
  npcid  TEXT    NOT NULL,
  id     TEXT    NOT NULL,
  num    INTEGER NOT NULL,    -- the NNN of entity_NNN, for ordering
  name   TEXT    NOT NULL,
  alias  TEXT    NOT NULL DEFAULT '[]',
  title  TEXT    NOT NULL DEFAULT '[]',
  remark TEXT    NOT NULL DEFAULT '',
  PRIMARY KEY (npcid, id)
);

CREATE TABLE diary_dailies (
  npcid   TEXT NOT NULL,
  date    TEXT NOT NULL,      -- YYYY-MM-DD
  summary TEXT NOT NULL,
  PRIMARY KEY (npcid, date)
);

CREATE TABLE turns (
  npcid      TEXT    NOT NULL,
  seq        INTEGER NOT NULL,
  id         TEXT    NOT NULL,
  session_id TEXT,
  turn_index INTEGER,
  kind       TEXT    NOT NULL,  -- turn | summary
  role       TEXT,              -- user | assistant
  content    TEXT    NOT NULL,
  ts         INTEGER NOT NULL,
  emotion    TEXT,
  PRIMARY KEY (npcid, seq)
);
-- Idempotent appends: NULL session ids never collide (SQLite treats NULLs as distinct).
CREATE UNIQUE INDEX turns_session_index ON turns (npcid, session_id, turn_index);

CREATE TABLE memories (
  rid              INTEGER PRIMARY KEY AUTOINCREMENT,  -- stable creation order; FTS rowid
  npcid            TEXT    NOT NULL,
  id               TEXT    NOT NULL,
  collection       TEXT    NOT NULL,  -- memory | content | emotion
  type             TEXT    NOT NULL,
  summary          TEXT    NOT NULL,
  keywords         TEXT    NOT NULL DEFAULT '[]',
  confidence       REAL    NOT NULL,
  importance       REAL    NOT NULL,
  source           TEXT    NOT NULL,
  created_at       INTEGER NOT NULL,
  updated_at       INTEGER NOT NULL,
  last_accessed_at INTEGER NOT NULL,
  access_count     INTEGER NOT NULL DEFAULT 0,
  encounter_count  INTEGER NOT NULL DEFAULT 1,
  event_time       INTEGER,
  expires_at       INTEGER,
  sensitive        INTEGER NOT NULL DEFAULT 0,
  superseded_by    TEXT,
  emotion          TEXT,              -- JSON {label, intensity}
  context          TEXT    NOT NULL DEFAULT '',  -- neighbouring turns of a chunk, never returned
  lex              TEXT    NOT NULL,  -- tokens of summary and keywords, space-separated
  lex_ctx          TEXT    NOT NULL,  -- tokens of the context, space-separated
  lex_len          REAL    NOT NULL,  -- weighted token count, for BM25 length normalisation
  UNIQUE (npcid, id)
);
CREATE INDEX memories_npc_collection ON memories (npcid, collection, rid);

-- Full-text index over the pre-tokenized text. `npc` holds one token naming the NPC
-- ("n" + hex of the npcid), so a MATCH never leaves its NPC; `lex` and `ctx` are weighted
-- at query time as the core's BM25F fields (1 and CONTEXT_WEIGHT).
CREATE VIRTUAL TABLE memory_fts USING fts5 (
  npc, lex, ctx,
  tokenize = "unicode61 remove_diacritics 0"
);

CREATE TRIGGER memories_fts_insert AFTER INSERT ON memories BEGIN
  INSERT INTO memory_fts (rowid, npc, lex, ctx)
  VALUES (new.rid, 'n' || hex(new.npcid), new.lex, new.lex_ctx);
END;
CREATE TRIGGER memories_fts_delete AFTER DELETE ON memories BEGIN
  DELETE FROM memory_fts WHERE rowid = old.rid;
END;
CREATE TRIGGER memories_fts_update AFTER UPDATE OF lex, lex_ctx ON memories BEGIN
  DELETE FROM memory_fts WHERE rowid = old.rid;
  INSERT INTO memory_fts (rowid, npc, lex, ctx)
  VALUES (new.rid, 'n' || hex(new.npcid), new.lex, new.lex_ctx);
END;

CREATE TABLE tokens (
  npcid      TEXT    NOT NULL,
  token_id   TEXT    NOT NULL,
  token_hash TEXT    NOT NULL UNIQUE,  -- SHA-256 hex; the secret itself is never stored
  created_at INTEGER NOT NULL,
  expires_at INTEGER,
  PRIMARY KEY (npcid, token_id)
);

-- Dream leases: at most one dream per NPC at a time.
CREATE TABLE leases (
  npcid  TEXT    NOT NULL PRIMARY KEY,
  holder TEXT    NOT NULL,
  until  INTEGER NOT NULL
);

CREATE TABLE meta (
  key   TEXT NOT NULL PRIMARY KEY,
  value TEXT NOT NULL
);

-- The D1-backed vector index (local dev, or production without Vectorize).
CREATE TABLE vectors (
  npcid      TEXT NOT NULL,
  id         TEXT NOT NULL,
  collection TEXT NOT NULL,
  type       TEXT NOT NULL,
  vec        BLOB NOT NULL,  -- little-endian f32s
  PRIMARY KEY (npcid, id)
);
-- Bumped on every change of an NPC's vectors, so an isolate can trust its cached copy.
CREATE TABLE vector_generations (
  npcid TEXT    NOT NULL PRIMARY KEY,
  gen   INTEGER NOT NULL
);

-- Vectorize cannot list a namespace: the ids we upserted, so deleting an NPC can find them.
CREATE TABLE vectorize_ids (
  npcid     TEXT NOT NULL,
  vector_id TEXT NOT NULL,
  PRIMARY KEY (npcid, vector_id)
);
