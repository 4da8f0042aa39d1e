// The browser entry (bundlers, and pages without one): the `web` wasm build, with
// `{indexedDB: name}` storage. The .wasm is fetched and compiled on the first `Hippo.open`,
// not at import, so importing the package costs nothing and needs no top-level await.
import init, { Hippo, registerStorage as registerNow, setErrorClass, setMcpTools, setPrompts, setRequestShapes, setTopics, setChineseWords } from '../dist/web/hippo_wasm.js';
import mcpTools from '../dist/web/mcp_tools.js';
import prompts from '../dist/web/prompts.js';
import shapes from '../dist/web/shapes.js';
import topics from '../dist/web/topics.js';
import chineseWords from '../dist/web/chinese_words.js';
import { HippoError } from '../errors.js';
import wasmUrl from './wasm-url.js';
import { indexedDBStorage } from './indexeddb-storage.js';

// Storage kinds registered before the module is instantiated; applied once it is.
const kinds = new Map([['indexedDB', (option) => indexedDBStorage(option.indexedDB)]]);
let instantiated = false;
let instantiating;

function instantiate() {
  instantiating ??= init({ module_or_path: wasmUrl }).then(
    () => {
      instantiated = true;
      setErrorClass(HippoError);
      setRequestShapes(shapes);
      setMcpTools(mcpTools);
      setPrompts(prompts);
      setTopics(topics);
      setChineseWords(chineseWords);
      for (const [kind, factory] of kinds) registerNow(kind, factory);
    },
    (error) => {
      instantiating = undefined; // a later open tries again (e.g. after a network error)
      throw new HippoError(`cannot load the Hippo wasm module: ${error?.message ?? error}`, 'internal_error');
    },
  );
  return instantiating;
}

const open = Hippo.open;
Hippo.open = async function (options) {
  await instantiate();
  return open.call(Hippo, options);
};

/** Makes `{<kind>: ...}` a valid `storage` option (see index.d.ts). */
function registerStorage(kind, factory) {
  if (instantiated) registerNow(kind, factory);
  else kinds.set(kind, factory);
}

export { Hippo, HippoError, registerStorage, indexedDBStorage };
