// Memory of the package per stored memory (issue 15: <= 1.5 KB per memory at 100k), in Node,
// on the corpus of `make bench-npm` (written by its native half), for three ways a user meets
// it: storage "memory" after the import and QUERIES retrieves; {file} storage right after the
// import (its save included); the same file reopened in a new process, then QUERIES retrieves.
// Each scenario runs in a fresh process. Reported: the wasm linear memory (which never
// shrinks, so it is the peak of the run), Node's RSS and V8's heap, each over the process
// before the instance opened (corpus loaded), per stored memory.
//
//   node tests/npm/bench/memory.mjs [--size N] [--queries N] [--pkg DIR] [--baseline DIR]
// --baseline runs another build of the package (e.g. main's pkg/) in the same run, first.
// A benchmark, not a test: run by `make bench-npm-memory`, never by `make test`.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const { values } = parseArgs({
  options: {
    size: { type: 'string', default: '100000' },
    queries: { type: 'string', default: '50' },
    pkg: { type: 'string', default: path.join(root, 'pkg') },
    baseline: { type: 'string' },
    child: { type: 'string' },
    file: { type: 'string' },
  },
});
const size = Number(values.size);
const corpusFile = path.join(root, 'target', 'bench', 'npm', `corpus-${size}.json`);
const mb = (bytes) => Math.round((bytes / 1048576) * 10) / 10;

if (values.child) {
  // Every wasm instance the package makes, to read its linear memory.
  const instances = [];
  const Instance = WebAssembly.Instance;
  WebAssembly.Instance = function (module, imports) {
    const instance = new Instance(module, imports);
    instances.push(instance);
    return instance;
  };
  const { Hippo } = createRequire(import.meta.url)(path.join(path.resolve(values.pkg), 'node', 'index.cjs'));
  let corpus = JSON.parse(readFileSync(corpusFile, 'utf8'));
  const { npcid, queries } = corpus;
  const now = Date.parse(corpus.now);
  const wasm = () => instances.reduce((n, i) => n + i.exports.memory.buffer.byteLength, 0);
  const sample = () => {
    global.gc();
    const { rss, heapUsed } = process.memoryUsage();
    return { wasm: wasm(), rss, heap: heapUsed };
  };
  const storage = values.child === 'memory' ? 'memory' : { file: values.file };
  const document = values.child === 'reopen' ? null : corpus.document;
  corpus = null;
  const before = sample();
  const hippo = await Hippo.open({ storage, clock: () => now });
  if (document) await hippo.importNpc(npcid, document);
  if (values.child !== 'import') {
    for (const query of queries.slice(0, Number(values.queries))) await hippo.retrieve(npcid, { query });
  }
  const after = sample();
  await hippo.close();
  const row = {};
  for (const key of ['wasm', 'rss', 'heap']) {
    row[`${key}_mb`] = mb(after[key] - before[key]);
    row[`${key}_bytes_per_memory`] = Math.round((after[key] - before[key]) / size);
  }
  console.log(JSON.stringify(row));
} else {
  const builds = [...(values.baseline ? [['baseline', values.baseline]] : []), ['this build', values.pkg]];
  for (const [name, pkg] of builds) {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'hippo-memory-'));
    try {
      for (const scenario of ['memory', 'import', 'reopen']) {
        const out = execFileSync(
          process.execPath,
          ['--expose-gc', fileURLToPath(import.meta.url), '--child', scenario, '--pkg', pkg,
            '--size', values.size, '--queries', values.queries, '--file', path.join(dir, 'store.hippo')],
          { encoding: 'utf8', maxBuffer: 1 << 20 },
        );
        const label = { memory: '"memory", import + retrieves', import: '{file}, import', reopen: '{file}, reopened + retrieves' }[scenario];
        console.log(`${name.padEnd(10)} ${String(size).padStart(7)} ${label.padEnd(30)} ${out.trim()}`);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
}
