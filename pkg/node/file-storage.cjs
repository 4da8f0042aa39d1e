'use strict';
// `{file: path}` storage for Node: the store in one file, a snapshot followed by the records
// of the changes made since (an append-only log).
// - save (a new snapshot): writes a temporary file beside the target, fsyncs it, renames it
//   over the target and fsyncs the directory, so a crash leaves the old file or the new one.
// - append (one call's changes): writes the records at the end of the file and fsyncs it. A
//   crash mid-append leaves part of a record at the end, which loading recognises and drops
//   (that call was never acknowledged); a failed append cuts the file back to where it was.
// One Hippo instance per file: two writers would overwrite each other's saves.

const fs = require('node:fs/promises');
const path = require('node:path');

let saves = 0;

function fileStorage(filePath) {
  if (typeof filePath !== 'string' || filePath.length === 0) {
    throw new TypeError('file must be a non-empty path');
  }
  const target = path.resolve(filePath);
  const directory = path.dirname(target);
  return {
    async load() {
      try {
        const data = await fs.readFile(target);
        return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
      } catch (error) {
        if (error.code === 'ENOENT') return null;
        throw error;
      }
    },
    async save(bytes) {
      await fs.mkdir(directory, { recursive: true });
      const temporary = `${target}.${process.pid}.${++saves}.tmp`;
      try {
        const handle = await fs.open(temporary, 'w');
        try {
          await handle.writeFile(bytes);
          await handle.sync();
        } finally {
          await handle.close();
        }
        await fs.rename(temporary, target);
      } catch (error) {
        await fs.rm(temporary, { force: true });
        throw error;
      }
      await syncDirectory(directory);
    },
    async append(bytes) {
      // 'r+': the snapshot must be there (the first save is always one).
      const handle = await fs.open(target, 'r+');
      try {
        const { size } = await handle.stat();
        try {
          await handle.write(bytes, 0, bytes.length, size);
          await handle.sync();
        } catch (error) {
          await handle.truncate(size).catch(() => {});
          throw error;
        }
      } finally {
        await handle.close();
      }
    },
  };
}

// Makes the rename itself durable. Some platforms (Windows) cannot open a directory: there
// the rename is as durable as the OS makes it.
async function syncDirectory(directory) {
  let handle;
  try {
    handle = await fs.open(directory, 'r');
    await handle.sync();
  } catch {
    // not supported here
  } finally {
    await handle?.close();
  }
}

module.exports = { fileStorage };
