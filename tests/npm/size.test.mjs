// What `npm pack` ships: the wasm once (SPEC §6: ≤ 600 KiB gzip), a LICENSE, every entry the
// exports map names, and nothing from the build that the entries do not load.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { pkgDir } from './helpers.mjs';

const packed = () =>
  JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json'], { cwd: pkgDir, encoding: 'utf8' }))[0];

test('the shipped wasm is at most 600 KiB gzip', () => {
  const wasm = readFileSync(path.join(pkgDir, 'dist', 'web', 'hippo_wasm_bg.wasm'));
  const gzip = gzipSync(wasm, { level: 9 }).length;
  assert.ok(gzip <= 600 * 1024, `${gzip} bytes gzip`);
});

test('the tarball has the wasm once, a LICENSE, and every file the exports map names', () => {
  const { files, size, unpackedSize } = packed();
  const names = files.map((file) => file.path);
  assert.deepEqual(names.filter((name) => name.endsWith('.wasm')), ['dist/web/hippo_wasm_bg.wasm']);
  assert.ok(names.includes('LICENSE'), names.join(', '));
  assert.match(readFileSync(path.join(pkgDir, 'LICENSE'), 'utf8'), /MIT License/);
  const pkg = JSON.parse(readFileSync(path.join(pkgDir, 'package.json'), 'utf8'));
  const targets = (value) => (typeof value === 'string' ? [value] : Object.values(value).flatMap(targets));
  for (const target of [...targets(pkg.exports), pkg.main, pkg.types]) {
    assert.ok(names.includes(target.replace(/^\.\//, '')), `${target} is not in the tarball`);
  }
  // And what the entry points load from the build (the glue, the data they hand the wasm).
  for (const entry of ['node/index.cjs', 'browser/index.js', 'workerd/index.js']) {
    const source = readFileSync(path.join(pkgDir, entry), 'utf8');
    for (const [, file] of source.matchAll(/['"]\.\.\/(dist\/[^'"]+)['"]/g)) {
      assert.ok(names.includes(file), `${file}, which ${entry} loads, is not in the tarball`);
    }
  }
  // One 1.45 MB module plus the glue: well under twice the module.
  assert.ok(unpackedSize < 2 * files.find((f) => f.path.endsWith('.wasm')).size, `${unpackedSize} bytes unpacked`);
  console.log(`packed ${size} bytes, unpacked ${unpackedSize} bytes, ${files.length} files`);
});
