// The package as web developers use it: a small page (page/) imports it by its name and is
// built by webpack 5, Vite (build and dev server) and esbuild, each with its ordinary
// configuration plus at most the one option pkg/README.md documents. The package is installed
// from the tarball `npm pack` makes, as `npm install` would. Each page runs in Debian's
// chromium: it stores a memory in IndexedDB, is reloaded, and finds the memory again.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import * as esbuild from 'esbuild';
import webpack from 'webpack';
import * as vite from 'vite';
import { serve } from '../../examples/browser/serve.mjs';
import { CHROMIUM_ARGS } from '../browser/chromium.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const NAME = JSON.parse(execFileSync('node', ['-p', 'JSON.stringify(require("./pkg/package.json").name)'], { cwd: ROOT, encoding: 'utf8' }));
const MEMORY = 'Allergic to peanuts';

let project;
let browser;
const stops = [];

before(async () => {
  project = mkdtempSync(path.join(os.tmpdir(), 'hippo-bundlers-'));
  cpSync(fileURLToPath(new URL('page', import.meta.url)), project, { recursive: true });
  install(project);
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
});

after(async () => {
  await browser?.close();
  for (const stop of stops) await stop();
  if (project) rmSync(project, { recursive: true, force: true });
});

/** node_modules/<name> from the packed tarball: only what `files` ships reaches the page. */
function install(dir) {
  const packed = JSON.parse(
    execFileSync('npm', ['pack', '--json', '--pack-destination', dir], { cwd: path.join(ROOT, 'pkg'), encoding: 'utf8' }),
  )[0];
  const target = path.join(dir, 'node_modules', ...NAME.split('/'));
  mkdirSync(target, { recursive: true });
  execFileSync('tar', ['-xzf', path.join(dir, packed.filename), '-C', target, '--strip-components=1']);
}

/** A static server for a build's output directory. */
async function serveBuild(dir, html) {
  if (html) writeFileSync(path.join(dir, 'index.html'), html);
  const server = await serve(0, dir, '/');
  stops.push(server.close);
  return server.url;
}

const classicPage = (script) =>
  `<!doctype html><html><head><meta charset="utf-8"></head><body><script src="${script}"></script></body></html>`;

/** Stores the memory, reloads, and finds it again; a fresh browser profile per page. */
async function storeReloadFind(url) {
  const context = await browser.newContext();
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (error) => errors.push(error.message));
  const found = async () => {
    await page.waitForFunction(() => ['ready', 'failed'].includes(document.body.dataset.state), null, { timeout: 120_000 });
    assert.equal(await page.getAttribute('body', 'data-state'), 'ready', await page.getAttribute('body', 'data-error'));
    return JSON.parse(await page.getAttribute('body', 'data-found'));
  };
  try {
    await page.goto(url);
    assert.deepEqual(await found(), [], 'a new browser profile starts empty');
    await page.goto(`${url}?remember=${encodeURIComponent(MEMORY)}`);
    assert.equal((await found())[0], MEMORY);
    await page.goto(url);
    await page.reload();
    assert.equal((await found())[0], MEMORY, 'found again after a reload (IndexedDB)');
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
}

test('webpack 5 (no options)', async () => {
  const out = path.join(project, 'dist-webpack');
  const stats = await new Promise((resolve, reject) =>
    webpack({ mode: 'production', context: project, entry: './src/app.js', output: { path: out } }, (error, result) =>
      error ? reject(error) : resolve(result),
    ),
  );
  assert.ok(!stats.hasErrors(), stats.toString('errors-only'));
  await storeReloadFind(await serveBuild(out, classicPage('main.js')));
});

test('vite build (no options)', async () => {
  const out = path.join(project, 'dist-vite');
  await vite.build({ root: project, logLevel: 'warn', build: { outDir: out } });
  await storeReloadFind(await serveBuild(out));
});

test('vite dev server (no options)', async () => {
  const server = await vite.createServer({
    root: project,
    logLevel: 'warn',
    server: { host: '127.0.0.1', port: 0, strictPort: false },
  });
  stops.push(() => server.close());
  await server.listen();
  await storeReloadFind(server.resolvedUrls.local[0]);
});

test('esbuild (the package\'s esbuild plugin)', async () => {
  const out = path.join(project, 'dist-esbuild');
  const { hippoWasm } = await import(path.join(project, 'node_modules', ...NAME.split('/'), 'esbuild.js'));
  await esbuild.build({ absWorkingDir: project, entryPoints: ['src/app.js'], bundle: true, outdir: out, plugins: [hippoWasm()] });
  await storeReloadFind(await serveBuild(out, classicPage('app.js')));
});
