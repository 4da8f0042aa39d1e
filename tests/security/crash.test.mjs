// No request can crash Hippo (issue 18, item 1). Time phrases with huge counts panicked in the
// core's date arithmetic: the caller got a non-JSON 500, the wasm instance was reinitialized
// (its caches emptied) and other requests in flight on the isolate failed. Each such request
// now gets a JSON answer, and requests running beside them are unaffected.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { startWorker } from "../worker/harness.mjs";

const PHRASES = [
  "what happened 100000000 days ago",
  "99999999天前",
  "100000000 weeks ago",
  "2147483648 years ago",
  "4294967295 months ago",
  "4294967295年前",
];

let w;
let token;
before(async () => {
  w = await startWorker();
  await w.json("PUT", "/api/npc/crash", { pkg: { Name: "Xiao Ming" } });
  await w.json("POST", "/api/memories/crash", {
    memories: [{ summary: "The user went hiking on Mount Tai", type: "history" }],
  });
  token = (await w.json("POST", "/api/npc/crash/tokens", {})).token;
});
after(() => w.dispose());

async function jsonAnswer(res, what) {
  const text = await res.text();
  assert.match(res.headers.get("content-type") ?? "", /^application\/json/, `${what}: ${res.status} ${text}`);
  return { status: res.status, body: JSON.parse(text) };
}

test("huge time counts in query and time_hint answer 200 on every retrieval route", async () => {
  for (const phrase of PHRASES) {
    for (const body of [{ query: phrase }, { query: "hiking", time_hint: phrase }]) {
      const fake = await w.retrieval(null, body, "/memory_retrieval/fake");
      assert.equal(fake.status, 200, `fake ${JSON.stringify(body)}: ${JSON.stringify(fake.body)}`);
      assert.ok(Array.isArray(fake.body.memories));
      const real = await w.retrieval(token, body);
      assert.equal(real.status, 200, `token ${JSON.stringify(body)}: ${JSON.stringify(real.body)}`);
      const search = await w.json("POST", "/api/memories/crash/search", body);
      assert.ok(Array.isArray(search.memories), `search ${JSON.stringify(body)}`);
    }
  }
  // A huge count is not a time: the words are searched like any others (the search route
  // shows the whole ranking; memory_retrieval may find the match too weak to read aloud).
  const hits = await w.json("POST", "/api/memories/crash/search", { query: "hiking 100000000 days ago" });
  assert.deepEqual(hits.memories.map((m) => m.summary), ["The user went hiking on Mount Tai"]);
});

test("requests in flight beside hostile ones all succeed", async () => {
  const normal = Array.from({ length: 60 }, (_, i) =>
    w.call("/memory_retrieval", {
      method: "POST",
      headers: { authorization: token, "content-type": "application/json" },
      body: JSON.stringify({ query: `hiking ${i}` }),
    }),
  );
  const hostile = PHRASES.map((query) =>
    w.call("/memory_retrieval/fake", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ query }),
    }),
  );
  const answers = await Promise.all([...normal, ...hostile]);
  const statuses = [];
  for (const [i, res] of answers.entries()) statuses.push((await jsonAnswer(res, `request ${i}`)).status);
  assert.deepEqual(statuses, answers.map(() => 200));
});

test("timestamps outside the years 0000-9999 are a 400, never stored as 1970", async () => {
  for (const [what, p, body] of [
    ["event_time", "/api/memories/crash", { memories: [{ summary: "far", type: "other", event_time: 253402300800000 }] }],
    ["expires_at", "/api/memories/crash", { memories: [{ summary: "far", type: "other", expires_at: -9223372036854775000 }] }],
    ["turn ts", "/api/conversation/crash", { turns: [{ role: "user", content: "hi", ts: 9e18 }] }],
    ["rfc3339 pushed out by its offset", "/api/conversation/crash", { turns: [{ role: "user", content: "hi", ts: "9999-12-31T23:59:59-01:00" }] }],
  ]) {
    const { status, body: answer } = await jsonAnswer(await w.admin("POST", p, body), what);
    assert.equal(status, 400, `${what}: ${JSON.stringify(answer)}`);
    assert.match(answer.message, /timestamp/, what);
  }
  const { memories } = await w.json("GET", "/api/memories/crash");
  assert.deepEqual(memories.map((m) => m.summary), ["The user went hiking on Mount Tai"]);
});

test("huge numbers in query strings are a page past the end or a 400, never a 500", async () => {
  const list = await w.json("GET", "/api/memories/crash?offset=18446744073709551615&limit=4294967297");
  assert.deepEqual([list.count, list.next_offset], [0, undefined]);
  assert.equal((await w.json("GET", "/api/memories/crash?offset=9007199254740993")).count, 0);
  const log = await w.json("GET", "/api/conversation/crash?since=18446744073709551615&limit=4294967297");
  assert.deepEqual(log.turns, []);
  const npcs = await w.json("GET", "/api/npc?limit=18446744073709551615");
  assert.ok(npcs.npcs.some((n) => n.npcid === "crash"));
  for (const q of ["offset=18446744073709551616", "limit=-1", "offset=1e3"]) {
    const { status } = await jsonAnswer(await w.admin("GET", `/api/memories/crash?${q}`), q);
    assert.equal(status, 400, q);
  }
});
