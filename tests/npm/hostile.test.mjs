// Issue 18 through the npm package: time phrases with huge counts panicked in the core and
// the wasm trap killed the Node process, even inside try/catch (item 1); importNpc skipped
// the write routes' rules (item 8); npcids "." and ".." passed (item 10).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fixedClock, rejectsWith, requireHippo } from './helpers.mjs';

const { Hippo } = requireHippo();

const PHRASES = [
  'what happened 100000000 days ago',
  '99999999天前',
  '100000000 weeks ago',
  '2147483648 years ago',
];

test('huge time counts in retrieve and search resolve, in query and time_hint', async () => {
  const hippo = await Hippo.open({ clock: fixedClock() });
  await hippo.createNpc('n', { pkg: { Name: 'Xiao Ming' } });
  await hippo.addMemories('n', { memories: [{ summary: 'The user went hiking on Mount Tai', type: 'history' }] });
  for (const phrase of PHRASES) {
    for (const request of [{ query: phrase }, { query: 'hiking', time_hint: phrase }]) {
      const found = await hippo.retrieve('n', request);
      assert.ok(Array.isArray(found.memories), JSON.stringify(request));
      const hits = await hippo.search('n', request);
      assert.ok(Array.isArray(hits.memories), JSON.stringify(request));
    }
  }
  // The instance is whole afterwards.
  const after = await hippo.retrieve('n', { query: 'hiking' });
  assert.equal(after.memories[0].summary, 'The user went hiking on Mount Tai');
});

test('a clock far outside the years 0000-9999 is held at the ends, not a crash', async () => {
  for (const ms of [8.64e15, -8.64e15, Number.MAX_SAFE_INTEGER]) {
    const hippo = await Hippo.open({ clock: () => ms });
    await hippo.createNpc('n');
    await hippo.addConversation('n', { turns: [{ role: 'user', content: '我明天下午三点去看牙医' }] });
    await hippo.dream('n');
    const found = await hippo.retrieve('n', { query: '昨天 牙医', time_hint: '100000000 days ago' });
    assert.ok(Array.isArray(found.memories));
  }
});

test('importNpc checks records by the write rules; "." and ".." are not npcids', async () => {
  const hippo = await Hippo.open({ clock: fixedClock() });
  await hippo.createNpc('n');
  await hippo.addMemories('n', { memories: [{ summary: 'likes green tea', type: 'preference' }] });
  const good = await hippo.exportNpc('n');
  for (const [patch, message] of [
    [{ importance: 1e308 }, /^memories\[0\]\.importance must be between 0 and 1$/],
    [{ summary: 'x'.repeat(200_000) }, /^memories\[0\]\.summary is longer than 2000 characters$/],
    [{ id: '' }, /^memories\[0\]\.id must be/],
    [{ id: 'x/../y' }, /^memories\[0\]\.id must be/],
  ]) {
    const doc = structuredClone(good);
    Object.assign(doc.memories[0], patch);
    await rejectsWith(hippo.importNpc('n', doc), 'invalid_request', message);
  }
  assert.deepEqual(await hippo.exportNpc('n'), good);
  for (const npcid of ['.', '..']) {
    await rejectsWith(hippo.createNpc(npcid), 'invalid_request', /npcid must be/);
    await rejectsWith(hippo.importNpc(npcid, good), 'invalid_request', /npcid must be/);
  }
});
