// The measuring half of the persistence benchmark, the same in Node and in a browser page:
// an NPC with `count` memories (one import), then `calls` timed calls of addConversation
// (one turn) and of retrieve, each reporting the bytes its save wrote and its time.

const WORDS = ['jazz', 'tea', 'chess', 'rain', 'piano', 'garden', 'river', 'market', 'winter', 'novel',
  'coffee', 'bicycle', 'museum', 'harbor', 'lantern', 'violin', 'mountain', 'letter', 'festival', 'kitchen'];

/** Wraps an adapter so the bytes handed to save/append are counted. */
export function counting(adapter) {
  const counter = { bytes: 0, saves: 0, appends: 0 };
  const wrapped = {
    load: () => adapter.load(),
    save: (bytes) => {
      counter.bytes += bytes.byteLength;
      counter.saves += 1;
      return adapter.save(bytes);
    },
    close: () => adapter.close?.(),
  };
  if (adapter.append) {
    wrapped.append = (bytes) => {
      counter.bytes += bytes.byteLength;
      counter.appends += 1;
      return adapter.append(bytes);
    };
  }
  return { adapter: wrapped, counter };
}

export async function run({ Hippo, adapter, counter, count, calls, now = Date.parse('2026-04-08T10:00:00Z') }) {
  const hippo = await Hippo.open({ storage: adapter, clock: () => now });
  await hippo.createNpc('bench', { display_name: 'Bench' });
  const day = (i) => new Date(now - (i % 365) * 86_400_000).toISOString();
  const memories = Array.from({ length: count }, (_, i) => ({
    id: `m${i}`,
    type: 'other',
    summary: `Memory ${i}: the user talked about ${WORDS[i % 20]} and ${WORDS[(i * 7 + 3) % 20]} near the ${WORDS[(i * 13 + 5) % 20]} (${i})`,
    confidence: 0.8,
    importance: 0.5,
    source: 'long_term_memory',
    created_at: day(i),
    updated_at: day(i),
    last_accessed_at: day(i),
  }));
  const document = { ...(await hippo.exportNpc('bench')), memories };
  await hippo.importNpc('bench', document);
  const stored = counter.bytes;

  const measure = async (call) => {
    const rows = [];
    for (let i = 0; i < calls; i++) {
      const before = counter.bytes;
      const start = performance.now();
      await call(i);
      rows.push({ ms: performance.now() - start, bytes: counter.bytes - before });
    }
    const ms = rows.map((r) => r.ms).sort((a, b) => a - b);
    const bytes = rows.map((r) => r.bytes);
    return {
      median_ms: round(ms[Math.floor(ms.length / 2)]),
      p95_ms: round(ms[Math.round((ms.length - 1) * 0.95)]),
      mean_bytes: Math.round(bytes.reduce((a, b) => a + b, 0) / bytes.length),
      max_bytes: Math.max(...bytes),
    };
  };
  const turn = await measure((i) =>
    hippo.addConversation('bench', { session_id: `bench-${i}`, turns: [{ role: 'user', content: `turn ${i}: I had ${WORDS[i % 20]} today` }] }),
  );
  const retrieve = await measure((i) => hippo.retrieve('bench', { query: `what about ${WORDS[i % 20]}?` }));
  const kept = (await hippo.exportNpc('bench')).memories.length;
  await hippo.close();
  return { memories: kept, import_bytes: stored, turn, retrieve, saves: counter.saves, appends: counter.appends };
}

const round = (v) => Math.round(v * 100) / 100;
