// Two builds of the package in one process, one retrieval each in turn: this checkout's pkg/
// and a baseline (e.g. main's pkg/, built from a worktree). Both import the same corpus (the
// native half of `make bench-npm` writes it), warm up, then every query is sent to one build
// and then the other, alternating which goes first, each call timed whole: the machine's load
// falls on both alike, which two runs one after the other cannot promise on a shared machine.
//
//   node --expose-gc tests/npm/bench/retrieval-ab.mjs --baseline DIR [--pkg DIR] [--size 100000]
// Prints min / p50 / p95 / p99 per build, and how many answers the two builds agree on.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const { values } = parseArgs({
  options: {
    size: { type: 'string', default: '100000' },
    pkg: { type: 'string', default: path.join(root, 'pkg') },
    baseline: { type: 'string' },
  },
});
if (!values.baseline) throw new Error('--baseline DIR: the other build of the package (a pkg/ directory)');
const corpus = JSON.parse(
  readFileSync(path.join(root, 'target', 'bench', 'npm', `corpus-${values.size}.json`), 'utf8'),
);
const now = Date.parse(corpus.now);
const load = (dir) => createRequire(import.meta.url)(path.join(path.resolve(dir), 'node', 'index.cjs'));

const builds = [];
for (const [name, dir] of [['baseline', values.baseline], ['this build', values.pkg]]) {
  const hippo = await load(dir).Hippo.open({ storage: 'memory', clock: () => now });
  // Warm the JIT on a copy, so that the timed NPC evolves as in `make bench-npm`.
  await hippo.importNpc('warmup', corpus.document);
  for (const query of corpus.queries.slice(0, 100)) await hippo.retrieve('warmup', { query });
  await hippo.deleteNpc('warmup');
  await hippo.importNpc(corpus.npcid, corpus.document);
  builds.push({ name, hippo, times: [], answers: [] });
}
global.gc?.();

for (const [i, query] of corpus.queries.entries()) {
  for (const build of i % 2 ? [...builds].reverse() : builds) {
    const start = performance.now();
    const { memories } = await build.hippo.retrieve(corpus.npcid, { query });
    build.times.push(performance.now() - start);
    build.answers.push(JSON.stringify(memories.map((m) => m.id)));
  }
}

const round = (v) => Math.round(v * 1000) / 1000;
for (const { name, hippo, times } of builds) {
  times.sort((a, b) => a - b);
  const at = (p) => round(times[Math.round((times.length - 1) * p)]);
  console.log(`${name.padEnd(10)} ${values.size}: ${JSON.stringify({ min_ms: at(0), p50_ms: at(0.5), p95_ms: at(0.95), p99_ms: at(0.99) })}`);
  await hippo.close();
}
const same = builds[0].answers.filter((a, i) => a === builds[1].answers[i]).length;
console.log(`same answers: ${same}/${corpus.queries.length}`);
