// Every /api route through the real Worker on D1: seed shapes, error paths of SPEC §3, and
// concurrency (two parallel PKG updates both land).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { startWorker } from "./harness.mjs";

let w;
before(async () => {
  w = await startWorker();
});
after(() => w.dispose());

const error = async (res, status, message) => {
  assert.equal(res.status, status);
  const body = await res.json();
  assert.equal(body.status, "error");
  if (message instanceof RegExp) assert.match(body.message, message);
  else if (message !== undefined) assert.equal(body.message, message);
  return body;
};

test("NPCs: create, read, update, list with paging, delete", async () => {
  const created = await w.json("PUT", "/api/npc/npc-a", {
    display_name: "Xiao Ming",
    pkg: { Name: "Xiao Ming", Hobbies: "Reading,Running" },
    voice_registered: true,
  });
  assert.equal(created.created, true);
  assert.equal(created.display_name, "Xiao Ming");
  assert.equal(created.voice_registered, true);
  assert.equal(created.settings.diary_window, 7);
  const again = await w.json("PUT", "/api/npc/npc-a", { settings: { diary_window: 3, content_ttl_days: 30, emotion_ttl_days: 14 } });
  assert.equal(again.created, undefined);
  assert.equal(again.settings.diary_window, 3);
  const read = await w.json("GET", "/api/npc/npc-a");
  assert.equal(read.display_name, "Xiao Ming");
  assert.match(read.created_at, /^\d{4}-\d\d-\d\dT/);
  for (const id of ["npc-b", "npc-c"]) await w.json("PUT", `/api/npc/${id}`, {});
  const first = await w.json("GET", "/api/npc?limit=2");
  assert.deepEqual(first.npcs.map((n) => n.npcid), ["npc-a", "npc-b"]);
  assert.equal(first.next, "npc-b");
  const second = await w.json("GET", `/api/npc?limit=2&after=${first.next}`);
  assert.ok(second.npcs.map((n) => n.npcid).includes("npc-c"));
  await error(await w.admin("PUT", "/api/npc/npc-a", { settings: { diary_window: 0, content_ttl_days: 30, emotion_ttl_days: 14 } }), 400, /diary_window/);
  await error(await w.admin("PUT", "/api/npc/npc-a", { unknown_field: 1 }), 400, /unknown_field/);
  assert.deepEqual(await w.json("DELETE", "/api/npc/npc-c"), { status: "ok" });
  await error(await w.admin("GET", "/api/npc/npc-c"), 404, /npc-c/);
  await error(await w.admin("DELETE", "/api/npc/npc-c"), 404);
});

test("PKG: seed shapes, merge rules, registration flags, errors", async () => {
  await w.json("PUT", "/api/npc/abc123", { pkg: { Name: "Xiao Ming" }, voice_registered: true });
  const put = await w.json("PUT", "/api/pkg/abc123", {
    updates: [
      { key: "Hobbies", value: "Swimming,Painting" },
      { key: "Favorite Books", value: ["Three-Body Problem", "One Hundred Years of Solitude"] },
      { key: "Name", value: "Someone Else" },
      { key: "voice_registered", value: "false" },
      { key: "", value: "x" },
    ],
  });
  assert.deepEqual(put, { status: "ok", updated_fields: ["Hobbies", "Favorite Books"] });
  const got = await w.json("GET", "/api/pkg/abc123");
  assert.deepEqual(got, {
    npcid: "abc123",
    pkg: {
      Name: "Xiao Ming",
      Hobbies: ["Swimming", "Painting"],
      "Favorite Books": ["Three-Body Problem", "One Hundred Years of Solitude"],
      voice_registered: true,
      face_registered: false,
    },
  });
  await error(await w.admin("PUT", "/api/pkg/abc123", { updates: [] }), 400, "updates cannot be empty");
  await error(await w.admin("PUT", "/api/pkg/ghost", { updates: [{ key: "Name", value: "x" }] }), 404, "NPC ghost does not exist or has no PKG");
  await error(await w.admin("GET", "/api/pkg/ghost"), 404, "NPC ghost does not exist or has no PKG");
  await error(await w.admin("PUT", "/api/pkg/abc123", { nope: [] }), 400, /updates/);
});

