// The package's fill (issue 15 item 3): all N memories of `make bench-npm`'s corpus added
// through `addMemories`, 100 per call, to an empty NPC, beside one `importNpc` of the same N in
// the same process; in-memory storage. Prints one JSON line: import and fill ms, their ratio,
// and the fill's actions (inserted / reinforced / superseded: two builds that decide alike
// differ only by ties). Run two builds alternately to compare them.
//
//   node [--max-old-space-size=8192] tests/npm/bench/writes.mjs PKG_DIR N [--distinct]
// --distinct keeps the first memory of each type and text (the corpus repeats most of its
// texts word for word, as dreams do): a fill with no exact repeats, beside its own import.
// A benchmark, not a test: never run by `make test`. The corpus is written by `make bench-npm`.
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const args = process.argv.slice(2);
const distinct = args.includes('--distinct');
const [pkg = path.join(root, 'pkg'), size = '10000'] = args.filter((a) => !a.startsWith('--'));
const { Hippo } = createRequire(import.meta.url)(path.join(path.resolve(pkg), 'node', 'index.cjs'));
const corpus = JSON.parse(readFileSync(path.join(root, 'target', 'bench', 'npm', `corpus-${size}.json`), 'utf8'));
const { npcid } = corpus;
const document = { ...corpus.document };
if (distinct) {
  const seen = new Set();
  document.memories = document.memories.filter((m) => {
    const key = `${m.type} ${m.summary.toLowerCase().replace(/[\s\p{P}]+/gu, '')}`;
    return !seen.has(key) && seen.add(key);
  });
}
const now = Date.parse(corpus.now);
const a = await Hippo.open({ storage: 'memory', clock: () => now });
let t = performance.now();
await a.importNpc(npcid, document);
const importMs = performance.now() - t;
const b = await Hippo.open({ storage: 'memory', clock: () => now });
await b.importNpc(npcid, { ...document, memories: [] });
const inputs = document.memories.map((m) => ({ summary: m.summary, type: m.type, keywords: m.keywords }));
const acts = {};
t = performance.now();
for (let i = 0; i < inputs.length; i += 100) {
  const r = await b.addMemories(npcid, { memories: inputs.slice(i, i + 100) });
  for (const x of r.results) acts[x.action] = (acts[x.action] || 0) + 1;
}
const fillMs = performance.now() - t;
console.log(JSON.stringify({ pkg, size, memories: inputs.length, importMs: Math.round(importMs), fillMs: Math.round(fillMs), ratio: +(fillMs / importMs).toFixed(2), acts }));
