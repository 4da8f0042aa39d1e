// Issue 18 through the package: what a user confides never comes back from `retrieve` after a
// dream, `search` marks it when asked, and `updateMemory` changes a memory with the
// validation of `addMemories`.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fixedClock, importHippo, rejectsWith } from './helpers.mjs';

const { Hippo } = await importHippo();

const SECRETS = ['hunter2xyz', '621345', '建国路', '抑郁症'];

test('retrieve never returns a confided secret; the rest of the day is still found', async () => {
  const hippo = await Hippo.open({ storage: 'memory', clock: fixedClock() });
  await hippo.createNpc('n');
  await hippo.addConversation('n', {
    turns: [
      {
        role: 'user',
        content: 'Please remember this: my password is hunter2xyz, don\'t tell anyone. I went hiking at Mount Tai today.',
      },
      { role: 'assistant', content: 'Got it, hunter2xyz is safe with me.' },
      { role: 'user', content: '我的银行卡密码是621345，别告诉别人。我家住在朝阳区建国路88号。今天去爬山了！' },
      { role: 'user', content: '其实我去年被确诊了抑郁症。' },
    ],
  });
  const report = await hippo.dream('n');
  assert.equal(report.error, null);
  for (const query of ['what is my password', 'password', 'what did we talk about today', 'hiking', '密码', '住址', '抑郁症']) {
    const { memories } = await hippo.retrieve('n', { query, max_results: 10 });
    for (const m of memories) {
      for (const secret of SECRETS) assert.ok(!m.summary.includes(secret), `${query}: ${JSON.stringify(m)}`);
    }
  }
  const hiking = await hippo.retrieve('n', { query: 'hiking' });
  assert.ok(hiking.memories.some((m) => m.summary.includes('Mount Tai')), JSON.stringify(hiking));
  // The turn is kept as a quote without its secret sentence; the answer gives the fact drawn
  // from it instead of the quote (a quote is left out when a memory citing it is returned).
  const { memories: kept } = await hippo.exportNpc('n');
  const quote = kept.find((m) => m.source === 'conversation_quote' && m.summary.includes('Mount Tai'));
  assert.deepEqual([quote?.summary, quote?.confidence], ['User: I went hiking at Mount Tai today.', 0.5]);
  const fact = hiking.memories.find((m) => m.summary.includes('Mount Tai'));
  const cited = kept.find((m) => m.id === fact.id);
  assert.ok(cited.source_turns.includes(quote.source_turns[0]), JSON.stringify(cited));
  assert.ok(!hiking.memories.some((m) => m.id === quote.id), 'a quote is not repeated beside its fact');

  const marked = await hippo.search('n', { query: 'password', include_sensitive: true });
  const hit = marked.memories.find((m) => m.summary.includes('hunter2xyz'));
  assert.deepEqual([hit?.sensitive, hit?.sensitive_category], [true, 'credentials']);
  await hippo.close();
});

test('updateMemory: sticky marks, edits, validation and not_found', async () => {
  const hippo = await Hippo.open({ storage: 'memory', clock: fixedClock() });
  await hippo.createNpc('n');
  await hippo.createNpc('m');
  const fact = { summary: 'The user keeps the spare key under the blue flowerpot', type: 'other' };
  const [{ id }] = (await hippo.addMemories('n', { memories: [fact] })).results;
  const again = await hippo.addMemories('n', { memories: [{ ...fact, sensitive: true }] });
  assert.deepEqual(again.results[0], { id, action: 'reinforced', sensitive: true });
  assert.deepEqual((await hippo.retrieve('n', { query: 'spare key' })).memories, []);

  const res = await hippo.updateMemory('n', id, { sensitive: false, summary: 'The spare key is in the garden shed' });
  assert.equal(res.status, 'ok');
  assert.equal(res.memory.sensitive, false);
  assert.equal((await hippo.retrieve('n', { query: 'garden shed' })).memories[0]?.id, id);

  await rejectsWith(hippo.updateMemory('n', id, {}), 'invalid_request', /nothing to change/);
  await rejectsWith(hippo.updateMemory('n', id, { importance: 2 }), 'invalid_request', /importance/);
  // Pins are a field now (issue 16): a non-boolean pin and an unknown field are refused.
  await rejectsWith(hippo.updateMemory('n', id, { pinned: 'yes' }), 'invalid_request');
  await rejectsWith(hippo.updateMemory('n', id, { colour: 'red' }), 'invalid_request');
  const [{ id: theirs }] = (await hippo.addMemories('m', { memories: [{ summary: 'M likes chess', type: 'preference' }] })).results;
  await rejectsWith(hippo.updateMemory('n', theirs, { importance: 0.1 }), 'not_found');
  await hippo.close();
});
