// A Worker that runs the tests' own SQL on the D1 databases it is bound to, reached with an
// ordinary (asynchronous) dispatchFetch. The tests used Miniflare's getD1Database proxy before:
// every property read on it is a synchronous round trip (SynchronousFetcher: Atomics.wait, then
// receiveMessageOnPort), and on a loaded machine it found the reply not yet on the port and
// failed its own `message?.id === id` assertion (CI, shards.test.mjs).
//
// POST {binding, op: "first" | "all" | "run" | "batch", statements: [{sql, params, column}]}
// → {ok: true, value} or {ok: false, error}. BLOBs come back as arrays of bytes.

const bytes = (_key, value) =>
  value instanceof ArrayBuffer
    ? [...new Uint8Array(value)]
    : ArrayBuffer.isView(value)
      ? [...new Uint8Array(value.buffer, value.byteOffset, value.byteLength)]
      : value;

export default {
  async fetch(request, env) {
    const { binding, op, statements } = await request.json();
    const db = env[binding];
    const prepare = ({ sql, params }) => (params.length ? db.prepare(sql).bind(...params) : db.prepare(sql));
    try {
      if (!db) throw new Error(`no D1 binding ${binding}`);
      let value;
      if (op === "batch") {
        value = await db.batch(statements.map(prepare));
      } else {
        const [statement] = statements;
        const prepared = prepare(statement);
        value = op === "first" && statement.column ? await prepared.first(statement.column) : await prepared[op]();
      }
      return new Response(JSON.stringify({ ok: true, value }, bytes), {
        headers: { "content-type": "application/json" },
      });
    } catch (e) {
      return Response.json({ ok: false, error: String(e?.message ?? e) });
    }
  },
};
