'use strict';
// The Node entry point (CommonJS): the nodejs wasm build, with `{file: path}` storage.
const core = require('../dist/nodejs/hippo_wasm.js');
const { fileStorage } = require('./file-storage.cjs');
const { HippoError } = require('./errors.cjs');

core.setErrorClass(HippoError);
core.setRequestShapes(require('../dist/nodejs/shapes.js'));
core.setMcpTools(require('../dist/nodejs/mcp_tools.js'));
core.setPrompts(require('../dist/nodejs/prompts.js'));
core.setTopics(require('../dist/nodejs/topics.js'));
core.setChineseWords(require('../dist/nodejs/chinese_words.js'));
core.registerStorage('file', (option) => fileStorage(option.file));

module.exports = { Hippo: core.Hippo, HippoError, registerStorage: core.registerStorage, fileStorage };
