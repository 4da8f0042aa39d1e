// A page as a web developer writes it: the package imported by its name, memory kept in
// this browser's IndexedDB. `?remember=TEXT` stores a memory; every load retrieves.
import { Hippo } from '@hippo-engine/hippo';

const NPC = 'companion';

async function main() {
  const hippo = await Hippo.open({ storage: { indexedDB: 'hippo-bundler-test' } });
  await hippo.createNpc(NPC, { display_name: 'Lingfei' });
  const remember = new URLSearchParams(location.search).get('remember');
  if (remember) {
    await hippo.addMemories(NPC, { memories: [{ summary: remember, type: 'constraint', importance: 0.9 }] });
  }
  const { memories } = await hippo.retrieve(NPC, { query: 'is Alex allergic to anything?' });
  await hippo.close();
  return memories.map((memory) => memory.summary);
}

main().then(
  (found) => {
    document.body.dataset.found = JSON.stringify(found);
    document.body.dataset.state = 'ready';
  },
  (error) => {
    document.body.dataset.error = String(error?.stack ?? error);
    document.body.dataset.state = 'failed';
  },
);
