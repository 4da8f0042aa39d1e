//! NPCs spread over several stores (docs/SCALING.md): the backend suite on the sharded store
//! and on each shard; everything of an NPC lands in its shard and nowhere else; listings,
//! tokens and settings work across shards.

mod common;

use common::{json, run, t};
use hippo::engine::Ports;
use hippo::npc::Npc;
use hippo::ports::FixedClock;
use hippo::ports::*;
use hippo::retrieval::embed::BuiltinEmbedder;
use hippo::store::suite::assert_store_suite;
use hippo::store::{MemoryStore, MemoryVectorIndex, ShardMap, ShardedStore, ShardedVectorIndex};
use hippo::Hippo;
use serde_json::json as j;
use std::rc::Rc;

struct Shards {
    map: ShardMap,
    stores: Vec<Rc<MemoryStore>>,
    vectors: Vec<Rc<MemoryVectorIndex>>,
    store: Rc<ShardedStore>,
    hippo: Hippo,
}

fn map(n: usize) -> ShardMap {
    let names: Vec<String> = (0..n)
        .map(|i| {
            if i == 0 {
                "DB".into()
            } else {
                format!("DB_{i}")
            }
        })
        .collect();
    ShardMap::parse(Some(&names.join(",")), None).unwrap()
}

fn shards(map: ShardMap) -> Shards {
    let n = map.len();
    let stores: Vec<Rc<MemoryStore>> = (0..n).map(|_| Rc::new(MemoryStore::new())).collect();
    let vectors: Vec<Rc<MemoryVectorIndex>> =
        (0..n).map(|_| Rc::new(MemoryVectorIndex::new())).collect();
    let dyn_stores: Vec<Rc<dyn Store>> =
        stores.iter().map(|s| s.clone() as Rc<dyn Store>).collect();
    let dyn_vectors: Vec<Rc<dyn VectorIndex>> = vectors
        .iter()
        .map(|v| v.clone() as Rc<dyn VectorIndex>)
        .collect();
    let store = Rc::new(ShardedStore::new(map.clone(), dyn_stores).unwrap());
    let hippo = Hippo::new(Ports {
        store: store.clone(),
        vectors: Rc::new(ShardedVectorIndex::new(map.clone(), dyn_vectors).unwrap()),
        embedder: Rc::new(BuiltinEmbedder::new()),
        llm: None,
        clock: Rc::new(FixedClock::at(t("2026-04-08T10:00:00Z"))),
    });
    Shards {
        map,
        stores,
        vectors,
        store,
        hippo,
    }
}

#[test]
fn the_backend_suite_passes_on_the_sharded_store_and_on_each_shard() {
    for n in [2, 3] {
        let s = shards(map(n));
        run(assert_store_suite(&*s.store, "a-"));
        run(assert_store_suite(&*s.store, "b-"));
        for (i, shard) in s.stores.iter().enumerate() {
            run(assert_store_suite(&**shard, &format!("shard{i}-")));
        }
    }
}

#[test]
fn sizes_must_match() {
    let one: Vec<Rc<dyn Store>> = vec![Rc::new(MemoryStore::new())];
    assert!(ShardedStore::new(map(2), one).is_err());
}

/// What a store holds of `npcid`, whatever kind of row.
fn holds(store: &MemoryStore, npcid: &str) -> Vec<&'static str> {
    let mut kinds = Vec::new();
    let all = MemoryFilter {
        include_superseded: true,
        ..Default::default()
    };
    if run(store.npc(npcid)).unwrap().is_some() {
        kinds.push("npc");
    }
    if !run(store.memories(npcid, &all)).unwrap().is_empty() {
        kinds.push("memories");
    }
    if !run(store.turns(npcid, 0, 1_000)).unwrap().is_empty() {
        kinds.push("turns");
    }
    if !run(store.tokens(npcid)).unwrap().is_empty() {
        kinds.push("tokens");
    }
    if !run(store.pkg(npcid)).unwrap().is_empty() {
        kinds.push("pkg");
    }
    if !run(store.entities(npcid)).unwrap().is_empty() {
        kinds.push("entities");
    }
    let (prior, dailies) = run(store.diary(npcid)).unwrap();
    if !prior.is_empty() || !dailies.is_empty() {
        kinds.push("diary");
    }
    kinds
}

