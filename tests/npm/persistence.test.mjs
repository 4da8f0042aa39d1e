// Storage: a file in Node survives reopening and crashes; a custom adapter gets every change
// before the promise resolves; a failed save rolls back; the format is versioned.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { NAME, consumerDir, fixedClock, memoryAdapter, rejectsWith, requireHippo, tempDir } from './helpers.mjs';

const { Hippo } = requireHippo();

test('{file} storage: everything is there after reopening', async () => {
  const file = path.join(tempDir(), 'nested', 'lingfei.hippo');
  const first = await Hippo.open({ storage: { file }, clock: fixedClock() });
  await first.createNpc('lingfei', { display_name: '灵绯', pkg: { Name: 'Alex' } });
  await first.updatePkg('lingfei', { updates: [{ key: 'Hobbies', value: 'jazz, chess' }] });
  await first.applyEntityOps('lingfei', { ops: [{ op: 'add', name: '小红', title: ['同学'] }] });
  await first.addConversation('lingfei', { session_id: 's', turns: [{ role: 'user', content: 'hello' }] });
  const { results } = await first.addMemories('lingfei', {
    memories: [{ summary: 'Allergic to peanuts', type: 'constraint', importance: 0.9 }],
  });
  // No flush or close: each mutation was saved before it resolved.
  assert.ok(existsSync(file));
  assert.equal(readFileSync(file).subarray(0, 8).toString('latin1'), 'HIPPOPKG');

  const second = await Hippo.open({ storage: { file }, clock: fixedClock() });
  assert.deepEqual(await second.getPkg('lingfei'), await first.getPkg('lingfei'));
  assert.deepEqual(await second.getRelationships('lingfei'), await first.getRelationships('lingfei'));
  assert.deepEqual(await second.getConversation('lingfei'), await first.getConversation('lingfei'));
  const hits = await second.search('lingfei', { query: 'peanuts', debug: true });
  assert.equal(hits.memories[0].id, results[0].id);
  assert.ok(hits.memories[0].signals.vector > 0, 'vectors were saved too');
  assert.deepEqual(
    readdirSync(path.dirname(file)).filter((f) => f.endsWith('.tmp')),
    [],
    'no temporary files are left behind',
  );
  await first.close();
  await second.close();
});

test('{file} storage: killing the process mid-save loses nothing acknowledged', async () => {
  const file = path.join(tempDir(), 'crash.hippo');
  // Writes distinct memories forever, printing the number of each one acknowledged.
  const writer = `
    const { Hippo } = require(${JSON.stringify(NAME)});
    (async () => {
      const hippo = await Hippo.open({ storage: { file: ${JSON.stringify(file)} } });
      await hippo.createNpc('n').catch(() => {});
      for (let i = 0; ; i++) {
        const words = Array.from({ length: 100 }, (_, k) => process.argv[1] + 'w' + (i * 1000 + k)).join(' ');
        await hippo.addMemories('n', { memories: [{ summary: words, type: 'other' }] });
        process.stdout.write(i + '\\n');
      }
    })();`;
  let before = 0;
  for (const delay of [5, 20, 40, 80, 120]) {
    const child = spawn(process.execPath, ['-e', writer, `run${delay}`], { cwd: consumerDir(), stdio: ['ignore', 'pipe', 'inherit'] });
    let acknowledged = 0;
    child.stdout.on('data', (chunk) => {
      acknowledged += chunk.toString().split('\n').filter(Boolean).length;
    });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    await Promise.race([
      new Promise((resolve) => child.stdout.once('data', resolve)),
      exited.then((code) => assert.fail(`the writer exited early (${code})`)),
    ]);
    await new Promise((resolve) => setTimeout(resolve, delay));
    child.kill('SIGKILL');
    await exited;

    const hippo = await Hippo.open({ storage: { file } });
    const { count } = await hippo.listMemories('n', { limit: 500 });
    assert.ok(count >= before + acknowledged, `${count} stored, ${before} + ${acknowledged} acknowledged`);
    before = count;
  }
});

test('a custom adapter receives every change before the promise resolves', async () => {
  const adapter = memoryAdapter();
  const hippo = await Hippo.open({ storage: adapter, clock: fixedClock() });
  await hippo.createNpc('n', { display_name: 'N' });
  const afterCreate = adapter.saves;
  assert.ok(afterCreate >= 1);
  await hippo.updatePkg('n', { updates: [{ key: 'Name', value: 'Alex' }] });
  assert.ok(adapter.saves > afterCreate, 'the update was saved when its promise resolved');
  const reads = adapter.saves;
  await hippo.getPkg('n');
  await hippo.listNpcs();
  assert.equal(adapter.saves, reads, 'reads save nothing');

  const reopened = await Hippo.open({ storage: adapter });
  assert.equal((await reopened.getPkg('n')).pkg.Name, 'Alex');
});

