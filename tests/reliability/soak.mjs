// Soak (`make soak`): the real local Worker (`wrangler dev`, workerd, local D1 in a fresh
// directory) on a free loopback port, 100 NPCs, then SOAK_SECONDS (default 300) of a bounded
// mixed load at SOAK_CONCURRENCY (default 8) clients: memory_retrieval, PUT pkg, POST
// conversation, POST memories, searches, reads and occasional dreams. Every acknowledged write
// is counted and read back afterwards; any error, 5xx or lost write fails the run. Prints the
// figures as JSON, with the memory that tells a leak from garbage: the RSS of both workerd
// processes (wrangler's proxy and the runtime), the Worker's wasm linear memory
// (`/__test/memory`, test hooks on) and its isolate's JS heap before and after a full GC
// (through wrangler's inspector, only when SOAK_INSPECTOR_PORT is set). SOAK_PORT pins the port.
import { spawn, execFileSync } from "node:child_process";
import { createServer } from "node:net";
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const SECONDS = Number(process.env.SOAK_SECONDS ?? 300);
const CONCURRENCY = Number(process.env.SOAK_CONCURRENCY ?? 8);
const NPCS = Number(process.env.SOAK_NPCS ?? 100);
const ADMIN = `soak-${Math.random().toString(36).slice(2)}`;

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

/** RSS (KiB) of the workerd processes under `pid`, from /proc. */
function workerdRss(pid) {
  const children = new Map();
  for (const entry of readdirSync("/proc").filter((e) => /^\d+$/.test(e))) {
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      children.set(Number(entry), { ppid, comm: stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")")) });
    } catch {
      // the process ended while we looked
    }
  }
  const tree = new Set([pid]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const [p, { ppid }] of children) if (tree.has(ppid) && !tree.has(p)) (tree.add(p), (grew = true));
  }
  let rss = 0;
  const pids = [];
  const per_process = {};
  for (const p of [...tree].sort((a, b) => a - b)) {
    if (children.get(p)?.comm !== "workerd") continue;
    const status = readFileSync(`/proc/${p}/status`, "utf8");
    const kib = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
    rss += kib;
    pids.push(p);
    per_process[p] = kib;
  }
  return { rss_kib: rss, pids, per_process };
}

/** The Worker's wasm linear memory and vector cache, from inside its isolate. */
async function isolateMemory(base) {
  const res = await fetch(`${base}/__test/memory`, { headers: { authorization: `Bearer ${ADMIN}` } });
  if (!res.ok) return null;
  const { wasm_memory_bytes, vector_cache, memory_cache } = await res.json();
  return { wasm_mib: +(wasm_memory_bytes / 1048576).toFixed(2), vector_cache, memory_cache };
}

/**
 * The Worker isolate's JS heap (MiB) through wrangler's inspector: as found, then after a full
 * GC (workerd does not answer HeapProfiler.collectGarbage; a heap snapshot collects first).
 */
async function jsHeap(inspectorPort) {
  if (!inspectorPort) return null;
  let WebSocket;
  try {
    ({ default: WebSocket } = await import("ws")); // wrangler's and Miniflare's dependency
  } catch {
    return null;
  }
  const [target] = await (await fetch(`http://127.0.0.1:${inspectorPort}/json`)).json();
  const ws = new WebSocket(target.webSocketDebuggerUrl);
  await new Promise((resolve, reject) => (ws.once("open", resolve), ws.once("error", reject)));
  let id = 0;
  const pending = new Map();
  ws.on("message", (m) => {
    const d = JSON.parse(m);
    if (pending.has(d.id)) (pending.get(d.id)(d), pending.delete(d.id));
  });
  const send = (method, params = {}) =>
    new Promise((resolve) => (pending.set(++id, resolve), ws.send(JSON.stringify({ id, method, params }))));
  const used = async () => +((await send("Runtime.getHeapUsage")).result.usedSize / 1048576).toFixed(2);
  try {
    const before_gc_mib = await used();
    await send("HeapProfiler.takeHeapSnapshot", { reportProgress: false });
    return { before_gc_mib, after_gc_mib: await used() };
  } finally {
    ws.close();
  }
}

