// memory_retrieval (SPEC §3.4): tokens decide the scope, structured errors, small answers,
// the fake provider's demo character.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { eventually, startWorker } from "./harness.mjs";

let w;
let tokenA;
let tokenB;
before(async () => {
  w = await startWorker();
  for (const [npc, facts] of [
    ["tenant-a", ["User A's secret word is pineapple", "User A likes jazz"]],
    ["tenant-b", ["User B's secret word is avocado", "User B likes opera"]],
  ]) {
    await w.json("PUT", `/api/npc/${npc}`, {});
    await w.json("POST", `/api/memories/${npc}`, {
      memories: facts.map((summary) => ({ summary, type: "preference", source: "explicit_user_statement" })),
    });
  }
  tokenA = (await w.json("POST", "/api/npc/tenant-a/tokens")).token;
  tokenB = (await w.json("POST", "/api/npc/tenant-b/tokens")).token;
});
after(() => w.dispose());

const RETRIEVED_KEYS = ["confidence", "id", "source", "summary", "type", "updated_at"];

test("a token answers for its NPC, bare or as Bearer, in the protocol's shape", async () => {
  for (const authorization of [tokenA, `Bearer ${tokenA}`]) {
    const r = await w.retrieval(authorization, { live_id: "live-1", query: "what is the secret word?", reason: "user asked" });
    assert.equal(r.status, 200);
    assert.deepEqual(Object.keys(r.body), ["memories"]);
    assert.ok(r.body.memories.length > 0);
    assert.match(r.body.memories[0].summary, /pineapple/);
    for (const m of r.body.memories) {
      assert.deepEqual(Object.keys(m).sort(), RETRIEVED_KEYS);
      assert.ok(m.confidence >= 0 && m.confidence <= 1);
      assert.ok(!Number.isNaN(Date.parse(m.updated_at)));
    }
  }
});

test("tenant isolation: a token never returns another NPC's memories", async () => {
  for (const [token, mine, theirs] of [
    [tokenA, /User A/, /User B|avocado|opera/],
    [tokenB, /User B/, /User A|pineapple|jazz/],
  ]) {
    for (const query of ["secret word", "avocado", "pineapple", "likes", "User A User B opera jazz"]) {
      const r = await w.retrieval(token, { query, max_results: 10 });
      assert.equal(r.status, 200);
      for (const m of r.body.memories) {
        assert.doesNotMatch(m.summary, theirs, `${query}: ${m.summary}`);
      }
    }
    const r = await w.retrieval(token, { query: "likes", max_results: 10 });
    assert.ok(r.body.memories.some((m) => mine.test(m.summary)));
  }
  // The body cannot widen the scope: ids of the other NPC in the body are ignored.
  const r = await w.retrieval(tokenA, { query: "avocado", npcid: "tenant-b", character_id: "tenant-b" });
  assert.ok(!r.body.memories.some((m) => /avocado/.test(m.summary)));
});

test("401 for missing, unknown and malformed tokens; never the /api shape", async () => {
  for (const authorization of [undefined, "hpo_" + "0".repeat(64), "Bearer nope", "Basic abc"]) {
    const r = await w.retrieval(authorization, { query: "x" });
    assert.equal(r.status, 401, String(authorization));
    assert.equal(r.body.error.code, "unauthorized");
    assert.equal(typeof r.body.error.message, "string");
  }
});

test("400 for an empty query; nothing found is an empty list; max_results is clamped", async () => {
  for (const body of [{ query: "" }, { query: "   " }, { live_id: "x" }, { query: 3 }]) {
    const r = await w.retrieval(tokenA, body);
    assert.equal(r.status, 400, JSON.stringify(body));
    assert.equal(r.body.error.code, "invalid_request");
  }
  const none = await w.retrieval(tokenA, { query: "zzzqqq xylophone", memory_types: ["project"] });
  assert.equal(none.status, 200);
  assert.deepEqual(none.body, { memories: [] });
  const one = await w.retrieval(tokenA, { query: "User A", max_results: 0 });
  assert.equal(one.body.memories.length, 1);
  const sloppy = await w.retrieval(tokenA, { query: "User A", max_results: "lots", unknown: { deep: true } });
  assert.equal(sloppy.status, 200);
});

