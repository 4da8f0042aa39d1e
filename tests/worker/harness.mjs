// In-process Worker tests: Miniflare runs the test build of the Worker (worker/build-test,
// `make worker-test`: the production build plus the /__test/* hooks) with a fresh D1 database
// per harness, the migrations of migrations/ applied, and optional stand-ins.
import { Miniflare } from "miniflare";
import { readFileSync, readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import path from "node:path";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
export const BUILD = path.join(root, "worker/build-test");
export const ADMIN = "test-admin-token";
export const COMPAT_DATE = "2025-09-01";

/// Splits a migration file into statements (a trigger body keeps its inner semicolons).
export function splitSql(sql) {
  const statements = [];
  let current = [];
  let inTrigger = false;
  for (const line of sql.split("\n")) {
    const trimmed = line.replace(/--.*$/, "").trim();
    if (!trimmed && current.length === 0) continue;
    current.push(line);
    if (/^CREATE TRIGGER/i.test(trimmed)) inTrigger = true;
    const ends = inTrigger ? /^END;$/i.test(trimmed) : trimmed.endsWith(";");
    if (ends) {
      statements.push(current.join("\n").trim());
      current = [];
      inTrigger = false;
    }
  }
  if (current.join("").trim()) statements.push(current.join("\n").trim());
  return statements;
}

/** The D1 probe Worker (d1-probe.mjs), for `startWorker` and for tests' own Miniflares. */
export const D1_PROBE = { name: "d1-probe", host: "d1-probe.test", script: path.join(root, "tests/worker/d1-probe.mjs") };

/**
 * `binding`'s database, read and written through the D1 probe Worker with `dispatchFetch`:
 * `prepare(sql).bind(...).first(column?) / all() / run()` and `batch([...])`, as D1's API.
 * Never Miniflare's getD1Database proxy (see d1-probe.mjs for why).
 */
export function d1Client(mf, binding) {
  const send = async (op, statements) => {
    const res = await mf.dispatchFetch(`http://${D1_PROBE.host}/`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ binding, op, statements }),
    });
    const body = await res.json();
    if (!body.ok) throw new Error(body.error);
    return body.value;
  };
  const statement = (sql, params = []) => ({
    sql,
    params,
    bind: (...values) => statement(sql, values),
    first: (column) => send("first", [{ sql, params, column }]),
    all: () => send("all", [{ sql, params }]),
    run: () => send("run", [{ sql, params }]),
  });
  return {
    prepare: (sql) => statement(sql),
    batch: (statements) => send("batch", statements.map(({ sql, params }) => ({ sql, params }))),
  };
}

async function migrate(db) {
  const dir = path.join(root, "migrations");
  for (const file of readdirSync(dir).filter((f) => f.endsWith(".sql")).sort()) {
    // One batch per file: a file's statements apply together.
    const statements = splitSql(readFileSync(path.join(dir, file), "utf8"));
    await db.batch(statements.map((statement) => db.prepare(statement)));
  }
}

/**
 * Starts the Worker. Options:
 * - vars: extra vars (HIPPO_ADMIN_TOKEN defaults to ADMIN; pass null to leave it unset);
 * - vectorize: bind VECTORS to the stand-in Worker of vectorize-standin.mjs; `"per-shard"`:
 *   also each shard's own VECTORS_<binding>, a stand-in of its own (`standin(p, name)` with
 *   name `vectorize-standin-<binding>`);
 * - ai: bind AI to the stand-in Worker of ai-standin.mjs;
 * - outbound: a function (Request) => Response for the Worker's outbound fetch;
 * - persist: a directory keeping the D1 database between runs (benchmarks);
 * - database: the D1 database id (wrangler's local state keys databases by it);
 * - shards: more D1 bindings (e.g. ["DB_1"]), each its own migrated database, listed after DB
 *   in HIPPO_SHARDS (docs/SCALING.md); `dbs` maps every binding to its database. Default: the
 *   comma-separated HIPPO_TEST_SHARDS of the environment (`make test-worker-sharded` runs
 *   whole suites over two databases that way), else none.
 */
const envShards = (process.env.HIPPO_TEST_SHARDS ?? "").split(",").map((s) => s.trim()).filter(Boolean);

/**
 * Polls `read` until `done(value)` holds (or `ms` pass, then returns the last value): what a
 * request leaves to `waitUntil` (retrieval reinforcement) lands after its answer is sent.
 */
