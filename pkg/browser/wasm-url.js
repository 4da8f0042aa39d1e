// Where the .wasm is. Bundlers that understand `new URL(path, import.meta.url)` (webpack 5,
// Vite, Rollup, Parcel) copy the file into the build and rewrite this URL; a page without a
// bundler fetches it from beside this module. esbuild does not: the package's esbuild plugin
// (`@hippo-engine/hippo/esbuild`) replaces this module.
export default new URL('../dist/web/hippo_wasm_bg.wasm', import.meta.url);
