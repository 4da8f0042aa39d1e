// Errors reject with a HippoError (an Error) whose `code` and message are the HTTP API's; a
// request key the route does not know is an error naming it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fixedClock, importHippo, rejectsWith, requireHippo } from './helpers.mjs';

const { Hippo } = requireHippo();

test('bad input is invalid_request, with the HTTP messages', async () => {
  const hippo = await Hippo.open({ clock: fixedClock() });
  await rejectsWith(hippo.createNpc('a b'), 'invalid_request', /npcid must be 1-64 characters/);
  await hippo.createNpc('n');
  await rejectsWith(hippo.updatePkg('n', { updates: [] }), 'invalid_request', /^updates cannot be empty$/);
  await rejectsWith(hippo.updatePkg('n', { updates: 'Name=Alex' }), 'invalid_request', /invalid type: string "Name=Alex", expected a sequence/);
  await rejectsWith(hippo.updatePkg('n'), 'invalid_request', /^invalid request: missing field `updates`/);
  const cyclic = { updates: [] };
  cyclic.self = cyclic;
  await rejectsWith(hippo.updatePkg('n', cyclic), 'invalid_request', /not a JSON value/);
  await rejectsWith(hippo.updatePkg('n', () => 1), 'invalid_request', /not a JSON value/);
  await rejectsWith(hippo.createNpc('n', { display_name: 'x', colour: 'red' }), 'invalid_request', /unknown field `colour`/);
  await rejectsWith(hippo.search('n', { query: '' }), 'invalid_request');
  await rejectsWith(hippo.addMemories('n', { memories: [{ summary: 'x', type: 'feeling' }] }), 'invalid_request');
  await rejectsWith(hippo.dream('n', { dryRun: 'yes' }), 'invalid_request', /dryRun must be a boolean/);
});

test('a request key the route does not know is named, with its snake_case spelling', async () => {
  const hippo = await Hippo.open({ clock: fixedClock() });
  await rejectsWith(hippo.createNpc('n', { displayName: 'N' }), 'invalid_request', /unknown field `displayName`.*did you mean `display_name`\?/);
  await rejectsWith(hippo.getNpc('n'), 'not_found', /does not exist/);
  await hippo.createNpc('n');
  await hippo.addMemories('n', { memories: [{ summary: 'likes jazz', type: 'preference' }, { summary: 'likes tea', type: 'preference' }] });
  // search and retrieve read a request as the HTTP route reads its body: unknown keys ignored
  // (tests/worker/same-answers.test.mjs sends the same bodies to the Worker).
  assert.ok((await hippo.search('n', { query: 'likes', maxResults: 1 })).memories.length > 1);
  assert.equal((await hippo.search('n', { query: 'likes', max_results: 1 })).memories.length, 1);
  await rejectsWith(hippo.updatePkg('n', { userId: 'u', updates: [{ key: 'Name', value: 'A' }] }), 'invalid_request', /unknown field `userId`/);
  await rejectsWith(
    hippo.addMemories('n', { memories: [{ summary: 'x', type: 'other', metadata: { a: 1 } }] }),
    'invalid_request',
    /unknown field `memories\.0\.metadata`/,
  );
  assert.deepEqual(await hippo.retrieve('n', { query: 'jazz', timeHint: 'yesterday' }), await hippo.retrieve('n', { query: 'jazz' }));
  await rejectsWith(hippo.listMemories('n', { includeSuperseded: true }), 'invalid_request', /unknown field `includeSuperseded`.*did you mean `include_superseded`\?/);
  await rejectsWith(hippo.getConversation('n', { sinceSeq: 0 }), 'invalid_request', /unknown field `sinceSeq`/);
  const [first] = (await hippo.listMemories('n')).memories;
  await rejectsWith(hippo.updateMemory('n', first.id, { sensitiveCategory: 'health' }), 'invalid_request', /unknown field `sensitiveCategory`.*did you mean `sensitive_category`\?/);
  await rejectsWith(hippo.updateMemory('n', first.id, { summary: 'x', tags: ['a'] }), 'invalid_request', /unknown field `tags`(?!.*did you mean)/);
  assert.equal((await hippo.listMemories('n')).memories.find((m) => m.id === first.id).summary, first.summary);
  assert.equal((await hippo.listMemories('n')).count, 2, 'nothing was written by the refused calls');
});

test('errors are HippoError instances, from require and from import alike', async () => {
  const { HippoError } = requireHippo();
  const esm = await importHippo();
  assert.equal(esm.HippoError, HippoError);
  const hippo = await Hippo.open();
  const error = await hippo.getNpc('ghost').catch((e) => e);
  assert.ok(error instanceof HippoError);
  assert.ok(error instanceof Error);
  assert.equal(error.name, 'HippoError');
  assert.equal(error.code, 'not_found');
  assert.match(error.message, /ghost/);
  assert.match(error.stack, /HippoError/);
});

