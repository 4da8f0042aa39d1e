// MCP over Streamable HTTP at /mcp, driven by the official TypeScript SDK client against the
// built Worker in Miniflare: list, call each tool, auth failures, scope violations, malformed
// calls. Raw POSTs check what the SDK client never sends.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ADMIN, startWorker } from "./harness.mjs";

let w;
before(async () => {
  w = await startWorker();
  await w.json("PUT", "/api/npc/m1", {
    pkg: { Name: "小明", Address: "北京市朝阳区建国路88号" },
  });
  await w.json("PUT", "/api/npc/m2", { pkg: { Name: "Anna" } });
});
after(() => w.dispose());

const URL_MCP = "http://hippo.test/mcp";

/** An SDK client connected to the Worker with `token` (or none). */
async function connect(token) {
  const transport = new StreamableHTTPClientTransport(new URL(URL_MCP), {
    requestInit: token ? { headers: { authorization: `Bearer ${token}` } } : {},
    fetch: (url, init = {}) =>
      w.mf.dispatchFetch(String(url), {
        ...init,
        headers: Object.fromEntries(new Headers(init.headers).entries()),
      }),
  });
  const client = new Client({ name: "hippo-test", version: "1.0.0" });
  await client.connect(transport);
  return client;
}

async function issue(npcid, scopes) {
  const issued = await w.json("POST", `/api/npc/${npcid}/tokens`, scopes ? { scopes } : {});
  return issued.token;
}

const names = async (client) => (await client.listTools()).tools.map((t) => t.name);
const value = (result) => {
  assert.equal(result.isError, false, JSON.stringify(result));
  return result.structuredContent;
};

test("the admin lists every tool and calls each, on the NPC it names", async () => {
  const client = await connect(ADMIN);
  assert.equal(client.getServerVersion().name, "hippo");
  assert.deepEqual(await names(client), [
    "remember", "recall", "get_profile", "brief", "list_memories", "update_memory", "forget", "dream",
  ]);
  const call = async (name, args) => value(await client.callTool({ name, arguments: { npcid: "m1", ...args } }));

  const added = await call("remember", { fact: "用户喜欢喝乌龙茶", type: "preference" });
  assert.equal(added.results[0].action, "inserted");
  const teaId = added.results[0].id;
  const turn = await call("remember", { turn: { role: "user", content: "我对芒果过敏，记住这件事！" }, session_id: "s1" });
  assert.equal(turn.appended, 1);
  const dream = await call("dream", {});
  assert.equal(dream.report.skipped, false);
  assert.ok(dream.report.extractions.memories.some((m) => m.pinned && m.summary.includes("芒果")));

  const recalled = await call("recall", { query: "乌龙茶" });
  assert.match(recalled.memories[0].summary, /乌龙茶/);
  const profile = await call("get_profile", {});
  assert.equal(profile.pkg.Name, "小明");
  assert.equal(profile.pkg.Address, "北京市朝阳区建国路88号", "the admin sees every field");
  const brief = await call("brief", { max_tokens: 120 });
  assert.ok(brief.tokens <= 120);
  assert.match(brief.text, /芒果/, "the pinned memory is in the brief");
  const list = await call("list_memories", {});
  assert.ok(list.memories.some((m) => m.id === teaId));
  const pinned = await call("update_memory", { id: teaId, pinned: true });
  assert.equal(pinned.memory.pinned, true);
  const forgotten = await call("forget", { id: teaId });
  assert.equal(forgotten.deleted, 1);

  // Every NPC is the admin's, but it must say which.
  const unnamed = await client.callTool({ name: "recall", arguments: { query: "茶" } });
  assert.equal(unnamed.isError, true);
  assert.match(unnamed.content[0].text, /npcid is required/);
  await client.close();
});

test("a read token reads its own NPC and never writes; sensitive items stay hidden", async () => {
  await w.json("POST", "/api/memories/m1", {
    memories: [{ summary: "用户的银行卡密码是 654321", type: "other" }],
  });
  const reader = await connect(await issue("m1", ["read"]));
  assert.deepEqual(await names(reader), ["recall", "get_profile", "brief", "list_memories"]);
  const recall = value(await reader.callTool({ name: "recall", arguments: { query: "银行卡密码" } }));
  assert.ok(!JSON.stringify(recall).includes("654321"));
  const profile = value(await reader.callTool({ name: "get_profile", arguments: {} }));
  assert.equal(profile.pkg.Address, undefined);
  const listed = value(await reader.callTool({ name: "list_memories", arguments: {} }));
  assert.ok(!JSON.stringify(listed).includes("654321"));

  for (const [name, args] of [
    ["remember", { fact: "x", type: "other" }],
    ["dream", {}],
    ["forget", { all: true, confirm: "m1" }],
  ]) {
    const refused = await reader.callTool({ name, arguments: args });
    assert.equal(refused.isError, true, name);
    assert.match(refused.content[0].text, /^unauthorized: .*write scope/, name);
  }
  // Another NPC than the token's.
  const other = await reader.callTool({ name: "recall", arguments: { npcid: "m2", query: "Anna" } });
  assert.equal(other.isError, true);
  assert.match(other.content[0].text, /bound to another NPC/);
  await reader.close();

  // A memory_retrieval token only recalls here.
  const retrieval = await connect(await issue("m1"));
  assert.deepEqual(await names(retrieval), ["recall"]);
  const refused = await retrieval.callTool({ name: "get_profile", arguments: {} });
  assert.equal(refused.isError, true);
  await retrieval.close();
});

