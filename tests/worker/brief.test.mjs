// Issue 16 through the Worker on D1: the session brief route, pins (PATCH and the stored
// column), and scoped tokens (a read/write token is no memory_retrieval token).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { startWorker } from "./harness.mjs";

let w;
before(async () => {
  w = await startWorker();
  await w.json("PUT", "/api/npc/b1", { pkg: { Name: "小明", Nickname: ["明明"] } });
  await w.json("POST", "/api/memories/b1", {
    memories: [
      { summary: "用户对花生过敏", type: "constraint", importance: 0.85 },
      { summary: "用户喜欢喝乌龙茶", type: "preference" },
      { summary: "用户的银行卡密码是 123456", type: "other", importance: 0.99 },
      { summary: "用户的第一只狗叫旺财", type: "history", importance: 0.2 },
    ],
  });
});
after(() => w.dispose());

test("POST /api/npc/{npcid}/brief packs the state within the budget, never sensitive", async () => {
  const brief = await w.json("POST", "/api/npc/b1/brief", { max_tokens: 200 });
  assert.equal(brief.lang, "zh");
  assert.ok(brief.text.startsWith("【用户】\n- Name: 小明"), brief.text);
  assert.match(brief.text, /【注意】\n- 用户对花生过敏/);
  assert.ok(!brief.text.includes("123456"));
  assert.ok(brief.tokens <= 200);
  assert.equal(brief.items[0].id, "pkg:Name");
  // Deterministic for the same state.
  assert.deepEqual(await w.json("POST", "/api/npc/b1/brief", { max_tokens: 200 }), brief);
  // Errors in the API shape.
  for (const [body, status] of [
    [{ max_tokens: 0 }, 400],
    [{ max_tokens: 10, extra: 1 }, 400],
    [{ lang: "fr" }, 400],
  ]) {
    const res = await w.admin("POST", "/api/npc/b1/brief", body);
    assert.equal(res.status, status, JSON.stringify(body));
    assert.equal((await res.json()).status, "error");
  }
  assert.equal((await w.admin("POST", "/api/npc/nobody/brief", {})).status, 404);
  assert.equal((await w.call("/api/npc/b1/brief", { method: "POST", body: "{}" })).status, 401);
});

test("a pin is stored in D1 and gives a faint memory its place in a small brief", async () => {
  const list = await w.json("GET", "/api/memories/b1");
  const dog = list.memories.find((m) => m.summary.includes("旺财"));
  assert.equal(dog.pinned, false);
  // Room for the name, the constraint and one more short section.
  const small = { max_tokens: 50 };
  assert.ok(!(await w.json("POST", "/api/npc/b1/brief", small)).text.includes("旺财"));
  const patched = await w.json("PATCH", `/api/memories/b1/${dog.id}`, { pinned: true });
  assert.equal(patched.memory.pinned, true);
  assert.equal(patched.memory.tier, "active", "a pin lifts it out of the fading tiers");
  const again = await w.json("GET", "/api/memories/b1");
  assert.equal(again.memories.find((m) => m.id === dog.id).pinned, true);
  const brief = await w.json("POST", "/api/npc/b1/brief", small);
  assert.match(brief.text, /【请牢记】\n- 用户的第一只狗叫旺财/);
  assert.ok(brief.tokens <= 50);
});

test("scoped tokens: stored with their scopes; memory_retrieval takes retrieval or read, never write alone", async () => {
  const retrieval = await w.json("POST", "/api/npc/b1/tokens", {});
  assert.deepEqual(retrieval.scopes, ["retrieval"]);
  const rw = await w.json("POST", "/api/npc/b1/tokens", { scopes: ["read", "write"] });
  assert.deepEqual(rw.scopes, ["read", "write"]);
  const row = await w.db.prepare("SELECT scopes, token_hash FROM tokens WHERE token_id = ?").bind(rw.token_id).first();
  assert.equal(row.scopes, "read,write");
  assert.notEqual(row.token_hash, rw.token, "stored hashed");
  const ok = await w.retrieval(retrieval.token, { query: "乌龙茶" });
  assert.equal(ok.status, 200);
  // A reader may ask what memory_retrieval answers (the same rule as MCP recall).
  assert.equal((await w.retrieval(rw.token, { query: "乌龙茶" })).status, 200);
  const writeOnly = await w.json("POST", "/api/npc/b1/tokens", { scopes: ["write"] });
  const refused = await w.retrieval(writeOnly.token, { query: "乌龙茶" });
  assert.equal(refused.status, 401);
  assert.equal(refused.body.error.code, "unauthorized");
  // No token reaches /api, whatever its scopes.
  const api = await w.call("/api/memories/b1", { headers: { authorization: `Bearer ${rw.token}` } });
  assert.equal(api.status, 401);
  const bad = await w.admin("POST", "/api/npc/b1/tokens", { scopes: ["admin"] });
  assert.equal(bad.status, 400);
});

test("the OpenAPI document has the brief route and /mcp", async () => {
  const doc = await (await w.call("/openapi.json")).json();
  const brief = doc.paths["/api/npc/{npcid}/brief"].post;
  assert.equal(brief.requestBody.content["application/json"].schema.$ref, "#/components/schemas/BriefRequest");
  assert.deepEqual(brief.security, [{ adminToken: [] }]);
  const mcp = doc.paths["/mcp"].post;
  assert.deepEqual(mcp.security, [{ adminToken: [] }, { mcpToken: [] }]);
  assert.ok(doc.components.schemas.BriefResponse);
});