async function startWrangler(port, inspectorPort, persist) {
  // The test build (its hooks report memory); TEST_HOOKS=1 makes wrangler's build step
  // check that one instead of building the production Worker.
  const env = { ...process.env, CI: "1", WRANGLER_SEND_METRICS: "false", TEST_HOOKS: "1" };
  execFileSync("npx", ["wrangler", "d1", "migrations", "apply", "DB", "--local", "--persist-to", persist], {
    cwd: root,
    env,
    stdio: "ignore",
  });
  const child = spawn(
    "npx",
    ["wrangler", "dev", "worker/build-test/index.js", "--ip", "127.0.0.1", "--port", String(port), "--persist-to", persist,
      ...(inspectorPort ? ["--inspector-port", String(inspectorPort)] : []), "--var", `HIPPO_ADMIN_TOKEN:${ADMIN}`,
      "--var", "HIPPO_TEST_HOOKS:1", "--show-interactive-dev-session=false"],
    { cwd: root, env, stdio: ["ignore", "pipe", "pipe"], detached: true },
  );
  let log = "";
  child.stdout.on("data", (d) => (log += d));
  child.stderr.on("data", (d) => (log += d));
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 240; i++) {
    if (child.exitCode !== null) throw new Error(`wrangler dev exited:\n${log}`);
    try {
      if ((await fetch(`${base}/health`)).ok) return { child, base, log: () => log };
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`wrangler dev did not answer /health:\n${log}`);
}

function percentile(sorted, p) {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] : 0;
}

