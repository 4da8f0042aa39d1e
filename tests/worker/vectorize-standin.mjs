// A stand-in for a Vectorize index binding (Vectorize has no local emulation): the four
// methods Hippo calls, over RPC, honouring namespace, topK, metadata filters and the limits
// of the real service (1000 vectors per upsert, ids of at most 64 bytes). `fetch` exposes what
// happened, for assertions.
import { WorkerEntrypoint } from "cloudflare:workers";

const vectors = new Map(); // id -> { id, values, namespace, metadata }
const calls = [];
let down = false; // `GET /down?on=1`: every query fails, as when the service is unavailable

function cosine(a, b) {
  let dot = 0, na = 0, nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  return na && nb ? dot / Math.sqrt(na * nb) : 0;
}

function matches(metadata, filter) {
  for (const [key, condition] of Object.entries(filter ?? {})) {
    const value = metadata?.[key];
    const ops = condition !== null && typeof condition === "object" ? condition : { $eq: condition };
    for (const [op, arg] of Object.entries(ops)) {
      if (op === "$eq" && value !== arg) return false;
      if (op === "$ne" && value === arg) return false;
      if (op === "$in" && !arg.includes(value)) return false;
      if (op === "$nin" && arg.includes(value)) return false;
    }
  }
  return true;
}

export default class VectorizeStandin extends WorkerEntrypoint {
  async upsert(items) {
    calls.push({ method: "upsert", count: items.length });
    if (items.length > 1000) throw new Error("VECTOR_UPSERT_ERROR: more than 1000 vectors");
    for (const v of items) {
      if (new TextEncoder().encode(v.id).length > 64) throw new Error(`id too long: ${v.id}`);
      if (!Array.isArray(v.values)) throw new Error("values must be an array");
      vectors.set(v.id, { id: v.id, values: v.values, namespace: v.namespace, metadata: v.metadata });
    }
    return { mutationId: `m${calls.length}` };
  }

  async query(vector, options = {}) {
    calls.push({ method: "query", options });
    if (down) throw new Error("VECTOR_QUERY_ERROR: service unavailable");
    const topK = options.topK ?? 5;
    const withData = options.returnValues || (options.returnMetadata && options.returnMetadata !== "none");
    if (topK > (withData ? 20 : 100)) throw new Error(`topK ${topK} over the limit`);
    const found = [...vectors.values()]
      .filter((v) => (options.namespace === undefined ? true : v.namespace === options.namespace))
      .filter((v) => matches(v.metadata, options.filter))
      .map((v) => ({ id: v.id, score: cosine(vector, v.values) }))
      .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1))
      .slice(0, topK);
    return { matches: found, count: found.length };
  }

  async deleteByIds(ids) {
    calls.push({ method: "deleteByIds", count: ids.length });
    if (ids.length > 1000) throw new Error("more than 1000 ids");
    for (const id of ids) vectors.delete(id);
    return { mutationId: `m${calls.length}` };
  }

  async getByIds(ids) {
    calls.push({ method: "getByIds", count: ids.length });
    return ids.filter((id) => vectors.has(id)).map((id) => vectors.get(id));
  }

  async fetch(request) {
    const url = new URL(request.url);
    if (url.pathname === "/reset") {
      vectors.clear();
      calls.length = 0;
      down = false;
      return Response.json({ ok: true });
    }
    if (url.pathname === "/down") {
      down = url.searchParams.get("on") === "1";
      return Response.json({ down });
    }
    return Response.json({
      calls,
      vectors: [...vectors.values()].map((v) => ({ id: v.id, namespace: v.namespace, metadata: v.metadata, dims: v.values.length })),
    });
  }
}
