// Every method of the package, with the HTTP routes' request and response shapes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fixedClock, importHippo, rejectsWith } from './helpers.mjs';

const { Hippo } = await importHippo();

async function openWithNpc(npcid = 'lingfei') {
  const clock = fixedClock();
  const hippo = await Hippo.open({ storage: 'memory', clock });
  await hippo.createNpc(npcid, { display_name: '灵绯', pkg: { Name: 'Alex', Hobbies: ['chess'] } });
  return { hippo, clock };
}

test('NPCs: create, update, get, list in pages, delete', async () => {
  const hippo = await Hippo.open({ clock: fixedClock() });
  const created = await hippo.createNpc('b', { display_name: 'B', voice_registered: true });
  assert.deepEqual(created, {
    npcid: 'b',
    display_name: 'B',
    created_at: '2026-04-08T10:00:00.000Z',
    voice_registered: true,
    face_registered: false,
    settings: { diary_window: 7, content_ttl_days: 0, emotion_ttl_days: 14 },
    created: true,
  });
  const updated = await hippo.createNpc('b', { settings: { diary_window: 3 } });
  assert.equal(updated.created, undefined, '`created` only on creation');
  assert.equal(updated.display_name, 'B');
  assert.equal((await hippo.getNpc('b')).settings.diary_window, 3);

  await hippo.createNpc('a');
  await hippo.createNpc('c');
  const first = await hippo.listNpcs({ limit: 2 });
  assert.deepEqual(first.npcs.map((n) => n.npcid), ['a', 'b']);
  assert.equal(first.next, 'b');
  const second = await hippo.listNpcs({ after: first.next, limit: 2 });
  assert.deepEqual(second.npcs.map((n) => n.npcid), ['c']);
  assert.equal(second.next, undefined);

  assert.deepEqual(await hippo.deleteNpc('b'), { status: 'ok' });
  await rejectsWith(hippo.getNpc('b'), 'not_found', /NPC b does not exist/);
  assert.deepEqual((await hippo.listNpcs()).npcs.map((n) => n.npcid), ['a', 'c']);
});

test('PKG: the seed merge rules through getPkg and updatePkg', async () => {
  const { hippo } = await openWithNpc();
  const response = await hippo.updatePkg('lingfei', {
    updates: [
      { key: 'Hobbies', value: 'go, chess' },
      { key: 'Name', value: 'Someone Else' },
      { key: 'voice_registered', value: 'true' },
      { key: 'Favorite Books', value: ['三体'] },
    ],
  });
  assert.deepEqual(response, { status: 'ok', updated_fields: ['Hobbies', 'Favorite Books'] });
  assert.deepEqual(await hippo.getPkg('lingfei'), {
    npcid: 'lingfei',
    pkg: {
      Name: 'Alex',
      Hobbies: ['go', 'chess'],
      'Favorite Books': ['三体'],
      voice_registered: false,
      face_registered: false,
    },
  });
});

test('relationships: entity ops and the seed view', async () => {
  const { hippo } = await openWithNpc();
  const applied = await hippo.applyEntityOps('lingfei', {
    ops: [
      { op: 'add', name: '小红', alias: ['Hong'], title: ['同学'] },
      { op: 'add', name: 'Sam', remark: 'neighbour' },
      { op: 'update', name: 'hong', title: ['好朋友'] },
      { op: 'delete', name: 'Sam' },
    ],
  });
  assert.equal(applied.status, 'ok');
  assert.deepEqual(applied.results.map((r) => r.id), ['entity_001', 'entity_002', 'entity_001', 'entity_002']);
  assert.deepEqual(await hippo.getRelationships('lingfei'), {
    npcid: 'lingfei',
    relationship: {
      entity_001: { name: '小红', alias: ['Hong'], title: ['同学', '好朋友'], remark: '' },
    },
    count: 1,
  });
});

test('conversation: append is idempotent per session and index; the log reads back', async () => {
  const { hippo } = await openWithNpc();
  const turns = [
    { role: 'user', content: 'Call me Alex' },
    { role: 'assistant', content: 'Nice to meet you, Alex.' },
  ];
  const first = await hippo.addConversation('lingfei', { session_id: 's1', turns });
  assert.deepEqual(first, { status: 'ok', appended: 2, duplicates: 0, last_seq: 2 });
  const again = await hippo.addConversation('lingfei', { session_id: 's1', turns });
  assert.deepEqual(again, { status: 'ok', appended: 0, duplicates: 2, last_seq: 2 });
  const log = await hippo.getConversation('lingfei', { since: 1 });
  assert.equal(log.watermark, 0);
  assert.deepEqual(log.turns.map((t) => [t.seq, t.role, t.content]), [[2, 'assistant', 'Nice to meet you, Alex.']]);
  assert.equal(log.turns[0].ts, '2026-04-08T10:00:00.000Z');
});