test("two parallel PUT /api/pkg both land", async () => {
  await w.json("PUT", "/api/npc/racer", {});
  for (let round = 0; round < 3; round++) {
    const [a, b] = await Promise.all([
      w.json("PUT", "/api/pkg/racer", { updates: [{ key: "Hobbies", value: `h${round}` }] }),
      w.json("PUT", "/api/pkg/racer", { updates: [{ key: "Favorite Movies", value: `m${round}` }] }),
    ]);
    assert.deepEqual(a.updated_fields, ["Hobbies"]);
    assert.deepEqual(b.updated_fields, ["Favorite Movies"]);
  }
  // Same field from both sides: a list field keeps both values, none is lost.
  await Promise.all([
    w.json("PUT", "/api/pkg/racer", { updates: [{ key: "Nickname", value: "A" }] }),
    w.json("PUT", "/api/pkg/racer", { updates: [{ key: "Nickname", value: "B" }] }),
  ]);
  const { pkg } = await w.json("GET", "/api/pkg/racer");
  assert.deepEqual(pkg.Hobbies, ["h0", "h1", "h2"]);
  assert.deepEqual(pkg["Favorite Movies"], ["m0", "m1", "m2"]);
  assert.deepEqual([...pkg.Nickname].sort(), ["A", "B"]);
});

test("relationships: explicit ops and the seed view", async () => {
  await w.json("PUT", "/api/npc/rel", {});
  const added = await w.json("POST", "/api/relationship/rel", {
    ops: [
      { op: "add", name: "Xiao Hong", alias: ["Honghong"], title: ["Classmate"], remark: "Often plays basketball together" },
      { op: "add", name: "Teacher Zhang", title: ["Class Teacher"], remark: "Math teacher" },
      { op: "add", name: "honghong", title: ["Friend"] },
    ],
  });
  assert.deepEqual(added.results.map((r) => r.id), ["entity_001", "entity_002", "entity_001"]);
  const view = await w.json("GET", "/api/relationship/rel");
  assert.equal(view.npcid, "rel");
  assert.equal(view.count, 2);
  assert.deepEqual(Object.keys(view.relationship), ["entity_001", "entity_002"]);
  assert.deepEqual(view.relationship.entity_001.title, ["Classmate", "Friend"]);
  assert.deepEqual(view.relationship.entity_002, { name: "Teacher Zhang", alias: [], title: ["Class Teacher"], remark: "Math teacher" });
  await w.json("POST", "/api/relationship/rel", { ops: [{ op: "delete", name: "Teacher Zhang" }] });
  const after = await w.json("GET", "/api/relationship/rel");
  assert.deepEqual(Object.keys(after.relationship), ["entity_001"]);
  await error(await w.admin("POST", "/api/relationship/rel", { ops: [{ op: "update", name: "Nobody" }] }), 404);
  await error(await w.admin("POST", "/api/relationship/rel", { ops: [] }), 400);
  await error(await w.admin("GET", "/api/relationship/ghost"), 404);
});

test("conversation: append is idempotent per session and index; read pages", async () => {
  await w.json("PUT", "/api/npc/talk", {});
  const body = { session_id: "s1", turns: [{ role: "user", content: "叫我阿澈" }, { role: "assistant", content: "好的，阿澈" }] };
  const first = await w.json("POST", "/api/conversation/talk", body);
  assert.deepEqual(first, { status: "ok", appended: 2, duplicates: 0, last_seq: 2 });
  const again = await w.json("POST", "/api/conversation/talk", body);
  assert.equal(again.appended, 0);
  assert.equal(again.duplicates, 2);
  await w.json("POST", "/api/conversation/talk", { turns: [{ role: "user", content: "no session", ts: "2026-04-08T10:00:00Z" }] });
  const log = await w.json("GET", "/api/conversation/talk?since=1&limit=5");
  assert.deepEqual(log.turns.map((t) => t.seq), [2, 3]);
  assert.equal(log.turns[1].ts, "2026-04-08T10:00:00.000Z");
  assert.equal(log.watermark, 0);
  await error(await w.admin("POST", "/api/conversation/talk", { turns: [] }), 400);
  await error(await w.admin("POST", "/api/conversation/talk", { turns: [{ role: "narrator", content: "x" }] }), 400);
  await error(await w.admin("GET", "/api/conversation/talk?since=-1"), 400, /since/);
  await error(await w.admin("POST", "/api/conversation/ghost", body), 404);
});

