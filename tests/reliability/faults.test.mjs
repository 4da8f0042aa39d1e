// Faults end to end through the Worker (Miniflare): the LLM timing out, failing and talking
// nonsense during a dream; the embedding service failing on writes and retrieval; D1 failing
// in the middle of each dream stage; the vector index down during retrieval. After each: the
// NPC is as it was before the failed stage (compared on its export), the report or response
// names what failed, and a retry succeeds.
import { test } from "node:test";
import assert from "node:assert/strict";
import { startWorker } from "../worker/harness.mjs";

const SESSION = {
  session_id: "s1",
  turns: [
    { role: "user", content: "以后叫我阿澈吧" },
    { role: "assistant", content: "好的，阿澈！" },
    { role: "user", content: "我喜欢爬山，周末经常去" },
    { role: "user", content: "I am allergic to peanuts, please remember that" },
  ],
};
const LLM_VARS = { HIPPO_LLM_URL: "https://llm.test/v1", HIPPO_LLM_MODEL: "mock-model" };

/** What a healthy LLM answers, by the prompt's kind. */
function healthyContent(system) {
  if (system.includes('{"diary"')) return { diary: "今天阿澈说他喜欢爬山。" };
  if (system.includes('{"prior"')) return { prior: "阿澈喜欢爬山。" };
  if (system.includes("You extract long-term memory")) {
    return {
      entity_ops: [{ op: "add", name: "小红", alias: [], title: ["同学"], remark: "一起爬山" }],
      pkg_updates: [{ key: "Nickname", value: ["阿澈"] }],
      memories: [{ summary: "用户对花生过敏", type: "constraint", keywords: ["花生"], importance: 0.85, confidence: 0.9, event_time: null }],
    };
  }
  return { verdict: "DISTINCT" };
}

const chat = (content) => Response.json({ choices: [{ message: { role: "assistant", content } }] });
const isExtraction = (system) => system.includes("You extract long-term memory");

/** An LLM at outbound fetch whose behaviour the test switches: `fault(system)` returns a
 *  Response (or a promise of one) to replace the healthy answer, or null. */
function mockLlm() {
  const state = { fault: null, calls: 0 };
  state.outbound = async (request) => {
    state.calls++;
    const body = await request.json();
    const system = body.messages[0].content;
    const faulty = state.fault && (await state.fault(system));
    return faulty ?? chat(JSON.stringify(healthyContent(system)));
  };
  return state;
}

async function exportOf(w, npcid) {
  return w.json("GET", `/api/npc/${npcid}/export`);
}

async function npcWithTalk(w, npcid) {
  await w.json("PUT", `/api/npc/${npcid}`, {});
  await w.json("POST", `/api/conversation/${npcid}`, SESSION);
}

/** The parts of an export a dream stage writes, besides the diary (its dailies, and each
 * day's searchable record in the memories). */
function withoutDiary(doc) {
  const { diary, npc, memories, ...rest } = doc;
  return { ...rest, memories: memories.filter((m) => m.collection !== "diary"), watermark: npc.watermark };
}

async function dreamRetrySucceeds(w, npcid) {
  const { report } = await w.json("POST", `/api/dream/${npcid}`);
  assert.equal(report.error, null, "the retry succeeds");
  assert.equal(report.skipped, false, "the retry re-reads the material the failed dream left");
  const after = await exportOf(w, npcid);
  assert.equal(after.npc.watermark, SESSION.turns.length);
  assert.equal(after.diary.dailies.length, 1);
  return after;
}