fn vectors_of(index: &MemoryVectorIndex, npcid: &str) -> usize {
    let probe = vec![0.1f32; 256];
    run(index.query(npcid, &probe, 1_000, &VectorFilter::default()))
        .unwrap()
        .len()
}

/// Every kind of row an NPC has, written through the engine.
fn populate(s: &Shards, npcid: &str) {
    run(s.hippo.upsert_npc(
        npcid,
        json(j!({"display_name": "灵绯", "pkg": {"user_name": "Mo", "user_city": "Hangzhou"}})),
    ))
    .unwrap();
    run(s.hippo.add_memories(
        npcid,
        json(j!({"memories": [
            {"summary": "用户喜欢喝乌龙茶", "type": "preference"},
            {"summary": "The user walks the dog by the harbor every morning", "type": "history"}
        ]})),
    ))
    .unwrap();
    run(s.hippo.append_conversation(
        npcid,
        json(j!({"session_id": "s1", "turns": [
            {"role": "user", "content": "我叫小墨，住在杭州，我妹妹小雨下周来看我"},
            {"role": "assistant", "content": "太好了！"}
        ]})),
    ))
    .unwrap();
    run(s.hippo.issue_token(npcid, json(j!({})))).unwrap();
    run(s.hippo.dream(npcid, false)).unwrap();
}

#[test]
fn an_npc_never_splits_across_shards() {
    let s = shards(map(3));
    let npcids: Vec<String> = (0..12).map(|i| format!("split-{i}")).collect();
    for id in &npcids {
        populate(&s, id);
    }
    let mut used = vec![0usize; 3];
    for id in &npcids {
        let home = s.map.shard_of(id);
        used[home] += 1;
        let kinds = holds(&s.stores[home], id);
        for want in ["npc", "memories", "turns", "tokens", "pkg", "diary"] {
            assert!(
                kinds.contains(&want),
                "{id}: no {want} in its shard {home}: {kinds:?}"
            );
        }
        assert!(
            vectors_of(&s.vectors[home], id) > 0,
            "{id}: no vectors in its shard"
        );
        for other in (0..3).filter(|&i| i != home) {
            assert_eq!(
                holds(&s.stores[other], id),
                Vec::<&str>::new(),
                "{id} in shard {other}"
            );
            assert_eq!(
                vectors_of(&s.vectors[other], id),
                0,
                "{id}: vectors in shard {other}"
            );
        }
    }
    assert!(
        used.iter().all(|&n| n > 0),
        "every shard serves some NPC: {used:?}"
    );
    // The deployment's settings (the recorded embedder) live in the default shard only.
    assert!(run(s.stores[0].meta("embedder")).unwrap().is_some());
    assert!(run(s.stores[1].meta("embedder")).unwrap().is_none());
}

fn put_npc(store: &dyn Store, npcid: &str) {
    let mut batch = WriteBatch::new();
    batch.push(Write::PutNpc(Npc::new(npcid, t("2026-04-08T00:00:00Z"))));
    run(store.commit(npcid, batch)).unwrap();
}

/// Every npcid `GET /api/npc` lists, page after page of `page`.
fn list_all(hippo: &Hippo, page: usize) -> Vec<String> {
    let mut got = Vec::new();
    let mut after: Option<String> = None;
    loop {
        let list = run(hippo.list_npcs(after.as_deref(), page)).unwrap();
        got.extend(list.npcs.iter().map(|n| n.npcid.clone()));
        match list.next {
            Some(next) => after = Some(next),
            None => return got,
        }
    }
}

