// Bytes per stored record on a local D1 (docs/SCALING.md): a year of daily conversation
// (`hippo-bench year --export DIR`, one NPC per language) imported through the Worker's import
// route into Miniflare's D1 (the test build, D1-backed vector index), then every table's bytes
// read from SQLite's dbstat (python3's sqlite3) and divided by its rows.
//
//   node tests/worker/scaling.mjs DIR
//
// The import route takes at most 256 KiB, so each year goes in as half-month documents, each
// its own NPC (`year-en-01` …): the sum over them is the year's bytes, plus 23 extra npcs rows
// (~100 bytes each). Measured: SQLite pages on disk after the imports, vacuumed; what D1
// bills as "database size" is the same file, but production's page fill may differ.
import { readFileSync, readdirSync, statSync, mkdtempSync, rmSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { tmpdir } from "node:os";
import path from "node:path";
import { Miniflare } from "miniflare";
import { startWorker, splitSql, COMPAT_DATE } from "./harness.mjs";

const dir = process.argv[2];
if (!dir) {
  console.error("usage: node tests/worker/scaling.mjs DIR (with DIR/year-en.json, DIR/year-zh.json)");
  process.exit(2);
}

/// Half a month: `2025-06a` (days 1–15), `2025-06b`.
const month = (iso) => iso.slice(0, 7) + (Number(iso.slice(8, 10)) <= 15 ? "a" : "b");

/// The year's document cut by half-month (turns by ts, memories by created_at, dailies by date).
function months(doc) {
  const keys = new Set([
    ...doc.turns.map((t) => month(t.ts)),
    ...doc.memories.map((m) => month(m.created_at)),
    ...doc.diary.dailies.map((d) => month(d.date)),
  ]);
  return [...keys].sort().map((key, i) => ({
    ...doc,
    pkg: i === 0 ? doc.pkg : {},
    pkg_source_turns: i === 0 ? doc.pkg_source_turns : {},
    relationship: i === 0 ? doc.relationship : {},
    diary: { prior: i === 0 ? doc.diary.prior : "", dailies: doc.diary.dailies.filter((d) => month(d.date) === key) },
    turns: doc.turns.filter((t) => month(t.ts) === key),
    memories: doc.memories.filter((m) => month(m.created_at) === key),
  }));
}

/// table → { bytes, rows } of the database file, from dbstat (FTS5 shadow tables folded into
/// their virtual table; indexes into their table).
function tableBytes(file) {
  const script = `
import json, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.execute("VACUUM")
tables = {}
owner = {}
for name, tbl, kind in db.execute("SELECT name, tbl_name, type FROM sqlite_master"):
    owner[name] = tbl
for name, size in db.execute("SELECT name, SUM(pgsize) FROM dbstat GROUP BY name"):
    t = owner.get(name, name)
    for fts in ("memory_fts",):
        if t.startswith(fts): t = fts
    tables.setdefault(t, {"bytes": 0, "rows": None})["bytes"] += size
for t in tables:
    try: tables[t]["rows"] = db.execute(f'SELECT COUNT(*) FROM "{t}"').fetchone()[0]
    except Exception: pass
page = db.execute("PRAGMA page_size").fetchone()[0] * db.execute("PRAGMA page_count").fetchone()[0]
print(json.dumps({"file": page, "tables": tables}))
`;
  return JSON.parse(execFileSync("python3", ["-c", script, file], { encoding: "utf8" }));
}

function allFiles(dir) {
  return readdirSync(dir).flatMap((f) => {
    const p = path.join(dir, f);
    return statSync(p).isDirectory() ? allFiles(p) : [p];
  });
}

function sqliteFile(persist) {
  return allFiles(persist).filter((p) => p.endsWith(".sqlite") && !p.includes("metadata"));
}

/// `vectorize`: with the Vectorize stand-in bound (production's layout: vectors outside D1, their
/// ids in D1's registry); without, the D1-backed vector index (local dev's layout).
async function measure(lang, vectorize) {
  const doc = JSON.parse(readFileSync(path.join(dir, `year-${lang}.json`), "utf8"));
  const persist = mkdtempSync(path.join(tmpdir(), `hippo-scaling-${lang}-`));
  const w = await startWorker({ persist, database: `scaling-${lang}`, vectorize });
  let largest = 0;
  try {
    const parts = months(doc);
    for (const [i, part] of parts.entries()) {
      const body = JSON.stringify(part);
      largest = Math.max(largest, body.length);
      await w.json("POST", `/api/npc/year-${lang}-${String(i + 1).padStart(2, "0")}/import`, body);
    }
  } finally {
    await w.dispose();
  }
  const files = sqliteFile(persist);
  if (files.length !== 1) throw new Error(`expected one D1 file under ${persist}, found ${files}`);
  const stats = tableBytes(files[0]);
  rmSync(persist, { recursive: true, force: true });
  const kinds = {};
  for (const m of doc.memories) kinds[m.collection] = (kinds[m.collection] ?? 0) + 1;
  return {
    lang,
    vectors: vectorize ? "Vectorize" : "D1",
    turns: doc.turns.length,
    turn_chars: doc.turns.reduce((n, t) => n + t.content.length, 0),
    memories: kinds,
    dailies: doc.diary.dailies.length,
    largest_document: largest,
    ...stats,
  };
}

const empty = await (async () => {
  const persist = mkdtempSync(path.join(tmpdir(), "hippo-scaling-empty-"));
  const w = await startWorker({ persist, database: "scaling-empty" });
  await w.dispose();
  const stats = tableBytes(sqliteFile(persist)[0]);
  rmSync(persist, { recursive: true, force: true });
  return stats.file;
})();

/// A Durable Object per NPC (docs/SCALING.md): the fixed cost of Hippo's schema in each
/// object's own SQLite, measured on `n` objects in Miniflare (useSQLite), files summed on disk.
async function durableObjects(n) {
  const persist = mkdtempSync(path.join(tmpdir(), "hippo-scaling-do-"));
  const migrations = path.join(path.dirname(new URL(import.meta.url).pathname), "../../migrations");
  const statements = readdirSync(migrations)
    .filter((f) => f.endsWith(".sql"))
    .sort()
    .flatMap((f) => splitSql(readFileSync(path.join(migrations, f), "utf8")));
  const mf = new Miniflare({
    modules: true,
    compatibilityDate: COMPAT_DATE,
    script: `
      export class Npc {
        constructor(ctx) { this.ctx = ctx; }
        async fetch(req) {
          for (const s of await req.json()) this.ctx.storage.sql.exec(s);
          return new Response(String(this.ctx.storage.sql.databaseSize));
        }
      }
      export default {
        fetch(req, env) {
          const name = new URL(req.url).pathname.slice(1);
          return env.NPC.get(env.NPC.idFromName(name)).fetch(req);
        },
      };`,
    durableObjects: { NPC: { className: "Npc", useSQLite: true } },
    durableObjectsPersist: persist,
  });
  const reported = [];
  const started = performance.now();
  for (let i = 0; i < n; i++) {
    const res = await mf.dispatchFetch(`http://do.test/npc-${i}`, { method: "POST", body: JSON.stringify(statements) });
    reported.push(Number(await res.text()));
  }
  const ms = (performance.now() - started) / n;
  await mf.dispose();
  const files = sqliteFile(persist);
  // The objects' files, with their write-ahead logs (the schema may still sit in a -wal).
  const onDisk = allFiles(persist).reduce((sum, f) => sum + statSync(f).size, 0);
  rmSync(persist, { recursive: true, force: true });
  return {
    objects: n,
    files: files.length,
    bytes_per_object_on_disk: Math.round(onDisk / files.length),
    database_size_reported: Math.round(reported.reduce((a, b) => a + b, 0) / n),
    ms_per_object_created: Number(ms.toFixed(2)),
  };
}

const out = { empty_database_bytes: empty, durable_objects: await durableObjects(200), years: [] };
for (const vectorize of [false, true]) {
  for (const lang of ["en", "zh"]) out.years.push(await measure(lang, vectorize));
}
console.log(JSON.stringify(out, null, 1));
const d = out.durable_objects;
console.log(
  `empty D1 database with the schema: ${empty} B; a Durable Object per NPC with the schema: ${d.bytes_per_object_on_disk} B on disk ` +
    `(databaseSize ${d.database_size_reported} B), ${d.ms_per_object_created} ms to create one here (${d.objects} objects)`,
);
for (const y of out.years) {
  const t = y.tables;
  const b = (name) => t[name]?.bytes ?? 0;
  const records = Object.values(y.memories).reduce((a, n) => a + n, 0);
  const year = y.file - empty;
  console.log(
    `${y.lang}, vectors in ${y.vectors}: a year = ${(year / 1024 / 1024).toFixed(2)} MiB in D1, ${(year / y.turns).toFixed(0)} B per turn ` +
      `(${y.turns} turns, ${records} memory records, ${y.dailies} diary window days); ` +
      `log row ${(b("turns") / y.turns).toFixed(0)} B per turn, memory row ${(b("memories") / records).toFixed(0)} B + FTS ${(b("memory_fts") / records).toFixed(0)} B ` +
      `+ D1 vector ${(b("vectors") / records).toFixed(0)} B + Vectorize id ${(b("vectorize_ids") / records).toFixed(0)} B per record`,
  );
}