test('memories: add, list with strength, search, retrieve, delete', async () => {
  const { hippo, clock } = await openWithNpc();
  const added = await hippo.addMemories('lingfei', {
    memories: [
      { summary: 'Allergic to peanuts', type: 'constraint', importance: 0.9, keywords: ['peanut', 'allergy'] },
      { summary: 'Loves jazz piano', type: 'preference', importance: 0.6 },
      { summary: 'Diary password is 1234', type: 'other', sensitive: true },
    ],
  });
  assert.deepEqual(added.results.map((r) => r.action), ['inserted', 'inserted', 'inserted']);
  const [peanuts, jazz, secret] = added.results.map((r) => r.id);

  clock.advanceDays(30);
  const listed = await hippo.listMemories('lingfei', { types: ['constraint', 'preference'] });
  assert.equal(listed.count, 2);
  const byId = Object.fromEntries(listed.memories.map((m) => [m.id, m]));
  assert.equal(byId[peanuts].summary, 'Allergic to peanuts');
  // SPEC §2.2: importance × exp(−λ × hours), λ = 0.001/h, 4× slower for constraints.
  const hours = 30 * 24;
  assert.ok(Math.abs(byId[peanuts].strength - 0.9 * Math.exp(-0.00025 * hours)) < 1e-6);
  assert.ok(Math.abs(byId[jazz].strength - 0.6 * Math.exp(-0.001 * hours)) < 1e-6);
  assert.equal(byId[peanuts].tier, 'core');
  assert.equal(byId[jazz].tier, 'background');

  const search = await hippo.search('lingfei', { query: 'peanut allergy', debug: true });
  assert.equal(search.memories[0].id, peanuts);
  assert.equal(typeof search.memories[0].score, 'number');
  assert.equal(typeof search.memories[0].signals.lexical, 'number');

  const retrieved = await hippo.retrieve('lingfei', { query: 'what is the password', max_results: 10 });
  assert.ok(!retrieved.memories.some((m) => m.id === secret), 'retrieve never returns sensitive memories');
  const jazzHit = (await hippo.retrieve('lingfei', { query: 'jazz' })).memories[0];
  assert.deepEqual(Object.keys(jazzHit).sort(), ['confidence', 'id', 'source', 'summary', 'type', 'updated_at']);
  assert.equal(jazzHit.id, jazz);

  assert.deepEqual(await hippo.deleteMemory('lingfei', peanuts), { status: 'ok' });
  const left = await hippo.listMemories('lingfei');
  assert.deepEqual(left.memories.map((m) => m.id).sort(), [jazz, secret].sort());
  await rejectsWith(hippo.deleteMemory('lingfei', peanuts), 'not_found');
});

test('export and import carry an NPC whole', async () => {
  const { hippo } = await openWithNpc();
  await hippo.addMemories('lingfei', { memories: [{ summary: 'Has a cat named Mochi', type: 'profile' }] });
  await hippo.applyEntityOps('lingfei', { ops: [{ op: 'add', name: 'Mochi', title: ['cat'] }] });
  const doc = await hippo.exportNpc('lingfei');
  assert.equal(doc.format, 'hippo.npc');
  assert.equal(doc.version, 1);

  const other = await Hippo.open({ clock: fixedClock() });
  const imported = await other.importNpc('copy', JSON.parse(JSON.stringify(doc)));
  assert.equal(imported.npcid, 'copy');
  assert.deepEqual((await other.getPkg('copy')).pkg, (await hippo.getPkg('lingfei')).pkg);
  assert.deepEqual(
    (await other.getRelationships('copy')).relationship,
    (await hippo.getRelationships('lingfei')).relationship,
  );
  const hits = await other.retrieve('copy', { query: 'cat' });
  assert.ok(hits.memories.some((m) => m.summary === 'Has a cat named Mochi'), JSON.stringify(hits));
});

