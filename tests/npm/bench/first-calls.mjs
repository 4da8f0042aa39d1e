// The first retrievals after an import, as an app meets them: a fresh process opens the
// package, imports the corpus of `make bench-npm` (no warm-up copy, unlike
// retrieval-latency.mjs), then times each of the 500 questions once and counts Node's
// garbage collections meanwhile (a `memory.grow` of a large wasm memory cost one).
//
//   node --expose-gc tests/npm/bench/first-calls.mjs [--pkg DIR] [--size 100000]
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { PerformanceObserver } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const { values } = parseArgs({
  options: {
    size: { type: 'string', default: '100000' },
    pkg: { type: 'string', default: path.join(root, 'pkg') },
  },
});
const corpus = JSON.parse(
  readFileSync(path.join(root, 'target', 'bench', 'npm', `corpus-${values.size}.json`), 'utf8'),
);
const now = Date.parse(corpus.now);
const { Hippo } = createRequire(import.meta.url)(path.join(path.resolve(values.pkg), 'node', 'index.cjs'));
const hippo = await Hippo.open({ storage: 'memory', clock: () => now });
await hippo.importNpc(corpus.npcid, corpus.document);
global.gc?.();

const collections = [];
const observer = new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) collections.push(entry.duration);
});
observer.observe({ entryTypes: ['gc'] });
const times = [];
for (const query of corpus.queries) {
  const start = performance.now();
  await hippo.retrieve(corpus.npcid, { query });
  times.push(performance.now() - start);
}
await new Promise((resolve) => setTimeout(resolve, 50));
observer.disconnect();
times.sort((a, b) => a - b);
const at = (p) => Math.round(times[Math.round((times.length - 1) * p)] * 1000) / 1000;
console.log(
  JSON.stringify({
    pkg: values.pkg,
    size: Number(values.size),
    gc_count: collections.length,
    gc_ms: Math.round(collections.reduce((a, b) => a + b, 0) * 10) / 10,
    gc_max_ms: Math.round(Math.max(0, ...collections) * 100) / 100,
    min_ms: at(0),
    p50_ms: at(0.5),
    p95_ms: at(0.95),
    p99_ms: at(0.99),
  }),
);
