// D1 migrations as `wrangler d1 migrations apply` runs them: a fresh database gets every file,
// and a database migrated with the files main shipped before issue 16 (up to
// 0004_source_turns) gets exactly the ones that came after (0005_pinned, 0006_token_scopes,
// 0007_pkg_entity_source_turns), keeps its rows, and serves them through the Worker: old
// memories unpinned, old tokens memory_retrieval tokens, old PKG values without source links.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Miniflare } from "miniflare";
import { COMPAT_DATE, D1_PROBE, d1Client, startWorker } from "./harness.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const wrangler = path.join(root, "node_modules/.bin/wrangler");
const env = { ...process.env, CI: "1", WRANGLER_SEND_METRICS: "false", NO_COLOR: "1" };
/** wrangler.toml's local database id: its local state is keyed by it. */
const DATABASE_ID = "00000000-0000-4000-8000-000000000000";
/** What main's migrations_dir held before issue 16's migrations joined it. */
const BEFORE_ISSUE_16 = [
  "0001_init.sql",
  "0002_memory_sync.sql",
  "0003_commutative_writes.sql",
  "0004_sensitive_category.sql",
  "0004_source_turns.sql",
];
const ADDED = ["0005_pinned.sql", "0006_token_scopes.sql", "0007_pkg_entity_source_turns.sql"];

const dirs = [];
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function tempDir() {
  const dir = mkdtempSync(path.join(tmpdir(), "hippo-migrations-"));
  dirs.push(dir);
  return dir;
}

/** `wrangler d1 migrations apply` into `state`; the names it applied, in order. */
function apply(state, config) {
  const out = execFileSync(
    wrangler,
    ["d1", "migrations", "apply", "DB", "--local", "--persist-to", state, ...(config ? ["--config", config] : [])],
    { cwd: root, env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] },
  );
  // Without a terminal wrangler prints its table again after each file: read the last one.
  const last = out.slice(out.lastIndexOf("┌"));
  return [...last.matchAll(/│ (\d{4}_\w+\.sql)\s+│ ✅/g)].map((m) => m[1]);
}

/** The local D1 database of `state`, outside any Worker (what an operator's SQL does). */
async function withDb(state, work) {
  const mf = new Miniflare({
    modules: true,
    scriptPath: D1_PROBE.script,
    compatibilityDate: COMPAT_DATE,
    d1Databases: { DB: DATABASE_ID },
    d1Persist: path.join(state, "v3", "d1"),
  });
  try {
    return await work(d1Client(mf, "DB"));
  } finally {
    await mf.dispose();
  }
}

const columns = (db, table) =>
  db.prepare(`SELECT name FROM pragma_table_info('${table}')`).all().then((r) => r.results.map((c) => c.name));

test("a fresh database gets every migration, once", async () => {
  const state = tempDir();
  const files = readdirSync(path.join(root, "migrations")).filter((f) => f.endsWith(".sql")).sort();
  assert.deepEqual(files, [...BEFORE_ISSUE_16, ...ADDED]);
  assert.deepEqual(apply(state), files);
  assert.deepEqual(apply(state), [], "nothing left to apply");
  await withDb(state, async (db) => {
    const memories = await columns(db, "memories");
    for (const c of ["sensitive_category", "source_turns", "pinned"]) assert.ok(memories.includes(c), c);
    assert.ok((await columns(db, "tokens")).includes("scopes"));
    for (const table of ["pkg_fields", "entities"]) assert.ok((await columns(db, table)).includes("source_turns"), table);
  });
});