for (const [name, fault, pattern] of [
  ["5xx", () => new Response("upstream exploded", { status: 503 }), /503/],
  ["garbage", () => chat("Sure! Here is some prose, not JSON."), /./],
  ["timeout", () => new Promise((r) => setTimeout(() => r(chat("{}")), 1_500)), /time/i],
]) {
  test(`LLM ${name} during a dream: nothing written, the report says so, a retry succeeds`, async () => {
    const llm = mockLlm();
    const w = await startWorker({ vars: { ...LLM_VARS, HIPPO_LLM_TIMEOUT_MS: "200" }, outbound: llm.outbound });
    try {
      await npcWithTalk(w, "llm-fault");
      const before = await exportOf(w, "llm-fault");
      llm.fault = fault;
      const { report } = await w.json("POST", "/api/dream/llm-fault");
      assert.match(report.error ?? "", /diary: /);
      assert.match(report.error, /extraction: /);
      assert.match(report.error, pattern);
      assert.deepEqual(await exportOf(w, "llm-fault"), before, "the NPC is unchanged");
      llm.fault = null;
      const after = await dreamRetrySucceeds(w, "llm-fault");
      assert.deepEqual(after.pkg.Nickname, ["阿澈"]);
    } finally {
      await w.dispose();
    }
  });
}

test("LLM failing in the extraction only: the diary lands, nothing else, the watermark stays", async () => {
  const llm = mockLlm();
  const w = await startWorker({ vars: LLM_VARS, outbound: llm.outbound });
  try {
    await npcWithTalk(w, "half");
    const before = await exportOf(w, "half");
    llm.fault = (system) => (isExtraction(system) ? new Response("bad gateway", { status: 502 }) : null);
    const { report } = await w.json("POST", "/api/dream/half");
    assert.match(report.error ?? "", /^extraction: .*502/);
    assert.ok(report.diary, "the diary stage ran");
    const after = await exportOf(w, "half");
    assert.deepEqual(withoutDiary(after), withoutDiary(before), "only the diary changed");
    assert.equal(after.diary.dailies.length, 1);
    llm.fault = null;
    const retried = await dreamRetrySucceeds(w, "half");
    assert.deepEqual(retried.relationship.entity_001.name, "小红");
  } finally {
    await w.dispose();
  }
});

/** Makes every statement of `op` on `table` (the rows matching `when`, an SQL condition)
 * fail inside D1, as a failing batch would. */
async function breakTable(w, table, op, when = "1") {
  await w.db
    .prepare(`CREATE TRIGGER fault_${table} BEFORE ${op} ON ${table} WHEN ${when} BEGIN SELECT RAISE(ABORT, 'injected fault'); END`)
    .run();
  return () => w.db.prepare(`DROP TRIGGER fault_${table}`).run();
}

test("D1 failing in the diary stage: no diary, watermark kept, report names it, retry succeeds", async () => {
  const w = await startWorker();
  try {
    await npcWithTalk(w, "d1-diary");
    const before = await exportOf(w, "d1-diary");
    const repair = await breakTable(w, "diary_dailies", "INSERT");
    const { report } = await w.json("POST", "/api/dream/d1-diary");
    assert.match(report.error ?? "", /^diary: .*injected fault/);
    assert.equal(report.diary, null);
    const after = await exportOf(w, "d1-diary");
    assert.deepEqual(after.diary, before.diary, "the diary is as before");
    assert.equal(after.npc.diary_prior ?? "", before.npc.diary_prior ?? "");
    assert.equal(after.npc.watermark, 0, "the material is kept for the retry");
    await repair();
    await dreamRetrySucceeds(w, "d1-diary");
  } finally {
    await w.dispose();
  }
});

test("D1 failing in the extraction stage: only the diary lands, report names it, retry succeeds", async () => {
  const w = await startWorker();
  try {
    await npcWithTalk(w, "d1-extract");
    const before = await exportOf(w, "d1-extract");
    // The diary stage writes each day's record into `memories` too: only the extraction's rows fail.
    const repair = await breakTable(w, "memories", "INSERT", "NEW.collection <> 'diary'");
    const { report } = await w.json("POST", "/api/dream/d1-extract");
    assert.match(report.error ?? "", /^extraction: .*injected fault/);
    assert.equal(report.extractions, null);
    const after = await exportOf(w, "d1-extract");
    assert.deepEqual(withoutDiary(after), withoutDiary(before), "PKG, relationship, memories, log, watermark as before");
    await repair();
    const retried = await dreamRetrySucceeds(w, "d1-extract");
    assert.deepEqual(retried.pkg.Nickname, ["阿澈"]);
    assert.ok(retried.memories.some((m) => /peanut/i.test(m.summary)));
  } finally {
    await w.dispose();
  }
});

