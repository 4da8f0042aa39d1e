// The browser and bundler entry point: the `bundler` wasm build (the bundler loads the .wasm),
// with `{indexedDB: name}` storage.
import { Hippo, registerStorage } from '../dist/bundler/hippo_wasm.js';
import { indexedDBStorage } from './indexeddb-storage.js';

registerStorage('indexedDB', (option) => indexedDBStorage(option.indexedDB));

export { Hippo, registerStorage, indexedDBStorage };
