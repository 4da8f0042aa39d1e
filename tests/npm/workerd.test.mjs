// The `workerd` entry point runs in real workerd (Miniflare, as `wrangler dev` would) and
// gives the same answers as the Node build for the same calls.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { Miniflare } from 'miniflare';
import { script } from './fixtures/script.mjs';
import { requireHippo, root, tempDir } from './helpers.mjs';

/** Miniflare running a fixture Worker that imports the package's workerd entry. */
const workerd = (fixture, options = {}) =>
  new Miniflare({
    modules: true,
    modulesRoot: root,
    scriptPath: path.join(root, 'tests', 'npm', 'fixtures', fixture),
    modulesRules: [
      { type: 'ESModule', include: ['**/*.js', '**/*.mjs'] },
      { type: 'CompiledWasm', include: ['**/*.wasm'] },
    ],
    compatibilityDate: '2026-04-01',
    ...options,
  });

test('the workerd build answers like the Node build', async () => {
  const miniflare = workerd('worker.mjs');
  try {
    const response = await miniflare.dispatchFetch('http://localhost/', { method: 'POST' });
    assert.equal(response.status, 200, await response.clone().text());
    const inWorkerd = await response.json();

    const { Hippo } = requireHippo();
    const hippo = await Hippo.open({ storage: 'memory', clock: () => Date.parse('2026-04-08T10:00:00Z') });
    const inNode = JSON.parse(JSON.stringify(await script(hippo)));
    assert.ok(inNode.search.length > 0 && inNode.retrieve.length > 0);
    assert.ok(inNode.tools.includes('recall'), inNode.tools.join(', '));
    assert.deepEqual(inWorkerd, inNode);
  } finally {
    await miniflare.dispose();
  }
});

test('Workers storage: a Durable Object and KV keep the memory across restarts of workerd', async () => {
  const persist = tempDir('hippo-workerd-');
  const start = () =>
    workerd('storage-worker.mjs', {
      durableObjects: { COMPANION: 'Companion' },
      kvNamespaces: ['KV'],
      durableObjectsPersist: path.join(persist, 'do'),
      kvPersist: path.join(persist, 'kv'),
    });
  const ask = async (miniflare, route) => {
    const response = await miniflare.dispatchFetch(`http://localhost/${route}`, { method: 'POST' });
    assert.equal(response.status, 200, await response.clone().text());
    return response.json();
  };
  let miniflare = start();
  try {
    for (const kind of ['do', 'kv']) {
      assert.deepEqual(await ask(miniflare, `${kind}/alex`), []);
      assert.deepEqual(await ask(miniflare, `${kind}/alex?remember=Allergic%20to%20peanuts`), ['Allergic to peanuts']);
      await ask(miniflare, `${kind}/alex?remember=Likes%20jazz`);
      assert.deepEqual(await ask(miniflare, `${kind}/sam`), [], 'one store per user');
    }
  } finally {
    await miniflare.dispose();
  }
  miniflare = start();
  try {
    for (const kind of ['do', 'kv']) {
      assert.equal((await ask(miniflare, `${kind}/alex`))[0], 'Allergic to peanuts', `${kind}: after a restart`);
    }
  } finally {
    await miniflare.dispose();
  }
});
