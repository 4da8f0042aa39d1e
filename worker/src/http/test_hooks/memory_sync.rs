//! Isolates' copies of memories ([`crate::d1::memory_cache`]) against SQL: after every kind
//! of write by another isolate, a request served from a copy reads exactly what SQL reads.

use crate::d1::{D1Store, Db, MemoryCache, RequestState};
use hippo::memory::{Collection, Memory, MemoryType};
use hippo::npc::Npc;
use hippo::ports::*;
use hippo::time::Timestamp;
use std::cell::RefCell;
use std::rc::Rc;

type CaseResult = Result<(), String>;
type Cache = Rc<RefCell<MemoryCache>>;

const T0: i64 = 1_700_000_000_000;
/// Terms the checks search for: in some memories' summaries, keywords or context.
const TERMS: [&str; 4] = ["tea", "harbor", "violin", "雨"];

/// What one request sees of an NPC's memories.
#[derive(Debug, PartialEq)]
struct Seen {
    every: Vec<Memory>,
    live_ids: Vec<String>,
    by_id: Vec<Memory>,
    lexical_ids: Vec<String>,
    docs: usize,
    df: Vec<usize>,
    avg_len_milli: i64,
}

async fn seen(store: &D1Store, npcid: &str) -> Result<Seen, String> {
    let err = |e: hippo::error::PortError| e.to_string();
    let every_filter = MemoryFilter {
        include_superseded: true,
        ..Default::default()
    };
    let every = store.memories(npcid, &every_filter).await.map_err(err)?;
    let live_ids = store
        .memories(npcid, &MemoryFilter::default())
        .await
        .map_err(err)?
        .into_iter()
        .map(|m| m.id)
        .collect();
    let mut ids: Vec<String> = every.iter().rev().map(|m| m.id.clone()).collect();
    ids.push("no-such-memory".into());
    let by_id = store.memories_by_id(npcid, &ids).await.map_err(err)?;
    let terms: Vec<String> = TERMS.iter().map(|t| t.to_string()).collect();
    let query = LexicalQuery {
        terms: terms.clone(),
        collections: Vec::new(),
        max_df: None,
    };
    // FTS5 and the in-memory index score differently: compare what they find.
    let mut lexical_ids: Vec<String> = store
        .lexical_search(npcid, &query, 1_000)
        .await
        .map_err(err)?
        .into_iter()
        .map(|(id, _)| id)
        .collect();
    lexical_ids.sort();
    let stats = store.term_stats(npcid, &terms).await.map_err(err)?;
    Ok(Seen {
        every,
        live_ids,
        by_id,
        lexical_ids,
        docs: stats.docs,
        df: stats.df,
        avg_len_milli: (stats.avg_len * 1000.0).round() as i64,
    })
}

/// A fresh request of the isolate owning `cache` (`None`: SQL only).
fn request(db: &Db, cache: Option<&Cache>) -> D1Store {
    D1Store::new(db.clone(), cache.cloned(), Rc::default())
}

async fn same_as_sql(db: &Db, cache: &Cache, npcid: &str, step: &str) -> CaseResult {
    let from_copy = seen(&request(db, Some(cache)), npcid).await?;
    let from_sql = seen(&request(db, None), npcid).await?;
    if from_copy != from_sql {
        return Err(format!(
            "{step}: the copy read {from_copy:?}\nSQL read {from_sql:?}"
        ));
    }
    Ok(())
}

fn memory(id: &str, summary: &str, keywords: &[&str], at: i64) -> Memory {
    Memory {
        keywords: keywords.iter().map(|k| k.to_string()).collect(),
        confidence: 0.8,
        source: "test".into(),
        ..Memory::new(id, MemoryType::Preference, summary, Timestamp(T0 + at))
    }
}

fn npc(npcid: &str) -> Npc {
    Npc::new(npcid, Timestamp(T0))
}

async fn commit(db: &Db, cache: &Cache, npcid: &str, writes: Vec<Write>) -> CaseResult {
    let batch = WriteBatch {
        writes,
        expect_version: None,
    };
    request(db, Some(cache))
        .commit(npcid, batch)
        .await
        .map_err(|e| format!("commit: {e}"))
}

fn put(memory: Memory) -> Write {
    Write::PutMemory { memory }
}

