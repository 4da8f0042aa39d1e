// NPCs over several D1 databases (HIPPO_SHARDS, docs/SCALING.md): the core's backend suite on
// the sharded store and on each shard's database; everything of an NPC in one database; listing,
// tokens, retrieval and deletion across shards; one binding stays today's deployment.
import { test, before, after, describe } from "node:test";
import assert from "node:assert/strict";
import { startWorker } from "./harness.mjs";

function assertAllPass(report) {
  const failed = report.cases.filter((c) => !c.ok);
  assert.deepEqual(failed, [], JSON.stringify(failed, null, 1));
  assert.equal(report.status, "ok");
  assert.ok(report.cases.length > 0);
}

/// Tables (FTS shadow tables aside) whose rows belong to an NPC, per database (read once).
const tablesOf = new Map();
async function npcTables(db) {
  if (!tablesOf.has(db)) {
    // D1 refuses pragma_table_info: the CREATE statement names the column.
    const { results } = await db
      .prepare(
        `SELECT name FROM sqlite_master WHERE type = 'table' AND sql LIKE '%npcid%'
         AND name NOT LIKE 'memory_fts%' AND name NOT LIKE '\\_cf\\_%' ESCAPE '\\'`,
      )
      .all();
    tablesOf.set(db, results.map((r) => r.name));
  }
  return tablesOf.get(db);
}

/// binding → table → row count of `npcid` in that table (tables without rows left out), one
/// query per database.
async function rowsOf(w, npcid) {
  const where = {};
  for (const [binding, db] of Object.entries(w.dbs)) {
    const tables = await npcTables(db);
    // One row, a column per table (D1 caps the terms of a UNION).
    const sql = `SELECT ${tables.map((t) => `(SELECT COUNT(*) FROM ${t} WHERE npcid = ?1) AS ${t}`).join(", ")}`;
    const counts = await db.prepare(sql).bind(npcid).first();
    for (const [t, n] of Object.entries(counts)) if (n > 0) (where[binding] ??= {})[t] = n;
  }
  return where;
}

/// An NPC with every kind of row: profile, memories, log, token, dream (diary, entities).
async function populate(w, npcid) {
  await w.json("PUT", `/api/npc/${npcid}`, { display_name: "灵绯", pkg: { user_name: "小墨" } });
  await w.json("POST", `/api/memories/${npcid}`, {
    memories: [
      { summary: "用户喜欢喝乌龙茶", type: "preference" },
      { summary: "The user walks the dog by the harbor every morning", type: "history" },
    ],
  });
  await w.json("POST", `/api/conversation/${npcid}`, {
    session_id: "s1",
    turns: [
      { role: "user", content: "我叫小墨，住在杭州，我妹妹小雨下周来看我" },
      { role: "assistant", content: "太好了！" },
    ],
  });
  const issued = await w.json("POST", `/api/npc/${npcid}/tokens`, {});
  await w.json("POST", `/api/dream/${npcid}`);
  return issued.token;
}

describe("two shards", () => {
  let w;
  before(async () => {
    w = await startWorker({ shards: ["DB_1"] });
  });
  after(() => w.dispose());

  test("the core's backend suite passes on the sharded store and on each shard's database", async () => {
    const sharded = await w.json("POST", "/__test/store-suite");
    assert.equal(sharded.cases.length, 44);
    assertAllPass(sharded);
    for (const shard of ["DB", "DB_1"]) {
      const report = await w.json("POST", `/__test/store-suite?shard=${shard}`);
      assert.equal(report.cases.length, 44, shard);
      assertAllPass(report);
      assertAllPass(await w.json("POST", `/__test/memory-sync?shard=${shard}`));
    }
    // The sharded run wrote NPCs into both databases.
    for (const db of Object.values(w.dbs)) {
      const { n } = await db.prepare("SELECT COUNT(*) AS n FROM npcs").first();
      assert.ok(n > 0);
    }
  });

  test("everything of an NPC is in one database, and both databases serve NPCs", async () => {
    const npcids = Array.from({ length: 10 }, (_, i) => `split-${i}`);
    const tokens = {};
    for (const id of npcids) tokens[id] = await populate(w, id);
    const homes = {};
    for (const id of npcids) {
      const where = await rowsOf(w, id);
      const bindings = Object.keys(where);
      assert.equal(bindings.length, 1, `${id} split: ${JSON.stringify(where)}`);
      const tables = where[bindings[0]];
      for (const table of ["npcs", "memories", "turns", "tokens", "pkg_fields", "diary_dailies", "vectors"]) {
        assert.ok(tables[table] > 0, `${id}: no ${table} rows in ${bindings[0]}: ${JSON.stringify(tables)}`);
      }
      homes[id] = bindings[0];
    }
    const used = new Set(Object.values(homes));
    assert.deepEqual([...used].sort(), ["DB", "DB_1"], JSON.stringify(homes));

    // memory_retrieval: the token finds its NPC, whichever database holds it.
    for (const id of npcids) {
      const res = await w.retrieval(`Bearer ${tokens[id]}`, { query: "乌龙茶" });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.ok(res.body.memories.some((m) => m.summary.includes("乌龙茶")), `${id}: ${JSON.stringify(res.body)}`);
    }
    // The deployment's settings (the recorded embedder) are in the default database only.
    const meta = async (db) => (await db.prepare("SELECT COUNT(*) AS n FROM meta WHERE key = 'embedder'").first()).n;
    assert.equal(await meta(w.dbs.DB), 1);
    assert.equal(await meta(w.dbs.DB_1), 0);

    // Deleting an NPC removes it from its database; its token stops working.
    const gone = npcids.find((id) => homes[id] === "DB_1");
    await w.json("DELETE", `/api/npc/${gone}`);
    // Only the vector generation counter outlives an NPC (on purpose: isolates' vectors of a
    // re-created NPC must not match it), and only in the NPC's database.
    const left = await rowsOf(w, gone);
    assert.deepEqual(Object.keys(left), ["DB_1"], JSON.stringify(left));
    assert.deepEqual(Object.keys(left.DB_1), ["vector_generations"], JSON.stringify(left));
    assert.equal((await w.retrieval(`Bearer ${tokens[gone]}`, { query: "乌龙茶" })).status, 401);
  });

  test("GET /api/npc pages over every shard in npcid order", async () => {
    const want = Array.from({ length: 13 }, (_, i) => `list-${String(i).padStart(2, "0")}`);
    for (const id of [...want].reverse()) await w.json("PUT", `/api/npc/${id}`, {});
    for (const limit of [1, 4, 13, 50]) {
      const got = [];
      let after = "list-";
      for (;;) {
        const page = await w.json("GET", `/api/npc?limit=${limit}&after=${after}`);
        got.push(...page.npcs.map((n) => n.npcid).filter((id) => id.startsWith("list-")));
        if (!page.next || !page.next.startsWith("list-")) break;
        after = page.next;
      }
      assert.deepEqual(got, want, `limit ${limit}`);
    }
    const perDb = {};
    for (const [binding, db] of Object.entries(w.dbs)) {
      perDb[binding] = (await db.prepare("SELECT COUNT(*) AS n FROM npcs WHERE npcid LIKE 'list-%'").first()).n;
    }
    assert.ok(perDb.DB > 0 && perDb.DB_1 > 0, JSON.stringify(perDb));
    assert.equal(perDb.DB + perDb.DB_1, want.length);
  });
});

