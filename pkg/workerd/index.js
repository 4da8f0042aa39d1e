// The Cloudflare Workers (workerd) entry point: the `web` wasm build, instantiated
// synchronously from the .wasm module the Workers runtime imports. No file or IndexedDB
// here: "memory", or an adapter over a Durable Object's storage or KV (storage.js).
import wasmModule from '../dist/web/hippo_wasm_bg.wasm';
import { initSync, Hippo, registerStorage, setErrorClass, setMcpTools, setPrompts, setRequestShapes, setTopics, setChineseWords } from '../dist/web/hippo_wasm.js';
import mcpTools from '../dist/web/mcp_tools.js';
import prompts from '../dist/web/prompts.js';
import shapes from '../dist/web/shapes.js';
import topics from '../dist/web/topics.js';
import chineseWords from '../dist/web/chinese_words.js';
import { HippoError } from '../errors.js';
import { durableObjectStorage, kvStorage } from './storage.js';

initSync({ module: wasmModule });
setErrorClass(HippoError);
setRequestShapes(shapes);
setMcpTools(mcpTools);
setPrompts(prompts);
setTopics(topics);
setChineseWords(chineseWords);

export { Hippo, HippoError, registerStorage, durableObjectStorage, kvStorage };