/// The NPC's version, read in SQL.
async fn version(db: &Db, npcid: &str) -> Result<u64, String> {
    let npc = request(db, None)
        .npc(npcid)
        .await
        .map_err(|e| e.to_string())?;
    npc.map(|n| n.version).ok_or_else(|| "NPC gone".to_string())
}

async fn follows_other_isolates_writes(db: &Db, p: &str) -> CaseResult {
    let (a, b) = (isolate(), isolate());
    let id = format!("{p}follow");
    let mut chunk = memory("m4", "we talked by the harbor", &[], 4);
    chunk.collection = Collection::Content;
    chunk.context = "she plays the violin".into();
    commit(
        db,
        &b,
        &id,
        vec![
            Write::PutNpc(npc(&id)),
            put(memory("m1", "likes green tea", &["tea"], 1)),
            put(memory("m2", "walks to the harbor", &["harbor"], 2)),
            put(memory("m3", "听雨的时候最放松", &["雨"], 3)),
            put(chunk),
        ],
    )
    .await?;
    same_as_sql(db, &a, &id, "first read (everything)").await?;

    // Another isolate updates, reinforces, adds, supersedes and deletes.
    let mut newer = memory("m5", "prefers oolong tea now", &["tea"], 5);
    newer.updated_at = Timestamp(T0 + 50);
    let mut old = memory("m1", "likes green tea", &["tea"], 1);
    old.superseded_by = Some("m5".into());
    commit(
        db,
        &b,
        &id,
        vec![
            put(memory(
                "m2",
                "sails from the harbor at dawn",
                &["harbor"],
                2,
            )),
            put(newer),
            put(old),
            Write::DeleteMemory { id: "m3".into() },
        ],
    )
    .await?;
    commit(
        db,
        &b,
        &id,
        vec![Write::Touch {
            ids: vec!["m2".into(), "m4".into()],
            at: Timestamp(T0 + 60),
        }],
    )
    .await?;
    same_as_sql(
        db,
        &a,
        &id,
        "after updates, a supersede, a delete and touches",
    )
    .await?;

    // A memory deleted and written again goes to the end of the creation order, as in SQL.
    commit(db, &b, &id, vec![Write::DeleteMemory { id: "m2".into() }]).await?;
    commit(
        db,
        &b,
        &id,
        vec![put(memory("m2", "back at the harbor", &["harbor"], 7))],
    )
    .await?;
    same_as_sql(db, &a, &id, "after a delete and a re-insert").await?;

    // Reinforcement alone moves the memory revision, not the NPC's version: still followed.
    let before = version(db, &id).await?;
    commit(
        db,
        &b,
        &id,
        vec![Write::Touch {
            ids: vec!["m2".into()],
            at: Timestamp(T0 + 65),
        }],
    )
    .await?;
    if version(db, &id).await? != before {
        return Err("a touch moved the NPC's version".into());
    }
    same_as_sql(db, &a, &id, "after a touch alone").await?;

    // The isolate's own write is visible to its own request right away.
    let own = request(db, Some(&a));
    own.memories(&id, &MemoryFilter::default())
        .await
        .map_err(|e| e.to_string())?;
    own.commit(
        &id,
        WriteBatch {
            writes: vec![Write::Touch {
                ids: vec!["m5".into()],
                at: Timestamp(T0 + 70),
            }],
            expect_version: None,
        },
    )
    .await
    .map_err(|e| e.to_string())?;
    let touched = own
        .memories_by_id(&id, &["m5".to_string()])
        .await
        .map_err(|e| e.to_string())?;
    if touched.first().map(|m| m.access_count) != Some(1) {
        return Err(format!("own touch not visible: {touched:?}"));
    }
    same_as_sql(db, &a, &id, "after its own touch").await
}

