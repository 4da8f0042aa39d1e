// The inspection dashboard (/dashboard) in Debian's chromium, driven by playwright-core,
// against the built Worker served by Miniflare on loopback with a seeded NPC: sign in, find
// the NPC, each view, one edit of each kind (edit, pin, mark sensitive, delete, each
// confirmed), a dream report, the retrieval playground and the brief, in English and Chinese.
// Screenshots go to test-output/dashboard/ and are checked for content.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { ADMIN, startWorker } from '../worker/harness.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const OUTPUT = path.join(ROOT, 'test-output', 'dashboard');
const CHROMIUM_ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
  '--disable-component-update', '--no-first-run', '--disable-quic', '--disable-sync',
];
const NPC = 'demo-xiaoming';

let w;
let browser;
const ids = {};

/** One NPC with a profile, people, a diary with days outside its window, memories of every
 * kind (pinned, sensitive, superseded) and a conversation not yet dreamed. */
async function seed() {
  await w.json('PUT', `/api/npc/${NPC}`, {
    display_name: '小明',
    pkg: { Name: '小明', Nickname: ['明明'], Hobbies: ['爬山', '围棋'] },
  });
  await w.json('PUT', '/api/npc/other-npc', { display_name: 'Anna' });
  await w.json('POST', `/api/relationship/${NPC}`, {
    ops: [{ op: 'add', name: '小红', title: ['同学'], remark: '一起学围棋' }],
  });
  const added = await w.json('POST', `/api/memories/${NPC}`, {
    memories: [
      { summary: '用户对花生过敏', type: 'constraint', importance: 0.85 },
      { summary: '用户喜欢喝乌龙茶', type: 'preference' },
      { summary: '用户下周去杭州出差', type: 'project', importance: 0.7 },
      { summary: '用户的第一只狗叫旺财', type: 'history', importance: 0.3, pinned: true },
      { summary: '用户的银行卡密码是 123456', type: 'other' },
      { summary: '用户住在上海', type: 'profile' },
    ],
  });
  [ids.peanut, ids.tea, ids.trip, ids.dog, ids.secret, ids.shanghai] = added.results.map((r) => r.id);
  // A diary whose older days left the window (merged into prior), and a superseded fact.
  const doc = await w.json('GET', `/api/npc/${NPC}/export`);
  doc.diary = {
    prior: '三月：小明开始学围棋，和小红每周下两盘。',
    dailies: [
      { date: '2026-11-29', summary: '小明说想去爬山。' },
      { date: '2026-11-30', summary: '小明提到下周要去杭州出差。' },
    ],
  };
  const old = doc.memories.find((m) => m.id === ids.shanghai);
  doc.memories.push({ ...old, id: 'mem_old_home', summary: '用户住在北京', superseded_by: ids.shanghai });
  // A day that left the window long ago, kept as the dream keeps every day: a diary record.
  doc.memories.push({ ...old, id: 'diary_2026-10-01', collection: 'diary', type: 'history',
    summary: '小明第一次说起围棋。', source: 'diary', confidence: 0.6 });
  await w.json('POST', `/api/npc/${NPC}/import`, doc);
  await w.json('POST', `/api/conversation/${NPC}`, {
    session_id: 's1',
    turns: [{ role: 'user', content: '我最近在学西班牙语。我对芒果过敏，记住这件事！' }],
  });
}

before(async () => {
  w = await startWorker();
  await seed();
  mkdirSync(OUTPUT, { recursive: true });
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
});

after(async () => {
  await browser?.close();
  await w?.dispose();
});

async function settled(page) {
  await page.waitForFunction(() => document.body.dataset.state === 'ready');
  const status = await page.getAttribute('#status', 'class');
  assert.notEqual(status, 'error', await page.textContent('#status'));
}

