// Configuration (SPEC §5) in the running Worker: an OpenAI-compatible embedder over outbound
// fetch, the embedder recorded by the database, misconfiguration, 500s in both error shapes,
// and the HTTP client's timeout.
import { test } from "node:test";
import assert from "node:assert/strict";
import { startWorker } from "./harness.mjs";

/// An 8-dimensional "embedding" that depends on the text (letters hashed into buckets).
function fakeEmbedding(text) {
  const v = new Array(8).fill(0);
  for (const ch of text.toLowerCase()) v[ch.codePointAt(0) % 8] += 1;
  return v;
}

test("HIPPO_EMBED=openai: embeddings over fetch, recorded, refused when changed, re-embedded", async () => {
  const calls = [];
  const outbound = async (request) => {
    const body = await request.json();
    calls.push({ url: request.url, authorization: request.headers.get("authorization"), body });
    // Answer out of order: the client must sort by index.
    const data = body.input.map((t, index) => ({ index, embedding: fakeEmbedding(t) })).reverse();
    return Response.json({ data, model: body.model });
  };
  const vars = {
    HIPPO_EMBED: "openai",
    HIPPO_EMBED_URL: "https://embed.test/v1",
    HIPPO_EMBED_KEY: "ek-1",
    HIPPO_EMBED_MODEL: "tiny-embed",
    HIPPO_EMBED_DIM: "8",
  };
  const w = await startWorker({ vars, outbound });
  try {
    await w.json("PUT", "/api/npc/emb", {});
    await w.json("POST", "/api/memories/emb", {
      memories: [{ summary: "The user plays the cello", type: "preference" }, { summary: "用户住在成都", type: "profile" }],
    });
    assert.ok(calls.length > 0);
    for (const c of calls) {
      assert.equal(c.url, "https://embed.test/v1/embeddings");
      assert.equal(c.authorization, "Bearer ek-1");
      assert.equal(c.body.model, "tiny-embed");
    }
    const stored = await w.db.prepare("SELECT length(vec) AS n FROM vectors WHERE npcid = 'emb'").all();
    assert.deepEqual(stored.results.map((r) => r.n), [32, 32], "8 f32s per vector");
    const recorded = await w.db.prepare("SELECT value FROM meta WHERE key = 'embedder'").first();
    assert.equal(recorded.value, "openai:tiny-embed:8");
    const found = await w.json("POST", "/api/memories/emb/search", { query: "cello" });
    assert.match(found.memories[0].summary, /cello/);
  } finally {
    await w.dispose();
  }
});

test("HIPPO_EMBED=openai with an e5 model: stored texts as passages, searches as queries", async () => {
  const inputs = [];
  const outbound = async (request) => {
    const body = await request.json();
    inputs.push(...body.input);
    return Response.json({ data: body.input.map((t, index) => ({ index, embedding: fakeEmbedding(t) })) });
  };
  const vars = {
    HIPPO_EMBED: "openai",
    HIPPO_EMBED_URL: "https://embed.test/v1",
    HIPPO_EMBED_MODEL: "intfloat/multilingual-e5-small",
    HIPPO_EMBED_DIM: "8",
  };
  const w = await startWorker({ vars, outbound });
  try {
    await w.json("PUT", "/api/npc/e5", {});
    await w.json("POST", "/api/memories/e5", { memories: [{ summary: "用户住在成都", type: "profile" }] });
    await w.json("POST", "/api/memories/e5/search", { query: "用户住在哪里" });
    assert.ok(inputs.includes("passage: 用户住在成都"), JSON.stringify(inputs));
    assert.ok(inputs.includes("query: 用户住在哪里"), JSON.stringify(inputs));
    assert.ok(inputs.every((t) => /^(passage|query): /.test(t)), JSON.stringify(inputs));
  } finally {
    await w.dispose();
  }
});

test("a database refuses a different embedder until POST /api/admin/reembed adopts it", async () => {
  const w = await startWorker();
  try {
    await w.json("PUT", "/api/npc/emb2", {});
    await w.json("POST", "/api/memories/emb2", { memories: [{ summary: "x", type: "other" }] });
    await w.db.prepare("UPDATE meta SET value = 'openai:other:1536' WHERE key = 'embedder'").run();
    const refused = await w.admin("POST", "/api/memories/emb2", { memories: [{ summary: "y", type: "other" }] });
    assert.equal(refused.status, 503);
    assert.match((await refused.json()).message, /reembed/);
    let page = await w.json("POST", "/api/admin/reembed");
    assert.equal(page.embedder, "hippo-builtin-v1:256");
    while (page.next) page = await w.json("POST", `/api/admin/reembed?after=${encodeURIComponent(page.next)}`);
    await w.json("POST", "/api/memories/emb2", { memories: [{ summary: "y", type: "other" }] });
  } finally {
    await w.dispose();
  }
});