async fn notices_a_recreated_npc(db: &Db, p: &str) -> CaseResult {
    let (a, b) = (isolate(), isolate());
    let id = format!("{p}again");
    commit(
        db,
        &b,
        &id,
        vec![
            Write::PutNpc(npc(&id)),
            put(memory("old1", "drinks tea at the harbor", &["tea"], 1)),
            put(memory("old2", "plays violin", &["violin"], 2)),
        ],
    )
    .await?;
    same_as_sql(db, &a, &id, "the first NPC").await?;
    // Deleted and created again: its version counts from zero and passes the copy's.
    commit(db, &b, &id, vec![Write::DeleteNpc]).await?;
    commit(
        db,
        &b,
        &id,
        vec![
            Write::PutNpc(npc(&id)),
            put(memory("new1", "hates tea", &["tea"], 3)),
        ],
    )
    .await?;
    for at in 0..4 {
        commit(
            db,
            &b,
            &id,
            vec![Write::Touch {
                ids: vec!["new1".into()],
                at: Timestamp(T0 + 100 + at),
            }],
        )
        .await?;
    }
    same_as_sql(db, &a, &id, "the re-created NPC").await?;
    // Deleted for good: nothing to read, and no copy kept.
    commit(db, &b, &id, vec![Write::DeleteNpc]).await?;
    same_as_sql(db, &a, &id, "the deleted NPC").await?;
    if a.borrow().position(&id).is_some() {
        return Err("a copy of a deleted NPC was kept".into());
    }
    Ok(())
}

async fn npcs_bigger_than_the_cache_are_read_in_sql(db: &Db, p: &str) -> CaseResult {
    let small: Cache = Rc::new(RefCell::new(MemoryCache::new(2)));
    let id = format!("{p}big");
    commit(
        db,
        &small,
        &id,
        vec![
            Write::PutNpc(npc(&id)),
            put(memory("b1", "tea", &[], 1)),
            put(memory("b2", "harbor", &[], 2)),
            put(memory("b3", "violin", &[], 3)),
        ],
    )
    .await?;
    same_as_sql(db, &small, &id, "three memories, room for two").await?;
    // The sync read does not ship the rows of an NPC too big to keep (SQL serves it).
    for (capacity, rows) in [(2, 0), (3, 3)] {
        let read = crate::d1::sync::read(db, &id, None, capacity, false)
            .await
            .map_err(|e| e.to_string())?;
        let delta = read.delta.ok_or("the NPC exists")?;
        if delta.count != Some(3) || delta.rows.len() != rows {
            return Err(format!(
                "capacity {capacity}: count {:?} rows {}, want 3 and {rows}",
                delta.count,
                delta.rows.len()
            ));
        }
    }
    // A delta read does not count (that walks the NPC's whole index); it reads at most one
    // row more than fit, which is enough to say "too big".
    let from_start = crate::d1::memory_cache::Position {
        incarnation: String::new(),
        rev: -1,
    };
    for (capacity, rows) in [(1, 2), (2, 3), (5, 3)] {
        let read = crate::d1::sync::read(db, &id, Some(&from_start), capacity, false)
            .await
            .map_err(|e| e.to_string())?;
        let delta = read.delta.ok_or("the NPC exists")?;
        if delta.count.is_some() || delta.rows.len() != rows {
            return Err(format!(
                "delta at capacity {capacity}: count {:?} rows {}, want none and {rows}",
                delta.count,
                delta.rows.len()
            ));
        }
    }
    let held = small.borrow().held();
    if held != 0 {
        return Err(format!(
            "the cache holds {held} memories of an NPC it cannot fit"
        ));
    }
    // Two small NPCs: the least recently used one goes.
    let (x, y) = (format!("{p}x"), format!("{p}y"));
    for (npcid, m) in [(&x, "x1"), (&y, "y1")] {
        commit(
            db,
            &small,
            npcid,
            vec![Write::PutNpc(npc(npcid)), put(memory(m, "tea", &[], 1))],
        )
        .await?;
    }
    same_as_sql(db, &small, &x, "x").await?;
    same_as_sql(db, &small, &y, "y").await?;
    let held = small.borrow().held();
    if held > 2 {
        return Err(format!("the cache holds {held} memories, capacity 2"));
    }
    Ok(())
}

/// A request whose token lookup may sync the token's NPC (one database), and its state.
fn syncing_request(db: &Db, cache: &Cache) -> (D1Store, Rc<RequestState>) {
    let state = Rc::new(RequestState::default());
    let store = D1Store::new(db.clone(), Some(cache.clone()), state.clone()).syncing_on_token();
    (store, state)
}