test('a call saves once, however many writes it makes', async () => {
  const adapter = memoryAdapter();
  const hippo = await Hippo.open({ storage: adapter, clock: fixedClock() });
  await hippo.createNpc('n');
  const memories = Array.from({ length: 250 }, (_, i) => ({
    id: `m${i}`, type: 'other', summary: `fact ${i} about topic t${i}`, confidence: 0.8, importance: 0.5,
    source: 'long_term_memory', created_at: '2026-04-01', updated_at: '2026-04-01', last_accessed_at: '2026-04-01',
  }));
  const doc = { ...(await hippo.exportNpc('n')), memories };
  const before = adapter.saves;
  await hippo.importNpc('n', doc); // one batch of rows, then the vectors in chunks
  assert.equal(adapter.saves, before + 1);
  const reopened = await Hippo.open({ storage: adapter, clock: fixedClock() });
  const hits = await reopened.search('n', { query: 'fact 123 topic t123', debug: true });
  assert.equal(hits.memories[0].id, 'm123');
  assert.ok(hits.memories[0].signals.vector > 0, 'the vectors were in that save');
});

test('a failed save rejects, and the change is rolled back', async () => {
  const adapter = memoryAdapter();
  let failing = false;
  const flaky = {
    load: () => adapter.load(),
    save: async (bytes) => {
      if (failing) throw new Error('disk full');
      return adapter.save(bytes);
    },
  };
  const hippo = await Hippo.open({ storage: flaky, clock: fixedClock() });
  await hippo.createNpc('n', { pkg: { Hobbies: ['chess'] } });
  failing = true;
  await rejectsWith(
    hippo.updatePkg('n', { updates: [{ key: 'Hobbies', value: 'go' }] }),
    'internal_error',
    /disk full/,
  );
  assert.deepEqual((await hippo.getPkg('n')).pkg.Hobbies, ['chess'], 'not visible after the failure');
  failing = false;
  await hippo.updatePkg('n', { updates: [{ key: 'Hobbies', value: 'go' }] });
  const reopened = await Hippo.open({ storage: adapter });
  assert.deepEqual((await reopened.getPkg('n')).pkg.Hobbies, ['chess', 'go']);
});

test('concurrent mutations are all saved, in order', async () => {
  const adapter = memoryAdapter();
  const slow = {
    load: () => adapter.load(),
    save: (bytes) => new Promise((resolve) => setTimeout(() => resolve(adapter.save(bytes)), 5)),
  };
  const hippo = await Hippo.open({ storage: slow });
  await hippo.createNpc('n');
  await Promise.all(
    Array.from({ length: 20 }, (_, i) =>
      hippo.addMemories('n', { memories: [{ summary: `parallel fact ${i} about topic ${i * 7}`, type: 'other' }] }),
    ),
  );
  const reopened = await Hippo.open({ storage: adapter });
  assert.equal((await reopened.listMemories('n', { limit: 100 })).count, 20);
  assert.ok(adapter.saves < 1 + 2 * 20, `saves coalesce while one is running (${adapter.saves})`);
});

test('flush and close: close waits for saves, later calls reject', async () => {
  const adapter = memoryAdapter();
  let closed = 0;
  const hippo = await Hippo.open({ storage: { ...adapter, load: adapter.load, save: adapter.save, close: () => { closed += 1; } } });
  const pending = hippo.createNpc('n');
  await hippo.flush();
  await pending;
  await hippo.close();
  assert.equal(closed, 1, 'the adapter was closed');
  await hippo.close();
  assert.equal(closed, 1, 'closing twice is harmless');
  await rejectsWith(hippo.getNpc('n'), 'invalid_request', /closed/);
});

test('the format is versioned: a newer file is refused, a foreign file too', async () => {
  const dir = tempDir();
  const hippo = await Hippo.open({ storage: { file: path.join(dir, 'ok.hippo') } });
  await hippo.createNpc('n');
  const bytes = readFileSync(path.join(dir, 'ok.hippo'));
  const newer = Buffer.from(bytes);
  newer.writeUInt16LE(99, 8);
  writeFileSync(path.join(dir, 'newer.hippo'), newer);
  await rejectsWith(Hippo.open({ storage: { file: path.join(dir, 'newer.hippo') } }), 'internal_error', /version 99 is newer/);
  writeFileSync(path.join(dir, 'foreign.hippo'), '{"not": "hippo"}');
  await rejectsWith(Hippo.open({ storage: { file: path.join(dir, 'foreign.hippo') } }), 'internal_error', /not a Hippo storage file/);
});
