// The local-memory playground in Debian's chromium, driven by playwright-core: a new user
// tells the companion a few things, dreams, remembers a fact, reloads the page, and finds
// everything still there (IndexedDB). Saves a screenshot under test-output/browser/.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { serve } from '../../examples/browser/serve.mjs';
import { CHROMIUM_ARGS } from './chromium.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const OUTPUT = path.join(ROOT, 'test-output', 'browser');

let server;
let browser;

before(async () => {
  server = await serve(0);
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
});

after(async () => {
  await browser?.close();
  await server?.close();
});

/** Waits until the page finished its current action (or failed to start). */
async function settled(page) {
  await page.waitForFunction(() => ['ready', 'failed'].includes(document.body.dataset.state));
  assert.equal(await page.getAttribute('body', 'data-state'), 'ready', await page.textContent('#status'));
  assert.doesNotMatch(await page.getAttribute('#status', 'class') ?? '', /error/, await page.textContent('#status'));
}

async function say(page, text) {
  await page.fill('#say', text);
  await page.click('#say-button');
  await settled(page);
}

test('facts told to the playground survive a reload', async () => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 1000 } });
  const page = await context.newPage();
  const pageErrors = [];
  page.on('pageerror', (error) => pageErrors.push(error.message));

  await page.goto(server.url);
  await settled(page);
  assert.equal(await page.locator('#memories li[class^="tier-"]').count(), 0, 'a new user has no memories');

  await say(page, 'Call me Alex');
  await say(page, 'I like jazz');
  await say(page, 'My friend Sam is my classmate');
  await say(page, '我喜欢喝茉莉花茶');
  assert.equal(await page.locator('#log li').count(), 4);

  await page.click('#dream');
  await settled(page);
  const report = JSON.parse(await page.textContent('#report'));
  assert.equal(report.skipped, false);

  await page.fill('#memory-text', 'Allergic to peanuts');
  await page.selectOption('#memory-type', 'constraint');
  await page.click('#remember');
  await settled(page);

  const before = await snapshotPanels(page);
  // What the dream made of it: a nickname, a friend, a preference; plus the fact added by hand.
  assert.match(before.pkg, /Alex/);
  assert.match(before.relationships, /Sam/);
  assert.match(before.memories, /likes jazz/);
  assert.match(before.memories, /茉莉花茶/);
  assert.match(before.memories, /Allergic to peanuts/);
  assert.equal(before.diaryEntries, 1);

  await page.reload();
  await settled(page);
  const afterReload = await snapshotPanels(page);
  assert.deepEqual(afterReload, before, 'the reloaded page shows the same memory');
  assert.equal(await page.locator('#log li').count(), 4);

  // The search box ranks what was kept.
  await page.fill('#query', 'any food allergies? peanuts');
  await page.click('#search-button');
  await settled(page);
  assert.match(await page.textContent('#results li:first-child'), /Allergic to peanuts/);

  mkdirSync(OUTPUT, { recursive: true });
  await page.screenshot({ path: path.join(OUTPUT, 'playground.png'), fullPage: true });
  assert.deepEqual(pageErrors, []);
  await context.close();
});

async function snapshotPanels(page) {
  return {
    pkg: await page.textContent('#pkg'),
    relationships: await page.textContent('#relationships'),
    memories: await page.textContent('#memories'),
    diaryEntries: await page.locator('#diary li b').count(),
  };
}
