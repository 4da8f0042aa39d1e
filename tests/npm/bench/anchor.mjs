// The anchor comparison: this package's `search` and `retrieve` timed beside the anchor library
// (dungle-scrubs/hippo, a TypeScript memory library over SQLite) answering the same questions
// over the same memories, in one Node process, at each size of the corpus that the native half
// of `make bench-npm` writes (target/bench/npm/corpus-<N>.json).
//
//   node --expose-gc tests/npm/bench/anchor.mjs --anchor DIR [--pkg DIR] [--deps DIR]
//     [--sizes 1000,10000,100000] [--questions 500,200,200] [--json]
// --anchor: the anchor's source checkout (fetched from GitHub by the developer, never committed
// here). Its TypeScript is bundled with the repo's esbuild into --deps (default target/anchor),
// where `make bench-anchor` installs its runtime packages pinned: better-sqlite3, and
// @sinclair/typebox, which `@mariozechner/pi-ai` (the anchor's source of `Type`, imported only
// to declare its tools' parameters) re-exports as is; pi-ai itself is aliased to it.
// --questions: one count for every size, or one per size.
//
// Hippo: storage "memory", the corpus imported, its clock at the corpus's "now". The anchor:
// its own schema and statements on an in-memory better-sqlite3 database, each memory's summary
// inserted as one `memory` chunk (with the anchor's defaults: intensity 0.5, no access), and its
// `recall_memories` tool (createRecallMemoriesTool) with maxSearchChunks raised to N, so every
// call loads and scores all N rows. Two things keep the anchor honest, and are printed:
// - its strength decay reads the wall clock, so every timestamp it is given is shifted by
//   (Date.now() - corpus now); unshifted, every memory decays below its strength floor and it
//   answers nothing, cheaply ("anchor non-empty" counts the questions it answered);
// - it refuses a second chunk with the same content hash, and the generated corpus repeats
//   texts, so the k-th repeat is stored as "<summary> #k" ("anchor rows" must equal N).
// Its embed function (also used for the questions) is in-process: a deterministic 256-d unit
// vector per text by feature hashing of words (each Han character a word), no network.
//
// Timing: 20 warm-up questions (the corpus's first) through all three calls, then for each
// question Hippo `search`, the anchor's recall, Hippo `retrieve`, in that order on even
// questions and reversed on odd ones (so each Hippo call comes after the anchor's half the
// time), one call at a time, each timed whole with performance.now(): no best-of-N.
// What this leaves out: the anchor's real embedder (a network call per question in use), its
// LLM tools and fact extraction, answer quality (the anchor is vector-only: hashed words are
// not its model's vectors), and Hippo's persistence ({file}, {indexedDB}).
// A benchmark, not a test: run by `make bench-anchor`, never by `make test`.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const { values } = parseArgs({
  options: {
    anchor: { type: 'string' },
    pkg: { type: 'string', default: path.join(root, 'pkg') },
    deps: { type: 'string', default: path.join(root, 'target', 'anchor') },
    corpus: { type: 'string', default: path.join(root, 'target', 'bench', 'npm') },
    sizes: { type: 'string', default: '1000,10000,100000' },
    questions: { type: 'string', default: '500,200,200' },
    json: { type: 'boolean', default: false },
  },
});
if (!values.anchor) throw new Error('--anchor DIR: the anchor\'s source checkout (dungle-scrubs/hippo)');
const anchorDir = path.resolve(values.anchor);
const deps = path.resolve(values.deps);
const sizes = values.sizes.split(',').map(Number);
const counts = values.questions.split(',').map(Number);
const questionsFor = (i) => counts[Math.min(i, counts.length - 1)];
const WARMUP = 20;
const AGENT = 'bench';

// ---- The anchor, bundled from its source ----