test("Vectorize: a shard's own VECTORS_<binding> holds its NPCs' vectors, DB's the shared VECTORS", async () => {
  const w = await startWorker({ shards: ["DB_1"], database: "indexes", vectorize: "per-shard" });
  try {
    const npcids = Array.from({ length: 8 }, (_, i) => `vz-${i}`);
    const tokens = {};
    for (const id of npcids) tokens[id] = await populate(w, id);
    const namespaces = async (name) => new Set((await w.standin("/dump", name)).vectors.map((v) => v.namespace));
    const shared = await namespaces("vectorize-standin");
    const own = await namespaces("vectorize-standin-DB_1");
    const homes = {};
    for (const id of npcids) {
      homes[id] = Object.keys(await rowsOf(w, id))[0];
      const [mine, other] = homes[id] === "DB_1" ? [own, shared] : [shared, own];
      assert.ok(mine.has(id), `${id} (${homes[id]}): no vectors in its index`);
      assert.ok(!other.has(id), `${id} (${homes[id]}): vectors in the other index`);
      const res = await w.retrieval(`Bearer ${tokens[id]}`, { query: "乌龙茶" });
      assert.equal(res.status, 200);
    }
    assert.deepEqual(new Set(Object.values(homes)), new Set(["DB", "DB_1"]), JSON.stringify(homes));
  } finally {
    await w.dispose();
  }
});

test("a pin keeps an NPC in the database it names", async () => {
  // Which npcid hashes to DB_1 is the core's business: find one, then pin it to DB.
  const probe = await startWorker({ shards: ["DB_1"], database: "pin-probe" });
  let moved;
  try {
    for (let i = 0; !moved && i < 40; i++) {
      await probe.json("PUT", `/api/npc/pin-${i}`, {});
      if (Object.keys(await rowsOf(probe, `pin-${i}`))[0] === "DB_1") moved = `pin-${i}`;
    }
  } finally {
    await probe.dispose();
  }
  assert.ok(moved);
  const w = await startWorker({ shards: ["DB_1"], database: "pinned", vars: { HIPPO_SHARD_MAP: JSON.stringify({ [moved]: "DB" }) } });
  try {
    await populate(w, moved);
    assert.deepEqual(Object.keys(await rowsOf(w, moved)), ["DB"]);
  } finally {
    await w.dispose();
  }
});

test("one binding: no HIPPO_SHARDS is today's deployment, everything in DB", async () => {
  const w = await startWorker({ database: "single", shards: [] });
  try {
    const token = await populate(w, "solo");
    assert.deepEqual(Object.keys(w.dbs), ["DB"]);
    assert.ok((await rowsOf(w, "solo")).DB.memories > 0);
    assert.equal((await w.retrieval(`Bearer ${token}`, { query: "乌龙茶" })).status, 200);
    const report = await w.json("POST", "/__test/store-suite");
    assert.equal(report.cases.length, 44);
    assertAllPass(report);
  } finally {
    await w.dispose();
  }
});

test("configuration mistakes are 503s naming what to fix", async () => {
  // DB_1 listed but not bound.
  const w = await startWorker({ database: "unbound", shards: [], vars: { HIPPO_SHARDS: "DB,DB_1" } });
  try {
    const res = await w.admin("GET", "/api/npc");
    assert.equal(res.status, 503);
    assert.match((await res.json()).message, /DB_1/);
    const bad = await startWorker({ database: "bad-order", shards: [], vars: { HIPPO_SHARDS: "DB_1,DB" } });
    try {
      const res = await bad.admin("GET", "/api/npc");
      assert.equal(res.status, 503);
      assert.match((await res.json()).message, /HIPPO_SHARDS must start with DB/);
    } finally {
      await bad.dispose();
    }
  } finally {
    await w.dispose();
  }
});