#[test]
fn listing_merges_every_shard_in_npcid_order() {
    let s = shards(map(3));
    let mut want: Vec<String> = (0..40).map(|i| format!("list-{i:02}")).collect();
    for id in &want {
        put_npc(&*s.store, id);
    }
    // A copy left in a shard the NPC is not routed to (a migration not yet cleaned up).
    let stray = &want[0];
    let elsewhere = (s.map.shard_of(stray) + 1) % 3;
    put_npc(&*s.stores[elsewhere], stray);
    want.sort();
    for page in [1, 3, 7, 40, 100] {
        let got = list_all(&s.hippo, page);
        assert_eq!(got, want, "page size {page}");
    }
    // Copies with no routed twin, between two NPCs, in the shard of the NPC after them: a page
    // of that shard that holds only copies must not let the listing skip that NPC (the engine
    // asks for a page and one more, so six copies fill the pages of sizes 1 to 5).
    let (first, next) = (&want[0], &want[1]);
    let home = s.map.shard_of(next);
    let strays: Vec<String> = ('a'..='z')
        .map(|c| format!("{first}{c}"))
        .filter(|id| s.map.shard_of(id) != home)
        .take(6)
        .collect();
    assert_eq!(strays.len(), 6);
    for stray in &strays {
        put_npc(&*s.stores[home], stray);
    }
    let stray = &strays[0];
    for page in [1, 2, 5] {
        let got = list_all(&s.hippo, page);
        assert_eq!(
            got, want,
            "page size {page}, copies from {stray:?} before {next:?}"
        );
    }
    let per_shard: Vec<usize> = s
        .stores
        .iter()
        .map(|st| run(st.list_npcs(None, 100)).unwrap().len())
        .collect();
    assert!(per_shard.iter().all(|&n| n > 0), "{per_shard:?}");
}

#[test]
fn tokens_resolve_from_their_npcs_shard_only() {
    let s = shards(map(2));
    let ids: Vec<String> = (0..6).map(|i| format!("tok-{i}")).collect();
    for id in &ids {
        run(s.hippo.upsert_npc(id, json(j!({})))).unwrap();
    }
    for id in &ids {
        let issued = run(s.hippo.issue_token(id, json(j!({})))).unwrap();
        let resolved = run(s.hippo.resolve_token(&format!("Bearer {}", issued.token))).unwrap();
        assert_eq!(&resolved, id);
    }
    // A token record copied into the wrong shard does not answer for its NPC.
    let id = &ids[0];
    let home = s.map.shard_of(id);
    let record = run(s.stores[home].tokens(id)).unwrap().remove(0);
    let other = 1 - home;
    put_npc(&*s.stores[other], id);
    let mut batch = WriteBatch::new();
    batch.push(Write::PutToken {
        token: TokenRecord {
            token_hash: "copied-hash".into(),
            ..record
        },
    });
    run(s.stores[other].commit(id, batch)).unwrap();
    assert!(run(s.store.token_by_hash("copied-hash")).unwrap().is_none());
}

#[test]
fn pinned_npcs_live_in_their_pinned_shard() {
    let plain = map(2);
    let moved = (0..50)
        .map(|i| format!("pin-{i}"))
        .find(|id| plain.shard_of(id) == 1)
        .unwrap();
    let pinned =
        ShardMap::parse(Some("DB,DB_1"), Some(&format!("{{\"{moved}\":\"DB\"}}"))).unwrap();
    let s = shards(pinned);
    populate(&s, &moved);
    assert!(holds(&s.stores[0], &moved).contains(&"memories"));
    assert!(holds(&s.stores[1], &moved).is_empty());
    let list = run(s.hippo.list_npcs(None, 10)).unwrap();
    assert_eq!(list.npcs.len(), 1);
    let retrieved = run(s.hippo.retrieve(&moved, json(j!({"query": "乌龙茶"})))).unwrap();
    assert!(
        retrieved
            .memories
            .iter()
            .any(|m| m.summary.contains("乌龙茶")),
        "{retrieved:?}"
    );
}