test("answers stay small: summaries ≤ 500 characters, body ≤ 16 KiB", async () => {
  await w.json("PUT", "/api/npc/big", {});
  const long = (i) => `Long memory ${i}: ` + "星".repeat(1500);
  await w.json("POST", "/api/memories/big", {
    memories: Array.from({ length: 12 }, (_, i) => ({ summary: long(i), type: "history" })),
  });
  const token = (await w.json("POST", "/api/npc/big/tokens")).token;
  const res = await w.call("/memory_retrieval", {
    method: "POST",
    headers: { authorization: token, "content-type": "application/json" },
    body: JSON.stringify({ query: "long memory 星", max_results: 10 }),
  });
  const text = await res.text();
  assert.equal(res.status, 200);
  assert.ok(Buffer.byteLength(text) <= 16 * 1024, `${Buffer.byteLength(text)} bytes`);
  const body = JSON.parse(text);
  assert.ok(body.memories.length > 0);
  for (const m of body.memories) assert.ok([...m.summary].length <= 500);
});

test("fake provider: character 01 remembers 阿澈, 月亮醒了 and the advice format", async () => {
  const cases = [
    ["用户喜欢灵绯怎么称呼自己", "阿澈"],
    ["用户和灵绯之前约定的暗号", "月亮醒了"],
    ["用户喜欢灵绯用什么格式给建议", "先给结论，再补充两三条理由"],
  ];
  for (const [query, expected] of cases) {
    const r = await w.retrieval(undefined, { query, max_results: 3 }, "/memory_retrieval/fake");
    assert.equal(r.status, 200);
    assert.ok(r.body.memories.length > 0 && r.body.memories.length <= 3);
    assert.ok(r.body.memories[0].summary.includes(expected), `${query} → ${JSON.stringify(r.body.memories[0])}`);
  }
  // Any token (or none) and any live_id: always character 01.
  const r = await w.retrieval(tokenA, { live_id: "whatever", query: "阿澈喜欢喝什么", memory_types: ["preference"] }, "/memory_retrieval/fake");
  assert.equal(r.status, 200);
  assert.match(r.body.memories[0].summary, /燕麦拿铁/);
  assert.ok(r.body.memories.every((m) => m.type === "preference"));
  assert.ok(!r.body.memories.some((m) => /pineapple/.test(m.summary)));
  const bad = await w.retrieval(undefined, { query: "" }, "/memory_retrieval/fake");
  assert.equal(bad.status, 400);
});

test("the demo character is seeded once, and only under its reserved id", async () => {
  await w.retrieval(undefined, { query: "暗号" }, "/memory_retrieval/fake");
  await Promise.all([1, 2, 3].map(() => w.retrieval(undefined, { query: "生日" }, "/memory_retrieval/fake")));
  const rows = await w.db.prepare("SELECT npcid, COUNT(*) AS n FROM memories WHERE npcid LIKE '%demo%' GROUP BY npcid").all();
  assert.deepEqual(rows.results, [{ npcid: "__demo_01", n: 16 }]);
  // Deleted by an admin, it comes back on the next fake request.
  await w.json("DELETE", "/api/npc/__demo_01");
  const again = await w.retrieval(undefined, { query: "暗号" }, "/memory_retrieval/fake");
  assert.equal(again.status, 200);
  assert.match(again.body.memories[0].summary, /月亮醒了/);
  // A token-bearing caller cannot reach it through the real endpoint.
  const r = await w.retrieval(tokenA, { query: "月亮醒了" });
  assert.ok(!r.body.memories.some((m) => /月亮醒了/.test(m.summary)));
});

test("the fake provider is read-only: after seeding, no call writes anything to D1", async () => {
  const fresh = await startWorker();
  try {
    const fake = (query) => fresh.retrieval(undefined, { query }, "/memory_retrieval/fake");
    const first = await fake("用户和灵绯之前约定的暗号"); // seeds character 01 (once per database)
    assert.equal(first.status, 200);
    // Every row of every table Hippo writes (the FTS index follows `memories` by triggers).
    // A write through Hippo always moves something here: a structural one the NPC's
    // `version`, one to memory rows their `rev` and the NPC's `memory_rev`. (SQLite's
    // total_changes() would be stronger, but Miniflare's D1 writes on every query itself.)
    const tables = ["npcs", "pkg_fields", "entities", "diary_dailies", "turns", "memories", "memory_tombstones",
      "tokens", "leases", "meta", "vectors", "vector_generations", "vectorize_ids", "sqlite_sequence"];
    const state = async () => {
      const out = {};
      for (const t of tables) out[t] = (await fresh.db.prepare(`SELECT * FROM ${t} ORDER BY 1, 2`).all()).results;
      return out;
    };
    const before = await state();
    assert.equal(before.memories.length, 16);
    assert.ok(before.memories.every((m) => m.access_count === 0));
    const answers = [
      await fake("用户喜欢灵绯怎么称呼自己"),
      ...(await Promise.all(["生日", "阿澈喜欢喝什么", "用户喜欢灵绯用什么格式给建议"].map(fake))),
      await fake("用户和灵绯之前约定的暗号"),
    ];
    const returned = answers.reduce((n, r) => n + r.body.memories.length, 0);
    assert.ok(answers.every((r) => r.status === 200) && returned >= 5, `returned ${returned}`);
    assert.deepEqual(await state(), before, "a fake-provider call wrote to D1");
    // The real endpoint still reinforces what it returns (same engine, the flag is the fake's).
    await fresh.json("PUT", "/api/npc/real", {});
    await fresh.json("POST", "/api/memories/real", { memories: [{ summary: "The user likes jazz", type: "preference" }] });
    const token = (await fresh.json("POST", "/api/npc/real/tokens")).token;
    assert.equal((await fresh.retrieval(token, { query: "jazz" })).body.memories.length, 1);
    const real = await eventually(
      () => fresh.db.prepare("SELECT access_count AS n FROM memories WHERE npcid = 'real'").first(),
      (row) => row.n === 1,
    );
    assert.equal(real.n, 1);
  } finally {
    await fresh.dispose();
  }
});

