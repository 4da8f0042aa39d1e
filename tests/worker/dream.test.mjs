// The dream in the Worker: with the built-in engines, with an LLM mocked at the Worker's
// outbound fetch (prompt in, JSON out), the lease (409), and the Cron Trigger via scheduled().
import { test } from "node:test";
import assert from "node:assert/strict";
import { startWorker } from "./harness.mjs";

const SESSION = {
  session_id: "s1",
  turns: [
    { role: "user", content: "以后叫我阿澈吧" },
    { role: "assistant", content: "好的，阿澈！" },
    { role: "user", content: "我喜欢爬山，周末经常去" },
    { role: "user", content: "I am allergic to peanuts, please remember that" },
  ],
};

async function npcWithTalk(w, npcid) {
  await w.json("PUT", `/api/npc/${npcid}`, {});
  await w.json("POST", `/api/conversation/${npcid}`, SESSION);
}

test("dream with the built-in engines: dry run writes nothing, then a real dream", async () => {
  const w = await startWorker();
  try {
    await npcWithTalk(w, "dreamer");
    const dry = await w.json("POST", "/api/dream/dreamer?dry_run=true");
    assert.equal(dry.status, "ok");
    assert.equal(dry.report.skipped, false);
    assert.equal(dry.report.diary.dry_run, true);
    assert.equal(dry.report.cleanup.dry_run, true);
    assert.deepEqual((await w.json("GET", "/api/diary/dreamer")).dailies, []);
    assert.equal((await w.json("GET", "/api/conversation/dreamer")).watermark, 0);

    const { report } = await w.json("POST", "/api/dream/dreamer");
    assert.equal(report.skipped, false);
    assert.equal(report.error, null);
    assert.match(report.diary.date, /^\d{4}-\d\d-\d\d$/);
    assert.ok(report.diary.diary_text.length > 0);
    assert.deepEqual(Object.keys(report.cleanup).sort(), ["content_hybrid_deleted", "emotion_v2_deleted"]);
    const pkg = (await w.json("GET", "/api/pkg/dreamer")).pkg;
    assert.deepEqual(pkg.Nickname, ["阿澈"]);
    const diary = await w.json("GET", "/api/diary/dreamer");
    assert.equal(diary.dailies[0].date, report.diary.date);
    assert.equal((await w.json("GET", "/api/conversation/dreamer")).watermark, 4);
    const search = await w.json("POST", "/api/memories/dreamer/search", { query: "what is the user allergic to" });
    assert.match(search.memories[0].summary, /peanut/i);
    assert.equal(search.memories[0].sources, undefined, "sources only when asked");
    // Asked: the fact with the turn it came from, read back from D1 as the dream kept it.
    const sourced = await w.json("POST", "/api/memories/dreamer/search", {
      query: "what is the user allergic to",
      include_sources: true,
    });
    const fact = sourced.memories.find((m) => /peanut/i.test(m.summary) && m.source !== "conversation_quote");
    const { turns } = await w.json("GET", "/api/conversation/dreamer");
    const stated = turns.find((t) => t.content.startsWith("I am allergic to peanuts"));
    assert.deepEqual(fact.sources, [
      { turn_id: stated.id, role: "user", ts: stated.ts, text: "I am allergic to peanuts, please remember that" },
    ]);
    for (const m of sourced.memories) assert.ok(Array.isArray(m.sources), JSON.stringify(m));
    // memory_retrieval's wire format stays as the protocol fixes it.
    const { token } = await w.json("POST", "/api/npc/dreamer/tokens", {});
    const res = await w.call("/memory_retrieval", {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ query: "what is the user allergic to", include_sources: true }),
    });
    const answer = await res.json();
    assert.ok(answer.memories.length > 0);
    for (const m of answer.memories) {
      assert.deepEqual(Object.keys(m).sort(), ["confidence", "id", "source", "summary", "type", "updated_at"]);
    }

    const again = await w.json("POST", "/api/dream/dreamer");
    assert.deepEqual(again.report, { skipped: true, diary: null, extractions: null, cleanup: null, error: null });
  } finally {
    await w.dispose();
  }
});

