// `{indexedDB: name}` storage for browsers: the whole store as one value in an IndexedDB
// database. A save puts the new snapshot under a new key and moves the `current` pointer to
// it in the same transaction (then drops the old one), so a crash or a closed tab leaves
// the previous snapshot or the new one, never a torn mix. One tab at a time per database.

const STORE = 'snapshots';
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

  return {
    async load() {
      const tx = (await open()).transaction(STORE, 'readonly');
      const snapshots = tx.objectStore(STORE);
      const pointer = await request(snapshots.get(POINTER));
      if (!pointer) return null;
      const bytes = await request(snapshots.get(pointer.key));
      if (!bytes) throw new Error(`snapshot ${pointer.key} is missing from IndexedDB ${name}`);
      return bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
    },

    async save(bytes) {
      // `strict`: the transaction completes only once the data is flushed to disk.
      const tx = (await open()).transaction(STORE, 'readwrite', { durability: 'strict' });
      const done = completion(tx);
      const snapshots = tx.objectStore(STORE);
      const previous = await request(snapshots.get(POINTER));
      const sequence = (previous?.sequence ?? 0) + 1;
      const key = `snapshot-${sequence}`;
      snapshots.put(bytes, key);
      snapshots.put({ key, sequence, saved_at: Date.now() }, POINTER);
      if (previous) snapshots.delete(previous.key);
      await done;
    },

    async close() {
      if (database) (await database).close();
      database = undefined;
    },
  };
}

function openDatabase(factory, name) {
  const opening = factory.open(name, 1);
  opening.onupgradeneeded = () => opening.result.createObjectStore(STORE);
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