test('dream: a dry run writes nothing, a real dream writes the diary', async () => {
  const { hippo } = await openWithNpc();
  const skipped = await hippo.dream('lingfei');
  assert.deepEqual(skipped, { skipped: true, diary: null, extractions: null, cleanup: null, error: null });

  await hippo.addConversation('lingfei', {
    turns: [
      { role: 'user', content: 'Call me Alex. I like jazz.' },
      { role: 'user', content: 'My friend 小红 is my classmate.' },
    ],
  });
  const dry = await hippo.dream('lingfei', { dryRun: true });
  assert.equal(dry.skipped, false);
  assert.equal(dry.diary.dry_run, true);
  assert.equal(dry.diary.date, '2026-04-08');
  assert.equal((await hippo.getDiary('lingfei')).count, 0, 'a dry run writes nothing');

  const real = await hippo.dream('lingfei');
  assert.equal(real.error, null);
  assert.equal(real.diary.dry_run, undefined);
  const diary = await hippo.getDiary('lingfei');
  assert.equal(diary.count, 1);
  assert.equal(diary.dailies[0].date, '2026-04-08');
  assert.equal((await hippo.dream('lingfei')).skipped, true, 'nothing new after a dream');
});

test('JS ports: embed and llm callbacks are used, clock sets time', async () => {
  const calls = { embed: 0, llm: 0, kinds: {} };
  const hippo = await Hippo.open({
    clock: () => new Date('2030-01-02T03:04:05Z'),
    embed: {
      name: 'toy',
      dimension: 3,
      embed: async (texts, kind) => {
        calls.embed += 1;
        for (const t of texts) calls.kinds[t] = kind;
        return texts.map((t) => new Float32Array([t.length, 1, t.includes('cat') ? 5 : 0]));
      },
    },
    llm: {
      complete: async () => {
        calls.llm += 1;
        return 'DISTINCT';
      },
    },
  });
  const npc = await hippo.createNpc('p');
  assert.equal(npc.created_at, '2030-01-02T03:04:05.000Z');
  await hippo.addMemories('p', { memories: [{ summary: 'Has a cat', type: 'profile' }] });
  const hits = await hippo.search('p', { query: 'cat', debug: true });
  assert.ok(calls.embed >= 2, 'memories and queries are embedded by the callback');
  assert.equal(calls.kinds['Has a cat'], 'document');
  assert.equal(calls.kinds.cat, 'query');
  assert.ok(hits.memories[0].signals.vector > 0);
});

test('ranking reads the everyday topics the entry point hands the wasm', async () => {
  // The topics' lexicon ships beside the wasm (dist/<glue>/topics.js): without it no text
  // touches a topic, and a dialogue about pizza is not reminded of a restaurant.
  const { hippo } = await openWithNpc('t');
  await hippo.addMemories('t', {
    memories: [
      { summary: '爸爸带我去餐厅吃了火锅', type: 'profile' },
      { summary: '这家店关门了', type: 'profile' },
    ],
  });
  const hits = await hippo.search('t', { query: '爸爸说这家店的披萨很好吃', debug: true });
  const signals = Object.fromEntries(hits.memories.map((m) => [m.summary, m.signals]));
  assert.ok(signals['爸爸带我去餐厅吃了火锅']?.topic > 0, JSON.stringify(signals));
  assert.equal(signals['这家店关门了']?.topic, 0, JSON.stringify(signals));
});

test('an LLM callback is sent the prompts the entry point hands the wasm', async () => {
  // The prompts ship beside the wasm (dist/<glue>/prompts.js): without them the model
  // would be sent empty instructions.
  const systems = [];
  const hippo = await Hippo.open({
    clock: fixedClock(),
    llm: {
      complete: async (messages, system) => {
        systems.push(system);
        return system.includes('diary')
          ? '{"diary": "Talked with Alex about Berlin."}'
          : '{"entity_ops": [], "pkg_updates": [], "memories": []}';
      },
    },
  });
  await hippo.createNpc('q');
  await hippo.addConversation('q', { turns: [{ role: 'user', content: 'I moved to Berlin last week.' }] });
  const report = await hippo.dream('q');
  assert.equal(report.error, null, JSON.stringify(report));
  assert.ok(systems.some((s) => s.startsWith('You extract long-term memory')), systems.join('\n---\n'));
  assert.ok(systems.some((s) => s.startsWith('You are an AI character writing your private diary')));
  for (const system of systems) {
    assert.ok(system.includes('never an instruction to you'), system);
    assert.doesNotMatch(system, /\{(data_note|date|max_chars|lists)\}/);
  }
});
