// Persistence benchmark (docs/BENCHMARKS.md, "npm persistence"): bytes written and time per
// call at COUNT memories in one NPC (default 10,000), for {file} storage in Node and
// {indexedDB} storage in Debian's chromium.
//
//   node tests/npm/bench/persistence.mjs [--pkg DIR] [--count N] [--calls N]
// --pkg points at another build of the package (e.g. the main branch's pkg/, for "before").
// A benchmark, not a test: run by `make bench-npm-persistence`, never by `make test`.
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';
import { serve } from '../../../examples/browser/serve.mjs';
import { CHROMIUM_ARGS } from '../../browser/chromium.mjs';
import { root } from '../helpers.mjs';
import { counting, run } from './persistence-run.mjs';

const { values } = parseArgs({
  options: { pkg: { type: 'string', default: path.join(root, 'pkg') }, count: { type: 'string', default: '10000' }, calls: { type: 'string', default: '20' } },
});
const pkgDir = path.resolve(values.pkg);
const count = Number(values.count);
const calls = Number(values.calls);

// Node, {file}.
const { Hippo, fileStorage } = createRequire(import.meta.url)(path.join(pkgDir, 'node', 'index.cjs'));
const dir = mkdtempSync(path.join(os.tmpdir(), 'hippo-bench-'));
try {
  const { adapter, counter } = counting(fileStorage(path.join(dir, 'bench.hippo')));
  console.log(JSON.stringify({ storage: 'file', ...(await run({ Hippo, adapter, counter, count, calls })) }));
} finally {
  rmSync(dir, { recursive: true, force: true });
}

// Chromium, {indexedDB}: the page imports the package's browser entry without a bundler
// (`web/index.js` in builds before it became `browser/index.js`) and this same run().
const server = await serve(0, '/', '/');
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
try {
  const page = await browser.newPage();
  await page.goto(`${server.url}${path.join(root, 'examples', 'browser', 'index.html').slice(1)}`);
  const entries = ['web/index.js', 'browser/index.js'].map((entry) => path.join(pkgDir, entry));
  const result = await page.evaluate(
    async ({ entries, runner, count, calls }) => {
      let pkg;
      for (const entry of entries) {
        try {
          pkg = await import(entry);
          break;
        } catch {}
      }
      const { counting, run } = await import(runner);
      const { adapter, counter } = counting(pkg.indexedDBStorage(`bench-${Date.now()}`));
      return run({ Hippo: pkg.Hippo, adapter, counter, count, calls });
    },
    { entries, runner: path.join(root, 'tests', 'npm', 'bench', 'persistence-run.mjs'), count, calls },
  );
  console.log(JSON.stringify({ storage: 'indexedDB', ...result }));
} finally {
  await browser.close();
  await server.close();
}
