// One request, one answer in every runtime (issue 11): the same memory_retrieval and search
// bodies — lenient, sloppy and invalid — sent to the Worker over HTTP (Miniflare, D1) and to
// the npm package (`retrieve`, `search`) give the same status or error code, the same error
// message and the same memories. Both hold the same NPC: the Worker's export, imported into
// the package. Needs `make worker-test` and `make pkg`.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { ADMIN, eventually, startWorker } from "./harness.mjs";
import { requireHippo } from "../npm/helpers.mjs";

const NPC = "same";
/** The status the Worker answers for each error code of the package (worker/src/error.rs). */
const STATUS = { invalid_request: 400, not_found: 404, request_too_large: 413 };

let w;
let token;
let hippo;
before(async () => {
  w = await startWorker();
  await w.json("PUT", `/api/npc/${NPC}`, { display_name: "Mira" });
  await w.json("POST", `/api/memories/${NPC}`, {
    memories: [
      { summary: "The user likes jazz and plays the saxophone", type: "preference" },
      { summary: "The user's name is Alex", type: "profile" },
      { summary: "The user is allergic to peanuts", type: "constraint" },
      { summary: "The user is building a treehouse for the kids", type: "project" },
      { summary: "The user enjoys hiking in the mountains", type: "preference" },
    ],
  });
  token = (await w.json("POST", `/api/npc/${NPC}/tokens`)).token;
  const { Hippo } = requireHippo();
  hippo = await Hippo.open({ storage: "memory" });
  await hippo.importNpc(NPC, await w.json("GET", `/api/npc/${NPC}/export`));
});
after(() => w?.dispose());

const query = "what does the user like";
// Each body as a JS value: sent over HTTP as its JSON text, passed to the package as it is.
const RETRIEVAL = [
  { query },
  { query, memory_types: "preference,profile" },
  { query, memory_types: " Preference , nope" },
  { query, memory_types: ["preference", 3, null, "bogus"] },
  { query, memory_types: { preference: true } },
  { query, memory_types: null },
  { query, max_results: "2" },
  { query, max_results: 1.9 },
  { query, max_results: 0 },
  { query, max_results: 99 },
  { query, max_results: "lots" },
  { query, max_results: true },
  { query, time_hint: 2026 },
  { query, time_hint: ["yesterday"] },
  { query: "  jazz  ", live_id: 12, reason: { why: 1 } },
  { query, timeHint: "yesterday", maxResults: 1, user_id: "u", extra: { deep: [1] } },
  { query: "" },
  { query: "   " },
  { query: 42 },
  { query: null },
  { live_id: "only" },
  {},
  [query],
  "what does the user like",
  { query: "x".repeat(2001) },
  { query: "y".repeat(17 * 1024) },
];

const SEARCH = [
  { query },
  { query, memory_types: "project" },
  { query, memory_types: ["project", 7] },
  { query, max_results: "1" },
  { query, max_results: 2.5 },
  { query, max_results: "many" },
  { query, time_hint: 7 },
  { query, include_sensitive: "yes" },
  { query, debug: 1 },
  { query, maxResults: 1, unknown: true },
  { query: 5 },
  { query: "" },
  {},
  [1, 2],
  { query: "x".repeat(2001) },
];

/** The Worker's answer as {status, code?, message?, body?}. */
async function overHttp(path, body, headers) {
  const res = await w.call(path, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  const json = await res.json();
  if (res.status === 200) return { status: 200, body: json };
  // memory_retrieval: {error: {code, message}}; /api: {status: "error", message}.
  return { status: res.status, message: json.error?.message ?? json.message };
}

/** The package's answer in the same form. */
async function inPackage(call) {
  try {
    return { status: 200, body: await call() };
  } catch (error) {
    assert.ok(error.code in STATUS, `unexpected code ${error.code}: ${error.message}`);
    return { status: STATUS[error.code], message: error.message };
  }
}

/**
 * Waits until the Worker's reinforcement (written after its answer, `waitUntil`, batched with
 * the touches of the next ~100 ms) has brought D1's access counts to the package's, which
 * reinforces before it answers: the next request then ranks the same memories in both.
 */
async function reinforcementLanded() {
  const doc = await hippo.exportNpc(NPC);
  const want = doc.memories.reduce((n, m) => n + m.access_count, 0);
  const row = await eventually(
    () => w.db.prepare("SELECT SUM(access_count) AS n FROM memories WHERE npcid = ?1").bind(NPC).first(),
    (r) => r.n === want,
  );
  assert.equal(row.n, want, "the Worker's reinforcement landed");
}

/** What both must agree on: for a search, the hits without their scores (computed at each
 * runtime's own "now", so they may differ in the last digits). */
const comparable = (answer) =>
  answer.body?.memories && answer.body.memories[0]?.score !== undefined
    ? { ...answer, body: answer.body.memories.map(({ id, summary, type }) => ({ id, summary, type })) }
    : answer;

test("memory_retrieval: the Worker and the package give the same answer to every body", async () => {
  const seen = new Set();
  for (const body of RETRIEVAL) {
    const http = await overHttp("/memory_retrieval", body, { authorization: token });
    const npm = await inPackage(() => hippo.retrieve(NPC, body));
    const label = JSON.stringify(body).slice(0, 80);
    assert.deepEqual(npm, http, label);
    await reinforcementLanded();
    seen.add(http.status);
    if (http.status === 200) assert.ok(Array.isArray(http.body.memories), label);
  }
  // The set covers answers, refusals and the body limit.
  assert.deepEqual([...seen].sort(), [200, 400, 413]);
});

test("search: the Worker's route and the package give the same answer to every body", async () => {
  const seen = new Set();
  for (const body of SEARCH) {
    const http = await overHttp(`/api/memories/${NPC}/search`, body, { authorization: `Bearer ${ADMIN}` });
    const npm = await inPackage(() => hippo.search(NPC, body));
    assert.deepEqual(comparable(npm), comparable(http), JSON.stringify(body).slice(0, 80));
    await reinforcementLanded();
    seen.add(http.status);
  }
  assert.deepEqual([...seen].sort(), [200, 400]);
});

test("the lenient fields mean what they say in both runtimes", async () => {
  const answer = (body) => hippo.retrieve(NPC, body);
  const types = (found) => [...new Set(found.memories.map((m) => m.type))].sort();
  const typed = await answer({ query, memory_types: "preference,profile", max_results: 10 });
  assert.ok(typed.memories.length > 0);
  for (const type of types(typed)) assert.ok(["preference", "profile"].includes(type), type);
  assert.equal((await answer({ query, max_results: "1" })).memories.length, 1);
  const hits = await hippo.search(NPC, { query: "treehouse", memory_types: "project" });
  assert.deepEqual(types(hits), ["project"]);
});
