// Wrong uses of the API that the types must reject (the test expects tsc to fail here).
import { Hippo } from '@hippo-engine/hippo';

async function main(): Promise<void> {
  const hippo = await Hippo.open({ storage: 'memory' });
  // `updates` is an array of {key, value}, not a string.
  await hippo.updatePkg('n1', { updates: 'Name=Alex' });
  // An unknown memory type.
  await hippo.addMemories('n1', { memories: [{ summary: 'x', type: 'feeling' }] });
}

void main();
