// The Worker's own memory under a steady load (Miniflare): the wasm linear memory (which never
// shrinks, so a Rust-side leak or an unbounded cache shows up as growth) stays flat after a
// warm-up, and the isolate's caches (vectors, memories) hold what was served, within their
// capacities. `GET /__test/memory` reports them from inside the isolate.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { startWorker } from "../worker/harness.mjs";

const NPCS = 40;
const MEMORIES_EACH = 3;
const ROUNDS = 15; // 600 memory_retrievals after the warm-up
/** Growth allowed after the warm-up: a leak of 2 KB per request would exceed it. */
const MAX_GROWTH = 1024 * 1024;

let w;
const tokens = [];
before(async () => {
  w = await startWorker();
  for (let i = 0; i < NPCS; i++) {
    const npcid = `mem-${i}`;
    await w.json("PUT", `/api/npc/${npcid}`, { pkg: { Name: `Player ${i}` } });
    await w.json("POST", `/api/memories/${npcid}`, {
      memories: [
        { summary: `The user plays the cello, occasion ${i}`, type: "preference" },
        { summary: `用户周末喜欢爬山 ${i}`, type: "preference" },
        { summary: `The user lives in Chengdu since ${2000 + i}`, type: "profile" },
      ],
    });
    tokens.push((await w.json("POST", `/api/npc/${npcid}/tokens`)).token);
  }
});
after(() => w.dispose());

async function probe() {
  const res = await w.admin("GET", "/__test/memory");
  assert.equal(res.status, 200);
  return res.json();
}

async function round(k) {
  for (const token of tokens) {
    const r = await w.retrieval(token, { query: ["what does the user like", "用户住在哪里"][k % 2] });
    assert.equal(r.status, 200);
    assert.ok(r.body.memories.length > 0);
  }
}

test("wasm memory stays flat and the caches bounded under repeated retrieval", async () => {
  for (let k = 0; k < 2; k++) await round(k); // warm-up: caches filled, allocator at its working size
  const warm = await probe();
  assert.ok(warm.wasm_memory_bytes > 0, `no wasm memory reported: ${JSON.stringify(warm)}`);
  for (let k = 0; k < ROUNDS; k++) await round(k);
  const end = await probe();
  const growth = end.wasm_memory_bytes - warm.wasm_memory_bytes;
  assert.ok(
    growth <= MAX_GROWTH,
    `wasm memory grew by ${growth} bytes over ${ROUNDS * NPCS} requests (${warm.wasm_memory_bytes} -> ${end.wasm_memory_bytes})`,
  );
  for (const seen of [warm, end]) {
    const { vector_cache: v, memory_cache: m } = seen;
    assert.ok(v.items <= v.capacity && m.memories <= m.capacity, JSON.stringify(seen));
    // Every NPC served is held (they all fit), and nothing more.
    assert.equal(m.npcs, NPCS, JSON.stringify(seen));
    assert.equal(m.memories, NPCS * MEMORIES_EACH, JSON.stringify(seen));
    assert.equal(v.items, NPCS * MEMORIES_EACH, JSON.stringify(seen));
  }
});

test("the memory probe is a test hook: absent without HIPPO_TEST_HOOKS", async () => {
  const plain = await startWorker({ vars: { HIPPO_TEST_HOOKS: null } });
  try {
    assert.equal((await plain.admin("GET", "/__test/memory")).status, 404);
  } finally {
    await plain.dispose();
  }
});
