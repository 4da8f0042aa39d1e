// Shared by the node --test files: a throwaway consumer project whose node_modules/<name> is
// a symlink to pkg/, so imports go through real package resolution (conditional exports).
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const root = fileURLToPath(new URL('../..', import.meta.url));
export const pkgDir = path.join(root, 'pkg');
/** The name the package is published under (pkg/package.json). */
export const NAME = JSON.parse(readFileSync(path.join(pkgDir, 'package.json'), 'utf8')).name;

let consumer;
const made = [];
process.on('exit', () => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** A temp project with node_modules/<name> → pkg/ (made once per test process). */
export function consumerDir() {
  if (consumer) return consumer;
  assert.ok(
    existsSync(path.join(pkgDir, 'dist', 'web', 'hippo_wasm_bg.wasm')),
    'pkg/dist is missing: run `make pkg` first',
  );
  consumer = tempDir('hippo-consumer-');
  const link = path.join(consumer, 'node_modules', ...NAME.split('/'));
  mkdirSync(path.dirname(link), { recursive: true });
  symlinkSync(pkgDir, link, 'dir');
  writeFileSync(path.join(consumer, 'package.json'), '{ "private": true }\n');
  writeFileSync(path.join(consumer, 'esm.mjs'), `export * from '${NAME}';\n`);
  return consumer;
}

/** `require(NAME)` from the consumer project. */
export function requireHippo() {
  return createRequire(path.join(consumerDir(), 'index.cjs'))(NAME);
}

/** `import ... from NAME` from the consumer project. */
export function importHippo() {
  return import(pathToFileURL(path.join(consumerDir(), 'esm.mjs')).href);
}

/** A temp directory for files a test writes. */
export function tempDir(prefix = 'hippo-test-') {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  made.push(dir);
  return dir;
}

/** A settable clock, fixed unless moved: the API then answers deterministically. */
export function fixedClock(iso = '2026-04-08T10:00:00Z') {
  let now = Date.parse(iso);
  const clock = () => now;
  clock.advanceDays = (days) => {
    now += days * 86_400_000;
  };
  return clock;
}

/** Asserts that a promise rejects with an Error carrying this `code` (and message part). */
export async function rejectsWith(promise, code, message) {
  await assert.rejects(promise, (error) => {
    assert.ok(error instanceof Error, `rejects with an Error, got ${error}`);
    assert.equal(error.code, code, `code of: ${error.message}`);
    if (message !== undefined) assert.match(error.message, message);
    return true;
  });
}

/** An adapter {load, save} over bytes in memory, counting saves. */
export function memoryAdapter() {
  const adapter = {
    bytes: null,
    saves: 0,
    async load() {
      return adapter.bytes && adapter.bytes.slice();
    },
    async save(bytes) {
      adapter.bytes = bytes.slice();
      adapter.saves += 1;
    },
  };
  return adapter;
}

/** memoryAdapter() that can also append (the next load returns saved + appended bytes). */
export function appendingAdapter() {
  const adapter = memoryAdapter();
  adapter.appends = 0;
  adapter.append = async (bytes) => {
    const joined = new Uint8Array(adapter.bytes.length + bytes.length);
    joined.set(adapter.bytes);
    joined.set(bytes, adapter.bytes.length);
    adapter.bytes = joined;
    adapter.appends += 1;
  };
  return adapter;
}
