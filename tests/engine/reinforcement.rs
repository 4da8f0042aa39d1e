//! Deferred reinforcement: a read's touches land later, per NPC, and a failed one changes nothing.

use super::*;

/// The access counts of `npcid`'s memories, in list order.
fn access_counts(w: &World, npcid: &str) -> Vec<u32> {
    run(w.hippo.list_memories(npcid, ListMemoriesQuery::default()))
        .unwrap()
        .memories
        .iter()
        .map(|m| m.memory.access_count)
        .collect()
}

fn flushed(committed: usize, failed: usize) -> hippo::engine::Flushed {
    hippo::engine::Flushed { committed, failed }
}

/// NPCs `ids`, each with one memory, and an engine over the same ports that defers its
/// reinforcement to the returned queue.
fn violinists(ids: [&str; 2]) -> (World, Rc<hippo::engine::Deferred>, hippo::Hippo) {
    let w = world();
    for id in ids {
        npc(&w, id, json!({}));
        add(
            &w,
            id,
            json!([{"summary": "The user plays the violin", "type": "preference"}]),
        );
    }
    let queue = Rc::new(hippo::engine::Deferred::default());
    let deferred =
        hippo::Hippo::new(w.hippo.ports().clone()).with_deferred_reinforcement(queue.clone());
    (w, queue, deferred)
}

#[test]
fn deferred_reinforcement_lands_on_flush_on_its_own_npc() {
    let (w, queue, deferred) = violinists(["da", "db"]);
    w.clock.advance_hours(1.0);
    let asked_at = hippo::ports::Clock::now(&*w.clock);
    let now = retrieve(&w, "db", json!({"query": "violin"}));
    let answer = run(deferred.retrieve("da", json(json!({"query": "violin"})))).unwrap();
    // The same answer as an immediate retrieval, and nothing written yet.
    assert_eq!(answer.memories.len(), 1);
    assert_eq!(answer.memories[0].summary, now[0].summary);
    assert_eq!(access_counts(&w, "da"), [0]);
    assert_eq!(queue.len(), 1);
    assert_eq!(run(queue.flush()), flushed(1, 0));
    assert!(queue.is_empty());
    // A later read sees it, on the retrieval's NPC only (db: its own immediate touch).
    let m = &run(w.hippo.list_memories("da", ListMemoriesQuery::default()))
        .unwrap()
        .memories[0];
    assert_eq!(m.memory.access_count, 1);
    assert_eq!(m.memory.last_accessed_at, asked_at);
    assert_eq!(access_counts(&w, "db"), [1]);
    // A retrieval that returns nothing queues nothing.
    run(deferred.retrieve("da", json(json!({"query": "submarine"})))).unwrap();
    assert!(queue.is_empty());
    assert_eq!(run(queue.flush()), flushed(0, 0));
}

#[test]
fn deferred_touches_of_one_npc_land_in_one_batch_each_counted() {
    let (w, queue, deferred) = violinists(["ma", "mb"]);
    for id in ["ma", "mb", "ma", "ma"] {
        run(deferred.retrieve(id, json(json!({"query": "violin"})))).unwrap();
    }
    assert_eq!(queue.len(), 4);
    let generation = w.store.generation();
    assert_eq!(run(queue.flush()), flushed(4, 0));
    assert_eq!(w.store.generation(), generation + 2, "one commit per NPC");
    assert_eq!(access_counts(&w, "ma"), [3]);
    assert_eq!(access_counts(&w, "mb"), [1]);
}

#[test]
fn a_failed_deferred_touch_changes_neither_the_answer_nor_the_data() {
    let store = Rc::new(hippo::store::MemoryStore::new());
    let w = world_with(store.clone());
    npc(&w, "df", json!({}));
    add(
        &w,
        "df",
        json!([{"summary": "The user plays the violin", "type": "preference"}]),
    );
    let failing = Rc::new(TestStore::failing(store.clone()));
    failing.fail.set(|b: &hippo::ports::WriteBatch| {
        b.writes
            .iter()
            .any(|x| matches!(x, hippo::ports::Write::Touch { .. }))
    });
    let queue = Rc::new(hippo::engine::Deferred::default());
    let deferred = hippo::Hippo::new(Ports {
        store: failing.clone(),
        ..w.hippo.ports().clone()
    })
    .with_deferred_reinforcement(queue.clone());
    let before = run(w.hippo.export_npc("df")).unwrap();
    let generation = store.generation();
    let answer = run(deferred.retrieve("df", json(json!({"query": "violin"})))).unwrap();
    assert_eq!(answer.memories.len(), 1);
    assert_eq!(run(queue.flush()), flushed(0, 1));
    assert_eq!(store.generation(), generation, "a failed touch wrote");
    assert_eq!(run(w.hippo.export_npc("df")).unwrap(), before);
    // With the store up again, the next touch lands: only the failed one's count was lost.
    let again = run(deferred.retrieve("df", json(json!({"query": "violin"})))).unwrap();
    assert_eq!(again.memories[0].summary, answer.memories[0].summary);
    failing.fail.set(never);
    assert_eq!(run(queue.flush()).committed, 1);
    assert_eq!(access_counts(&w, "df"), [1]);
}