test("reinforcement is written after the answer: a later read sees it, on the token's NPC only", async () => {
  const fresh = await startWorker();
  try {
    for (const npc of ["touch-a", "touch-b"]) {
      await fresh.json("PUT", `/api/npc/${npc}`, {});
      await fresh.json("POST", `/api/memories/${npc}`, { memories: [{ summary: "The user plays the cello", type: "preference" }] });
    }
    const token = (await fresh.json("POST", "/api/npc/touch-a/tokens")).token;
    const rows = () => fresh.db.prepare("SELECT npcid, access_count, last_accessed_at, created_at FROM memories ORDER BY npcid").all();
    const asked = Date.now();
    const r = await fresh.retrieval(token, { query: "cello" });
    assert.equal(r.status, 200);
    assert.equal(r.body.memories.length, 1);
    const after = (await eventually(rows, (x) => x.results[0].access_count === 1)).results;
    assert.equal(after[0].npcid, "touch-a");
    assert.equal(after[0].access_count, 1);
    assert.ok(after[0].last_accessed_at >= asked, "last access stamped by the retrieval");
    // The other NPC's identical memory is untouched.
    assert.equal(after[1].npcid, "touch-b");
    assert.equal(after[1].access_count, 0);
    assert.equal(after[1].last_accessed_at, after[1].created_at);
    // The list route shows it too.
    const listed = await fresh.json("GET", "/api/memories/touch-a");
    assert.equal(listed.memories[0].access_count, 1);
  } finally {
    await fresh.dispose();
  }
});

test("a failed reinforcement write changes neither the answer nor the data", async () => {
  const fresh = await startWorker();
  try {
    await fresh.json("PUT", "/api/npc/refused", {});
    await fresh.json("POST", "/api/memories/refused", { memories: [{ summary: "The user plays the cello", type: "preference" }] });
    const token = (await fresh.json("POST", "/api/npc/refused/tokens")).token;
    const read = () => fresh.retrieval(token, { query: "cello" });
    const first = await read();
    const memoryRows = () => fresh.db.prepare("SELECT * FROM memories WHERE npcid = 'refused'").all();
    await eventually(memoryRows, (x) => x.results[0].access_count === 1);
    // From now on D1 refuses every reinforcement (a storage fault under the deferred write).
    await fresh.db.prepare(
      "CREATE TRIGGER refuse_touch BEFORE UPDATE OF access_count ON memories BEGIN SELECT RAISE(ABORT, 'touch refused'); END",
    ).run();
    const before = (await memoryRows()).results;
    const second = await read();
    assert.equal(second.status, 200);
    assert.deepEqual(second.body, first.body);
    // The write runs after the answer: give it time to fail, then the rows must be as they were.
    await new Promise((r) => setTimeout(r, 500));
    assert.deepEqual((await memoryRows()).results, before);
    assert.equal((await fresh.json("GET", "/api/memories/refused")).memories.length, 1);
    // With the fault gone, the next retrieval reinforces again: only the failed count was lost.
    await fresh.db.prepare("DROP TRIGGER refuse_touch").run();
    assert.equal((await read()).status, 200);
    const healed = await eventually(memoryRows, (x) => x.results[0].access_count === 2);
    assert.equal(healed.results[0].access_count, 2);
  } finally {
    await fresh.dispose();
  }
});

