// A TypeScript program using the package as a consumer would: it must type-check.
import {
  Hippo,
  type DreamReport,
  HippoError,
  type HippoErrorCode,
  type MemoryType,
  type RetrievalResponse,
  type SensitiveCategory,
  type StorageAdapter,
} from '@hippo-engine/hippo';

async function main(): Promise<void> {
  const saved: { bytes: Uint8Array | null } = { bytes: null };
  const adapter: StorageAdapter = {
    load: async () => saved.bytes,
    save: async (bytes) => {
      saved.bytes = bytes;
    },
  };
  const hippo = await Hippo.open({
    storage: adapter,
    clock: () => Date.now(),
    embed: { name: 'toy', dimension: 2, embed: async (texts) => texts.map(() => new Float32Array([1, 0])) },
    llm: { complete: async (messages, system) => `${system}${messages.length}` },
  });
  await Hippo.open({ storage: { file: '/tmp/hippo.db' }, embed: async (texts) => texts.map(() => [1, 0]) });
  await Hippo.open({ storage: 'memory' });

  const npc = await hippo.createNpc('n1', { display_name: 'N', pkg: { Name: 'Alex', Hobbies: ['chess'] } });
  const created: boolean = npc.created === true;
  const { updated_fields } = await hippo.updatePkg('n1', { updates: [{ key: 'Hobbies', value: 'go, chess' }] });
  const names: string[] = updated_fields;
  const pkg = (await hippo.getPkg('n1')).pkg;
  const hobbies = pkg['Hobbies'];
  await hippo.applyEntityOps('n1', { ops: [{ op: 'add', name: '小红', title: ['同学'] }] });
  const rel = await hippo.getRelationships('n1');
  const first: string | undefined = Object.values(rel.relationship)[0]?.name;
  await hippo.addConversation('n1', { session_id: 's', turns: [{ role: 'user', content: 'hi' }] });
  const report: DreamReport = await hippo.dream('n1', { dryRun: true });
  const diaryDate: string | undefined = report.diary?.date;
  const type: MemoryType = 'constraint';
  const added = await hippo.addMemories('n1', { memories: [{ summary: 'No peanuts', type, importance: 0.9 }] });
  const listed = await hippo.listMemories('n1', { types: ['constraint'], limit: 10 });
  const strength: number = listed.memories[0].strength;
  const hits = await hippo.search('n1', { query: 'peanuts', debug: true });
  const signals: Record<string, number> | undefined = hits.memories[0]?.signals;
  const retrieved: RetrievalResponse = await hippo.retrieve('n1', { query: 'allergy', max_results: 3 });
  const updated = await hippo.updateMemory('n1', added.results[0].id, { sensitive_category: 'health', importance: 0.5 });
  const category: SensitiveCategory | undefined = updated.memory.sensitive_category;
  const marked: boolean = hits.memories[0]?.sensitive ?? false;
  const pinned: boolean = (await hippo.updateMemory('n1', added.results[0].id, { pinned: true })).memory.pinned;
  const brief = await hippo.brief('n1', { max_tokens: 200, query: 'allergy', lang: 'en' });
  const briefTokens: number = brief.tokens;
  const section: 'pinned' | string = brief.items[0]?.section ?? 'pinned';
  const tools = hippo.mcpTools({ npcid: 'n1', scopes: ['read'] }).map((t) => t.name);
  await hippo.callTool({ npcid: 'n1' }, 'recall', { query: 'tea' });
  await hippo.deleteMemory('n1', added.results[0].id);
  const doc = await hippo.exportNpc('n1');
  await hippo.importNpc('n2', doc);
  const diary = await hippo.getDiary('n2');
  const page = await hippo.listNpcs({ limit: 10 });
  await hippo.deleteNpc('n2');
  await hippo.flush();
  await hippo.close();
  try {
    await hippo.getNpc('missing');
  } catch (e) {
    if (e instanceof HippoError) {
      const code: HippoErrorCode = e.code;
      console.log(code, e.message);
    }
  }
  const reembedded: number = (await hippo.reembed()).vectors;
  console.log(reembedded, created, names, hobbies, first, diaryDate, strength, signals, retrieved, diary.count, page.next);
  console.log(pinned, briefTokens, section, tools);
}

void main();
