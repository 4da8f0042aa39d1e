// A CPU profile of the Worker's isolate under load, through the devtools inspector `wrangler
// dev` exposes (Chrome DevTools Protocol: `Profiler.start` / `Profiler.stop`). The Worker's
// wasm keeps its name section, so the profile names Rust functions. Used by bench.mjs when
// CPU_PROFILE names one of its runs; the `.cpuprofile` it writes opens in Chrome DevTools.
//
// What it covers: the isolate's JavaScript thread only (the Worker's JS and wasm, and the D1
// binding's JS glue). Local D1's SQLite work, wrangler's proxy and its Node process are other
// threads and processes: bench.mjs reports their CPU from /proc.
import WebSocket from "ws";

/** Starts the profiler of the runtime behind `inspectorPort`; `await stop()` returns the profile. */
export async function startProfile(inspectorPort, intervalMicros = 200) {
  const targets = await (await fetch(`http://127.0.0.1:${inspectorPort}/json`)).json();
  if (!targets.length) throw new Error("the inspector lists no target");
  const ws = new WebSocket(targets[0].webSocketDebuggerUrl);
  await new Promise((resolve, reject) => {
    ws.once("open", resolve);
    ws.once("error", reject);
  });
  let next = 0;
  const pending = new Map();
  ws.on("message", (data) => {
    const msg = JSON.parse(data);
    if (msg.id && pending.has(msg.id)) {
      pending.get(msg.id)(msg);
      pending.delete(msg.id);
    }
  });
  const send = (method, params = {}) =>
    new Promise((resolve) => {
      const id = ++next;
      pending.set(id, resolve);
      ws.send(JSON.stringify({ id, method, params }));
    });
  await send("Profiler.enable");
  await send("Profiler.setSamplingInterval", { interval: intervalMicros });
  await send("Profiler.start");
  return async () => {
    const stopped = await send("Profiler.stop");
    ws.close();
    if (!stopped.result?.profile) throw new Error(`Profiler.stop: ${JSON.stringify(stopped.error)}`);
    return stopped.result.profile;
  };
}

/**
 * The busy time of `profile` per request, and the functions taking most of it: self time
 * (the function's own code) and inclusive time (with what it calls), in ms per request.
 * Idle and "(program)" samples are left out; a sample's time is the gap to the next one.
 */
export function summarize(profile, requests, top = 30) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const name = (n) =>
    (n.callFrame.functionName || `(${n.callFrame.url.split("/").pop()}:${n.callFrame.lineNumber})`)
      .replace(/::h[0-9a-f]{16}/g, "")
      .replace(/\[[0-9a-f]{16}\]/g, "");
  const self = new Map();
  const inclusive = new Map();
  let busy = 0;
  profile.samples.forEach((id, i) => {
    const micros = profile.timeDeltas[i + 1] ?? 0;
    const node = byId.get(id);
    if (["(idle)", "(program)"].includes(node.callFrame.functionName)) return;
    busy += micros;
    self.set(name(node), (self.get(name(node)) ?? 0) + micros);
    const seen = new Set();
    for (let at = id; at !== undefined; at = parent.get(at)) {
      const n = name(byId.get(at));
      if (seen.has(n)) continue; // recursion counts once
      seen.add(n);
      inclusive.set(n, (inclusive.get(n) ?? 0) + micros);
    }
  });
  const perRequest = (micros) => +(micros / 1000 / Math.max(1, requests)).toFixed(3);
  const rows = (m) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([fn, micros]) => ({ ms: perRequest(micros), share: +(micros / busy).toFixed(3), fn }));
  return { busy_ms_per_request: perRequest(busy), self: rows(self), inclusive: rows(inclusive) };
}