test("a warm isolate reads the token and the retrieval's data in one batch, never another NPC's", async () => {
  const fresh = await startWorker();
  try {
    for (const [npc, summary] of [["warm-a", "The user grows tomatoes"], ["warm-b", "The user grows orchids"]]) {
      await fresh.json("PUT", `/api/npc/${npc}`, {});
      await fresh.json("POST", `/api/memories/${npc}`, { memories: [{ summary, type: "preference" }] });
    }
    const { token } = await fresh.json("POST", "/api/npc/warm-a/tokens");
    const grows = async () => (await fresh.retrieval(token, { query: "what does the user grow", max_results: 10 })).body.memories.map((m) => m.summary).sort();
    assert.deepEqual(await grows(), ["The user grows tomatoes"]);
    // Warm now (the isolate knows the token and holds warm-a's copy): a write between two
    // retrievals is seen by the next one.
    await fresh.json("POST", "/api/memories/warm-a", { memories: [{ summary: "The user grows basil", type: "preference" }] });
    assert.deepEqual(await grows(), ["The user grows basil", "The user grows tomatoes"]);
    // The token now belongs to warm-b (an operator's SQL): the isolate's guess is wrong, and
    // the answer is warm-b's alone.
    await fresh.db.prepare("UPDATE tokens SET npcid = 'warm-b' WHERE npcid = 'warm-a'").run();
    assert.deepEqual(await grows(), ["The user grows orchids"]);
    assert.deepEqual(await grows(), ["The user grows orchids"]);
    // Revoked: refused at once, whatever the isolate remembers.
    await fresh.db.prepare("DELETE FROM tokens WHERE npcid = 'warm-b'").run();
    assert.equal((await fresh.retrieval(token, { query: "what does the user grow" })).status, 401);
  } finally {
    await fresh.dispose();
  }
});

test("a request after a retrieval comes after its touches: a delete and re-import never gets an older touch", async () => {
  const fresh = await startWorker();
  try {
    await fresh.json("PUT", "/api/npc/order", {});
    await fresh.json("POST", "/api/memories/order", { memories: [{ summary: "The user plays the cello", type: "preference" }] });
    const token = (await fresh.json("POST", "/api/npc/order/tokens")).token;
    const doc = await fresh.json("GET", "/api/npc/order/export");
    assert.equal(doc.memories[0].access_count, 0);
    // The touch waits for company (FLUSH_LINGER_MS); the export right after it commits it first.
    assert.equal((await fresh.retrieval(token, { query: "cello" })).body.memories.length, 1);
    const seen = await fresh.json("GET", "/api/npc/order/export");
    assert.equal(seen.memories[0].access_count, 1, "the export sees the retrieval's touch");
    // Another retrieval, then at once a delete and an import of the untouched document: the
    // queued touch lands before the delete, not on the imported rows.
    assert.equal((await fresh.retrieval(token, { query: "cello" })).body.memories.length, 1);
    await fresh.json("DELETE", "/api/npc/order");
    await fresh.json("POST", "/api/npc/order/import", doc);
    await new Promise((r) => setTimeout(r, 300));
    const row = await fresh.db.prepare("SELECT access_count AS n FROM memories WHERE npcid = 'order'").first();
    assert.equal(row.n, 0, "no touch of the deleted NPC landed on the imported one");
  } finally {
    await fresh.dispose();
  }
});

// With the built-in embedder a retrieval scores its lexical finds with the stored vectors
// instead of scanning them: those scores must come from D1's vectors as they stand, not from
// an isolate's older copy. Another isolate's write is played here by SQL: one memory's vector
// becomes another's, and the vector generation moves, as every write of the D1 index does.
test("a retrieval scores its finds with the vectors D1 holds now, not an older copy", async () => {
  await w.json("PUT", "/api/npc/xv", {});
  const added = await w.json("POST", "/api/memories/xv", {
    memories: [
      { summary: "User drinks green tea every morning", type: "preference" },
      { summary: "User bought a green tea set and a kettle in Kyoto last spring", type: "preference" },
    ],
  });
  const [a, b] = added.results.map((r) => r.id);
  const vector = async () => {
    const found = await w.json("POST", "/api/memories/xv/search", { query: "green tea", debug: true });
    const of = (id) => found.memories.find((m) => m.id === id)?.signals?.vector;
    return [of(a), of(b)];
  };
  const [va, vb] = await vector();
  assert.ok(va !== undefined && vb !== undefined && va !== vb, `${va} ${vb}`);
  await w.db.batch([
    w.db.prepare("UPDATE vectors SET vec = (SELECT vec FROM vectors WHERE npcid = 'xv' AND id = ?1) WHERE npcid = 'xv' AND id = ?2").bind(b, a),
    w.db.prepare("UPDATE vector_generations SET gen = gen + 1 WHERE npcid = 'xv'"),
  ]);
  const [na, nb] = await vector();
  assert.equal(na, nb, "the memory now holds the other's vector");
});
