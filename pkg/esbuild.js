// An esbuild plugin for the browser entry. esbuild does not copy assets named by
// `new URL(path, import.meta.url)` (webpack 5 and Vite do), so this plugin copies the .wasm
// into the output directory with esbuild's `file` loader and points the package at it:
//
//   import { hippoWasm } from '@hippo-engine/hippo/esbuild';
//   await esbuild.build({ entryPoints: ['app.js'], bundle: true, outdir: 'dist', plugins: [hippoWasm()] });
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const PACKAGE = path.dirname(fileURLToPath(import.meta.url));
const WASM_URL_MODULE = path.join(PACKAGE, 'browser', 'wasm-url.js');
const WASM = path.join(PACKAGE, 'dist', 'web', 'hippo_wasm_bg.wasm');
const escape = (p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export function hippoWasm() {
  return {
    name: 'hippo-wasm',
    setup(build) {
      const esm = build.initialOptions.format === 'esm';
      // The file loader's path is relative to the output directory: resolve it against the
      // bundle's own URL (an iife learns it from its <script> while it first runs).
      const base = esm ? 'import.meta.url' : '(document.currentScript && document.currentScript.src) || location.href';
      build.onLoad({ filter: new RegExp(`^${escape(WASM_URL_MODULE)}$`) }, () => ({
        contents: `import path from ${JSON.stringify(WASM)};\nexport default new URL(path, ${base});\n`,
        loader: 'js',
        resolveDir: PACKAGE,
      }));
      build.onLoad({ filter: new RegExp(`^${escape(WASM)}$`) }, async () => ({
        contents: await readFile(WASM),
        loader: 'file',
      }));
    },
  };
}
