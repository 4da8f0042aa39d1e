// The Worker as a new user runs it: real `wrangler dev` (workerd + local D1) over HTTP, with
// the migrations applied by `wrangler d1 migrations apply`, on a free loopback port. This is
// the production build (worker/build), the one deploys ship: it has no test hooks at all.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn, execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const wrangler = path.join(root, "node_modules/.bin/wrangler");
const ADMIN = "smoke-admin-token";
const env = { ...process.env, CI: "1", WRANGLER_SEND_METRICS: "false", NO_COLOR: "1" };

let child;
let base;
let stateDir;
let output = "";

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

async function waitForHealth(deadline) {
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`wrangler dev exited:\n${output}`);
    try {
      const res = await fetch(`${base}/health`);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`wrangler dev did not become healthy:\n${output}`);
}

before(async () => {
  // wrangler dev runs the build command of wrangler.toml; do it first, so its (re)build time
  // does not count against the start-up wait below.
  execFileSync("bash", ["scripts/build-worker.sh"], { cwd: root, env, stdio: "pipe" });
  stateDir = mkdtempSync(path.join(tmpdir(), "hippo-smoke-"));
  execFileSync(wrangler, ["d1", "migrations", "apply", "DB", "--local", "--persist-to", stateDir], {
    cwd: root,
    env,
    stdio: "pipe",
  });
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  child = spawn(
    wrangler,
    ["dev", "--ip", "127.0.0.1", "--port", String(port), "--persist-to", stateDir,
      // HIPPO_TEST_HOOKS=1 on purpose: the production build must not serve hooks even so.
      "--var", `HIPPO_ADMIN_TOKEN:${ADMIN}`, "--var", "HIPPO_TEST_HOOKS:1",
      "--show-interactive-dev-session=false"],
    { cwd: root, env, detached: true, stdio: ["ignore", "pipe", "pipe"] },
  );
  child.stdout.on("data", (d) => (output += d));
  child.stderr.on("data", (d) => (output += d));
  await waitForHealth(Date.now() + 90_000);
});

after(() => {
  if (child && child.exitCode === null) process.kill(-child.pid, "SIGTERM");
  if (stateDir) rmSync(stateDir, { recursive: true, force: true });
});

test("wrangler dev: /health and the fake memory_retrieval round trip", async () => {
  const health = await fetch(`${base}/health`);
  assert.deepEqual(await health.json(), { status: "ok" });
  const res = await fetch(`${base}/memory_retrieval/fake`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: "anything" },
    body: JSON.stringify({ live_id: "demo", query: "用户喜欢灵绯怎么称呼自己", max_results: 3 }),
  });
  assert.equal(res.status, 200);
  const body = await res.json();
  assert.match(body.memories[0].summary, /阿澈/);
});

test("wrangler dev: create an NPC, issue a token, retrieve with it", async () => {
  const admin = (method, p, body) =>
    fetch(`${base}${p}`, {
      method,
      headers: { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" },
      body: body && JSON.stringify(body),
    });
  assert.equal((await admin("PUT", "/api/npc/smoke", { display_name: "Smoke" })).status, 200);
  const added = await admin("POST", "/api/memories/smoke", {
    memories: [{ summary: "用户对芒果过敏", type: "constraint", keywords: ["过敏"] }],
  });
  assert.equal(added.status, 200);
  const { token } = await (await admin("POST", "/api/npc/smoke/tokens", {})).json();
  const res = await fetch(`${base}/memory_retrieval`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: token },
    body: JSON.stringify({ query: "我对什么过敏？" }),
  });
  assert.equal(res.status, 200);
  const body = await res.json();
  assert.equal(body.memories[0].summary, "用户对芒果过敏");
  const denied = await fetch(`${base}/api/npc/smoke`);
  assert.equal(denied.status, 401);
});

test("wrangler dev: the production build has no test hooks, whatever the variables say", async () => {
  for (const [method, p] of [["POST", "/__test/store-suite"], ["POST", "/__test/fetch"], ["GET", "/__test/memory"]]) {
    const res = await fetch(`${base}${p}`, {
      method,
      headers: { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" },
      body: method === "POST" ? JSON.stringify({ url: "http://127.0.0.1:1/", timeout_ms: 100 }) : undefined,
    });
    assert.equal(res.status, 404, `${method} ${p}`);
  }
});