export async function eventually(read, done, ms = 5000) {
  const until = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > until) return value;
    await new Promise((r) => setTimeout(r, 20));
  }
}

export async function startWorker({ vars = {}, vectorize = false, ai = false, outbound, persist, database = "hippo-test", shards = envShards } = {}) {
  const sharding = shards.length ? { HIPPO_SHARDS: ["DB", ...shards].join(",") } : {};
  const shardIndexes = vectorize === "per-shard" ? shards : [];
  const bindings = { HIPPO_ADMIN_TOKEN: ADMIN, HIPPO_TEST_HOOKS: "1", ...sharding, ...vars };
  for (const [k, v] of Object.entries(bindings)) if (v === null) delete bindings[k];
  const workers = [
    {
      name: "hippo",
      modules: true,
      scriptPath: path.join(BUILD, "index.js"),
      modulesRules: [{ type: "CompiledWasm", include: ["**/*.wasm"] }],
      compatibilityDate: COMPAT_DATE,
      d1Databases: { DB: database, ...Object.fromEntries(shards.map((b) => [b, `${database}-${b}`])) },
      bindings,
      serviceBindings: {
        ...(vectorize ? { VECTORS: "vectorize-standin" } : {}),
        ...Object.fromEntries(shardIndexes.map((b) => [`VECTORS_${b}`, `vectorize-standin-${b}`])),
        ...(ai ? { AI: "ai-standin" } : {}),
      },
      ...(outbound ? { outboundService: outbound } : {}),
    },
  ];
  // The tests' own SQL goes through the probe, bound to the same databases (same ids).
  workers.push({
    name: D1_PROBE.name,
    modules: true,
    scriptPath: D1_PROBE.script,
    compatibilityDate: COMPAT_DATE,
    routes: [`${D1_PROBE.host}/*`],
    d1Databases: workers[0].d1Databases,
  });
  const shared = persist ? { d1Persist: persist } : {};
  const standins = [
    [vectorize, "vectorize-standin", "vectorize-standin"],
    [ai, "ai-standin", "ai-standin"],
    ...shardIndexes.map((b) => [true, `vectorize-standin-${b}`, "vectorize-standin"]),
  ];
  for (const [wanted, name, script] of standins) {
    if (!wanted) continue;
    workers.push({
      name,
      modules: true,
      scriptPath: path.join(root, `tests/worker/${script}.mjs`),
      compatibilityDate: COMPAT_DATE,
      // Reached by the tests with dispatchFetch (`standin`), not through getWorker's proxy.
      routes: [`${name}.test/*`],
    });
  }
  const mf = new Miniflare({ workers, ...shared });
  // Miniflare also serves the Worker over HTTP on loopback (the dashboard's browser test).
  const url = await mf.ready;
  const dbs = {};
  try {
    for (const binding of ["DB", ...shards]) {
      const each = d1Client(mf, binding);
      const migrated = await each
        .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'npcs'")
        .first();
      if (!migrated) await migrate(each);
      dbs[binding] = each;
    }
  } catch (e) {
    // A failed start must not leave workerd running: the test file would never exit.
    await mf.dispose();
    throw e;
  }
  const db = dbs.DB;
  const call = (p, init = {}) => mf.dispatchFetch(`http://hippo.test${p}`, init);
  const admin = (method, p, body, headers = {}) =>
    call(p, {
      method,
      headers: {
        authorization: `Bearer ${ADMIN}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
        ...headers,
      },
      body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
    });
  return {
    mf,
    db,
    dbs,
    url,
    call,
    admin,
    /** JSON of an admin call, asserting the status. */
    async json(method, p, body, status = 200) {
      const res = await admin(method, p, body);
      const text = await res.text();
      if (res.status !== status) {
        throw new Error(`${method} ${p}: ${res.status} ${text} (want ${status})`);
      }
      return JSON.parse(text);
    },
    async retrieval(token, body, p = "/memory_retrieval") {
      const res = await call(p, {
        method: "POST",
        headers: { "content-type": "application/json", ...(token ? { authorization: token } : {}) },
        body: typeof body === "string" ? body : JSON.stringify(body),
      });
      return { status: res.status, body: await res.json() };
    },
    async standin(p, name = "vectorize-standin") {
      const res = await mf.dispatchFetch(`http://${name}.test${p}`);
      return res.json();
    },
    async dispose() {
      await mf.dispose();
    },
  };
}
