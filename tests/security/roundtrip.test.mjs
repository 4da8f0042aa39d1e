// Export / import over HTTP is lossless (issue 7): export → DELETE → import → export equal,
// for an NPC with PKG, relationships, a diary from a dream, conversation, and memories
// including superseded and sensitive ones; retrieval works again on the rebuilt vectors.
import { test } from "node:test";
import assert from "node:assert/strict";
import { startWorker } from "../worker/harness.mjs";
import { populate, snapshot, rowCounts } from "./fixtures.mjs";

for (const vectorize of [false, true]) {
  test(`export → delete → import → export is equal (${vectorize ? "Vectorize stand-in" : "D1 vectors"})`, async () => {
    const w = await startWorker({ vectorize });
    try {
      await populate(w, "rt");
      const doc = await snapshot(w, "rt");
      assert.ok(Object.keys(doc.pkg).length >= 3, "PKG");
      assert.ok(Object.keys(doc.relationship).length >= 2, "relationships");
      assert.ok(doc.diary.dailies.length >= 1, "diary after a dream");
      assert.ok(doc.turns.length >= 4, "conversation");
      assert.ok(doc.memories.some((m) => m.superseded_by), "a superseded memory");
      assert.ok(doc.memories.some((m) => m.sensitive), "a sensitive memory");
      assert.ok(new Set(doc.memories.map((m) => m.collection)).size >= 2, "more than one collection");
      const rowsBefore = await rowCounts(w.db, "rt");
      const search = { query: "where does the user live", max_results: 10 };
      const found = await w.json("POST", "/api/memories/rt/search", search);

      await w.json("DELETE", "/api/npc/rt");
      assert.equal(await snapshot(w, "rt"), null);
      // The document goes over the wire as text, as a client would send it.
      const res = await w.admin("POST", "/api/npc/rt/import", JSON.stringify(doc));
      assert.equal(res.status, 200, await res.clone().text());

      const again = await snapshot(w, "rt");
      assert.deepEqual(again, doc);
      const rowsAfter = await rowCounts(w.db, "rt");
      delete rowsBefore.tokens; // tokens are credentials, not memory: deleted, not exported
      delete rowsAfter.tokens;
      assert.deepEqual(rowsAfter, rowsBefore, "same rows in every table");
      const refound = await w.json("POST", "/api/memories/rt/search", search);
      assert.deepEqual(refound.memories.map((m) => m.id), found.memories.map((m) => m.id), "same ranking after import");
      // Importing the same document twice changes nothing.
      await w.json("POST", "/api/npc/rt/import", doc);
      assert.deepEqual(await snapshot(w, "rt"), doc);
    } finally {
      await w.dispose();
    }
  });
}
