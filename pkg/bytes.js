// Byte helpers shared by the storage adapters.

/** One Uint8Array of the parts (Uint8Arrays or ArrayBuffers) in order. */
export function concat(parts) {
  const arrays = parts.map((part) => (part instanceof Uint8Array ? part : new Uint8Array(part)));
  if (arrays.length === 1) return arrays[0];
  const out = new Uint8Array(arrays.reduce((n, a) => n + a.byteLength, 0));
  let at = 0;
  for (const array of arrays) {
    out.set(array, at);
    at += array.byteLength;
  }
  return out;
}
