'use strict';
// The Node entry point (CommonJS): the nodejs wasm build, with `{file: path}` storage.
const core = require('../dist/nodejs/hippo_wasm.js');
const { fileStorage } = require('./file-storage.cjs');

core.registerStorage('file', (option) => fileStorage(option.file));

module.exports = { Hippo: core.Hippo, registerStorage: core.registerStorage, fileStorage };