async function main() {
  const port = Number(process.env.SOAK_PORT ?? (await freePort()));
  const inspectorPort = process.env.SOAK_INSPECTOR_PORT ? Number(process.env.SOAK_INSPECTOR_PORT) : null;
  const persist = mkdtempSync(path.join(tmpdir(), "hippo-soak-"));
  const { child, base, log } = await startWrangler(port, inspectorPort, persist);
  const stats = { requests: 0, errors: [], by_op: {}, latencies: [] };
  const call = async (op, method, p, body, auth = `Bearer ${ADMIN}`) => {
    const started = performance.now();
    const res = await fetch(`${base}${p}`, {
      method,
      headers: { authorization: auth, ...(body ? { "content-type": "application/json" } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    const ms = performance.now() - started;
    stats.requests++;
    stats.latencies.push(ms);
    const o = (stats.by_op[op] ??= { count: 0, ms: [] });
    o.count++;
    o.ms.push(ms);
    if (res.status !== 200) {
      stats.errors.push(`${op} ${method} ${p}: ${res.status} ${text.slice(0, 200)}`);
      return null;
    }
    return JSON.parse(text);
  };

  try {
    const rssStart = workerdRss(child.pid);
    // 100 NPCs, each with a memory_retrieval token and the writes we will verify.
    const npcs = [];
    for (let i = 0; i < NPCS; i++) {
      const npcid = `soak-${String(i).padStart(3, "0")}`;
      await call("setup", "PUT", `/api/npc/${npcid}`, { pkg: { Name: `Player ${i}` } });
      const { token } = await call("setup", "POST", `/api/npc/${npcid}/tokens`, {});
      npcs.push({ npcid, token, turns: 0, pkg: new Map(), memoryIds: new Set(), sessions: 0, dreaming: false });
    }
    const rssBefore = workerdRss(child.pid);
    const isolateBefore = { ...(await isolateMemory(base)), js_heap: await jsHeap(inspectorPort) };
    const queries = ["what does the user like", "用户喜欢什么", "where does the user live", "周末做什么", "allergic"];
    const words = ["cello", "爬山", "peanuts", "成都", "chess", "火锅", "hiking", "猫", "violin", "swimming"];
    let n = 0;
    const deadline = Date.now() + SECONDS * 1000;

    async function client() {
      while (Date.now() < deadline) {
        const npc = npcs[Math.floor(Math.random() * npcs.length)];
        const roll = Math.random();
        const k = n++;
        if (roll < 0.3) {
          await call("memory_retrieval", "POST", "/memory_retrieval", { query: queries[k % queries.length] }, npc.token);
        } else if (roll < 0.45) {
          const key = `Soak ${k}`;
          if (await call("put_pkg", "PUT", `/api/pkg/${npc.npcid}`, { updates: [{ key, value: `v${k}` }] })) npc.pkg.set(key, `v${k}`);
        } else if (roll < 0.63) {
          const body = {
            session_id: `s${npc.sessions++}`,
            turns: [
              { role: "user", content: `我最近在学${words[k % words.length]} (${k})` },
              { role: "assistant", content: `听起来不错 ${k}` },
            ],
          };
          const out = await call("post_conversation", "POST", `/api/conversation/${npc.npcid}`, body);
          if (out) npc.turns += out.appended;
        } else if (roll < 0.78) {
          const summary = `The user mentioned ${words[k % words.length]} and ${words[(k * 7) % words.length]} on occasion ${k}`;
          const out = await call("post_memories", "POST", `/api/memories/${npc.npcid}`, { memories: [{ summary, type: "other" }] });
          if (out) for (const r of out.results) npc.memoryIds.add(r.id);
        } else if (roll < 0.9) {
          await call("search", "POST", `/api/memories/${npc.npcid}/search`, { query: words[k % words.length] });
        } else if (roll < 0.99) {
          await call("get_pkg", "GET", `/api/pkg/${npc.npcid}`);
        } else if (!npc.dreaming) {
          npc.dreaming = true; // one dream per NPC at a time: a 409 here would be our doing
          await call("dream", "POST", `/api/dream/${npc.npcid}`);
          npc.dreaming = false;
        }
      }
    }
    const loadStart = performance.now();
    // workerd RSS over the run, every SOAK_SAMPLE_SECONDS (default 30).
    const timeline = [];
    const sampler = setInterval(
      async () =>
        timeline.push({
          s: Math.round((performance.now() - loadStart) / 1000),
          ...workerdRss(child.pid).per_process,
          wasm_mib: (await isolateMemory(base))?.wasm_mib,
        }),
      Number(process.env.SOAK_SAMPLE_SECONDS ?? 30) * 1000,
    );
    await Promise.all(Array.from({ length: CONCURRENCY }, client));
    clearInterval(sampler);
    const loadSeconds = (performance.now() - loadStart) / 1000;
    const rssAfter = workerdRss(child.pid);
    const isolateAfter = { ...(await isolateMemory(base)), js_heap: await jsHeap(inspectorPort) };
    const rssAfterGc = workerdRss(child.pid);

    // Read back every acknowledged write.
    const lost = [];
    let acked = { turns: 0, pkg_fields: 0, memories: 0 };
    for (const npc of npcs) {
      const doc = await call("verify", "GET", `/api/npc/${npc.npcid}/export`);
      if (!doc) continue;
      acked.turns += npc.turns;
      acked.pkg_fields += npc.pkg.size;
      acked.memories += npc.memoryIds.size;
      const turns = doc.turns.filter((t) => t.kind !== "summary").length;
      if (turns !== npc.turns) lost.push(`${npc.npcid}: ${turns} turns stored, ${npc.turns} acknowledged`);
      for (const [key, value] of npc.pkg) if (doc.pkg[key] !== value) lost.push(`${npc.npcid}: pkg ${key} = ${doc.pkg[key]}`);
      const ids = new Set(doc.memories.map((m) => m.id));
      for (const id of npc.memoryIds) if (!ids.has(id)) lost.push(`${npc.npcid}: memory ${id} missing`);
    }
    const sorted = [...stats.latencies].sort((a, b) => a - b);
    const ops = Object.fromEntries(
      Object.entries(stats.by_op).map(([op, o]) => {
        const s = o.ms.sort((a, b) => a - b);
        return [op, { count: o.count, p50_ms: +percentile(s, 50).toFixed(1), p95_ms: +percentile(s, 95).toFixed(1) }];
      }),
    );
    const summary = {
      seconds: +loadSeconds.toFixed(1),
      concurrency: CONCURRENCY,
      npcs: NPCS,
      requests: stats.requests,
      requests_per_second: +(stats.requests / loadSeconds).toFixed(1),
      p50_ms: +percentile(sorted, 50).toFixed(1),
      p95_ms: +percentile(sorted, 95).toFixed(1),
      p99_ms: +percentile(sorted, 99).toFixed(1),
      errors: stats.errors.length,
      first_errors: stats.errors.slice(0, 10),
      acknowledged_writes: acked,
      lost_writes: lost.length,
      first_lost: lost.slice(0, 10),
      workerd_rss_kib: {
        at_start: rssStart.per_process,
        before_load: rssBefore.per_process,
        after_load: rssAfter.per_process,
        after_load_and_gc: rssAfterGc.per_process,
        timeline,
      },
      // The Worker's own memory: flat wasm and a flat JS heap after GC mean the RSS growth is
      // garbage not yet collected and the local tooling (docs/SECURITY.md, "About the RSS growth").
      worker_isolate: { before_load: isolateBefore, after_load: isolateAfter },
      ops,
    };
    console.log(JSON.stringify(summary, null, 2));
    if (stats.errors.length || lost.length) process.exitCode = 1;
    if (!rssAfter.pids.length) console.error("[soak] no workerd process found under wrangler; RSS not measured");
  } catch (e) {
    console.error(e, "\n--- wrangler log ---\n", log().slice(-4000));
    process.exitCode = 1;
  } finally {
    process.kill(-child.pid, "SIGTERM"); // wrangler and its workerd (their own process group)
    rmSync(persist, { recursive: true, force: true });
  }
}

main();
