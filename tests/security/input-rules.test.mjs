// Issue 18, items 8, 9 and 10 through the Worker: an import is checked by the write routes'
// rules and keeps the NPC's retrieval tokens; PKG fields and entities are capped per NPC;
// control characters in PKG keys are refused; bidi overrides never reach the character.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { startWorker } from "../worker/harness.mjs";
import { apiError, snapshot } from "./fixtures.mjs";

/** A 400 (or other status) whose message matches. */
async function refused(res, status, what, message) {
  const body = await apiError(res, status, what);
  assert.match(body.message, message, what);
}

let w;
let token;
let good;
before(async () => {
  w = await startWorker();
  await w.json("PUT", "/api/npc/imp", { pkg: { Name: "Xiao Ming" } });
  await w.json("POST", "/api/memories/imp", {
    memories: [{ summary: "The user likes green tea", type: "preference" }],
  });
  token = (await w.json("POST", "/api/npc/imp/tokens", {})).token;
  good = await snapshot(w, "imp");
});
after(() => w.dispose());

function withMemory(patch) {
  const doc = structuredClone(good);
  Object.assign(doc.memories[0], patch);
  return doc;
}

test("an import is refused, whole, when a record breaks a write route's rule", async () => {
  for (const [patch, message] of [
    [{ importance: 1e308 }, /^memories\[0\]\.importance must be between 0 and 1$/],
    [{ summary: "x".repeat(200_000) }, /^memories\[0\]\.summary is longer than 2000 characters$/],
    [{ id: "" }, /^memories\[0\]\.id must be/],
    [{ id: "x/../y" }, /^memories\[0\]\.id must be/],
  ]) {
    await refused(await w.admin("POST", "/api/npc/imp/import", withMemory(patch)), 400, JSON.stringify(patch).slice(0, 40), message);
  }
  const bad = structuredClone(good);
  bad.pkg["Bad\u0000Key"] = "x";
  await refused(await w.admin("POST", "/api/npc/imp/import", bad), 400, "C0 in a PKG key", /control characters/);
  assert.deepEqual(await snapshot(w, "imp"), good, "nothing of a refused import landed");
});

test("an import keeps the NPC's memory_retrieval tokens (a restore needs them)", async () => {
  const doc = structuredClone(good);
  doc.memories[0].summary = "The user likes jasmine tea";
  await w.json("POST", "/api/npc/imp/import", doc);
  const res = await w.retrieval(token, { query: "jasmine tea" });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.deepEqual(res.body.memories.map((m) => m.summary), ["The user likes jasmine tea"]);
  await w.json("POST", "/api/npc/imp/import", good);
});

test("control characters in PKG keys are a 400", async () => {
  for (const key of ["Bad\nKey", "a\u0000b", "x\u001by", "del\u007f"]) {
    const res = await w.admin("PUT", "/api/pkg/imp", { updates: [{ key, value: "v" }] });
    await refused(res, 400, JSON.stringify(key), /must not contain control characters/);
  }
});

test("PKG fields and relationship entities are capped per NPC", async () => {
  await w.json("PUT", "/api/npc/cap", {});
  const fields = Array.from({ length: 256 }, (_, i) => ({ key: `Field ${i}`, value: "x" }));
  await w.json("PUT", "/api/pkg/cap", { updates: fields });
  await refused(await w.admin("PUT", "/api/pkg/cap", { updates: [{ key: "One more", value: "x" }] }), 400, "field 257", /at most 256 fields/);
  const ops = Array.from({ length: 1000 }, (_, i) => ({ op: "add", name: `Person ${i}` }));
  await w.json("POST", "/api/relationship/cap", { ops });
  await refused(await w.admin("POST", "/api/relationship/cap", { ops: [{ op: "add", name: "One more" }] }), 400, "entity 1001", /at most 1000 entities/);
  const doc = await snapshot(w, "cap");
  assert.equal(Object.keys(doc.pkg).length, 256);
  assert.equal(Object.keys(doc.relationship).length, 1000);
  // Retrieval renders every field and entity as a candidate: it still answers.
  const hits = await w.json("POST", "/api/memories/cap/search", { query: "Person 999" });
  assert.ok(hits.memories.some((m) => m.summary.startsWith("Person 999")), JSON.stringify(hits.memories[0]));
});

test("bidi overrides are stored as written but never served to the character", async () => {
  const summary = "The user's name is \u202Eeman\u202C Alex \u2067(\u2069";
  await w.json("POST", "/api/memories/imp", { memories: [{ summary, type: "profile" }] });
  const res = await w.retrieval(token, { query: "user's name Alex" });
  const served = res.body.memories.find((m) => m.summary.includes("Alex"));
  assert.equal(served?.summary, "The user's name is eman Alex (");
  const doc = await snapshot(w, "imp");
  assert.ok(doc.memories.some((m) => m.summary === summary), "the export keeps the text as written");
});