test("dream with an OpenAI-compatible LLM mocked at outbound fetch", async () => {
  const seen = [];
  const outbound = async (request) => {
    const url = new URL(request.url);
    const body = await request.json();
    seen.push({ url: url.href, authorization: request.headers.get("authorization"), body });
    const system = body.messages[0].content;
    let content;
    if (system.includes('{"diary"')) content = { diary: "今天阿澈告诉我他喜欢爬山，还对花生过敏。" };
    else if (system.includes('{"prior"')) content = { prior: "阿澈喜欢爬山。" };
    else if (system.includes("You extract long-term memory")) {
      content = {
        entity_ops: [{ op: "add", name: "小红", alias: [], title: ["同学"], remark: "一起爬山" }],
        pkg_updates: [{ key: "Nickname", value: ["阿澈"] }, { key: "Hobbies", value: ["爬山"] }],
        memories: [
          { summary: "用户对花生过敏", type: "constraint", keywords: ["过敏", "花生"], importance: 0.85, confidence: 0.9, event_time: null },
        ],
      };
    } else content = { verdict: "DISTINCT" };
    return Response.json({ choices: [{ message: { role: "assistant", content: JSON.stringify(content) } }] });
  };
  const w = await startWorker({
    vars: { HIPPO_LLM_URL: "https://llm.test/v1", HIPPO_LLM_KEY: "sk-test", HIPPO_LLM_MODEL: "mock-model" },
    outbound,
  });
  try {
    await npcWithTalk(w, "llm-dreamer");
    const { report } = await w.json("POST", "/api/dream/llm-dreamer");
    assert.equal(report.error, null);
    assert.equal(report.diary.diary_text, "今天阿澈告诉我他喜欢爬山，还对花生过敏。");
    assert.ok(seen.length >= 2);
    for (const call of seen) {
      assert.equal(call.url, "https://llm.test/v1/chat/completions");
      assert.equal(call.authorization, "Bearer sk-test");
      assert.equal(call.body.model, "mock-model");
    }
    const extraction = seen.find((c) => c.body.messages[0].content.includes("You extract long-term memory"));
    assert.match(extraction.body.messages.at(-1).content, /以后叫我阿澈吧/, "the prompt carries the conversation");
    const rel = await w.json("GET", "/api/relationship/llm-dreamer");
    assert.equal(rel.relationship.entity_001.name, "小红");
    // Nobody in the talk named 小红: no turn is credited, whatever the model said.
    assert.equal(rel.relationship.entity_001.source_turns, undefined);
    const view = await w.json("GET", "/api/pkg/llm-dreamer");
    assert.deepEqual(view.pkg.Hobbies, ["爬山"]);
    // Each field links to the user turn that stated it (stored in D1, read back).
    const { turns } = await w.json("GET", "/api/conversation/llm-dreamer");
    const said = (text) => turns.find((t) => t.content === text).id;
    assert.deepEqual(view.source_turns, {
      Nickname: [said("以后叫我阿澈吧")],
      Hobbies: [said("我喜欢爬山，周末经常去")],
    });
    const diary = await w.json("GET", "/api/diary/llm-dreamer");
    assert.equal(diary.dailies[0].summary, "今天阿澈告诉我他喜欢爬山，还对花生过敏。");
  } finally {
    await w.dispose();
  }
});

test("LLM garbage becomes the report's error, never a write", async () => {
  const outbound = async () => Response.json({ choices: [{ message: { content: "Sure! Here is some prose, not JSON." } }] });
  const w = await startWorker({
    vars: { HIPPO_LLM_URL: "https://llm.test/v1", HIPPO_LLM_MODEL: "mock-model" },
    outbound,
  });
  try {
    await npcWithTalk(w, "garbage");
    const { report } = await w.json("POST", "/api/dream/garbage");
    assert.ok(report.error, "the failure is reported");
    assert.deepEqual((await w.json("GET", "/api/relationship/garbage")).relationship, {});
    assert.equal((await w.json("GET", "/api/pkg/garbage")).pkg.Nickname, undefined);
  } finally {
    await w.dispose();
  }
});

test("a dream while another holds the NPC's lease is a 409", async () => {
  const w = await startWorker();
  try {
    await npcWithTalk(w, "leased");
    const far = Date.now() + 3_600_000;
    await w.db.prepare("INSERT INTO leases (npcid, holder, until) VALUES ('leased', 'someone-else', ?1)").bind(far).run();
    const res = await w.admin("POST", "/api/dream/leased");
    assert.equal(res.status, 409);
    assert.equal((await res.json()).status, "error");
    await w.db.prepare("DELETE FROM leases WHERE npcid = 'leased'").run();
    assert.equal((await w.admin("POST", "/api/dream/leased")).status, 200);
  } finally {
    await w.dispose();
  }
});

test("cron: scheduled() dreams NPCs with new material, 20 per run, continuing where it stopped", async () => {
  const w = await startWorker();
  try {
    const ids = Array.from({ length: 23 }, (_, i) => `cron-${String(i).padStart(2, "0")}`);
    for (const id of ids) await npcWithTalk(w, id);
    await w.json("PUT", "/api/npc/cron-quiet", {}); // nothing to dream
    const worker = await w.mf.getWorker("hippo");
    const watermarks = async () => {
      const out = {};
      for (const id of [...ids, "cron-quiet"]) out[id] = (await w.json("GET", `/api/conversation/${id}?limit=1`)).watermark;
      return out;
    };
    await worker.scheduled({ cron: "17 3 * * *" });
    // A cron run reads memories in SQL: it leaves no copies in the isolate's cache.
    assert.equal((await (await w.admin("GET", "/__test/memory")).json()).memory_cache.npcs, 0);
    let marks = await watermarks();
    const dreamt = ids.filter((id) => marks[id] === 4);
    assert.equal(dreamt.length, 20, JSON.stringify(marks));
    assert.deepEqual(dreamt, ids.slice(0, 20), "in npcid order");
    assert.equal(marks["cron-quiet"], 0);
    await worker.scheduled({ cron: "17 3 * * *" });
    marks = await watermarks();
    assert.ok(ids.every((id) => marks[id] === 4), JSON.stringify(marks));
    // New material after the last dream is picked up by a later run.
    await w.json("POST", "/api/conversation/cron-05", { session_id: "s2", turns: [{ role: "user", content: "我搬到成都了" }] });
    await worker.scheduled({ cron: "17 3 * * *" });
    assert.equal((await w.json("GET", "/api/conversation/cron-05")).watermark, 5);
  } finally {
    await w.dispose();
  }
});
