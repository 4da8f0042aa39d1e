// The HTTP surface: health, the OpenAPI document against the routes the Worker really
// serves, 404/405, admin auth on every /api route, npcid validation, body limits.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { startWorker, ADMIN } from "./harness.mjs";

let w;
before(async () => {
  w = await startWorker();
});
after(() => w.dispose());

// SPEC §3.2–3.4: the routes a client may rely on.
const SPEC_ROUTES = [
  "GET /health",
  "GET /openapi.json",
  "GET /api/pkg/{npcid}",
  "PUT /api/pkg/{npcid}",
  "GET /api/relationship/{npcid}",
  "POST /api/relationship/{npcid}",
  "GET /api/diary/{npcid}",
  "POST /api/dream/{npcid}",
  "PUT /api/npc/{npcid}",
  "GET /api/npc/{npcid}",
  "DELETE /api/npc/{npcid}",
  "GET /api/npc",
  "POST /api/conversation/{npcid}",
  "GET /api/conversation/{npcid}",
  "POST /api/memories/{npcid}",
  "GET /api/memories/{npcid}",
  "DELETE /api/memories/{npcid}/{id}",
  "POST /api/memories/{npcid}/search",
  "POST /api/npc/{npcid}/tokens",
  "DELETE /api/npc/{npcid}/tokens/{token_id}",
  "GET /api/npc/{npcid}/export",
  "POST /api/npc/{npcid}/import",
  "POST /memory_retrieval",
  "POST /memory_retrieval/fake",
];

async function operations() {
  const doc = await (await w.call("/openapi.json")).json();
  const ops = [];
  for (const [p, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) ops.push({ method: method.toUpperCase(), path: p, op });
  }
  return { doc, ops };
}

const concrete = (p) => p.replaceAll("{npcid}", "npc-x").replaceAll(/\{[a-z_]+\}/g, "item-1");

test("GET /health answers ok without credentials", async () => {
  const res = await w.call("/health");
  assert.equal(res.status, 200);
  assert.deepEqual(await res.json(), { status: "ok" });
});

test("openapi.json is OpenAPI 3.1 and documents every SPEC route", async () => {
  const { doc, ops } = await operations();
  assert.equal(doc.openapi, "3.1.0");
  const documented = new Set(ops.map((o) => `${o.method} ${o.path}`));
  for (const route of SPEC_ROUTES) assert.ok(documented.has(route), `${route} is not documented`);
  for (const { op } of ops) assert.ok(op.responses["200"], `${op.operationId} has no 200`);
});

test("every documented operation is routed (never the router's 404/405)", async () => {
  const { ops } = await operations();
  for (const { method, path: p } of ops) {
    const res = await w.call(concrete(p), { method });
    const body = await res.json();
    assert.ok(
      res.status !== 405 && !(res.status === 404 && /no route/.test(JSON.stringify(body))),
      `${method} ${p} → ${res.status} ${JSON.stringify(body)}`,
    );
  }
});

test("unknown paths are 404 and wrong methods 405, in JSON with Allow", async () => {
  let res = await w.call("/nope");
  assert.equal(res.status, 404);
  assert.equal((await res.json()).status, "error");
  res = await w.call("/api/pkg/a", { method: "POST" });
  assert.equal(res.status, 405);
  assert.equal(res.headers.get("allow"), "GET, PUT");
  assert.deepEqual(Object.keys(await res.json()).sort(), ["message", "status"]);
  res = await w.call("/memory_retrieval", { method: "GET" });
  assert.equal(res.status, 405);
  assert.equal((await res.json()).error.code, "method_not_allowed");
});

test("every /api route needs the admin Bearer token", async () => {
  const { ops } = await operations();
  const api = ops.filter((o) => o.path.startsWith("/api/"));
  assert.ok(api.length >= 20);
  for (const { method, path: p } of api) {
    for (const authorization of [undefined, "Bearer wrong-token", ADMIN /* no scheme */]) {
      const res = await w.call(concrete(p), {
        method,
        headers: authorization ? { authorization } : {},
      });
      assert.equal(res.status, 401, `${method} ${p} with ${authorization}`);
      const body = await res.json();
      assert.equal(body.status, "error");
      assert.equal(typeof body.message, "string");
    }
  }
});

