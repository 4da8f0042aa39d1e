// Load benchmark of the local Worker (real `wrangler dev`: workerd + local D1) on loopback:
// memory_retrieval on an NPC with 10k memories, and PUT /api/pkg, each with 16 concurrent
// clients for 60 s (autocannon). Not part of `make test`: run `node tests/worker/bench.mjs`.
// Baselines in the same run, same clients: GET /health (no D1) and GET /api/npc/{id} (auth +
// one D1 read), the floor of any D1-backed route on this machine. For every run it reports
// the CPU time per request of each process of `wrangler dev` (from /proc).
// Env: DURATION (s, default 60), BASELINE_DURATION (s, default 20), CONNECTIONS (16),
// MEMORIES (10000), OUT (JSON results path), STATE (keep the local D1 in this directory and
// reuse its loaded NPC on the next run), ONLY (comma-separated subset of: health, npc,
// retrieval, pkg16, pkg1), CPU_PROFILE (one run's name, e.g. memory_retrieval: a CPU profile
// of the Worker's isolate during that run, summarised on stderr and written beside OUT or to
// the temp directory; the profiler slows the run, so its figures are not comparable).
import autocannon from "autocannon";
import { startProfile, summarize as summarizeProfile } from "./cpu-profile.mjs";
import { spawn, execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync, statSync, readFileSync, readdirSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const wrangler = path.join(root, "node_modules/.bin/wrangler");
const ADMIN = "bench-admin-token";
const DURATION = Number(process.env.DURATION ?? 60);
const BASELINE_DURATION = Number(process.env.BASELINE_DURATION ?? 20);
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 16);
const MEMORIES = Number(process.env.MEMORIES ?? 10_000);
const env = { ...process.env, CI: "1", WRANGLER_SEND_METRICS: "false", NO_COLOR: "1" };