test("a database migrated with main's files upgrades to the new ones and keeps its data", async () => {
  const state = tempDir();
  const old = tempDir();
  mkdirSync(path.join(old, "migrations"));
  for (const f of BEFORE_ISSUE_16) copyFileSync(path.join(root, "migrations", f), path.join(old, "migrations", f));
  writeFileSync(
    path.join(old, "wrangler.toml"),
    [
      'name = "hippo-before-issue-16"',
      `main = ${JSON.stringify(path.join(root, "worker/build/index.js"))}`,
      'compatibility_date = "2025-09-01"',
      "[[d1_databases]]",
      'binding = "DB"',
      'database_name = "hippo"',
      `database_id = "${DATABASE_ID}"`,
      'migrations_dir = "migrations"',
    ].join("\n"),
  );
  assert.deepEqual(apply(state, path.join(old, "wrangler.toml")), BEFORE_ISSUE_16);

  // Rows as that schema holds them: an NPC, a memory and a memory_retrieval token.
  const secret = "a-token-issued-before-scopes";
  await withDb(state, async (db) => {
    await db.batch([
      db.prepare("INSERT INTO npcs (npcid, display_name, created_at) VALUES ('up1', '灵绯', 1775642400000)"),
      db.prepare(
        `INSERT INTO memories (npcid, id, collection, type, summary, keywords, confidence, importance,
           source, created_at, updated_at, last_accessed_at, lex, lex_ctx, lex_len)
         VALUES ('up1', 'mem_old', 'memory', 'preference', '用户喜欢喝乌龙茶', '["乌龙茶"]', 0.9, 0.6,
           'long_term_memory', 1775642400000, 1775642400000, 1775642400000, '乌龙 龙茶 乌龙茶', '', 3)`,
      ),
      db.prepare(
        "INSERT INTO tokens (npcid, token_id, token_hash, created_at) VALUES ('up1', 'tok_old', ?1, 1775642400000)",
      ).bind(createHash("sha256").update(secret).digest("hex")),
      db.prepare(
        "INSERT INTO pkg_fields (npcid, key, value, position) VALUES ('up1', 'Hobbies', '[\"游泳\"]', 0)",
      ),
    ]);
    assert.ok(!(await columns(db, "memories")).includes("pinned"));
  });

  // The repository's migrations: only what came after.
  assert.deepEqual(apply(state), ADDED);
  assert.deepEqual(apply(state), []);
  await withDb(state, async (db) => {
    const token = await db.prepare("SELECT scopes FROM tokens WHERE token_id = 'tok_old'").first();
    assert.equal(token.scopes, "retrieval");
    const memory = await db.prepare("SELECT pinned, source_turns FROM memories WHERE id = 'mem_old'").first();
    assert.deepEqual(memory, { pinned: 0, source_turns: "[]" });
    const field = await db.prepare("SELECT source_turns FROM pkg_fields WHERE key = 'Hobbies'").first();
    assert.equal(field.source_turns, "[]");
  });

  // And the Worker serves the upgraded database.
  const w = await startWorker({ persist: path.join(state, "v3", "d1"), database: DATABASE_ID });
  try {
    const list = await w.json("GET", "/api/memories/up1");
    const old = list.memories.find((m) => m.id === "mem_old");
    assert.equal(old.summary, "用户喜欢喝乌龙茶");
    assert.equal(old.pinned, false);
    assert.deepEqual(old.source_turns ?? [], []);
    const pkg = await w.json("GET", "/api/pkg/up1");
    assert.deepEqual(pkg.pkg.Hobbies, ["游泳"]);
    assert.equal(pkg.source_turns?.Hobbies, undefined, "an old value has no links");
    const found = await w.retrieval(secret, { query: "乌龙茶" });
    assert.equal(found.status, 200, JSON.stringify(found.body));
    assert.ok(found.body.memories.some((m) => m.id === "mem_old"), JSON.stringify(found.body));
    const pinned = await w.json("PATCH", "/api/memories/up1/mem_old", { pinned: true });
    assert.equal(pinned.memory.pinned, true);
    const brief = await w.json("POST", "/api/npc/up1/brief", { max_tokens: 100 });
    assert.ok(brief.items.some((i) => i.id === "mem_old" && i.section === "pinned"), JSON.stringify(brief));
    const reader = await w.json("POST", "/api/npc/up1/tokens", { scopes: ["read"] });
    assert.deepEqual(reader.scopes, ["read"]);
  } finally {
    await w.dispose();
  }
});
