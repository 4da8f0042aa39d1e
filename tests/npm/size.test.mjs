// The package's wasm stays within its budget (SPEC §6: ≤ 600 KiB gzip) for every build.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { pkgDir } from './helpers.mjs';

test('each shipped wasm is at most 600 KiB gzip', () => {
  for (const target of ['nodejs', 'web', 'bundler']) {
    const wasm = readFileSync(path.join(pkgDir, 'dist', target, 'hippo_wasm_bg.wasm'));
    const gzip = gzipSync(wasm, { level: 9 }).length;
    assert.ok(gzip <= 600 * 1024, `${target}: ${gzip} bytes gzip`);
  }
});