test("misconfiguration is a 503 naming the variable, after the admin check", async () => {
  const w = await startWorker({ vars: { HIPPO_EMBED: "openai" } });
  try {
    const anonymous = await w.call("/api/npc/x");
    assert.equal(anonymous.status, 401, "no configuration details without the admin token");
    const res = await w.admin("GET", "/api/npc/x");
    assert.equal(res.status, 503);
    assert.match((await res.json()).message, /HIPPO_EMBED_URL/);
    const r = await w.retrieval(undefined, { query: "x" }, "/memory_retrieval/fake");
    assert.equal(r.status, 503);
    assert.equal(r.body.error.code, "not_configured");
    assert.equal((await w.call("/health")).status, 200);
  } finally {
    await w.dispose();
  }
});

test("a failing backend is a 500 in each surface's shape, without internals on memory_retrieval", async () => {
  const w = await startWorker();
  try {
    await w.json("PUT", "/api/npc/broken", {});
    const { token } = await w.json("POST", "/api/npc/broken/tokens", {});
    await w.db.prepare("DROP TABLE diary_dailies").run();
    const res = await w.admin("GET", "/api/diary/broken");
    assert.equal(res.status, 500);
    const body = await res.json();
    assert.equal(body.status, "error");
    assert.match(body.message, /diary_dailies/);
    const r = await w.retrieval(token, { query: "anything" });
    assert.equal(r.status, 500);
    assert.deepEqual(r.body, { error: { code: "internal_error", message: "internal error" } });
  } finally {
    await w.dispose();
  }
});

test("the HTTP client aborts at its timeout and reports it", async () => {
  const outbound = async (request) => {
    if (request.url.includes("slow.test")) {
      await new Promise((r) => setTimeout(r, 3000));
      return new Response("late");
    }
    return new Response(`echo ${request.method}`, { status: 201 });
  };
  const w = await startWorker({ outbound });
  try {
    const fast = await w.json("POST", "/__test/fetch", { url: "https://fast.test/x", timeout_ms: 2000 });
    assert.equal(fast.status, 201);
    assert.equal(fast.body, "echo POST");
    const slow = await w.json("POST", "/__test/fetch", { url: "https://slow.test/x?key=secret", timeout_ms: 200 });
    assert.equal(slow.error, "timeout");
    assert.ok(slow.ms >= 150 && slow.ms < 2500, `waited ${slow.ms} ms`);
    assert.doesNotMatch(slow.message, /secret/, "query strings stay out of errors");
  } finally {
    await w.dispose();
  }
});

test("Workers AI binding: embeddings and the dream's LLM through AI.run", async () => {
  const w = await startWorker({
    ai: true,
    vars: {
      HIPPO_EMBED: "workers-ai",
      HIPPO_EMBED_MODEL: "@cf/test/embed",
      HIPPO_EMBED_DIM: "8",
      HIPPO_LLM_MODEL: "@cf/test/chat",
    },
  });
  try {
    await w.json("PUT", "/api/npc/wai", {});
    await w.json("POST", "/api/conversation/wai", { turns: [{ role: "user", content: "我喜欢爬山" }] });
    const { report } = await w.json("POST", "/api/dream/wai");
    assert.equal(report.error, null);
    assert.equal(report.diary.diary_text, "今天和用户聊了爬山。");
    assert.deepEqual((await w.json("GET", "/api/pkg/wai")).pkg.Hobbies, ["爬山"]);
    const { calls } = await w.standin("/", "ai-standin");
    assert.ok(calls.some((c) => c.model === "@cf/test/chat" && c.kind === "chat"));
    assert.ok(calls.some((c) => c.model === "@cf/test/embed" && c.kind === "embed"));
    const recorded = await w.db.prepare("SELECT value FROM meta WHERE key = 'embedder'").first();
    assert.equal(recorded.value, "workers-ai:@cf/test/embed:8");
    const found = await w.json("POST", "/api/memories/wai/search", { query: "用户喜欢什么" });
    assert.match(found.memories.map((m) => m.summary).join(" "), /爬山/);
  } finally {
    await w.dispose();
  }
});

test("HIPPO_EMBED=workers-ai without the AI binding is a 503", async () => {
  const w = await startWorker({ vars: { HIPPO_EMBED: "workers-ai" } });
  try {
    const res = await w.admin("GET", "/api/npc/x");
    assert.equal(res.status, 503);
    assert.match((await res.json()).message, /AI binding/);
  } finally {
    await w.dispose();
  }
});