test("D1 failing in the cleanup stage: expired records stay, report names it, retry deletes them", async () => {
  const w = await startWorker();
  try {
    await npcWithTalk(w, "d1-clean");
    assert.equal((await w.json("POST", "/api/dream/d1-clean")).report.error, null);
    // Age the dream's content chunks and emotion snippets past their expiry.
    // Written outside Hippo's commits, as an operator would: warm isolates must see it too.
    await w.db
      .prepare("UPDATE memories SET expires_at = 1 WHERE npcid = 'd1-clean' AND collection IN ('content', 'emotion')")
      .run();
    const count = async () =>
      (await w.db.prepare("SELECT count(*) AS n FROM memories WHERE npcid = 'd1-clean' AND expires_at = 1").first()).n;
    const expired = await count();
    assert.ok(expired > 0, "the dream stored content to expire");
    const repair = await breakTable(w, "memories", "DELETE");
    await w.json("POST", "/api/conversation/d1-clean", { session_id: "s2", turns: [{ role: "user", content: "我搬到成都了" }] });
    const { report } = await w.json("POST", "/api/dream/d1-clean");
    assert.match(report.error ?? "", /^cleanup: .*injected fault/);
    assert.equal(report.cleanup, null);
    assert.ok(report.diary && report.extractions, "the stages before it committed");
    assert.equal(await count(), expired, "every expired record is still there");
    await repair();
    await w.json("POST", "/api/conversation/d1-clean", { session_id: "s3", turns: [{ role: "user", content: "成都的火锅很好吃" }] });
    const retry = (await w.json("POST", "/api/dream/d1-clean")).report;
    assert.equal(retry.error, null);
    assert.equal(retry.cleanup.content_hybrid_deleted + retry.cleanup.emotion_v2_deleted, expired);
    assert.equal(await count(), 0);
  } finally {
    await w.dispose();
  }
});

/** An OpenAI-compatible embedding service at outbound fetch that the test can take down. */
function mockEmbedder() {
  const state = { down: false };
  state.outbound = async (request) => {
    const body = await request.json();
    if (state.down) return new Response("embedding service unavailable", { status: 503 });
    const data = body.input.map((text, index) => {
      const v = new Array(8).fill(0);
      for (const ch of text) v[ch.codePointAt(0) % 8] += 1;
      return { index, embedding: v };
    });
    return Response.json({ data, model: body.model });
  };
  return state;
}
const EMBED_VARS = {
  HIPPO_EMBED: "openai",
  HIPPO_EMBED_URL: "https://embed.test/v1",
  HIPPO_EMBED_MODEL: "tiny-embed",
  HIPPO_EMBED_DIM: "8",
};

