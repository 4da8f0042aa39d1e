// Hostile input through HTTP (issue 7): oversized and deep bodies, invalid UTF-8, NUL bytes,
// SQL and FTS5 syntax in every text field, odd npcids, Authorization tricks. Each answer is
// the spec's JSON error (or a 200 where the input is valid text), and nothing changes: the
// export of two populated NPCs is deep-equal before and after.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { startWorker, ADMIN } from "../worker/harness.mjs";
import { populate, snapshot, withoutAccess, apiError, retrievalError } from "./fixtures.mjs";

let w;
let victimToken;
before(async () => {
  w = await startWorker();
  victimToken = await populate(w, "victim");
  await populate(w, "bystander", { dream: false });
  await w.json("PUT", "/api/npc/scratch", {});
});
after(() => w.dispose());

/** Runs `attack`, then asserts neither populated NPC changed (`reads`: reinforcement allowed). */
async function unchanged(attack, { reads = false } = {}) {
  const norm = reads ? withoutAccess : (d) => d;
  const before = [norm(await snapshot(w, "victim")), norm(await snapshot(w, "bystander"))];
  await attack();
  const after = [norm(await snapshot(w, "victim")), norm(await snapshot(w, "bystander"))];
  assert.deepEqual(after, before, "state changed");
}

const raw = (method, p, body, headers = {}) =>
  w.call(p, { method, headers: { authorization: `Bearer ${ADMIN}`, "content-type": "application/json", ...headers }, body });

const WRITE_ROUTES = [
  ["PUT", "/api/npc/victim"],
  ["PUT", "/api/pkg/victim"],
  ["POST", "/api/relationship/victim"],
  ["POST", "/api/conversation/victim"],
  ["POST", "/api/memories/victim"],
  ["POST", "/api/memories/victim/search"],
  ["POST", "/api/npc/victim/tokens"],
  ["POST", "/api/npc/victim/import"],
];

test("oversized bodies: 413 on /api/* over 256 KiB and on memory_retrieval over 16 KiB", async () => {
  await unchanged(async () => {
    const big = JSON.stringify({ updates: [{ key: "Hobbies", value: "x".repeat(300 * 1024) }] });
    for (const [method, p] of WRITE_ROUTES) await apiError(await raw(method, p, big), 413, `${method} ${p}`);
    const q = JSON.stringify({ live_id: "l", query: "y".repeat(17 * 1024) });
    await retrievalError(await w.call("/memory_retrieval", { method: "POST", headers: { authorization: victimToken }, body: q }), 413, "request_too_large", "retrieval");
    // A streamed body without Content-Length is still counted.
    const stream = new ReadableStream({
      start(c) {
        for (let i = 0; i < 40; i++) c.enqueue(new TextEncoder().encode("z".repeat(8 * 1024)));
        c.close();
      },
    });
    const res = await w.call("/api/pkg/victim", { method: "PUT", headers: { authorization: `Bearer ${ADMIN}` }, body: stream, duplex: "half" });
    await apiError(res, 413, "streamed");
  });
});

test("oversized fields inside the limit: a clear 400, or stored verbatim", async () => {
  await unchanged(async () => {
    const long = "长".repeat(60 * 1024); // 180 KiB of UTF-8, under the body limit
    await apiError(await raw("POST", "/api/memories/victim/search", JSON.stringify({ query: long })), 400, "long query");
    await retrievalError(await w.call("/memory_retrieval", { method: "POST", headers: { authorization: victimToken }, body: JSON.stringify({ query: "长".repeat(5000) }) }), 400, "invalid_request", "long retrieval query");
  });
  // On the scratch NPC, long values either fail with a JSON 400 or round-trip unchanged.
  const value = "v".repeat(100 * 1024);
  const res = await raw("PUT", "/api/pkg/scratch", JSON.stringify({ updates: [{ key: "Motto", value }] }));
  if (res.status === 200) {
    // PKG text is cut to a documented maximum (src/pkg.rs MAX_TEXT_CHARS), never altered.
    const stored = (await w.json("GET", "/api/pkg/scratch")).pkg.Motto;
    assert.ok(stored.length >= 1024 && value.startsWith(stored), `stored ${stored.length} chars`);
  } else await apiError(res, 400, "long PKG value");
});

