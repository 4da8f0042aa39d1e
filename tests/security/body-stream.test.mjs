// A body without Content-Length is counted while it streams in (issue 18, item 5): the Worker
// read `req.bytes()` whole before its 413, so an anonymous 80 MB chunked POST to the fake
// route grew the isolate's wasm memory to 103 MiB, where it stayed (linear memory never
// shrinks). Now the read stops at the limit and the wasm memory stays where it was.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import { startWorker, ADMIN } from "../worker/harness.mjs";

const MIB = 1024 * 1024;

let w;
before(async () => {
  w = await startWorker();
});
after(() => w.dispose());

async function wasmBytes() {
  const res = await w.admin("GET", "/__test/memory");
  assert.equal(res.status, 200);
  return (await res.json()).wasm_memory_bytes;
}

/**
 * Sends up to `total` bytes as a chunked body (no Content-Length) over plain HTTP, 64 KiB at a
 * time with backpressure, and stops sending once the response starts: the answer and how
 * many bytes were sent by then. A server that answers before the body ends and closes the
 * connection may reset it (workerd does, with the rest of the body unread): then `reset`.
 */
async function chunkedPost(method, p, headers, total) {
  const url = new URL(p, await w.mf.ready);
  const chunk = Buffer.alloc(64 * 1024, "x");
  return new Promise((resolve, reject) => {
    let sent = 0;
    let answered = false;
    const req = http.request(url, { method, headers: { "content-type": "application/json", ...headers } });
    req.on("response", (res) => {
      answered = true;
      const parts = [];
      res.on("data", (d) => parts.push(d));
      res.on("end", () => {
        req.destroy();
        resolve({ status: res.statusCode, body: JSON.parse(Buffer.concat(parts).toString()), sent });
      });
    });
    req.on("error", (e) => {
      if (answered) return;
      answered = true;
      if (e.code === "ECONNRESET" || e.code === "EPIPE") resolve({ reset: true, sent });
      else reject(e);
    });
    const write = () => {
      while (!answered && sent < total) {
        const part = chunk.subarray(0, Math.min(chunk.length, total - sent));
        sent += part.length;
        if (!req.write(part)) return req.once("drain", write);
      }
      if (!answered) req.end();
    };
    write();
  });
}

test("an 80 MB chunked body is refused at the limit without growing the wasm memory", async (t) => {
  // Warm up: the first retrieval seeds the demo character and sizes the caches.
  const warm = await w.retrieval(null, { query: "阿澈" }, "/memory_retrieval/fake");
  assert.equal(warm.status, 200);
  const before = await wasmBytes();
  for (const [method, p, headers, expected] of [
    ["POST", "/memory_retrieval/fake", {}, { error: { code: "request_too_large", message: "request body is larger than 16 KiB" } }],
    ["PUT", "/api/pkg/anyone", { authorization: `Bearer ${ADMIN}` }, { status: "error", message: "request body is larger than 256 KiB" }],
  ]) {
    const res = await chunkedPost(method, p, headers, 80 * MIB);
    // The Worker stopped reading at the limit: it answered 413 (or the runtime reset the
    // connection with the rest unread) long before the client could send 80 MB.
    if (!res.reset) {
      assert.equal(res.status, 413, p);
      assert.deepEqual(res.body, expected);
    }
    t.diagnostic(`${p}: ${res.reset ? "reset" : res.status} after ${(res.sent / MIB).toFixed(1)} MiB sent`);
    assert.ok(res.sent < 80 * MIB, `${p}: all 80 MB were read before the answer`);
  }
  // A streamed body a little over the limit always gets its 413: the Worker reads the rest of
  // it (dropping it) before answering, so the runtime has nothing unread to reset the
  // connection over (before, a 64 KiB body was reset instead on a loaded machine).
  const small = await chunkedPost("POST", "/memory_retrieval/fake", {}, 32 * 1024);
  assert.equal(small.status, 413);
  const after = await wasmBytes();
  t.diagnostic(`wasm memory ${(before / MIB).toFixed(1)} -> ${(after / MIB).toFixed(1)} MiB`);
  // Bounded by the 256 KiB limit (a few buffers of it), not by the 80 MB sent: before, the
  // linear memory grew to 103 MiB and stayed there.
  assert.ok(after - before < 4 * MIB, `wasm memory grew by ${((after - before) / MIB).toFixed(1)} MiB`);
});
