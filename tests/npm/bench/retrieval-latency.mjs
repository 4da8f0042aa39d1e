// Wasm half of the npm retrieval benchmark: the corpus files written by the native half
// (`cargo run --release -p hippo-wasm --example retrieval_latency`), imported into the
// package's Node build and timed through `retrieve`, beside the native figures (ratio).
// Also checks that wasm returns the same memories as native for every query. As natively, each
// query is one call timed whole (min / p50 / p95 / p99): no best-of-N. Memory: the process's
// RSS and its ArrayBuffer bytes (the wasm linear memory lives there) after the import, per
// memory, over those before the instance opened.
//
//   node tests/npm/bench/retrieval-latency.mjs [--json]
// A benchmark, not a test: it is run by `make bench-npm`, never by `make test-npm`.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { requireHippo, root } from '../helpers.mjs';

const { Hippo } = requireHippo();
const dir = path.join(root, 'target', 'bench', 'npm');
const native = JSON.parse(readFileSync(path.join(dir, 'native.json'), 'utf8')).native;

// The sizes of the last native run.
const sizes = Object.keys(native).map(Number).sort((a, b) => a - b);

const percentile = (sorted, p) => sorted[Math.round((sorted.length - 1) * p)];
const round = (v) => Math.round(v * 1000) / 1000;


/** A fresh instance, the import, then every query timed in order. */
async function run(corpus, nativeAnswers) {
  const now = Date.parse(corpus.now);
  global.gc?.();
  const before = process.memoryUsage();
  const hippo = await Hippo.open({ storage: 'memory', clock: () => now });
  // Warm the JIT on a copy (the timed NPC then evolves exactly as the native run's does:
  // retrieval reinforces what it returns).
  await hippo.importNpc('warmup', corpus.document);
  for (const query of corpus.queries.slice(0, 100)) await hippo.retrieve('warmup', { query });
  await hippo.deleteNpc('warmup');

  let start = performance.now();
  await hippo.importNpc(corpus.npcid, corpus.document);
  const importMs = performance.now() - start;
  global.gc?.();
  const after = process.memoryUsage();
  const times = [];
  let returned = 0;
  let same = 0;
  for (const [i, query] of corpus.queries.entries()) {
    start = performance.now();
    const { memories } = await hippo.retrieve(corpus.npcid, { query });
    times.push(performance.now() - start);
    returned += memories.length;
    if (JSON.stringify(memories.map((m) => m.id)) === JSON.stringify(nativeAnswers[i])) same += 1;
  }
  await hippo.close();
  times.sort((a, b) => a - b);
  const memory = {
    rss_mb: round((after.rss - before.rss) / 1048576),
    array_buffers_mb: round((after.arrayBuffers - before.arrayBuffers) / 1048576),
  };
  const at = (p) => percentile(times, p);
  return { min: at(0), p50: at(0.5), p95: at(0.95), p99: at(0.99), importMs, returned, same, memory };
}

const rows = {};
for (const size of sizes) {
  const corpus = JSON.parse(readFileSync(path.join(dir, `corpus-${size}.json`), 'utf8'));
  const nativeAnswers = JSON.parse(readFileSync(path.join(dir, `native-answers-${size}.json`), 'utf8'));
  const result = await run(corpus, nativeAnswers);
  const row = {
    min_ms: round(result.min),
    p50_ms: round(result.p50),
    p95_ms: round(result.p95),
    p99_ms: round(result.p99),
    import_ms: round(result.importMs),
    mean_results: round(result.returned / corpus.queries.length),
    same_answers_as_native: `${result.same}/${corpus.queries.length}`,
    rss_mb: result.memory.rss_mb,
    rss_bytes_per_memory: Math.round((result.memory.rss_mb * 1048576) / size),
    array_buffers_mb: result.memory.array_buffers_mb,
    array_buffer_bytes_per_memory: Math.round((result.memory.array_buffers_mb * 1048576) / size),
  };
  const base = native[size];
  if (base) {
    row.native_p50_ms = base.p50_ms;
    row.native_p95_ms = base.p95_ms;
    row.ratio_p50 = round(row.p50_ms / base.p50_ms);
    row.ratio_p95 = round(row.p95_ms / base.p95_ms);
  }
  rows[size] = row;
  console.log(`wasm ${String(size).padStart(7)}: ${JSON.stringify(row)}`);
}

// The size `make pkg` measured (gzip -9 of the shipped .wasm).
const size = JSON.parse(readFileSync(path.join(root, 'pkg', 'dist', 'size.json'), 'utf8'));
console.log(`wasm size: ${size.wasm_bytes} bytes, ${size.wasm_gzip_bytes} bytes gzip (${(size.wasm_gzip_bytes / 1024).toFixed(1)} KiB)`);
if (process.argv.includes('--json')) console.log(JSON.stringify({ wasm: rows, size }));