test("deep and huge JSON: 400, no crash", async () => {
  await unchanged(async () => {
    const deep = `{"updates":[{"key":"k","value":${"[".repeat(100000)}${"]".repeat(100000)}}]}`;
    await apiError(await raw("PUT", "/api/pkg/victim", deep), 400, "100 000 levels (under the size limit)");
    const deepSmall = `{"updates":[{"key":"k","value":${"[".repeat(5000)}${"]".repeat(5000)}}]}`;
    for (const [method, p] of WRITE_ROUTES) await apiError(await raw(method, p, deepSmall), 400, `deep ${method} ${p}`);
    const deepRetrieval = `{"query":"a","x":${"[".repeat(5000)}${"]".repeat(5000)}}`;
    await retrievalError(await w.call("/memory_retrieval", { method: "POST", headers: { authorization: victimToken }, body: deepRetrieval }), 400, "invalid_request", "deep retrieval");
    const wide = JSON.stringify({ updates: Array.from({ length: 40000 }, () => 1) });
    await apiError(await raw("PUT", "/api/pkg/victim", wide), 400, "wide array of the wrong type");
    const manyKeys = `{${Array.from({ length: 20000 }, (_, i) => `"k${i}":1`).join(",")}}`;
    await apiError(await raw("PUT", "/api/npc/victim", manyKeys), 400, "many unknown keys");
    for (const body of ["{", "[]", "null", "\"str\"", "{\"updates\":", "1e999999"]) {
      await apiError(await raw("PUT", "/api/pkg/victim", body), 400, `malformed ${body}`);
    }
  });
});

test("invalid UTF-8 and NUL bytes", async () => {
  await unchanged(async () => {
    const bad = Buffer.concat([Buffer.from('{"updates":[{"key":"Hobbies","value":"'), Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from('"}]}')]);
    for (const [method, p] of WRITE_ROUTES) await apiError(await raw(method, p, bad), 400, `utf8 ${method} ${p}`);
    const badQ = Buffer.concat([Buffer.from('{"query":"'), Buffer.from([0xc0, 0x80]), Buffer.from('"}')]);
    await retrievalError(await w.call("/memory_retrieval", { method: "POST", headers: { authorization: victimToken }, body: badQ }), 400, "invalid_request", "utf8 retrieval");
    // Lone surrogates are not Unicode scalar values.
    await apiError(await raw("PUT", "/api/pkg/victim", '{"updates":[{"key":"Hobbies","value":"\\ud800"}]}'), 400, "lone surrogate");
    const nulPath = await w.admin("GET", "/api/pkg/victim%00");
    await apiError(nulPath, 400, "NUL in npcid");
  });
  // NUL inside JSON strings is valid text: stored and read back whole (no C-string cut). PKG
  // keys are names, where control characters are refused (issue 18, item 10).
  const nul = "before\u0000after";
  await apiError(await raw("PUT", "/api/pkg/scratch", JSON.stringify({ updates: [{ key: `Key${nul}`, value: "x" }] })), 400, "NUL in a PKG key");
  await w.json("PUT", "/api/pkg/scratch", { updates: [{ key: "Key", value: nul }] });
  assert.equal((await w.json("GET", "/api/pkg/scratch")).pkg.Key, nul);
  const added = await w.json("POST", "/api/memories/scratch", { memories: [{ summary: `note ${nul}`, type: "other" }] });
  const listed = await w.json("GET", "/api/memories/scratch");
  assert.equal(listed.memories.find((m) => m.id === added.results[0].id).summary, `note ${nul}`);
  await w.json("POST", "/api/memories/scratch/search", { query: nul });
});

const INJECTIONS = [
  "'; DROP TABLE memories; --",
  "\" OR 1=1 --",
  "Robert'); DELETE FROM npcs WHERE ('1'='1",
  '"quoted" NEAR(a b) OR *',
  "^col: lex:* ctx:x AND NOT y",
  "npc:n76696374696d OR victim",
  "{lex ctx}: a* + b",
  "a\" b) OR (c",
  "%' OR npcid LIKE '%",
  "\\x00\\' UNION SELECT * FROM tokens --",
];

