// `{indexedDB: name}` storage for browsers: a snapshot of the store, and the records of the
// changes made since (one IndexedDB value per call), in one database.
// - save (a new snapshot): one transaction puts the snapshot under a new key, moves the
//   `current` pointer to it, deletes the old one and clears the records.
// - append (one call's changes): one transaction adds a record.
// Both are `durability: 'strict'`; a crash or a closed tab leaves each whole or absent.
// One tab at a time per database.

import { concat } from '../bytes.js';

const SNAPSHOTS = 'snapshots';
const RECORDS = 'records';
const POINTER = 'current';

export function indexedDBStorage(name, factory = globalThis.indexedDB) {
  if (typeof name !== 'string' || name.length === 0) {
    throw new TypeError('indexedDB must be a non-empty database name');
  }
  if (!factory) {
    throw new TypeError('indexedDB storage needs a browser with IndexedDB');
  }
  let database;
  const open = () => (database ??= openDatabase(factory, name));
  // `strict`: the transaction completes only once the data is flushed to disk.
  const write = async (stores) => (await open()).transaction(stores, 'readwrite', { durability: 'strict' });

  return {
    async load() {
      const tx = (await open()).transaction([SNAPSHOTS, RECORDS], 'readonly');
      const snapshots = tx.objectStore(SNAPSHOTS);
      const pointer = await request(snapshots.get(POINTER));
      if (!pointer) return null;
      const [snapshot, records] = await Promise.all([
        request(snapshots.get(pointer.key)),
        request(tx.objectStore(RECORDS).getAll()),
      ]);
      if (!snapshot) throw new Error(`snapshot ${pointer.key} is missing from IndexedDB ${name}`);
      return concat([snapshot, ...records]);
    },

    async save(bytes) {
      const tx = await write([SNAPSHOTS, RECORDS]);
      const done = completion(tx);
      const snapshots = tx.objectStore(SNAPSHOTS);
      const previous = await request(snapshots.get(POINTER));
      const sequence = (previous?.sequence ?? 0) + 1;
      const key = `snapshot-${sequence}`;
      snapshots.put(bytes, key);
      snapshots.put({ key, sequence, saved_at: Date.now() }, POINTER);
      if (previous) snapshots.delete(previous.key);
      tx.objectStore(RECORDS).clear();
      await done;
    },

    async append(bytes) {
      const tx = await write(RECORDS);
      const done = completion(tx);
      tx.objectStore(RECORDS).add(bytes);
      await done;
    },

    async close() {
      if (database) (await database).close();
      database = undefined;
    },
  };
}

// Version 2 added the records store; a version 1 database keeps its snapshot.
function openDatabase(factory, name) {
  const opening = factory.open(name, 2);
  opening.onupgradeneeded = () => {
    const db = opening.result;
    if (!db.objectStoreNames.contains(SNAPSHOTS)) db.createObjectStore(SNAPSHOTS);
    if (!db.objectStoreNames.contains(RECORDS)) db.createObjectStore(RECORDS, { autoIncrement: true });
  };
  return request(opening);
}

function request(req) {
  return new Promise((resolve, reject) => {
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

function completion(tx) {
  return new Promise((resolve, reject) => {
    tx.oncomplete = () => resolve();
    tx.onerror = () => reject(tx.error);
    tx.onabort = () => reject(tx.error ?? new Error('IndexedDB transaction aborted'));
  });
}