/// The NPC the token with `hash` names.
async fn named_by(store: &D1Store, hash: &str) -> Result<String, String> {
    store
        .token_by_hash(hash)
        .await
        .map_err(|e| e.to_string())?
        .map(|t| t.npcid)
        .ok_or_else(|| "the token is gone".to_string())
}

/// A warm isolate's token lookup brings the token's NPC's copy up to date in its own batch
/// (the retrieval then reads no D1), only for the NPC the token names in that batch.
async fn a_token_lookup_syncs_its_npcs_copy(db: &Db, p: &str) -> CaseResult {
    let cache = isolate();
    let (id, other) = (format!("{p}tok"), format!("{p}tok-other"));
    let hash = format!("{p}hash");
    for npcid in [&id, &other] {
        commit(
            db,
            &cache,
            npcid,
            vec![Write::PutNpc(npc(npcid)), put(memory("t1", "tea", &[], 1))],
        )
        .await?;
    }
    let token = TokenRecord {
        token_id: format!("{p}t"),
        npcid: id.clone(),
        token_hash: hash.clone(),
        created_at: Timestamp(T0),
        expires_at: None,
        scopes: vec![Scope::Retrieval],
    };
    commit(db, &cache, &id, vec![Write::PutToken { token }]).await?;
    // First sight of the token: nothing synced by the lookup; the retrieval's read warms the copy.
    let (store, state) = syncing_request(db, &cache);
    named_by(&store, &hash).await?;
    if state.synced_memories(&id).is_some() {
        return Err("a cold lookup synced a copy".into());
    }
    seen(&store, &id).await?;
    // Another isolate writes; the next lookup syncs the copy in its batch, and it reads as SQL.
    commit(
        db,
        &isolate(),
        &id,
        vec![put(memory("t2", "harbor", &[], 2))],
    )
    .await?;
    let (store, state) = syncing_request(db, &cache);
    named_by(&store, &hash).await?;
    if !matches!(state.synced_memories(&id), Some(Some(_))) {
        return Err("a warm lookup did not sync the token's NPC".into());
    }
    let from_copy = seen(&store, &id).await?;
    let from_sql = seen(&request(db, None), &id).await?;
    if from_copy != from_sql {
        return Err(format!(
            "after the lookup's sync the copy read {from_copy:?}\nSQL read {from_sql:?}"
        ));
    }
    // Without the flag (several databases) the lookup reads only the token and its NPC.
    let state = Rc::new(RequestState::default());
    let plain = D1Store::new(db.clone(), Some(cache.clone()), state.clone());
    named_by(&plain, &hash).await?;
    if state.synced_memories(&id).is_some() {
        return Err("a lookup without the flag synced a copy".into());
    }
    // The token now names another NPC: the guess is not used.
    let moved = crate::d1::bind::statement(
        db,
        "UPDATE tokens SET npcid = ?1 WHERE token_hash = ?2",
        &[crate::d1::bind::text(&other), crate::d1::bind::text(&hash)],
    )
    .map_err(|e| e.to_string())?;
    crate::d1::bind::batch(db, vec![moved])
        .await
        .map_err(|e| e.to_string())?;
    let (store, state) = syncing_request(db, &cache);
    let named = named_by(&store, &hash).await?;
    if named != other || state.synced_memories(&id).is_some() {
        return Err(format!(
            "a moved token: named {named}, synced the old NPC: {}",
            state.synced_memories(&id).is_some()
        ));
    }
    Ok(())
}

fn isolate() -> Cache {
    Rc::new(RefCell::new(MemoryCache::new(
        crate::d1::memory_cache::CAPACITY,
    )))
}

pub async fn run(db: Db, p: &str) -> Vec<(String, CaseResult)> {
    vec![
        (
            "follows_other_isolates_writes".into(),
            follows_other_isolates_writes(&db, p).await,
        ),
        (
            "notices_a_recreated_npc".into(),
            notices_a_recreated_npc(&db, p).await,
        ),
        (
            "npcs_bigger_than_the_cache_are_read_in_sql".into(),
            npcs_bigger_than_the_cache_are_read_in_sql(&db, p).await,
        ),
        (
            "a_token_lookup_syncs_its_npcs_copy".into(),
            a_token_lookup_syncs_its_npcs_copy(&db, p).await,
        ),
    ]
}