test("SQL and FTS5 syntax in every text field is plain text", async () => {
  const token = (await w.json("POST", "/api/npc/scratch/tokens", {})).token;
  await unchanged(async () => {
    for (const [i, s] of INJECTIONS.entries()) {
      const key = `Field ${i} ${s}`;
      await w.json("PUT", "/api/pkg/scratch", { updates: [{ key, value: s }, { key: "Hobbies", value: [s, "x"] }] });
      assert.equal((await w.json("GET", "/api/pkg/scratch")).pkg[key], s);
      await w.json("PUT", "/api/npc/scratch", { display_name: s });
      assert.equal((await w.json("GET", "/api/npc/scratch")).display_name, s);
      const ops = await w.json("POST", "/api/relationship/scratch", { ops: [{ op: "add", name: s, alias: [s], title: [s], remark: s }] });
      assert.equal(ops.status, "ok");
      const rel = (await w.json("GET", "/api/relationship/scratch")).relationship;
      assert.ok(Object.values(rel).some((e) => e.name === s && e.remark === s), s);
      await w.json("POST", "/api/conversation/scratch", { session_id: s, turns: [{ role: "user", content: s }], summary: s });
      const added = await w.json("POST", "/api/memories/scratch", { memories: [{ summary: `m${i} ${s}`, type: "other", keywords: [s], source: s }] });
      const id = added.results[0].id;
      const found = await w.json("POST", "/api/memories/scratch/search", { query: s, time_hint: s, debug: true });
      assert.ok(Array.isArray(found.memories), s);
      const r = await w.retrieval(token, { live_id: s, query: s, reason: s, time_hint: s });
      assert.equal(r.status, 200, `${s}: ${JSON.stringify(r.body)}`);
      assert.ok(Array.isArray(r.body.memories));
      assert.ok(r.body.memories.every((m) => !/\((victim|bystander)\)|of (victim|bystander)|vault code/.test(m.summary)), s);
      // Enumerations and query parameters refuse what they do not know.
      await apiError(await w.admin("POST", "/api/memories/scratch", { memories: [{ summary: "x", type: s }] }), 400, `type ${s}`);
      await apiError(await w.admin("GET", `/api/memories/scratch?collection=${encodeURIComponent(s)}`), 400, `collection ${s}`);
      const typesRes = await w.admin("GET", `/api/memories/scratch?types=${encodeURIComponent(s)}`);
      if (typesRes.status !== 200) await apiError(typesRes, 400, `types ${s}`);
      await apiError(await w.admin("GET", `/api/npc?after=${encodeURIComponent(s)}&limit=${encodeURIComponent(s)}`), 400, `limit ${s}`);
      const page = await w.json("GET", `/api/npc?after=${encodeURIComponent(s)}`);
      assert.ok(Array.isArray(page.npcs));
      await apiError(await w.admin("DELETE", `/api/memories/scratch/${encodeURIComponent(s)}`), 404, `delete ${s}`);
      await apiError(await w.admin("DELETE", `/api/npc/scratch/tokens/${encodeURIComponent(s)}`), 404, `revoke ${s}`);
      const listed = await w.json("GET", "/api/memories/scratch?limit=500");
      assert.equal(listed.memories.find((m) => m.id === id).summary, `m${i} ${s}`);
    }
  }, { reads: true });
  // The schema is intact and the scratch NPC holds exactly what was written.
  const tables = await w.db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name IN ('memories','npcs','tokens')").first();
  assert.equal(tables.n, 3);
  const conv = await w.json("GET", "/api/conversation/scratch?limit=500");
  assert.ok(conv.turns.filter((e) => INJECTIONS.includes(e.content)).length >= INJECTIONS.length);
});

const ODD_IDS = [
  "..%2F..%2Fvictim",
  "%2e%2e",
  "..",
  ".",
  "victim%00",
  "victim%2Fexport",
  "%00",
  "灵绯",
  "%E7%81%B5%E7%BB%AF",
  "vic tim",
  "victim%20",
  "a".repeat(65),
  "victim'--",
  "victim%27%20OR%20%271%27%3D%271",
  "*",
  "%25",
];

test("odd npcids on every route with {npcid}: a JSON 400/404, never another NPC", async () => {
  const doc = await w.json("GET", "/openapi.json");
  const templated = Object.entries(doc.paths).filter(([p]) => p.includes("{npcid}"));
  assert.ok(templated.length >= 12, `routes enumerated from /openapi.json: ${templated.length}`);
  await unchanged(async () => {
    for (const [template, ops] of templated) {
      for (const method of Object.keys(ops)) {
        for (const id of ODD_IDS) {
          const p = template.replace("{npcid}", id).replace("{id}", "m-1").replace("{token_id}", "t-1");
          const body = method === "get" || method === "delete" ? undefined : "{}";
          const res = await raw(method.toUpperCase(), p, body);
          const where = `${method} ${p}`;
          if (res.status === 404 || res.status === 400 || res.status === 405) {
            const text = await res.text();
            const parsed = JSON.parse(text);
            assert.equal(parsed.status, "error", `${where}: ${text}`);
            assert.ok(!text.includes("Name of victim"), where);
          } else {
            // URL normalisation may resolve `..` / `.` to another, valid route; it must then
            // not have reached the victim's data through the odd id.
            const text = await res.text();
            assert.ok(res.status < 500, `${where}: ${res.status} ${text}`);
            assert.ok(!text.includes("Name of victim") && !text.includes("vault code"), `${where}: ${text.slice(0, 200)}`);
          }
        }
      }
    }
  });
  // 64 characters is the limit, and is accepted.
  const sixtyFour = "a".repeat(64);
  await w.json("PUT", `/api/npc/${sixtyFour}`, {});
  await w.json("DELETE", `/api/npc/${sixtyFour}`);
});