test("a write token forgets everything only with the NPC's id as confirmation", async () => {
  const writer = await connect(await issue("m2", ["read", "write"]));
  for (const fact of ["Anna likes jazz", "Anna swims on Sundays"]) {
    value(await writer.callTool({ name: "remember", arguments: { fact, type: "preference" } }));
  }
  const unconfirmed = await writer.callTool({ name: "forget", arguments: { all: true, confirm: "yes" } });
  assert.equal(unconfirmed.isError, true);
  assert.match(unconfirmed.content[0].text, /needs confirm=m2/);
  const done = value(await writer.callTool({ name: "forget", arguments: { all: true, confirm: "m2" } }));
  assert.equal(done.deleted, 2);
  const left = await w.json("GET", "/api/memories/m2");
  assert.equal(left.count, 0);
  await writer.close();
});

test("auth failures: no token, a wrong one, a revoked one", async () => {
  await assert.rejects(connect(null), /-32001.*missing Authorization/);
  await assert.rejects(connect("not-a-token"), /-32001.*invalid token/);
  const issued = await w.json("POST", "/api/npc/m1/tokens", { scopes: ["read"] });
  await w.json("DELETE", `/api/npc/m1/tokens/${issued.token_id}`);
  await assert.rejects(connect(issued.token), /-32001.*invalid token/);
  const res = await w.call("/mcp", { method: "POST", body: "{}" });
  assert.equal(res.status, 401);
  assert.match(res.headers.get("www-authenticate"), /^Bearer/);
  const body = await res.json();
  assert.equal(body.jsonrpc, "2.0");
  assert.equal(body.error.code, -32001);
});

test("malformed calls get JSON-RPC errors", async () => {
  const client = await connect(ADMIN);
  await assert.rejects(client.callTool({ name: "no_such_tool", arguments: {} }), (err) => err.code === -32602);
  const bad = await client.callTool({ name: "recall", arguments: { npcid: "m1", bogus: 1, query: "x" } });
  assert.equal(bad.isError, true);
  assert.match(bad.content[0].text, /invalid_request: unknown argument "bogus"/);
  await client.close();

  const raw = (body, headers = {}) =>
    w.call("/mcp", {
      method: "POST",
      headers: { authorization: `Bearer ${ADMIN}`, "content-type": "application/json", ...headers },
      body: typeof body === "string" ? body : JSON.stringify(body),
    });
  const expect = async (res, status, code) => {
    assert.equal(res.status, status);
    const body = await res.json();
    assert.equal(body.jsonrpc, "2.0");
    assert.equal(body.error.code, code, JSON.stringify(body));
  };
  await expect(await raw("{not json"), 400, -32700);
  await expect(await raw([{ jsonrpc: "2.0", id: 1, method: "ping" }]), 400, -32600);
  await expect(await raw({ jsonrpc: "1.0", id: 1, method: "ping" }), 400, -32600);
  await expect(await raw({ jsonrpc: "2.0", id: { a: 1 }, method: "ping" }), 400, -32600);
  await expect(await raw({ jsonrpc: "2.0", id: 1, method: "resources/list" }), 200, -32601);
  await expect(await raw({ jsonrpc: "2.0", id: 1, method: "tools/call", params: {} }), 200, -32602);
  await expect(await raw({ jsonrpc: "2.0", id: 1, method: "ping" }, { "mcp-protocol-version": "1999-01-01" }), 400, -32600);
  await expect(await raw({ jsonrpc: "2.0", id: 1, method: "ping" }, { origin: "https://evil.example" }), 403, -32001);
  // A notification is accepted with nothing to say; GET has no stream (405).
  assert.equal((await raw({ jsonrpc: "2.0", method: "notifications/initialized" })).status, 202);
  assert.equal((await w.call("/mcp", { headers: { authorization: `Bearer ${ADMIN}` } })).status, 405);
  // The stateless revision's discovery, and version negotiation of initialize.
  const discover = await (await raw({ jsonrpc: "2.0", id: "d", method: "server/discover" })).json();
  assert.equal(discover.result.protocolVersion, "2026-07-28");
  const init = async (v) =>
    (await (await raw({ jsonrpc: "2.0", id: 1, method: "initialize",
      params: { protocolVersion: v, capabilities: {}, clientInfo: { name: "t", version: "1" } } })).json())
      .result.protocolVersion;
  assert.equal(await init("2025-06-18"), "2025-06-18");
  assert.equal(await init("2030-01-01"), "2025-11-25");
});
