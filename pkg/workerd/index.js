// The Cloudflare Workers (workerd) entry point: the `web` wasm build, instantiated
// synchronously from the .wasm module the Workers runtime imports. No file or IndexedDB
// here: use "memory" or an adapter {load(), save(bytes)} over KV, R2 or D1.
import wasmModule from '../dist/web/hippo_wasm_bg.wasm';
import { initSync, Hippo, registerStorage } from '../dist/web/hippo_wasm.js';

initSync({ module: wasmModule });

export { Hippo, registerStorage };
