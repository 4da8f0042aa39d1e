-- Token scopes (issue 16): what a token bound to one NPC may do, comma-separated:
-- retrieval (memory_retrieval), read and write (the MCP tools). Every token issued before
-- is a memory_retrieval token.
ALTER TABLE tokens ADD COLUMN scopes TEXT NOT NULL DEFAULT 'retrieval';
