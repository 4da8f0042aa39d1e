// Storage adapters for Cloudflare Workers (exported by the workerd entry).
//
// durableObjectStorage(ctx.storage): inside a Durable Object. Every request for one object id
// reaches the same single-threaded instance, so there is one writer: open Hippo once per
// object (e.g. one object per user or per NPC) and keep the instance. It appends each call's
// changes (incremental, like {file} and {indexedDB}); values are split into 128 KiB chunks
// (the storage API's limit per value); a snapshot replaces snapshot and log in one transaction.
//
// kvStorage(namespace, key): one KV key holding the whole store, rewritten by every call that
// changes something (KV cannot append). KV is eventually consistent and last-write-wins: two
// isolates (or two Workers) writing the same key each save their own copy, and the later save
// silently drops the other's changes; another location may read a copy up to 60 s old. Use it
// only where one writer at a time is guaranteed and readers tolerate lag (e.g. a per-user key
// written from that user's own session); otherwise use a Durable Object.

import { concat } from '../bytes.js';

const CHUNK = 128 * 1024;
const pad = (n) => String(n).padStart(10, '0');

export function durableObjectStorage(storage, prefix = 'hippo') {
  if (!storage || typeof storage.get !== 'function' || typeof storage.transaction !== 'function') {
    throw new TypeError('durableObjectStorage takes a Durable Object\'s ctx.storage');
  }
  const meta = `${prefix}:meta`;
  let next = 0; // the next log record's number

  const chunks = (bytes) => Array.from({ length: Math.max(1, Math.ceil(bytes.byteLength / CHUNK)) }, (_, i) =>
    bytes.slice(i * CHUNK, (i + 1) * CHUNK));

  return {
    async load() {
      const state = await storage.get(meta);
      if (!state) return null;
      const snapshot = await storage.list({ prefix: `${prefix}:snap:${state.generation}:` });
      const log = await storage.list({ prefix: `${prefix}:log:` }); // in key order: record, chunk
      const last = [...log.keys()].at(-1);
      next = last ? Number(last.split(':').at(-2)) + 1 : 0;
      return concat([...snapshot.values(), ...log.values()]);
    },
    async save(bytes) {
      await storage.transaction(async (txn) => {
        const state = (await txn.get(meta)) ?? { generation: 0 };
        const generation = state.generation + 1;
        await txn.delete([...(await txn.list({ prefix: `${prefix}:log:` })).keys()]);
        await txn.delete([...(await txn.list({ prefix: `${prefix}:snap:${state.generation}:` })).keys()]);
        const entries = chunks(bytes).map((chunk, i) => [`${prefix}:snap:${generation}:${pad(i)}`, chunk]);
        for (const [key, value] of entries) await txn.put(key, value);
        await txn.put(meta, { generation });
      });
      next = 0;
    },
    async append(bytes) {
      const record = next++;
      const entries = Object.fromEntries(chunks(bytes).map((chunk, i) => [`${prefix}:log:${pad(record)}:${pad(i)}`, chunk]));
      await storage.put(entries); // atomic: up to 128 keys (16 MiB) in one put
    },
  };
}

export function kvStorage(namespace, key) {
  if (!namespace || typeof namespace.get !== 'function' || typeof key !== 'string' || key.length === 0) {
    throw new TypeError('kvStorage takes a KV namespace binding and a key');
  }
  return {
    async load() {
      const value = await namespace.get(key, 'arrayBuffer');
      return value ? new Uint8Array(value) : null;
    },
    async save(bytes) {
      await namespace.put(key, bytes);
    },
  };
}