/** The anchor's commit (a git checkout) or its package version. */
function anchorRevision() {
  try {
    return execFileSync('git', ['-C', anchorDir, 'rev-parse', 'HEAD'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    const { name, version } = JSON.parse(readFileSync(path.join(anchorDir, 'package.json'), 'utf8'));
    return `${name}@${version} (not a git checkout)`;
  }
}

/** Bundles the parts of the anchor this benchmark calls into deps/, and imports them. */
async function loadAnchor() {
  for (const need of ['better-sqlite3', '@sinclair/typebox']) {
    if (!existsSync(path.join(deps, 'node_modules', need))) {
      throw new Error(`${deps}/node_modules/${need} is missing: run \`make bench-anchor ANCHOR=${values.anchor}\``);
    }
  }
  const esbuild = createRequire(path.join(root, 'package.json'))('esbuild');
  const outfile = path.join(deps, 'anchor-bundle.mjs');
  await esbuild.build({
    stdin: {
      contents: [
        "export { createRecallMemoriesTool } from './src/tools/recall-memories.ts';",
        "export { prepareStatements } from './src/db.ts';",
        "export { initSchema } from './src/schema.ts';",
        "export { embeddingToBuffer } from './src/similarity.ts';",
        "export { contentHash } from './src/hash.ts';",
        "export { ulid } from './src/ulid.ts';",
      ].join('\n'),
      resolveDir: anchorDir,
      loader: 'ts',
    },
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    outfile,
    nodePaths: [path.join(deps, 'node_modules')],
    alias: { '@mariozechner/pi-ai': '@sinclair/typebox' },
    external: ['better-sqlite3', '@mariozechner/pi-agent-core'],
    logLevel: 'warning',
  });
  const anchor = await import(pathToFileURL(outfile).href);
  const Database = createRequire(path.join(deps, 'package.json'))('better-sqlite3');
  const sqliteVersion = JSON.parse(readFileSync(path.join(deps, 'node_modules', 'better-sqlite3', 'package.json'), 'utf8')).version;
  return { anchor, Database, sqliteVersion };
}

// ---- The anchor's embed function: feature hashing, 256 dimensions, unit length ----

const DIM = 256;
const WORD = /\p{Script=Han}|[^\s\p{P}\p{S}\p{Script=Han}]+/gu;

/** FNV-1a over the UTF-16 code units of a word. */
function fnv1a(word) {
  let h = 0x811c9dc5;
  for (let i = 0; i < word.length; i++) h = Math.imul(h ^ word.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

function embed(text) {
  const v = new Float32Array(DIM);
  for (const word of text.toLowerCase().match(WORD) ?? []) {
    const h = fnv1a(word);
    v[h % DIM] += h >>> 31 ? -1 : 1;
  }
  let norm = 0;
  for (const x of v) norm += x * x;
  if (norm === 0) v[0] = 1;
  else for (let i = 0; i < DIM; i++) v[i] /= Math.sqrt(norm);
  return v;
}

/** The anchor's database holding the corpus's memories; its recall tool over all N rows. */
function openAnchor({ anchor, Database }, corpus) {
  const db = new Database(':memory:');
  anchor.initSchema(db);
  const stmts = anchor.prepareStatements(db);
  // The corpus's "now" is the wall clock's now: the anchor decays by Date.now().
  const shift = Date.now() - Date.parse(corpus.now);
  const at = (iso) => new Date(Date.parse(iso) + shift);
  const repeats = new Map();
  let salted = 0;
  db.transaction(() => {
    for (const memory of corpus.document.memories) {
      const k = repeats.get(memory.summary) ?? 0;
      repeats.set(memory.summary, k + 1);
      if (k) salted += 1;
      const content = k ? `${memory.summary} #${k}` : memory.summary;
      const created = at(memory.created_at);
      stmts.insertChunk.run({
        access_count: 0,
        agent_id: AGENT,
        scope: '',
        content,
        content_hash: anchor.contentHash(content),
        created_at: created.toISOString(),
        embedding: anchor.embeddingToBuffer(embed(content)),
        encounter_count: 1,
        id: anchor.ulid(created.getTime()),
        kind: 'memory',
        last_accessed_at: at(memory.last_accessed_at).toISOString(),
        metadata: null,
        running_intensity: 0.5,
      });
    }
  })();
  const rows = db.prepare('SELECT count(*) AS n FROM chunks WHERE agent_id = ?').get(AGENT).n;
  const tool = anchor.createRecallMemoriesTool({
    agentId: AGENT,
    embed: async (text) => embed(text),
    stmts,
    maxSearchChunks: corpus.document.memories.length,
  });
  return { db, tool, rows, salted };
}

// ---- One size ----

const percentile = (sorted, p) => sorted[Math.round((sorted.length - 1) * p)];
const round = (v, digits = 3) => Math.round(v * 10 ** digits) / 10 ** digits;
const loadavg = () => os.loadavg().map((v) => round(v, 2));

async function run(loaded, Hippo, size, questions) {
  const corpus = JSON.parse(readFileSync(path.join(values.corpus, `corpus-${size}.json`), 'utf8'));
  if (corpus.document.memories.length !== size) throw new Error(`corpus-${size}.json holds ${corpus.document.memories.length} memories`);
  if (corpus.queries.length < questions) {
    throw new Error(`corpus-${size}.json has ${corpus.queries.length} questions, fewer than --questions ${questions}`);
  }
  const now = Date.parse(corpus.now);
  const hippo = await Hippo.open({ storage: 'memory', clock: () => now });
  await hippo.importNpc(corpus.npcid, corpus.document);
  const anchor = openAnchor(loaded, corpus);

  let id = 0;
  const calls = {
    search: (query) => hippo.search(corpus.npcid, { query }).then((r) => r.memories.length),
    anchor: (query) => anchor.tool.execute(`q${id++}`, { query }).then((r) => r.details.results.length),
    retrieve: (query) => hippo.retrieve(corpus.npcid, { query }).then((r) => r.memories.length),
  };
  const order = ['search', 'anchor', 'retrieve'];
  for (const query of corpus.queries.slice(0, WARMUP)) for (const name of order) await calls[name](query);
  global.gc?.();

  const times = { search: [], anchor: [], retrieve: [] };
  const nonEmpty = { search: 0, anchor: 0, retrieve: 0 };
  const loadStart = loadavg();
  for (const [i, query] of corpus.queries.slice(0, questions).entries()) {
    for (const name of i % 2 ? [...order].reverse() : order) {
      const start = performance.now();
      const found = await calls[name](query);
      times[name].push(performance.now() - start);
      if (found > 0) nonEmpty[name] += 1;
    }
  }
  const loadEnd = loadavg();
  await hippo.close();
  anchor.db.close();

  const stats = {};
  for (const [name, list] of Object.entries(times)) {
    list.sort((a, b) => a - b);
    stats[name] = { p50_ms: round(percentile(list, 0.5)), p95_ms: round(percentile(list, 0.95)) };
  }
  const ratio = (p, name) => round(stats.anchor[p] / stats[name][p], 1);
  return {
    memories: size,
    questions,
    hippo_search: stats.search,
    hippo_retrieve: stats.retrieve,
    anchor: stats.anchor,
    ratio_p50: { search: ratio('p50_ms', 'search'), retrieve: ratio('p50_ms', 'retrieve') },
    ratio_p95: { search: ratio('p95_ms', 'search'), retrieve: ratio('p95_ms', 'retrieve') },
    anchor_non_empty: `${nonEmpty.anchor}/${questions}`,
    hippo_search_non_empty: `${nonEmpty.search}/${questions}`,
    hippo_retrieve_non_empty: `${nonEmpty.retrieve}/${questions}`,
    anchor_rows: anchor.rows,
    anchor_salted_repeats: anchor.salted,
    loadavg_start: loadStart,
    loadavg_end: loadEnd,
  };
}

const loaded = await loadAnchor();
const { Hippo } = createRequire(import.meta.url)(path.join(path.resolve(values.pkg), 'node', 'index.cjs'));
const header = {
  anchor: anchorRevision(),
  better_sqlite3: loaded.sqliteVersion,
  pkg: path.resolve(values.pkg),
  node: process.version,
  loadavg_start: loadavg(),
};
if (!values.json) console.log(`anchor ${header.anchor}, better-sqlite3 ${header.better_sqlite3}, pkg ${header.pkg}, Node ${header.node}, load ${header.loadavg_start.join(' ')}`);
const rows = [];
for (const [i, size] of sizes.entries()) {
  const row = await run(loaded, Hippo, size, questionsFor(i));
  if (row.anchor_rows !== size) throw new Error(`the anchor holds ${row.anchor_rows} rows, not ${size}`);
  rows.push(row);
  if (!values.json) console.log(`anchor ${String(size).padStart(7)}: ${JSON.stringify(row)}`);
}
header.loadavg_end = loadavg();

if (values.json) {
  console.log(JSON.stringify({ ...header, sizes: rows }));
} else {
  const ms = ({ p50_ms, p95_ms }) => `${p50_ms} / ${p95_ms}`;
  console.log('');
  console.log('| memories | questions | Hippo `search` p50 / p95 ms | Hippo `retrieve` p50 / p95 ms | anchor p50 / p95 ms | ratio p50 (search · retrieve) | ratio p95 (search · retrieve) | anchor non-empty | anchor rows | load start → end |');
  console.log('|---|---|---|---|---|---|---|---|---|---|');
  for (const r of rows) {
    console.log(
      `| ${r.memories.toLocaleString('en')} | ${r.questions} | ${ms(r.hippo_search)} | ${ms(r.hippo_retrieve)} | ${ms(r.anchor)} | ` +
        `${r.ratio_p50.search}× · ${r.ratio_p50.retrieve}× | ${r.ratio_p95.search}× · ${r.ratio_p95.retrieve}× | ` +
        `${r.anchor_non_empty} | ${r.anchor_rows.toLocaleString('en')} | ${r.loadavg_start[0]} → ${r.loadavg_end[0]} |`,
    );
  }
  console.log(`load average (1/5/15 min): ${header.loadavg_start.join(' ')} at start, ${header.loadavg_end.join(' ')} at end`);
}