test('unknown NPCs and items are not_found', async () => {
  const hippo = await Hippo.open();
  await rejectsWith(hippo.getPkg('ghost'), 'not_found', /^NPC ghost does not exist or has no PKG$/);
  await rejectsWith(hippo.updatePkg('ghost', { updates: [{ key: 'Name', value: 'x' }] }), 'not_found', /^NPC ghost does not exist or has no PKG$/);
  await rejectsWith(hippo.getDiary('ghost'), 'not_found');
  await rejectsWith(hippo.retrieve('ghost', { query: 'x' }), 'not_found');
  await hippo.createNpc('n');
  await rejectsWith(hippo.deleteMemory('n', 'mem_nope'), 'not_found');
});

test('open checks its options', async () => {
  await rejectsWith(Hippo.open({ storge: 'memory' }), 'invalid_request', /unknown option "storge"/);
  await rejectsWith(Hippo.open({ storage: 'disk' }), 'invalid_request', /storage must be/);
  await rejectsWith(Hippo.open({ storage: { indexedDB: 'x' } }), 'invalid_request', /not available here/);
  await rejectsWith(Hippo.open({ storage: { file: '' } }), 'invalid_request', /file must be a non-empty path/);
  await rejectsWith(Hippo.open({ embed: { name: 'e', embed: () => [] } }), 'invalid_request', /dimension/);
  await rejectsWith(Hippo.open({ llm: () => 'x' }), 'invalid_request', /complete/);
  await rejectsWith(Hippo.open({ clock: () => 'noon' }), 'invalid_request', /clock/);
  await rejectsWith(Hippo.open('memory'), 'invalid_request', /options object/);
});

test('a failing embed callback degrades to the lexical path; reembed reports it', async () => {
  let offline = true;
  const hippo = await Hippo.open({
    embed: {
      name: 'flaky',
      dimension: 2,
      embed: async (texts) => {
        if (offline) throw new Error('model offline');
        return texts.map((t) => [t.length, 1]);
      },
    },
  });
  await hippo.createNpc('n');
  await hippo.addMemories('n', { memories: [{ summary: 'likes green tea', type: 'preference' }] });
  const hits = await hippo.search('n', { query: 'green tea', debug: true });
  assert.equal(hits.memories[0].summary, 'likes green tea');
  assert.equal(hits.memories[0].signals.vector, 0, 'no vector signal while the model is offline');
  await rejectsWith(hippo.reembed(), 'internal_error', /embed: model offline/);
  offline = false;
  assert.equal((await hippo.reembed()).vectors, 1);
});

test('an embed callback with the wrong dimension is refused', async () => {
  const short = await Hippo.open({ embed: { name: 'short', dimension: 3, embed: (texts) => texts.map(() => [1, 2]) } });
  await short.createNpc('n');
  await short.addMemories('n', { memories: [{ summary: 'x', type: 'other' }] });
  await rejectsWith(short.reembed(), 'internal_error', /dimension 2, expected 3/);
});

test('a bare embed function is probed for its dimension; a store refuses a different embedder', async () => {
  const adapter = { bytes: null, load() { return this.bytes; }, save(b) { this.bytes = b; } };
  const first = await Hippo.open({ storage: adapter, embed: (texts) => texts.map(() => [1, 0, 0, 0]) });
  await first.createNpc('n');
  await first.addMemories('n', { memories: [{ summary: 'likes tea', type: 'preference' }] });
  const builtin = await Hippo.open({ storage: adapter });
  await rejectsWith(
    builtin.addMemories('n', { memories: [{ summary: 'likes coffee', type: 'preference' }] }),
    'not_configured',
    /embedder custom:4/,
  );
  const reembedded = await builtin.reembed();
  assert.equal(reembedded.status, 'ok');
  assert.match(reembedded.embedder, /^hippo-builtin/);
  assert.equal(reembedded.vectors, 1);
  await builtin.addMemories('n', { memories: [{ summary: 'likes coffee', type: 'preference' }] });
  const hits = await builtin.search('n', { query: 'tea', debug: true });
  assert.equal(hits.memories[0].summary, 'likes tea');
  assert.ok(hits.memories[0].signals.vector > 0);
});

test('two dreams of one NPC at once: the second is a conflict', async () => {
  let release;
  const gate = new Promise((resolve) => (release = resolve));
  const hippo = await Hippo.open({
    llm: {
      complete: async () => {
        await gate;
        return '{}';
      },
    },
  });
  await hippo.createNpc('n');
  await hippo.addConversation('n', { turns: [{ role: 'user', content: 'I like tea' }] });
  const first = hippo.dream('n');
  await new Promise((resolve) => setTimeout(resolve, 20));
  await rejectsWith(hippo.dream('n'), 'conflict');
  release();
  await first;
});
