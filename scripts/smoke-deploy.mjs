// Post-deploy smoke check of a Hippo Worker (docs/DEPLOY.md, step 5):
//   HIPPO_ADMIN_TOKEN=… node scripts/smoke-deploy.mjs https://hippo.<subdomain>.workers.dev
// /health, then an NPC `__smoke` end to end (PKG, a memory found by search and by
// memory_retrieval through a token of its own), then the NPC is deleted with its token.
// Prints each step; exits 1 at the first failure (and still tries to delete the NPC).
const base = (process.argv[2] ?? '').replace(/\/+$/, '');
const token = process.env.HIPPO_ADMIN_TOKEN;
if (!/^https?:\/\//.test(base) || !token) {
  console.error('usage: HIPPO_ADMIN_TOKEN=… node scripts/smoke-deploy.mjs <worker url>');
  process.exit(2);
}
const NPC = '__smoke';

async function call(method, path, body, authorization = `Bearer ${token}`) {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { authorization, 'content-type': 'application/json' },
    body: body && JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

async function step(name, run) {
  const start = Date.now();
  const detail = await run();
  console.log(`ok  ${name} (${Date.now() - start} ms)${detail ? `: ${detail}` : ''}`);
}

function check(condition, message) {
  if (!condition) throw new Error(message);
}

try {
  await step('GET /health', async () => JSON.stringify(await call('GET', '/health', undefined, '')));
  await step(`PUT /api/npc/${NPC}`, () => call('PUT', `/api/npc/${NPC}`, { display_name: 'Smoke test' }).then(() => ''));
  await step('PUT and GET the PKG', async () => {
    await call('PUT', `/api/pkg/${NPC}`, { updates: [{ key: 'Name', value: 'Alex' }] });
    const { pkg } = await call('GET', `/api/pkg/${NPC}`);
    check(pkg.Name === 'Alex', `the PKG reads back ${JSON.stringify(pkg)}`);
  });
  await step('POST a memory, find it by search', async () => {
    await call('POST', `/api/memories/${NPC}`, { memories: [{ summary: 'Allergic to peanuts', type: 'constraint' }] });
    const { memories } = await call('POST', `/api/memories/${NPC}/search`, { query: 'peanut allergy' });
    check(memories[0]?.summary === 'Allergic to peanuts', `search answered ${JSON.stringify(memories)}`);
  });
  await step('memory_retrieval with a token of the NPC', async () => {
    const issued = await call('POST', `/api/npc/${NPC}/tokens`, {});
    const { memories } = await call('POST', '/memory_retrieval', { query: 'is Alex allergic to anything?' }, issued.token);
    // Any place: the PKG field `Name: Alex` may answer the same query.
    check(memories.some((m) => m.summary === 'Allergic to peanuts'), `memory_retrieval answered ${JSON.stringify(memories)}`);
  });
} catch (error) {
  console.error(`FAIL ${error.message}`);
  process.exitCode = 1;
} finally {
  await step(`DELETE /api/npc/${NPC}`, () => call('DELETE', `/api/npc/${NPC}`).then(() => '')).catch((error) => {
    console.error(`FAIL cleaning up: ${error.message}`);
    process.exitCode = 1;
  });
}
