// The package resolves and loads through node_modules like any dependency: CommonJS and ES
// module entry points, the conditional exports map, and the TypeScript types.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { test } from 'node:test';
import { NAME, consumerDir, importHippo, pkgDir, requireHippo, root, tempDir } from './helpers.mjs';

test('require(NAME) loads the CommonJS entry', async () => {
  const resolved = createRequire(path.join(consumerDir(), 'x.cjs')).resolve(NAME);
  assert.equal(path.relative(pkgDir, resolved), path.join('node', 'index.cjs'));
  const { Hippo } = requireHippo();
  const hippo = await Hippo.open({ storage: 'memory' });
  const npc = await hippo.createNpc('cjs', { display_name: 'C' });
  assert.equal(npc.npcid, 'cjs');
});

test('import from NAME loads the ES module entry, sharing one instance with require', async () => {
  const esm = await importHippo();
  const cjs = requireHippo();
  assert.equal(typeof esm.Hippo.open, 'function');
  assert.equal(esm.Hippo, cjs.Hippo, 'one wasm instance, not two');
  const hippo = await esm.Hippo.open();
  assert.equal((await hippo.createNpc('esm')).npcid, 'esm');
});

test('the exports map picks the right build for each environment', () => {
  // Resolution as Node does it with extra conditions; symlinks resolve to pkg/.
  const resolve = (...conditions) => {
    const args = [...conditions.flatMap((c) => ['-C', c]), '-p', `require.resolve(${JSON.stringify(NAME)})`];
    const out = execFileSync(process.execPath, args, { cwd: consumerDir(), encoding: 'utf8' });
    return path.relative(pkgDir, out.trim()).split(path.sep).join('/');
  };
  assert.equal(resolve(), 'node/index.cjs');
  assert.equal(resolve('workerd'), 'workerd/index.js');
  const pkg = JSON.parse(readFileSync(path.join(pkgDir, 'package.json'), 'utf8'));
  assert.equal(pkg.exports['.'].node.import, './node/index.mjs');
  assert.equal(pkg.exports['.'].browser, './browser/index.js');
  assert.equal(pkg.exports['.'].default, './browser/index.js');
  assert.equal(pkg.exports['./web'].default, './browser/index.js');
});

test('a TypeScript consumer type-checks against index.d.ts, and a wrong call does not', () => {
  const dir = tempDir('hippo-ts-');
  const tsc = path.join(root, 'node_modules', '.bin', 'tsc');
  const project = (file) => {
    copyFileSync(path.join(root, 'tests', 'npm', 'types', file), path.join(dir, 'consumer.ts'));
    copyFileSync(path.join(root, 'tests', 'npm', 'types', 'tsconfig.json'), path.join(dir, 'tsconfig.json'));
    return spawnSync(tsc, ['--noEmit', '-p', dir], { cwd: dir, encoding: 'utf8' });
  };
  // The consumer project resolves `hippo` through the same symlinked node_modules.
  execFileSync('ln', ['-s', path.join(consumerDir(), 'node_modules'), path.join(dir, 'node_modules')]);
  const good = project('consumer.ts');
  assert.equal(good.status, 0, good.stdout + good.stderr);
  const bad = project('consumer-wrong.ts');
  assert.notEqual(bad.status, 0, 'tsc must reject the wrong consumer');
  // Exactly the two wrong calls (lines 7 and 9 of consumer-wrong.ts) are reported.
  const lines = [...bad.stdout.matchAll(/consumer\.ts\((\d+),\d+\): error TS/g)].map((m) => Number(m[1]));
  assert.deepEqual([...new Set(lines)], [7, 9], bad.stdout);
});
