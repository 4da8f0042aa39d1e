// The storage adapters inside the real Worker: the core's backend suite on D1, the core's
// vector index suite on the D1 index and on the Vectorize adapter (against a stand-in
// binding), and how the routes use Vectorize.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { startWorker } from "./harness.mjs";

function assertAllPass(report) {
  const failed = report.cases.filter((c) => !c.ok);
  assert.deepEqual(failed, [], JSON.stringify(failed, null, 1));
  assert.equal(report.status, "ok");
  assert.ok(report.cases.length > 0);
}

test("D1 store: every case of the core's backend suite passes, cached and in SQL, twice on one database", async () => {
  const w = await startWorker();
  try {
    const first = await w.json("POST", "/__test/store-suite");
    assert.equal(first.cases.length, 44);
    assert.equal(first.cases.filter((c) => c.name.startsWith("sql/")).length, 22);
    assertAllPass(first);
    assertAllPass(await w.json("POST", "/__test/store-suite"));
  } finally {
    await w.dispose();
  }
});

test("isolates' copies of memories read what SQL reads after other isolates' writes", async () => {
  const w = await startWorker();
  try {
    const report = await w.json("POST", "/__test/memory-sync");
    assert.equal(report.cases.length, 4);
    assertAllPass(report);
    // Tombstones of a deleted NPC go with it.
    const left = await w.db.prepare("SELECT COUNT(*) AS n FROM memory_tombstones WHERE npcid LIKE 'm%again'").first();
    assert.equal(left.n, 0);
  } finally {
    await w.dispose();
  }
});

test("D1 vector index: every case of the core's vector index suite, vectors as BLOBs", async () => {
  const w = await startWorker();
  try {
    assertAllPass(await w.json("POST", "/__test/vector-suite"));
    const blobs = await w.db.prepare("SELECT typeof(vec) AS t, length(vec) AS n FROM vectors LIMIT 1").all();
    assert.deepEqual(blobs.results, [{ t: "blob", n: 16 }], "4 f32s as a 16-byte BLOB");
  } finally {
    await w.dispose();
  }
});

describe_vectorize();

function describe_vectorize() {
  let w;
  before(async () => {
    w = await startWorker({ vectorize: true });
  });
  after(() => w.dispose());

  test("Vectorize adapter: the core's vector index suite against the stand-in binding", async () => {
    await w.standin("/reset");
    assertAllPass(await w.json("POST", "/__test/vector-suite"));
    const { calls, vectors } = await w.standin("/dump");
    const upserts = calls.filter((c) => c.method === "upsert").map((c) => c.count);
    assert.ok(upserts.includes(1000) && upserts.includes(201), `upserts chunked at 1000: ${upserts}`);
    assert.ok(upserts.every((n) => n <= 1000));
    for (const c of calls.filter((c) => c.method === "query")) {
      assert.ok(c.options.namespace, "every query names its NPC's namespace");
      assert.ok(c.options.topK <= 100);
      assert.equal(c.options.returnMetadata, "none");
    }
    for (const v of vectors) assert.ok(Buffer.byteLength(v.id) <= 64);
  });

  test("routes write vectors to the NPC's namespace with filterable metadata", async () => {
    await w.standin("/reset");
    await w.json("PUT", "/api/npc/vz", {});
    const added = await w.json("POST", "/api/memories/vz", {
      memories: [{ summary: "User drinks oat latte", type: "preference" }, { summary: "User lives in Hangzhou", type: "profile" }],
    });
    const { vectors } = await w.standin("/dump");
    assert.deepEqual(
      vectors.map((v) => [v.id, v.namespace, v.metadata.collection, v.metadata.type, v.dims]).sort(),
      added.results.map((r, i) => [`vz/${r.id}`, "vz", "memory", i ? "profile" : "preference", 256]).sort(),
    );
    // The conflict look-up of the second memory: its NPC's namespace, its collection and type.
    const queries = () => w.standin("/dump").then(({ calls }) => calls.filter((c) => c.method === "query"));
    const near = (await queries()).at(-1).options;
    assert.equal(near.namespace, "vz");
    assert.deepEqual(near.filter, { collection: { $in: ["memory"] }, type: { $in: ["profile"] } });
    const before = (await queries()).length;
    const token = (await w.json("POST", "/api/npc/vz/tokens")).token;
    const r = await w.retrieval(token, { query: "oat latte", memory_types: ["preference"] });
    assert.match(r.body.memories[0].summary, /oat latte/);
    // The built-in embedder's vectors score what the words found; they are not searched
    // (docs/LIFECYCLE.md). Vectorize cannot score ids (the engine embeds the candidates
    // again): a retrieval does not query it.
    assert.equal((await queries()).length, before);
  });

  test("a long npcid gets hashed vector ids that still map back", async () => {
    const npcid = "n".repeat(60);
    await w.json("PUT", `/api/npc/${npcid}`, {});
    const added = await w.json("POST", `/api/memories/${npcid}`, { memories: [{ summary: "User collects stamps", type: "preference" }] });
    const { vectors } = await w.standin("/dump");
    const mine = vectors.filter((v) => v.namespace === npcid);
    assert.equal(mine.length, 1);
    assert.ok(mine[0].id.startsWith("#") && Buffer.byteLength(mine[0].id) <= 64);
    assert.equal(mine[0].metadata.mid, added.results[0].id);
    const found = await w.json("POST", `/api/memories/${npcid}/search`, { query: "stamp collecting hobby", debug: true });
    const hit = found.memories.find((m) => m.id === added.results[0].id);
    assert.ok(hit, "found");
  });

  test("deleting an NPC deletes its vectors, and only its", async () => {
    await w.standin("/reset");
    for (const npc of ["gone", "stays"]) {
      await w.json("PUT", `/api/npc/${npc}`, {});
      await w.json("POST", `/api/memories/${npc}`, { memories: [{ summary: `memory of ${npc}`, type: "other" }] });
    }
    await w.json("DELETE", "/api/npc/gone");
    const { vectors } = await w.standin("/dump");
    assert.deepEqual(vectors.map((v) => v.namespace), ["stays"]);
  });

  test("when Vectorize is down, memory_retrieval answers from the lexical path", async () => {
    await w.json("PUT", "/api/npc/down", {});
    await w.json("POST", "/api/memories/down", { memories: [{ summary: "The user's dog is called Biscuit", type: "relationship" }] });
    const token = (await w.json("POST", "/api/npc/down/tokens")).token;
    await w.standin("/down?on=1");
    try {
      const r = await w.retrieval(token, { query: "what is the dog called" });
      assert.equal(r.status, 200);
      assert.match(r.body.memories[0].summary, /Biscuit/);
    } finally {
      await w.standin("/down?on=0");
    }
  });
}