test("Authorization tricks on /api/*: 401 JSON, nothing changes", async () => {
  const other = (await w.json("POST", "/api/npc/bystander/tokens", {})).token;
  const tricks = [
    `Bearer ${ADMIN}, Bearer ${ADMIN}`,
    `Bearer ${ADMIN}x`,
    `Bearer x${ADMIN}`,
    `Basic ${Buffer.from(`admin:${ADMIN}`).toString("base64")}`,
    `Token ${ADMIN}`,
    `${ADMIN}`,
    `Bearer`,
    `Bearer `,
    `Bearer ${ADMIN.slice(0, -1)}`,
    `Bearer ${ADMIN.toUpperCase()}`,
    `Bearer ${"A".repeat(60 * 1024)}`,
    `Bearer ${victimToken}`,
    `Bearer ${other}`,
    victimToken,
  ];
  await unchanged(async () => {
    for (const auth of tricks) {
      for (const [method, p] of [["GET", "/api/pkg/victim"], ["PUT", "/api/pkg/victim"], ["GET", "/api/npc/victim/export"], ["DELETE", "/api/npc/victim"], ["POST", "/api/npc/victim/tokens"]]) {
        const res = await w.call(p, {
          method,
          headers: { authorization: auth, "content-type": "application/json" },
          body: method === "PUT" ? JSON.stringify({ updates: [{ key: "Hobbies", value: "pwned" }] }) : method === "POST" ? "{}" : undefined,
        });
        await apiError(res, 401, `${auth.slice(0, 40)} ${method} ${p}`);
      }
    }
    // Two Authorization headers arrive joined with ", ": refused as one odd token.
    const h = new Headers();
    h.append("authorization", `Bearer ${ADMIN}`);
    h.append("authorization", `Bearer ${ADMIN}`);
    await apiError(await w.call("/api/pkg/victim", { headers: h }), 401, "two headers");
  });
  // The scheme is case-insensitive and surrounding whitespace is ignored (RFC 9110 §11.1).
  for (const ok of [`bearer ${ADMIN}`, `BEARER ${ADMIN}`, `Bearer\t${ADMIN}`, `  Bearer   ${ADMIN}  `]) {
    const res = await w.call("/api/pkg/victim", { headers: { authorization: ok } });
    assert.equal(res.status, 200, JSON.stringify(ok));
  }
});

test("Authorization tricks on memory_retrieval: 401 unauthorized, never another NPC", async () => {
  const other = (await w.json("POST", "/api/npc/bystander/tokens", {})).token;
  await unchanged(async () => {
    const tricks = [
      `Bearer ${ADMIN}`,
      ADMIN,
      `${victimToken}, ${other}`,
      `Bearer ${victimToken}, Bearer ${other}`,
      `${victimToken}x`,
      victimToken.toUpperCase(),
      victimToken.slice(0, -1),
      `Basic ${victimToken}`,
      `Bearer ${"f".repeat(60 * 1024)}`,
      "hpo_" + "0".repeat(64),
      "",
      "Bearer",
    ];
    for (const auth of tricks) {
      const res = await w.call("/memory_retrieval", { method: "POST", headers: auth ? { authorization: auth } : {}, body: JSON.stringify({ query: "vault code" }) });
      await retrievalError(res, 401, "unauthorized", JSON.stringify(auth.slice(0, 40)));
    }
    // Each NPC's token sees only its NPC, in every accepted spelling.
    for (const auth of [victimToken, `Bearer ${victimToken}`, `bearer ${victimToken}`, ` ${victimToken} `]) {
      const r = await w.retrieval(auth, { query: "where does the user live", max_results: 10 });
      assert.equal(r.status, 200, auth);
      assert.ok(r.body.memories.every((m) => !m.summary.includes("bystander")), JSON.stringify(r.body));
    }
    const mine = await w.retrieval(other, { query: "where does the user live", max_results: 10 });
    assert.ok(mine.body.memories.some((m) => m.summary.includes("bystander")));
    assert.ok(mine.body.memories.every((m) => !m.summary.includes("victim")));
  }, { reads: true });
});