/** A screenshot that shows `needles` (checked in the page as captured) and is a real image. */
async function shot(page, name, needles) {
  const text = await page.textContent('body');
  for (const needle of needles) assert.ok(text.includes(needle), `${name}: ${needle} not on the page`);
  const file = path.join(OUTPUT, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  const png = readFileSync(file);
  assert.equal(png.subarray(1, 4).toString(), 'PNG');
  assert.ok(png.length > 20_000, `${name}.png is ${png.length} bytes: blank?`);
  return file;
}

const memory = async (id) => (await w.json('GET', `/api/memories/${NPC}?include_superseded=true`)).memories.find((m) => m.id === id);

test('every view, one edit of each kind, in English and Chinese', async () => {
  const context = await browser.newContext({ viewport: { width: 1360, height: 900 }, locale: 'en-US' });
  const page = await context.newPage();
  const pageErrors = [];
  page.on('pageerror', (e) => pageErrors.push(e.message));
  const requests = [];
  page.on('request', (r) => requests.push(r.url()));
  const dialogs = [];
  page.on('dialog', async (d) => {
    dialogs.push(d.type());
    if (d.type() === 'prompt') await d.accept('用户喜欢喝铁观音');
    else await d.accept();
  });

  // Sign in: a wrong token is refused, the right one is kept in sessionStorage only.
  await page.goto(`${w.url}dashboard`);
  await settled(page);
  await page.fill('#token', 'wrong');
  await page.click('#login button[type=submit]');
  await settled(page).catch(() => {});
  assert.match(await page.textContent('#status'), /refused/);
  await page.fill('#token', ADMIN);
  await page.click('#login button[type=submit]');
  await settled(page);
  assert.equal(await page.evaluate(() => sessionStorage.getItem('hippo.admin')), ADMIN);
  assert.equal(await page.isVisible('#login'), false, 'the sign-in form is gone');
  assert.equal(await page.isVisible('#app'), true);
  assert.equal(await page.evaluate(() => localStorage.length), 0);

  // NPC list and search.
  assert.equal(await page.locator('#npcs li').count(), 2);
  await page.fill('#search', 'xiao');
  assert.equal(await page.locator('#npcs li').count(), 1);
  await page.click(`#npcs li[data-npcid="${NPC}"]`);
  await settled(page);
  const profile = await shot(page, 'profile', ['Personal knowledge graph', '明明', '小红', '同学', '一起学围棋']);

  await page.click('#tabs button[data-tab=diary]');
  await settled(page);
  assert.equal(await page.locator('.timeline li').count(), 3);
  assert.match(await page.textContent('.timeline li[data-date="2026-10-01"]'), /outside the window/);
  await shot(page, 'diary', ['2026-11-30', '杭州出差', 'in the window', '第一次说起围棋', 'Before the window', '三月：小明开始学围棋']);

  await page.click('#tabs button[data-tab=memories]');
  await settled(page);
  assert.ok(await page.locator('tr.superseded[data-id="mem_old_home"]').count());
  assert.match(await page.textContent(`tr[data-id="${ids.dog}"]`), /yes/, 'pinned shown');
  assert.match(await page.textContent(`tr[data-id="${ids.secret}"]`), /credentials|finance/, 'sensitive shown with its category');
  assert.equal(await page.textContent(`tr[data-id="${ids.tea}"] td.collection`), 'memory');
  await shot(page, 'memories', ['用户住在北京', `superseded by ${ids.shanghai}`, 'constraint', '0.85', 'core', 'Collection']);

  // One edit of each kind, each confirmed, each checked through the API.
  const act = async (id, action) => {
    await page.click(`tr[data-id="${id}"] button[data-action="${action}"]`);
    await settled(page);
  };
  await act(ids.tea, 'edit');
  assert.equal((await memory(ids.tea)).summary, '用户喜欢喝铁观音');
  await act(ids.trip, 'pin');
  assert.equal((await memory(ids.trip)).pinned, true);
  await act(ids.peanut, 'markSensitive');
  assert.equal((await memory(ids.peanut)).sensitive, true);
  await act(ids.shanghai, 'del');
  assert.equal(await memory(ids.shanghai), undefined);
  assert.deepEqual(dialogs, ['prompt', 'confirm', 'confirm', 'confirm', 'confirm']);
  // Deleting the newer value brought the older one back.
  assert.equal((await memory('mem_old_home')).superseded_by, undefined);
  assert.match(await page.textContent('#view'), /铁观音/);

  // A dream report (dry run: nothing written) and a real dream.
  await page.click('#tabs button[data-tab=dreams]');
  await settled(page);
  await page.click('#dry-run');
  await settled(page);
  await page.click('#dream-now');
  await settled(page);
  assert.equal(await page.locator('.report').count(), 2);
  await shot(page, 'dreams', ['Dry run', '芒果', 'inserted']);

  // What the dream wrote: the memory links to the turn it came from, shown with that turn's
  // quote record; the turn itself is a `content` record and the day a `diary` record, each
  // in its collection, and the dreamed day is on the diary timeline.
  const exported = await w.json('GET', `/api/npc/${NPC}/export`);
  const mango = exported.memories.find((m) => m.collection === 'memory' && m.summary.includes('芒果'));
  const [turnId] = mango.source_turns;
  assert.ok(turnId, JSON.stringify(mango));
  const quote = exported.memories.find((m) => m.collection === 'content' && m.source_turns.includes(turnId));
  await page.click('#tabs button[data-tab=memories]');
  await settled(page);
  await page.click(`tr[data-id="${mango.id}"] button[data-action="details"]`);
  await settled(page);
  const detail = page.locator(`tr[data-detail-for="${mango.id}"]`);
  assert.equal(await detail.isVisible(), true);
  assert.equal(await detail.locator(`li[data-turn="${turnId}"] code`).textContent(), turnId);
  assert.equal(await detail.locator(`li[data-turn="${turnId}"] q`).textContent(), quote.summary);
  await shot(page, 'memory-sources', ['Source turns', turnId, '记住这件事']);
  await page.selectOption('#collection', 'content');
  await settled(page);
  assert.equal(await page.textContent(`tr[data-id="${quote.id}"] td.collection`), 'content');
  await page.selectOption('#collection', 'diary');
  await settled(page);
  const day = exported.memories.find((m) => m.collection === 'diary');
  assert.equal(await page.textContent(`tr[data-id="${day.id}"] td.collection`), 'diary');
  await page.selectOption('#collection', 'memory');
  await settled(page);
  await page.click('#tabs button[data-tab=diary]');
  await settled(page);
  assert.equal(await page.locator(`.timeline li[data-date="${day.id.replace('diary_', '')}"]`).count(), 1);

  // The retrieval playground with each signal's contribution, and the brief.
  await page.click('#tabs button[data-tab=playground]');
  await settled(page);
  await page.fill('#query', '铁观音');
  await page.click('#search-button');
  await settled(page);
  assert.ok(await page.locator('#hits [data-signal]').count() >= 2, 'signals shown');
  await page.fill('#max-tokens', '120');
  await page.click('#brief-button');
  await settled(page);
  const brief = await page.textContent('#brief');
  assert.match(brief, /\(\d+\/120 tokens\)/);
  assert.ok(!brief.includes('123456'));
  await shot(page, 'playground', ['铁观音', 'lexical', 'Session brief']);

  // Chinese UI text.
  await page.click('#lang');
  await page.click('#tabs button[data-tab=memories]');
  await settled(page);
  const zh = await shot(page, 'memories-zh', ['Hippo 记忆面板', '置顶', '敏感', '强度 / 层级']);

  // The token never went into a URL.
  assert.ok(requests.every((u) => !u.includes(ADMIN)), 'token in a URL');
  assert.deepEqual(pageErrors, []);
  await context.close();
  assert.ok(profile && zh);
});