const freePort = () =>
  new Promise((resolve) => {
    const s = createServer();
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

// Synthetic memories, distinct enough that conflict resolution keeps every one (near-duplicates
// would be merged into one memory, and the NPC would hold far fewer than MEMORIES): each
// names five words drawn from large pools, Chinese or English, plus its own number.
const PEOPLE = ["小红", "小林", "阿杰", "Tom", "Lena", "王老师", "Mia", "老周", "Sam", "小雨", "Ken", "Iris",
  "Omar", "Priya", "陈姐", "Noah", "Yuki", "大刘", "Elena", "Marco", "阿美", "Zoe", "Ivan", "小马"];
const PLACES = ["杭州", "成都", "Berlin", "Lisbon", "京都", "Oslo", "西安", "Austin", "大理", "Porto", "Hanoi",
  "厦门", "Denver", "Quito", "桂林", "Dublin", "Seoul", "青岛", "Nairobi", "Krakow", "拉萨", "Perth"];
const THINGS = ["爬山", "烘焙", "chess", "jazz", "摄影", "马拉松", "poetry", "围棋", "surfing", "书法", "pottery",
  "滑雪", "violin", "刺绣", "kayaking", "茶道", "origami", "陶艺", "fencing", "古筝", "archery", "皮影",
  "salsa", "篆刻", "beekeeping", "剪纸", "sailing", "评弹", "birding", "太极"];
const EXTRAS_EN = ["birthday", "promotion", "allergy", "scholarship", "wedding", "injury", "concert", "exam",
  "garden", "bicycle", "kitten", "apartment", "interview", "recipe", "festival", "novel", "podcast", "tattoo"];
const EXTRAS_ZH = ["生日", "升职", "过敏", "奖学金", "婚礼", "受伤", "音乐会", "考试", "花园", "自行车", "小猫",
  "新家", "面试", "菜谱", "庙会", "小说", "播客", "纹身"];
const TYPES = ["preference", "profile", "history", "project", "relationship", "style", "constraint", "other"];
/** Deterministic pseudo-random picks (mulberry32), so every run loads the same NPC. */
function picker(seed) {
  let a = seed >>> 0;
  return (list) => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return list[((t ^ (t >>> 14)) >>> 0) % list.length];
  };
}
function memory(i) {
  const pick = picker(i * 7919 + 17);
  const [p, q, t, t2, p2] = [pick(PEOPLE), pick(PLACES), pick(THINGS), pick(THINGS), pick(PEOPLE)];
  const text =
    i % 2
      ? `${p}和${p2}在${q}${t}时聊到${pick(EXTRAS_ZH)}，之后想试试${t2}（记录${i}）`
      : `${p} met ${p2} in ${q} for ${t}, talked about a ${pick(EXTRAS_EN)}, next wants ${t2} (record ${i})`;
  return { summary: text, type: TYPES[i % TYPES.length], keywords: [p, t], source: "long_term_memory" };
}
const QUERIES = [
  "小红在哪里学摄影", "who went to Berlin for jazz", "用户提到老周的计划", "Lena poetry Lisbon",
  "第12次聊天说了什么", "用户喜欢什么运动", "tell me about Mia and chess", "大理 书法",
  "最近聊过滑雪吗", "Ken surfing Porto record 40", "上周用户提到谁", "阿杰 马拉松 成都",
];

function summarize(latencies, result) {
  if (result.non2xx) console.error("status codes:", JSON.stringify(result.statusCodeStats));
  const sorted = [...latencies].sort((a, b) => a - b);
  const pct = (p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
  return {
    requests: sorted.length,
    rps: Math.round(result.requests.average),
    p50_ms: pct(50),
    p95_ms: pct(95),
    p99_ms: pct(99),
    max_ms: sorted.at(-1),
    non_2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  };
}

/** CPU ticks (utime + stime) of each process in the process group `pgid`, by role. */
function cpuTicks(pgid) {
  const out = {};
  for (const pid of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    let stat, cmd;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      cmd = readFileSync(`/proc/${pid}/cmdline`, "utf8");
    } catch {
      continue;
    }
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (Number(fields[2]) !== pgid) continue; // field 5: process group
    const role = !cmd.includes("workerd")
      ? (cmd.includes("wrangler") ? "wrangler (node)" : null)
      : cmd.includes("--inspector-addr") ? "workerd: Hippo + local D1" : "workerd: wrangler's proxy";
    if (role) out[role] = (out[role] ?? 0) + Number(fields[11]) + Number(fields[12]);
  }
  return out;
}

/** The devtools port of the `wrangler dev` being measured (for CPU_PROFILE). */
let inspectorPort = null;

async function load(base, name, opts, pgid, duration = DURATION) {
  const latencies = [];
  const stopProfile = process.env.CPU_PROFILE === name ? await startProfile(inspectorPort) : null;
  const before = cpuTicks(pgid);
  const instance = autocannon({ url: base, connections: CONNECTIONS, duration, ...opts });
  instance.on("response", (_client, _status, _bytes, ms) => latencies.push(ms));
  const result = await instance;
  const after = cpuTicks(pgid);
  const summary = summarize(latencies, result);
  if (stopProfile) {
    const profile = await stopProfile();
    const file = process.env.OUT ? `${process.env.OUT}.${name}.cpuprofile` : path.join(tmpdir(), `hippo-${name}.cpuprofile`);
    writeFileSync(file, JSON.stringify(profile));
    summary.profiled = true;
    console.error(`${name}: CPU profile of the isolate (${file})`, JSON.stringify(summarizeProfile(profile, latencies.length), null, 1));
  }
  // Clock ticks are 10 ms on Linux: ms of CPU per request, per process.
  summary.cpu_ms_per_request = Object.fromEntries(
    Object.keys(after).map((k) => [k, +(((after[k] - (before[k] ?? 0)) * 10) / Math.max(1, latencies.length)).toFixed(2)]),
  );
  console.log(name, JSON.stringify(summary));
  return summary;
}

async function main() {
  const stateDir = process.env.STATE ?? mkdtempSync(path.join(tmpdir(), "hippo-bench-"));
  const only = (name) => !process.env.ONLY || process.env.ONLY.split(",").includes(name);
  execFileSync("bash", ["scripts/build-worker.sh"], { cwd: root, stdio: "inherit" });
  execFileSync(wrangler, ["d1", "migrations", "apply", "DB", "--local", "--persist-to", stateDir], { cwd: root, env, stdio: "pipe" });
  const port = await freePort();
  inspectorPort = await freePort();
  const base = `http://127.0.0.1:${port}`;
  // autocannon sends only the headers a dynamic request names: workerd needs Host for the URL.
  const host = `127.0.0.1:${port}`;
  const child = spawn(
    wrangler,
    ["dev", "--ip", "127.0.0.1", "--port", String(port), "--inspector-port", String(inspectorPort), "--persist-to", stateDir,
      "--var", `HIPPO_ADMIN_TOKEN:${ADMIN}`, "--show-interactive-dev-session=false", "--log-level", "warn"],
    { cwd: root, env, detached: true, stdio: ["ignore", "ignore", "inherit"] },
  );
  const stop = () => {
    if (child.exitCode === null) process.kill(-child.pid, "SIGTERM");
    if (!process.env.STATE) rmSync(stateDir, { recursive: true, force: true });
  };
  try {
    for (let i = 0; ; i++) {
      try {
        if ((await fetch(`${base}/health`)).ok) break;
      } catch {}
      if (i > 400) throw new Error("wrangler dev did not start");
      await new Promise((r) => setTimeout(r, 250));
    }
    const admin = async (method, p, body) => {
      const res = await fetch(`${base}${p}`, {
        method,
        headers: { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" },
        body: body && JSON.stringify(body),
      });
      if (!res.ok) throw new Error(`${method} ${p}: ${res.status} ${await res.text()}`);
      return res.json();
    };

    const existing = await fetch(`${base}/api/memories/bench?limit=1&offset=${MEMORIES - 1}`, {
      headers: { authorization: `Bearer ${ADMIN}` },
    });
    const loaded = existing.ok && (await existing.json()).count === 1;
    if (!loaded) await admin("PUT", "/api/npc/bench", { display_name: "Bench", pkg: { Name: "Bench", Hobbies: ["摄影", "jazz"] } });
    const started = Date.now();
    for (let i = 0; !loaded && i < MEMORIES; i += 100) {
      const batch = Array.from({ length: Math.min(100, MEMORIES - i) }, (_, k) => memory(i + k));
      await admin("POST", "/api/memories/bench", { memories: batch });
      if ((i / 100) % 10 === 9) process.stderr.write(`loaded ${i + 100} memories\n`);
    }
    const loadSeconds = (Date.now() - started) / 1000;
    // A rare pair may still be merged as near-duplicates: top up until the NPC holds MEMORIES.
    const holds = async () =>
      (await admin("GET", `/api/memories/bench?limit=1&offset=${MEMORIES - 1}`)).count === 1;
    for (let extra = MEMORIES; !(await holds()); extra += 10) {
      if (extra >= MEMORIES + 200) throw new Error(`the NPC does not reach ${MEMORIES} memories`);
      await admin("POST", "/api/memories/bench", { memories: Array.from({ length: 10 }, (_, k) => memory(extra + k)) });
    }
    const listed = await admin("GET", "/api/memories/bench?limit=1");
    const { token } = await admin("POST", "/api/npc/bench/tokens", {});

    // Warm-up (isolate, caches), then the measured runs.
    let q = 0;
    const retrievalRequest = () => ({
      method: "POST",
      path: "/memory_retrieval",
      headers: { host, authorization: token, "content-type": "application/json" },
      body: JSON.stringify({ live_id: "bench", query: QUERIES[q++ % QUERIES.length], max_results: 5 }),
    });
    const warm = autocannon({ url: base, connections: 4, duration: 5, requests: [{ setupRequest: retrievalRequest }] });
    await warm;
    const pgid = child.pid;
    const health = only("health")
      ? await load(base, "health", { requests: [{ method: "GET", path: "/health", headers: { host } }] }, pgid, BASELINE_DURATION)
      : null;
    const npcRead = only("npc")
      ? await load(base, "get_npc", {
        requests: [{ method: "GET", path: "/api/npc/bench", headers: { host, authorization: `Bearer ${ADMIN}` } }],
      }, pgid, BASELINE_DURATION)
      : null;
    const retrieval = only("retrieval")
      ? await load(base, "memory_retrieval", { requests: [{ setupRequest: retrievalRequest }] }, pgid)
      : null;

    for (let c = 0; c < CONNECTIONS; c++) await admin("PUT", `/api/npc/pkg-${c}`, {});
    let n = 0;
    const pkgSpread = only("pkg16") && await load(base, "put_pkg_16_npcs", {
      requests: [{
        setupRequest: () => {
          n++;
          return {
            method: "PUT",
            path: `/api/pkg/pkg-${n % CONNECTIONS}`,
            headers: { host, authorization: `Bearer ${ADMIN}`, "content-type": "application/json" },
            body: JSON.stringify({ updates: [{ key: "Hobbies", value: `h${n % 40}` }, { key: "City", value: `c${n}` }] }),
          };
        },
      }],
    }, pgid);
    const pkgOne = only("pkg1") && await load(base, "put_pkg_one_npc", {
      requests: [{
        setupRequest: () => {
          n++;
          return {
            method: "PUT",
            path: "/api/pkg/bench",
            headers: { host, authorization: `Bearer ${ADMIN}`, "content-type": "application/json" },
            body: JSON.stringify({ updates: [{ key: "Hobbies", value: `h${n % 40}` }, { key: "City", value: `c${n}` }] }),
          };
        },
      }],
    }, pgid);

    const wasm = path.join(root, "worker/build/index_bg.wasm");
    const js = path.join(root, "worker/build/index.js");
    const bundle = {
      wasm_bytes: statSync(wasm).size,
      wasm_gzip_bytes: gzipSync(readFileSync(wasm), { level: 9 }).length,
      js_gzip_bytes: gzipSync(readFileSync(js), { level: 9 }).length,
    };
    const results = {
      duration_s: DURATION,
      connections: CONNECTIONS,
      memories_loaded: MEMORIES,
      load_seconds: loadSeconds,
      listed_first_page: listed.count,
      health,
      get_npc: npcRead,
      retrieval,
      put_pkg_16_npcs: pkgSpread,
      put_pkg_one_npc: pkgOne,
      bundle,
    };
    console.log(JSON.stringify(results, null, 1));
    if (process.env.OUT) writeFileSync(process.env.OUT, JSON.stringify(results, null, 1));
  } finally {
    stop();
  }
}

await main();
