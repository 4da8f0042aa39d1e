// Shared by the security suites: an NPC with something in every part of its memory, the
// export used as "the whole state of an NPC", and the two error shapes of SPEC §3.
import assert from "node:assert/strict";

const SESSION = {
  session_id: "s1",
  turns: [
    { role: "user", content: "以后叫我阿澈吧" },
    { role: "assistant", content: "好的，阿澈！" },
    { role: "user", content: "我喜欢爬山，周末经常去" },
    { role: "user", content: "I am allergic to peanuts, please remember that" },
  ],
};

/**
 * Creates `npcid` with PKG fields, two entities, conversation turns, a dream (diary, extracted
 * memories), a memory superseded by a newer one, and a retrieval token. Returns the token.
 */
export async function populate(w, npcid, { dream = true } = {}) {
  await w.json("PUT", `/api/npc/${npcid}`, {
    display_name: `Character ${npcid}`,
    pkg: { Name: `Name of ${npcid}`, Hobbies: "Reading,Running" },
  });
  await w.json("PUT", `/api/pkg/${npcid}`, { updates: [{ key: "Favorite Books", value: ["Dune"] }] });
  await w.json("POST", `/api/relationship/${npcid}`, {
    ops: [
      { op: "add", name: "Xiao Hong", alias: ["Hong"], title: ["classmate"], remark: `friend of ${npcid}` },
      { op: "add", name: "Lao Wang", remark: "neighbour" },
    ],
  });
  await w.json("POST", `/api/conversation/${npcid}`, SESSION);
  if (dream) {
    const { report } = await w.json("POST", `/api/dream/${npcid}`);
    assert.equal(report.error, null, `dream of ${npcid}`);
  }
  await w.json("POST", `/api/memories/${npcid}`, {
    memories: [{ summary: `User lives in Berlin (${npcid})`, type: "profile" }],
  });
  const moved = await w.json("POST", `/api/memories/${npcid}`, {
    memories: [{ summary: `User lives in Bangkok (${npcid})`, type: "profile" }],
  });
  assert.equal(moved.results[0].action, "superseded", "a superseded memory exists");
  await w.json("POST", `/api/memories/${npcid}`, {
    memories: [
      { summary: `secret of ${npcid}: the vault code is 4711`, type: "other", sensitive: true },
      { summary: `${npcid} keeps a green notebook`, type: "other", keywords: ["notebook"] },
    ],
  });
  return (await w.json("POST", `/api/npc/${npcid}/tokens`, {})).token;
}

/** The NPC's whole state as the export document (404 → null). */
export async function snapshot(w, npcid) {
  const res = await w.admin("GET", `/api/npc/${npcid}/export`);
  if (res.status === 404) return null;
  assert.equal(res.status, 200, `export ${npcid}`);
  return res.json();
}

/**
 * The state minus what a successful read legitimately changes: retrieval reinforces what it
 * returns (SPEC §2.2), so last access, access count and importance move.
 */
export function withoutAccess(doc) {
  if (!doc) return doc;
  return {
    ...doc,
    memories: doc.memories.map(({ last_accessed_at, access_count, importance, ...m }) => m),
  };
}

/** `/api/*` error: `{"status":"error","message"}`. */
export async function apiError(res, status, what = "") {
  const text = await res.text();
  assert.equal(res.status, status, `${what}: ${res.status} ${text.slice(0, 300)}`);
  const body = JSON.parse(text);
  assert.equal(body.status, "error", what);
  assert.equal(typeof body.message, "string", what);
  assert.ok(body.message.length > 0, what);
  return body;
}

/** memory_retrieval error: `{"error":{"code","message"}}`. */
export async function retrievalError(res, status, code, what = "") {
  const text = await res.text();
  assert.equal(res.status, status, `${what}: ${res.status} ${text.slice(0, 300)}`);
  const body = JSON.parse(text);
  assert.equal(body.error?.code, code, what);
  assert.equal(typeof body.error.message, "string", what);
  return body;
}

/** Every table with an `npcid` column, from the live schema (new tables are covered too). */
export async function npcTables(db) {
  // D1 refuses pragma_table_info, so read the column out of each table's CREATE statement.
  const tables = await db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'table'").all();
  return tables.results.filter((t) => /^\s*npcid\s/im.test(t.sql ?? "")).map((t) => t.name);
}

/** Rows of `npcid` per table, plus its FTS rows (keyed by the hex of the npcid). */
export async function rowCounts(db, npcid) {
  const counts = {};
  for (const table of await npcTables(db)) {
    const row = await db.prepare(`SELECT count(*) AS n FROM ${table} WHERE npcid = ?`).bind(npcid).first();
    counts[table] = row.n;
  }
  const fts = await db
    .prepare("SELECT count(*) AS n FROM memory_fts WHERE npc = 'n' || hex(?)")
    .bind(npcid)
    .first();
  counts.memory_fts = fts.n;
  return counts;
}