test("memories: add, list, search with debug, delete", async () => {
  await w.json("PUT", "/api/npc/mem", {});
  const added = await w.json("POST", "/api/memories/mem", {
    memories: [
      { summary: "The user is allergic to peanuts", type: "constraint", keywords: ["allergy"], confidence: 0.95 },
      { summary: "用户喜欢读科幻小说，最爱《三体》", type: "preference" },
      { summary: "The user's bank PIN hint is their cat's birthday", type: "other", sensitive: true },
    ],
  });
  assert.equal(added.status, "ok");
  assert.deepEqual(added.results.map((r) => r.action), ["inserted", "inserted", "inserted"]);
  const dup = await w.json("POST", "/api/memories/mem", { memories: [{ summary: "The user is allergic to peanuts", type: "constraint" }] });
  assert.equal(dup.results[0].action, "reinforced");
  assert.equal(dup.results[0].id, added.results[0].id);

  const list = await w.json("GET", "/api/memories/mem?types=constraint,preference&limit=1");
  assert.equal(list.count, 1);
  assert.equal(list.next_offset, 1);
  assert.equal(list.memories[0].encounter_count, 2);
  assert.ok(["core", "active", "background", "archive"].includes(list.memories[0].tier));
  await error(await w.admin("GET", "/api/memories/mem?collection=bogus"), 400, /collection/);

  const search = await w.json("POST", "/api/memories/mem/search", { query: "what is the user allergic to?", debug: true });
  assert.equal(search.memories[0].id, added.results[0].id);
  assert.equal(typeof search.memories[0].score, "number");
  assert.ok(search.memories[0].signals && Object.keys(search.memories[0].signals).length > 0);
  const zh = await w.json("POST", "/api/memories/mem/search", { query: "用户喜欢什么书", memory_types: ["preference"] });
  assert.match(zh.memories[0].summary, /三体/);
  const secret = await w.json("POST", "/api/memories/mem/search", { query: "bank PIN hint" });
  assert.ok(!secret.memories.some((m) => /PIN/.test(m.summary)), "sensitive memories are not searched by default");
  const withSecret = await w.json("POST", "/api/memories/mem/search", { query: "bank PIN hint", include_sensitive: true });
  assert.ok(withSecret.memories.some((m) => /PIN/.test(m.summary)));
  await error(await w.admin("POST", "/api/memories/mem/search", { query: "  " }), 400, /query/);

  assert.deepEqual(await w.json("DELETE", `/api/memories/mem/${added.results[0].id}`), { status: "ok" });
  const gone = await w.json("POST", "/api/memories/mem/search", { query: "allergic peanuts" });
  assert.ok(!gone.memories.some((m) => m.id === added.results[0].id));
  await error(await w.admin("DELETE", `/api/memories/mem/${added.results[0].id}`), 404);
  await error(await w.admin("POST", "/api/memories/mem", { memories: [] }), 400);
  await error(await w.admin("POST", "/api/memories/mem", { memories: [{ summary: "x", type: "mood" }] }), 400, /type/);
  await error(await w.admin("POST", "/api/memories/ghost", { memories: [{ summary: "x", type: "other" }] }), 404);
});

test("diary: dailies newest first; dream of an unknown NPC is a 404", async () => {
  await w.json("PUT", "/api/npc/diarist", {});
  const doc = await w.json("GET", "/api/npc/diarist/export");
  doc.diary = {
    prior: "Xiao Ming is a sports enthusiast",
    dailies: [
      { date: "2026-04-07", summary: "Attended the weekly meeting" },
      { date: "2026-04-08", summary: "Went to the library with Xiao Hong" },
    ],
  };
  await w.json("POST", "/api/npc/diarist/import", doc);
  const diary = await w.json("GET", "/api/diary/diarist");
  assert.deepEqual(diary, {
    npcid: "diarist",
    prior: "Xiao Ming is a sports enthusiast",
    dailies: [
      { date: "2026-04-08", summary: "Went to the library with Xiao Hong" },
      { date: "2026-04-07", summary: "Attended the weekly meeting" },
    ],
    count: 2,
  });
  await error(await w.admin("GET", "/api/diary/ghost"), 404);
  await error(await w.admin("POST", "/api/dream/ghost"), 404);
  await error(await w.admin("POST", "/api/dream/diarist?dry_run=perhaps"), 400, /dry_run/);
});

test("export → import round trip into another NPC; bad documents are 400", async () => {
  await w.json("PUT", "/api/npc/src", { display_name: "Source", pkg: { Hobbies: ["Go"] } });
  await w.json("POST", "/api/memories/src", { memories: [{ summary: "User plays Go on Sundays", type: "preference" }] });
  const doc = await w.json("GET", "/api/npc/src/export");
  assert.equal(doc.format, "hippo.npc");
  assert.equal(doc.version, 1);
  const imported = await w.json("POST", "/api/npc/copy/import", doc);
  assert.equal(imported.npcid, "copy");
  assert.equal(imported.display_name, "Source");
  const copy = await w.json("GET", "/api/npc/copy/export");
  assert.deepEqual(copy.memories, doc.memories);
  assert.deepEqual(copy.pkg, doc.pkg);
  const found = await w.json("POST", "/api/memories/copy/search", { query: "Go on Sundays" });
  assert.equal(found.memories[0].summary, "User plays Go on Sundays");
  await error(await w.admin("POST", "/api/npc/copy/import", { ...doc, format: "other" }), 400, /format/);
  await error(await w.admin("POST", "/api/npc/copy/import", { ...doc, version: 99 }), 400, /version/);
  await error(await w.admin("GET", "/api/npc/ghost/export"), 404);
});

