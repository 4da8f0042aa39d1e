// The playground: one companion whose memory lives in this browser's IndexedDB, through the
// package's `web` build. Every panel is a view of one API call's answer.
import { Hippo } from '../../pkg/browser/index.js';

const NPC = 'companion';
const DATABASE = 'hippo-playground';

const $ = (id) => document.getElementById(id);
const el = (tag, props = {}, ...children) => {
  const node = Object.assign(document.createElement(tag), props);
  node.append(...children);
  return node;
};

let hippo;

async function start() {
  hippo = await Hippo.open({ storage: { indexedDB: DATABASE } });
  try {
    await hippo.getNpc(NPC);
  } catch (error) {
    if (error.code !== 'not_found') throw error;
    await hippo.createNpc(NPC, { display_name: 'Lingfei' });
  }
  await refresh();
  wire();
  setStatus('Ready. Your memory is stored in this browser only.');
  document.body.dataset.state = 'ready';
}

function wire() {
  $('say-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const content = $('say').value.trim();
    if (!content) return;
    run('Saved what you said.', async () => {
      await hippo.addConversation(NPC, { turns: [{ role: 'user', content }] });
      $('say').value = '';
    });
  });
  $('dream').addEventListener('click', () =>
    run('Dreamt: memory consolidated.', async () => {
      const report = await hippo.dream(NPC, { dryRun: $('dry-run').checked });
      $('report').hidden = false;
      $('report').textContent = JSON.stringify(report, null, 2);
    }),
  );
  $('memory-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const summary = $('memory-text').value.trim();
    if (!summary) return;
    run('Remembered.', async () => {
      const type = $('memory-type').value;
      await hippo.addMemories(NPC, {
        memories: [{ summary, type, source: 'explicit_user_statement', importance: 0.8 }],
      });
      $('memory-text').value = '';
    });
  });
  $('search-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const query = $('query').value.trim();
    if (!query) return;
    run(null, async () => renderResults(await hippo.search(NPC, { query, max_results: 8, debug: true })));
  });
  $('forget').addEventListener('click', () => {
    if (!confirm('Forget everything this companion knows?')) return;
    run('Forgotten.', async () => {
      await hippo.deleteNpc(NPC);
      await hippo.createNpc(NPC, { display_name: 'Lingfei' });
      $('report').hidden = true;
      $('results').replaceChildren();
    });
  });
}

/** Runs one user action: busy while it runs, then every panel is redrawn. */
async function run(done, action) {
  document.body.dataset.state = 'busy';
  for (const button of document.querySelectorAll('button')) button.disabled = true;
  try {
    await action();
    await refresh();
    if (done) setStatus(done);
  } catch (error) {
    setStatus(`${error.code ?? 'error'}: ${error.message}`, true);
  } finally {
    for (const button of document.querySelectorAll('button')) button.disabled = false;
    document.body.dataset.state = 'ready';
  }
}

async function refresh() {
  const [npc, pkg, relationships, diary, memories, log] = await Promise.all([
    hippo.getNpc(NPC),
    hippo.getPkg(NPC),
    hippo.getRelationships(NPC),
    hippo.getDiary(NPC),
    hippo.listMemories(NPC, { limit: 200 }),
    hippo.getConversation(NPC, { limit: 1000 }),
  ]);
  $('npc-name').textContent = npc.display_name || NPC;
  renderPkg(pkg.pkg);
  renderRelationships(relationships.relationship);
  renderDiary(diary);
  renderMemories(memories.memories);
  $('log').replaceChildren(
    ...log.turns.slice(-50).map((turn) => el('li', { className: turn.seq > log.watermark ? '' : 'muted' }, turn.content)),
  );
}

function renderPkg(pkg) {
  const rows = Object.entries(pkg).flatMap(([key, value]) => [
    el('dt', {}, key),
    el('dd', {}, Array.isArray(value) ? value.join(', ') : String(value)),
  ]);
  $('pkg').replaceChildren(...rows);
}

function renderRelationships(entities) {
  const items = Object.entries(entities).map(([id, e]) => {
    const details = [...e.title, ...e.alias.map((a) => `“${a}”`)].join(' · ');
    return el('li', { title: id }, el('b', {}, e.name), details ? ` — ${details}` : '', e.remark ? ` (${e.remark})` : '');
  });
  $('relationships').replaceChildren(...(items.length ? items : [el('li', { className: 'muted' }, 'No one yet.')]));
}

function renderDiary(diary) {
  $('prior').textContent = diary.prior;
  const items = diary.dailies.map((d) => el('li', {}, el('b', {}, d.date), ' ', d.summary));
  $('diary').replaceChildren(...(items.length ? items : [el('li', { className: 'muted' }, 'Dream to write the first entry.')]));
}

function renderMemories(memories) {
  const items = memories.map((m) => {
    const forget = el('button', { type: 'button', title: 'Delete this memory' }, '×');
    forget.addEventListener('click', () => run('Deleted.', () => hippo.deleteMemory(NPC, m.id)));
    return el(
      'li',
      { className: `tier-${m.tier}` },
      el('span', {}, m.summary),
      el('span', { className: 'tag' }, m.type),
      el('span', { title: `strength ${m.strength.toFixed(2)} (${m.tier})` },
        el('div', { className: 'bar' }, el('i', { style: `width:${Math.round(m.strength * 100)}%` })),
        el('span', { className: 'tag' }, `${m.tier} · ${m.strength.toFixed(2)}`)),
      forget,
    );
  });
  $('memories').replaceChildren(...(items.length ? items : [el('li', { className: 'muted' }, 'Nothing remembered yet.')]));
}

function renderResults(response) {
  const items = response.memories.map((hit) =>
    el('li', {}, hit.summary, el('span', { className: 'score' }, `${hit.type} · score ${hit.score.toFixed(3)}`)),
  );
  $('results').replaceChildren(...(items.length ? items : [el('li', { className: 'muted' }, 'Nothing found.')]));
}

function setStatus(text, error = false) {
  $('status').textContent = text;
  $('status').classList.toggle('error', error);
}

start().catch((error) => {
  setStatus(`Could not start: ${error.message}`, true);
  document.body.dataset.state = 'failed';
  console.error(error);
});