test("embedding service down: writes stay durable (lexical), retrieval serves, a rebuild restores vectors", async () => {
  // By design (src/engine/ingest.rs) the vector index is derived data: a memory write whose
  // embedding fails is still committed to D1 and found lexically, and
  // POST /api/npc/{npcid}/vectors/rebuild re-embeds it once the service is back.
  const embed = mockEmbedder();
  const w = await startWorker({ vars: EMBED_VARS, outbound: embed.outbound });
  const vectorIds = async () =>
    (await w.db.prepare("SELECT id FROM vectors WHERE npcid = 'emb-fault' ORDER BY id").all()).results.map((r) => r.id);
  try {
    await w.json("PUT", "/api/npc/emb-fault", {});
    const healthy = await w.json("POST", "/api/memories/emb-fault", { memories: [{ summary: "The user plays the cello", type: "preference" }] });
    assert.equal(healthy.warning, undefined, "no warning when the vectors were written");
    const token = (await w.json("POST", "/api/npc/emb-fault/tokens", {})).token;
    const before = await exportOf(w, "emb-fault");
    assert.equal((await vectorIds()).length, 1);

    embed.down = true;
    const written = await w.json("POST", "/api/memories/emb-fault", { memories: [{ summary: "用户住在成都", type: "profile" }] });
    const id = written.results[0].id;
    assert.equal(written.results[0].action, "inserted");
    assert.match(written.warning ?? "", /without vectors: the embedding service failed/, "the answer says what failed");
    const during = await exportOf(w, "emb-fault");
    assert.deepEqual(
      during.memories.map((m) => m.id).sort(),
      [...before.memories.map((m) => m.id), id].sort(),
      "the acknowledged write is durable, once",
    );
    assert.ok(!(await vectorIds()).includes(id), "no vector while the service is down");
    const live = await w.retrieval(token, { query: "用户住在哪里 成都" });
    assert.equal(live.status, 200, "retrieval degrades to the lexical path, no 5xx");
    assert.ok(live.body.memories.some((m) => m.summary === "用户住在成都"), JSON.stringify(live.body));
    const rebuildDown = await w.admin("POST", "/api/npc/emb-fault/vectors/rebuild");
    assert.ok(rebuildDown.status >= 500, `a rebuild while down fails (${rebuildDown.status})`);
    assert.match((await rebuildDown.json()).message, /embed/i, "and says what failed");

    embed.down = false;
    await w.json("POST", "/api/npc/emb-fault/vectors/rebuild");
    assert.deepEqual(await vectorIds(), [...before.memories.map((m) => m.id), id].sort());
    const again = await w.retrieval(token, { query: "what instrument does the user play" });
    assert.equal(again.status, 200);
    assert.match(again.body.memories[0].summary, /cello/);
  } finally {
    await w.dispose();
  }
});

// With a model the vector index finds candidates, so a failing index is asked and the
// lexical path answers. The built-in embedder's vectors only score the lexical finds, and
// Vectorize cannot score ids (the engine embeds them again): its retrievals never ask the
// index, so its failure cannot reach them.
for (const [embedder, vars, asked] of [
  ["a model", { HIPPO_EMBED: "workers-ai", HIPPO_EMBED_MODEL: "@cf/test/embed", HIPPO_EMBED_DIM: "8" }, true],
  ["the built-in embedder", {}, false],
]) {
  test(`vector index down during retrieval with ${embedder}: lexical answers, nothing changed, recovers`, async () => {
    const w = await startWorker({ vectorize: true, ai: asked, vars });
    try {
      await w.json("PUT", "/api/npc/vec-fault", {});
      await w.json("POST", "/api/memories/vec-fault", {
        memories: [{ summary: "The user is allergic to peanuts", type: "constraint" }, { summary: "用户喜欢爬山", type: "preference" }],
      });
      const token = (await w.json("POST", "/api/npc/vec-fault/tokens", {})).token;
      const memoriesBefore = (await exportOf(w, "vec-fault")).memories.map((m) => [m.id, m.summary]);

      const queriesBefore = (await w.standin("/state")).calls.filter((c) => c.method === "query").length;
      await w.standin("/down?on=1");
      // The index is derived data: retrieval and search fall back to the lexical path.
      const down = await w.retrieval(token, { query: "what is the user allergic to" });
      assert.equal(down.status, 200, "no 5xx while the index is down");
      assert.match(down.body.memories[0]?.summary ?? "", /peanut/i, "lexical retrieval serves");
      const search = await w.json("POST", "/api/memories/vec-fault/search", { query: "allergic" });
      assert.match(search.memories[0].summary, /peanut/i);
      const queriesDown = (await w.standin("/state")).calls.filter((c) => c.method === "query").length;
      assert.equal(queriesDown > queriesBefore, asked, "whether the failing index was queried (the fallback exercised)");

      await w.standin("/down?on=0");
      const up = await w.retrieval(token, { query: "what is the user allergic to" });
      assert.equal(up.status, 200);
      assert.match(up.body.memories[0].summary, /peanut/i);
      const memoriesAfter = (await exportOf(w, "vec-fault")).memories.map((m) => [m.id, m.summary]);
      assert.deepEqual(memoriesAfter, memoriesBefore);
    } finally {
      await w.dispose();
    }
  });
}