test("vector index: rebuild from D1 and re-embed every NPC", async () => {
  await w.json("PUT", "/api/npc/vec", {});
  await w.json("POST", "/api/memories/vec", { memories: [{ summary: "a", type: "other" }, { summary: "b c", type: "other" }] });
  const rebuilt = await w.json("POST", "/api/npc/vec/vectors/rebuild");
  assert.deepEqual(rebuilt, { status: "ok", vectors: 2 });
  let page = await w.json("POST", "/api/admin/reembed");
  assert.equal(page.embedder, "hippo-builtin-v1:256");
  let npcs = page.npcs;
  while (page.next) {
    page = await w.json("POST", `/api/admin/reembed?after=${encodeURIComponent(page.next)}`);
    npcs += page.npcs;
  }
  const all = await w.json("GET", "/api/npc?limit=500");
  assert.equal(npcs, all.npcs.length);
  await error(await w.admin("POST", "/api/npc/ghost/vectors/rebuild"), 404);
});

test("tokens: issue, revoke, and deleting an NPC invalidates its tokens", async () => {
  await w.json("PUT", "/api/npc/tok", {});
  const issued = await w.json("POST", "/api/npc/tok/tokens", { ttl_seconds: 3600 });
  assert.match(issued.token, /^hpo_[0-9a-f]{64}$/);
  assert.ok(Date.parse(issued.expires_at) > Date.now());
  const forever = await w.json("POST", "/api/npc/tok/tokens");
  assert.equal(forever.expires_at, null);
  const brief = await w.json("POST", "/api/npc/tok/tokens", { ttl_seconds: 1 });
  assert.equal((await w.retrieval(brief.token, { query: "hello" })).status, 200);
  await new Promise((r) => setTimeout(r, 1100));
  assert.equal((await w.retrieval(brief.token, { query: "hello" })).status, 401, "expired");
  await error(await w.admin("POST", "/api/npc/tok/tokens", { ttl_seconds: 0 }), 400);
  await error(await w.admin("POST", "/api/npc/tok/tokens", { ttl: 5 }), 400);
  assert.equal((await w.retrieval(issued.token, { query: "hello" })).status, 200);
  assert.deepEqual(await w.json("DELETE", `/api/npc/tok/tokens/${issued.token_id}`), { status: "ok" });
  assert.equal((await w.retrieval(issued.token, { query: "hello" })).status, 401);
  await error(await w.admin("DELETE", `/api/npc/tok/tokens/${issued.token_id}`), 404);
  // The secret is stored only as its hash.
  const rows = await w.db.prepare("SELECT * FROM tokens WHERE npcid = 'tok'").all();
  assert.ok(!JSON.stringify(rows.results).includes(forever.token.slice(4)));
  await w.json("DELETE", "/api/npc/tok");
  assert.equal((await w.retrieval(forever.token, { query: "hello" })).status, 401);
  await w.json("PUT", "/api/npc/tok", {});
  assert.equal((await w.retrieval(forever.token, { query: "hello" })).status, 401, "a re-created NPC does not revive old tokens");
});

test("admin routes touch only the NPC in the path", async () => {
  for (const id of ["own-a", "own-b"]) {
    await w.json("PUT", `/api/npc/${id}`, { pkg: { Hobbies: [id] } });
  }
  const b = await w.json("POST", "/api/memories/own-b", { memories: [{ summary: "B's private note", type: "other" }] });
  const bToken = await w.json("POST", "/api/npc/own-b/tokens");
  await error(await w.admin("DELETE", `/api/memories/own-a/${b.results[0].id}`), 404);
  await error(await w.admin("DELETE", `/api/npc/own-a/tokens/${bToken.token_id}`), 404);
  const search = await w.json("POST", "/api/memories/own-a/search", { query: "private note" });
  assert.ok(!search.memories.some((m) => m.id === b.results[0].id));
  await w.json("PUT", "/api/pkg/own-a", { updates: [{ key: "Hobbies", value: "chess" }] });
  await w.json("DELETE", "/api/npc/own-a");
  assert.deepEqual((await w.json("GET", "/api/pkg/own-b")).pkg.Hobbies, ["own-b"]);
  const list = await w.json("GET", "/api/memories/own-b");
  assert.deepEqual(list.memories.map((m) => m.id), [b.results[0].id]);
  assert.equal((await w.retrieval(bToken.token, { query: "private note" })).status, 200);
});
