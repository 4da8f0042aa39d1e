// The `workerd` entry point runs in real workerd (Miniflare, as `wrangler dev` would) and
// gives the same answers as the Node build for the same calls.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { Miniflare } from 'miniflare';
import { script } from './fixtures/script.mjs';
import { requireHippo, root } from './helpers.mjs';

test('the workerd build answers like the Node build', async () => {
  const miniflare = new Miniflare({
    modules: true,
    modulesRoot: root,
    scriptPath: path.join(root, 'tests', 'npm', 'fixtures', 'worker.mjs'),
    modulesRules: [
      { type: 'ESModule', include: ['**/*.js', '**/*.mjs'] },
      { type: 'CompiledWasm', include: ['**/*.wasm'] },
    ],
    compatibilityDate: '2026-04-01',
  });
  try {
    const response = await miniflare.dispatchFetch('http://localhost/', { method: 'POST' });
    assert.equal(response.status, 200, await response.clone().text());
    const inWorkerd = await response.json();

    const { Hippo } = requireHippo();
    const hippo = await Hippo.open({ storage: 'memory', clock: () => Date.parse('2026-04-08T10:00:00Z') });
    const inNode = JSON.parse(JSON.stringify(await script(hippo)));
    assert.ok(inNode.search.length > 0 && inNode.retrieve.length > 0);
    assert.deepEqual(inWorkerd, inNode);
  } finally {
    await miniflare.dispose();
  }
});
