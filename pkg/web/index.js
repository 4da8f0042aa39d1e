// `hippo/web`: the `web` wasm build for pages without a bundler. The module fetches and
// instantiates the .wasm beside it before it resolves (top-level await), then works like the
// browser entry, with `{indexedDB: name}` storage.
import init, { Hippo, registerStorage } from '../dist/web/hippo_wasm.js';
import { indexedDBStorage } from '../browser/indexeddb-storage.js';

await init({ module_or_path: new URL('../dist/web/hippo_wasm_bg.wasm', import.meta.url) });
registerStorage('indexedDB', (option) => indexedDBStorage(option.indexedDB));

export { Hippo, registerStorage, indexedDBStorage };
