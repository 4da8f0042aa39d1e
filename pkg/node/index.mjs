// The Node entry point (ES module). It re-exports the CommonJS entry, so `import` and
// `require` in one process share one wasm instance and one set of registered storages.
import node from './index.cjs';

export const { Hippo, HippoError, registerStorage, fileStorage } = node;
export default node;