test("without HIPPO_ADMIN_TOKEN every /api route answers 503", async () => {
  const open = await startWorker({ vars: { HIPPO_ADMIN_TOKEN: null } });
  try {
    const { ops } = await operations();
    for (const { method, path: p } of ops.filter((o) => o.path.startsWith("/api/"))) {
      const res = await open.call(concrete(p), { method, headers: { authorization: "Bearer " } });
      assert.equal(res.status, 503, `${method} ${p}`);
      assert.match((await res.json()).message, /HIPPO_ADMIN_TOKEN/);
    }
    assert.equal((await open.call("/health")).status, 200);
  } finally {
    await open.dispose();
  }
});

test("an invalid npcid is a 400 on every route that takes one", async () => {
  const { ops } = await operations();
  for (const { method, path: p } of ops.filter((o) => o.path.includes("{npcid}"))) {
    for (const bad of ["bad%20id", "%E7%81%B5", "x".repeat(65)]) {
      const body = method === "GET" || method === "DELETE" ? undefined : "{}";
      const res = await w.admin(method, p.replace("{npcid}", bad).replaceAll(/\{[a-z_]+\}/g, "i"), body);
      assert.equal(res.status, 400, `${method} ${p} with ${bad}`);
      assert.match((await res.json()).message, /npcid/);
    }
  }
});

test("bodies over the limits are 413 before parsing", async () => {
  await w.json("PUT", "/api/npc/limits", {});
  // 256 KiB on /api: a body of 256 KiB + 1 of invalid JSON is refused as too large.
  let res = await w.admin("PUT", "/api/pkg/limits", "x".repeat(256 * 1024 + 1));
  assert.equal(res.status, 413);
  assert.equal((await res.json()).status, "error");
  // Just under the limit it gets parsed (and is a 400 for being invalid JSON).
  res = await w.admin("PUT", "/api/pkg/limits", "x".repeat(256 * 1024));
  assert.equal(res.status, 400);
  // 16 KiB on memory_retrieval.
  const big = JSON.stringify({ query: "x".repeat(16 * 1024) });
  const r = await w.retrieval(undefined, big, "/memory_retrieval/fake");
  assert.equal(r.status, 413);
  assert.deepEqual(Object.keys(r.body), ["error"]);
  assert.equal(r.body.error.code, "request_too_large");
});

test("malformed JSON is a 400 in the surface's shape", async () => {
  let res = await w.admin("PUT", "/api/pkg/limits", "{not json");
  assert.equal(res.status, 400);
  assert.match((await res.json()).message, /JSON/);
  const r = await w.retrieval(undefined, "[1, 2]", "/memory_retrieval/fake");
  assert.equal(r.status, 400);
  assert.equal(r.body.error.code, "invalid_request");
});

test("test hooks need the admin token, even in the test build with HIPPO_TEST_HOOKS=1", async () => {
  const w = await startWorker();
  try {
    const hooks = [["POST", "/__test/store-suite"], ["POST", "/__test/memory-sync"], ["POST", "/__test/vector-suite"],
      ["POST", "/__test/fetch"], ["GET", "/__test/memory"]];
    for (const [method, p] of hooks) {
      for (const headers of [{}, { authorization: "Bearer wrong-token" }]) {
        const body = method === "POST" ? JSON.stringify({ url: "https://example.test/x", timeout_ms: 100 }) : undefined;
        const res = await w.call(p, { method, headers: { "content-type": "application/json", ...headers }, body });
        assert.equal(res.status, 401, `${method} ${p} ${JSON.stringify(headers)}`);
        assert.equal((await res.json()).status, "error");
      }
    }
    // With the token the same build serves them (the probe, cheapest of them).
    assert.equal((await w.admin("GET", "/__test/memory")).status, 200);
  } finally {
    await w.dispose();
  }
});

test("test hooks are absent unless HIPPO_TEST_HOOKS=1", async () => {
  const plain = await startWorker({ vars: { HIPPO_TEST_HOOKS: null } });
  try {
    const res = await plain.admin("POST", "/__test/store-suite");
    assert.equal(res.status, 404);
    const doc = await (await plain.call("/openapi.json")).json();
    assert.ok(!Object.keys(doc.paths).some((p) => p.startsWith("/__test")));
  } finally {
    await plain.dispose();
  }
});
