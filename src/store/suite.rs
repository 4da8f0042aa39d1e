//! The backend test suite: one set of cases every [`Store`] implementation runs unchanged
//! (the in-memory store here, D1 inside the Worker, the persisted store of the npm package).
//!
//! Cases run against a store that may already hold other data: each case works on its own
//! NPCs, named from a per-run prefix, and checks that other NPCs are never touched.

use crate::conversation::{EntryKind, Role, Turn};
use crate::diary::DiaryEntry;
use crate::error::PortError;
use crate::memory::{Collection, Memory, MemoryType};
use crate::npc::Npc;
use crate::pkg::PkgValue;
use crate::ports::*;
use crate::relationship::Entity;
use crate::time::Timestamp;

type CaseResult = Result<(), String>;

macro_rules! check {
    ($cond:expr, $($msg:tt)+) => {
        let ok: bool = $cond;
        if !ok {
            return Err(format!($($msg)+));
        }
    };
}

macro_rules! port {
    ($e:expr) => {
        $e.await.map_err(|e| format!("{}: {e}", stringify!($e)))?
    };
}

const T0: i64 = 1_775_606_400_000; // 2026-04-08T00:00:00Z

fn npc(npcid: &str) -> Npc {
    Npc::new(npcid, Timestamp(T0))
}

fn memory(id: &str, summary: &str, t: MemoryType, collection: Collection) -> Memory {
    Memory {
        id: id.to_string(),
        memory_type: t,
        summary: summary.to_string(),
        keywords: vec![],
        confidence: 0.9,
        importance: 0.5,
        source: "test".into(),
        created_at: Timestamp(T0),
        updated_at: Timestamp(T0),
        last_accessed_at: Timestamp(T0),
        access_count: 0,
        encounter_count: 1,
        event_time: None,
        expires_at: None,
        sensitive: false,
        superseded_by: None,
        collection,
        emotion: None,
        context: String::new(),
    }
}

fn turn(seq: u64, session: Option<&str>, index: Option<u32>, content: &str) -> Turn {
    Turn {
        id: format!("turn_{seq}"),
        seq,
        session_id: session.map(str::to_string),
        turn_index: index,
        kind: EntryKind::Turn,
        role: Some(Role::User),
        content: content.to_string(),
        ts: Timestamp(T0 + seq as i64),
        emotion: None,
    }
}

async fn create(store: &dyn Store, npcid: &str) -> CaseResult {
    let mut b = WriteBatch::new();
    b.push(Write::PutNpc(npc(npcid)));
    port!(store.commit(npcid, b));
    Ok(())
}

async fn write(store: &dyn Store, npcid: &str, writes: Vec<Write>) -> CaseResult {
    port!(store.commit(
        npcid,
        WriteBatch {
            writes,
            expect_version: None
        }
    ));
    Ok(())
}

async fn npc_round_trip_and_versions(store: &dyn Store, p: &str) -> CaseResult {
    let id = format!("{p}npc");
    check!(port!(store.npc(&id)).is_none(), "fresh NPC exists");
    create(store, &id).await?;
    let first = port!(store.npc(&id)).ok_or("created NPC missing")?;
    check!(
        first.npcid == id && first.settings.diary_window == 7,
        "record differs: {first:?}"
    );
    let mut changed = first.clone();
    changed.display_name = "灵绯".into();
    changed.version = 999; // the store owns the version
    write(store, &id, vec![Write::PutNpc(changed)]).await?;
    let second = port!(store.npc(&id)).ok_or("NPC missing")?;
    check!(second.display_name == "灵绯", "display_name not stored");
    check!(
        second.version > first.version,
        "version did not increase: {} → {}",
        first.version,
        second.version
    );
    Ok(())
}

async fn expected_version_conflict_applies_nothing(store: &dyn Store, p: &str) -> CaseResult {
    let id = format!("{p}conflict");
    create(store, &id).await?;
    let v = port!(store.npc(&id)).ok_or("missing")?.version;
    let mut stale = WriteBatch::expecting(v + 7);
    stale.push(Write::SetPkgField {
        key: "Hobbies".into(),
        value: PkgValue::List(vec!["Reading".into()]),
    });
    stale.push(Write::SetPrior {
        prior: "never".into(),
    });
    match store.commit(&id, stale).await {
        Err(PortError::Conflict(_)) => {}
        other => return Err(format!("stale version gave {other:?}, want Conflict")),
    }
    check!(
        port!(store.pkg(&id)).is_empty(),
        "a write of the failed batch landed"
    );
    check!(
        port!(store.diary(&id)).0.is_empty(),
        "prior of the failed batch landed"
    );
    let mut fresh = WriteBatch::expecting(v);
    fresh.push(Write::SetPkgField {
        key: "Name".into(),
        value: PkgValue::Text("Xiao Ming".into()),
    });
    port!(store.commit(&id, fresh));
    check!(
        port!(store.pkg(&id)).len() == 1,
        "matching version did not commit"
    );
    Ok(())
}

async fn writes_need_an_npc(store: &dyn Store, p: &str) -> CaseResult {
    let id = format!("{p}ghost");
    let r = store
        .commit(
            &id,
            WriteBatch {
                writes: vec![Write::SetPrior { prior: "x".into() }],
                expect_version: None,
            },
        )
        .await;
    check!(r.is_err(), "a write to a missing NPC succeeded");
    check!(port!(store.npc(&id)).is_none(), "a missing NPC appeared");
    Ok(())
}

async fn pkg_fields_keep_their_order(store: &dyn Store, p: &str) -> CaseResult {
    let id = format!("{p}pkg");
    create(store, &id).await?;
    let set = |k: &str, v: PkgValue| Write::SetPkgField {
        key: k.into(),
        value: v,
    };
    write(
        store,
        &id,
        vec![
            set("Name", PkgValue::Text("A".into())),
            set("Hobbies", PkgValue::List(vec!["x".into(), "y".into()])),
        ],
    )
    .await?;
    write(
        store,
        &id,
        vec![
            set("Name", PkgValue::Text("B".into())),
            set("Job", PkgValue::Text("dev".into())),
        ],
    )
    .await?;
    let pkg = port!(store.pkg(&id));
    let keys: Vec<&str> = pkg.iter().map(|(k, _)| k.as_str()).collect();
    check!(keys == ["Name", "Hobbies", "Job"], "order {keys:?}");
    check!(
        pkg[0].1 == PkgValue::Text("B".into()),
        "Name not overwritten"
    );
    check!(
        pkg[1].1 == PkgValue::List(vec!["x".into(), "y".into()]),
        "list changed"
    );
    Ok(())
}

async fn entities_put_and_delete(store: &dyn Store, p: &str) -> CaseResult {
    let id = format!("{p}rel");
    create(store, &id).await?;
    let e = |n: &str| Entity {
        name: n.into(),
        alias: vec!["a".into()],
        title: vec!["同学".into()],
        remark: "r".into(),
    };
    write(
        store,
        &id,
        vec![
            Write::PutEntity {
                id: "entity_001".into(),
                entity: e("小红"),
            },
            Write::PutEntity {
                id: "entity_002".into(),
                entity: e("Tom"),
            },
        ],
    )
    .await?;
    write(
        store,
        &id,
        vec![Write::DeleteEntity {
            id: "entity_001".into(),
        }],
    )
    .await?;
    let got = port!(store.entities(&id));
    check!(
        got.len() == 1 && got[0].0 == "entity_002" && got[0].1 == e("Tom"),
        "entities {got:?}"
    );
    Ok(())
}

async fn diary_dailies_and_prior(store: &dyn Store, p: &str) -> CaseResult {
    let id = format!("{p}diary");
    create(store, &id).await?;
    let d = |date: &str, s: &str| Write::PutDaily {
        entry: DiaryEntry {
            date: date.into(),
            summary: s.into(),
        },
    };
    write(
        store,
        &id,
        vec![
            d("2026-04-08", "b"),
            d("2026-04-07", "a"),
            Write::SetPrior {
                prior: "long ago".into(),
            },
        ],
    )
    .await?;
    write(
        store,
        &id,
        vec![
            d("2026-04-08", "b2"),
            Write::DeleteDaily {
                date: "2026-04-07".into(),
            },
        ],
    )
    .await?;
    let (prior, dailies) = port!(store.diary(&id));
    check!(prior == "long ago", "prior {prior:?}");
    check!(
        dailies
            == vec![DiaryEntry {
                date: "2026-04-08".into(),
                summary: "b2".into()
            }],
        "dailies {dailies:?}"
    );
    Ok(())
}

async fn turns_are_ordered_and_idempotent(store: &dyn Store, p: &str) -> CaseResult {
    let id = format!("{p}turns");
    create(store, &id).await?;
    check!(port!(store.last_seq(&id)) == 0, "empty log has a seq");
    write(
        store,
        &id,
        vec![
            Write::AppendTurn {
                turn: turn(1, Some("s1"), Some(0), "你好"),
            },
            Write::AppendTurn {
                turn: turn(2, Some("s1"), Some(1), "hello"),
            },
            Write::AppendTurn {
                turn: turn(3, None, None, "no session"),
            },
        ],
    )
    .await?;
    // The same (session, index) again is ignored.
    write(
        store,
        &id,
        vec![Write::AppendTurn {
            turn: turn(4, Some("s1"), Some(1), "hello again"),
        }],
    )
    .await?;
    let all = port!(store.turns(&id, 0, 100));
    let seqs: Vec<u64> = all.iter().map(|t| t.seq).collect();
    check!(seqs == [1, 2, 3], "seqs {seqs:?}");
    check!(all[0].content == "你好", "content changed");
    check!(
        port!(store.turns(&id, 1, 1))
            .iter()
            .map(|t| t.seq)
            .collect::<Vec<_>>()
            == [2],
        "after/limit wrong"
    );
    check!(port!(store.last_seq(&id)) == 3, "last_seq wrong");
    let mut idx = port!(store.session_indexes(&id, "s1"));
    idx.sort();
    check!(idx == [0, 1], "session indexes {idx:?}");
    Ok(())
}

async fn memories_filter_page_and_touch(store: &dyn Store, p: &str) -> CaseResult {
    let id = format!("{p}mem");
    create(store, &id).await?;
    let mut old = memory(
        "m1",
        "User lives in Berlin",
        MemoryType::Profile,
        Collection::Memory,
    );
    old.superseded_by = Some("m2".into());
    write(
        store,
        &id,
        vec![
            Write::PutMemory { memory: old },
            Write::PutMemory {
                memory: memory(
                    "m2",
                    "User lives in Bangkok",
                    MemoryType::Profile,
                    Collection::Memory,
                ),
            },
            Write::PutMemory {
                memory: memory(
                    "m3",
                    "喜欢读三体",
                    MemoryType::Preference,
                    Collection::Memory,
                ),
            },
            Write::PutMemory {
                memory: memory("c1", "User: hi", MemoryType::History, Collection::Content),
            },
        ],
    )
    .await?;
    let ids = |v: Vec<Memory>| v.into_iter().map(|m| m.id).collect::<Vec<_>>();
    let live = ids(port!(store.memories(
        &id,
        &MemoryFilter {
            collection: Some(Collection::Memory),
            ..Default::default()
        }
    )));
    check!(live == ["m2", "m3"], "live memories {live:?}");
    let all = ids(port!(store.memories(
        &id,
        &MemoryFilter {
            include_superseded: true,
            ..Default::default()
        }
    )));
    check!(all == ["m1", "m2", "m3", "c1"], "all {all:?}");
    let replaced = ids(port!(store.memories(
        &id,
        &MemoryFilter {
            superseded_by: Some("m2".into()),
            ..Default::default()
        }
    )));
    check!(replaced == ["m1"], "superseded by m2: {replaced:?}");
    let typed = ids(port!(store.memories(
        &id,
        &MemoryFilter {
            types: vec![MemoryType::Preference],
            ..Default::default()
        }
    )));
    check!(typed == ["m3"], "typed {typed:?}");
    let page = ids(port!(store.memories(
        &id,
        &MemoryFilter {
            include_superseded: true,
            offset: 1,
            limit: Some(2),
            ..Default::default()
        }
    )));
    check!(page == ["m2", "m3"], "page {page:?}");
    let by_id = ids(port!(
        store.memories_by_id(&id, &["m3".into(), "nope".into(), "m1".into()])
    ));
    check!(
        by_id.len() == 2 && by_id.contains(&"m3".to_string()),
        "by id {by_id:?}"
    );
    let later = Timestamp(T0 + 3_600_000);
    write(
        store,
        &id,
        vec![Write::Touch {
            ids: vec!["m3".into()],
            at: later,
        }],
    )
    .await?;
    write(
        store,
        &id,
        vec![Write::Touch {
            ids: vec!["m3".into()],
            at: later,
        }],
    )
    .await?;
    let m3 = port!(store.memories_by_id(&id, &["m3".into()]))
        .pop()
        .ok_or("m3 gone")?;
    check!(
        m3.access_count == 2 && m3.last_accessed_at == later,
        "touch: {m3:?}"
    );
    let want = 0.5 + 0.5 * 0.05;
    let want = want + (1.0 - want) * 0.05;
    check!(
        (m3.importance - want).abs() < 1e-9,
        "importance {} want {want}",
        m3.importance
    );
    write(store, &id, vec![Write::DeleteMemory { id: "m3".into() }]).await?;
    check!(
        port!(store.memories_by_id(&id, &["m3".into()])).is_empty(),
        "deleted memory still there"
    );
    Ok(())
}

async fn lexical_search_and_stats(store: &dyn Store, p: &str) -> CaseResult {
    use crate::retrieval::tokenize::tokenize_query;
    let id = format!("{p}lex");
    create(store, &id).await?;
    let mut allergy = memory(
        "a",
        "用户对花生过敏",
        MemoryType::Constraint,
        Collection::Memory,
    );
    allergy.keywords = vec!["过敏".into(), "peanut".into()];
    write(
        store,
        &id,
        vec![
            Write::PutMemory { memory: allergy },
            Write::PutMemory {
                memory: memory(
                    "b",
                    "The user loves reading science fiction books",
                    MemoryType::Preference,
                    Collection::Memory,
                ),
            },
            Write::PutMemory {
                memory: memory(
                    "c",
                    "User: I read a book yesterday",
                    MemoryType::History,
                    Collection::Content,
                ),
            },
        ],
    )
    .await?;
    let q = |text: &str, cols: Vec<Collection>| LexicalQuery {
        terms: tokenize_query(text),
        collections: cols,
    };
    let zh = port!(store.lexical_search(&id, &q("我对什么过敏", vec![]), 10));
    check!(
        zh.first().map(|h| h.0.as_str()) == Some("a"),
        "Chinese search {zh:?}"
    );
    let en = port!(store.lexical_search(&id, &q("books", vec![Collection::Memory]), 10));
    check!(
        en.iter().map(|h| h.0.as_str()).collect::<Vec<_>>() == ["b"],
        "collection filter {en:?}"
    );
    let kw = port!(store.lexical_search(&id, &q("peanut", vec![]), 10));
    check!(
        kw.first().map(|h| h.0.as_str()) == Some("a"),
        "keyword field not searched {kw:?}"
    );
    let terms = tokenize_query("book");
    let stats = port!(store.term_stats(&id, &terms));
    check!(stats.docs == 3 && stats.avg_len > 0.0, "stats {stats:?}");
    check!(stats.df == vec![2], "df of 'book' {:?}", stats.df);
    // A record's context (neighbouring turns) is searchable, at a lower weight.
    let mut chunk = memory(
        "d",
        "User: sounds great",
        MemoryType::History,
        Collection::Content,
    );
    chunk.context = "Assistant: shall we visit the aquarium on Sunday".into();
    write(store, &id, vec![Write::PutMemory { memory: chunk }]).await?;
    let ctx = port!(store.lexical_search(&id, &q("aquarium", vec![]), 10));
    check!(
        ctx.iter().map(|h| h.0.as_str()).collect::<Vec<_>>() == ["d"],
        "context not searched {ctx:?}"
    );
    let aquarium = port!(store.term_stats(&id, &tokenize_query("aquarium")));
    check!(
        aquarium.df == vec![1],
        "a term only in a context has df {:?}, want [1]",
        aquarium.df
    );
    write(store, &id, vec![Write::DeleteMemory { id: "b".into() }]).await?;
    let after = port!(store.lexical_search(&id, &q("books", vec![]), 10));
    check!(
        after.iter().all(|h| h.0 != "b"),
        "deleted memory still searchable"
    );
    Ok(())
}

async fn tokens_by_hash(store: &dyn Store, p: &str) -> CaseResult {
    let id = format!("{p}tok");
    create(store, &id).await?;
    let rec = TokenRecord {
        token_id: "tok_1".into(),
        npcid: id.clone(),
        token_hash: format!("{p}hash1"),
        created_at: Timestamp(T0),
        expires_at: None,
    };
    write(store, &id, vec![Write::PutToken { token: rec.clone() }]).await?;
    check!(
        port!(store.token_by_hash(&rec.token_hash)) == Some(rec.clone()),
        "token lookup"
    );
    check!(port!(store.tokens(&id)) == vec![rec.clone()], "token list");
    write(
        store,
        &id,
        vec![Write::DeleteToken {
            token_id: "tok_1".into(),
        }],
    )
    .await?;
    check!(
        port!(store.token_by_hash(&rec.token_hash)).is_none(),
        "revoked token found"
    );
    Ok(())
}

async fn lease_excludes_others_until_it_lapses(store: &dyn Store, p: &str) -> CaseResult {
    let id = format!("{p}lease");
    create(store, &id).await?;
    let now = Timestamp(T0);
    let until = Timestamp(T0 + 60_000);
    check!(
        port!(store.acquire_lease(&id, "a", now, until)),
        "first lease refused"
    );
    check!(
        !port!(store.acquire_lease(&id, "b", now, until)),
        "second holder got the lease"
    );
    check!(
        port!(store.acquire_lease(&id, "b", Timestamp(T0 + 60_001), Timestamp(T0 + 120_000))),
        "lapsed lease not taken over"
    );
    port!(store.release_lease(&id, "a")); // not the holder any more: no effect
    check!(
        !port!(store.acquire_lease(&id, "c", Timestamp(T0 + 60_002), until)),
        "release by a non-holder freed the lease"
    );
    port!(store.release_lease(&id, "b"));
    check!(
        port!(store.acquire_lease(&id, "c", Timestamp(T0 + 60_003), until)),
        "released lease not free"
    );
    Ok(())
}

async fn meta_values(store: &dyn Store, p: &str) -> CaseResult {
    let key = format!("{p}embedder");
    check!(port!(store.meta(&key)).is_none(), "fresh meta set");
    port!(store.set_meta(&key, "hippo-builtin:256"));
    port!(store.set_meta(&key, "hippo-builtin:512"));
    check!(
        port!(store.meta(&key)).as_deref() == Some("hippo-builtin:512"),
        "meta value"
    );
    Ok(())
}

async fn delete_npc_removes_everything_of_it_only(store: &dyn Store, p: &str) -> CaseResult {
    let a = format!("{p}del-a");
    let b = format!("{p}del-b");
    for id in [&a, &b] {
        create(store, id).await?;
        write(
            store,
            id,
            vec![
                Write::SetPkgField {
                    key: "Name".into(),
                    value: PkgValue::Text(id.clone()),
                },
                Write::PutEntity {
                    id: "entity_001".into(),
                    entity: Entity {
                        name: "x".into(),
                        ..Default::default()
                    },
                },
                Write::PutDaily {
                    entry: DiaryEntry {
                        date: "2026-04-08".into(),
                        summary: "s".into(),
                    },
                },
                Write::AppendTurn {
                    turn: turn(1, None, None, "hi"),
                },
                Write::PutMemory {
                    memory: memory("m", "shared words", MemoryType::Other, Collection::Memory),
                },
                Write::PutToken {
                    token: TokenRecord {
                        token_id: "t".into(),
                        npcid: id.clone(),
                        token_hash: format!("{id}-h"),
                        created_at: Timestamp(T0),
                        expires_at: None,
                    },
                },
            ],
        )
        .await?;
    }
    write(store, &a, vec![Write::DeleteNpc]).await?;
    check!(port!(store.npc(&a)).is_none(), "deleted NPC still there");
    check!(
        port!(store.pkg(&a)).is_empty() && port!(store.entities(&a)).is_empty(),
        "PKG or entities left"
    );
    check!(
        port!(store.diary(&a)).1.is_empty() && port!(store.turns(&a, 0, 10)).is_empty(),
        "diary or turns left"
    );
    check!(
        port!(store.memories(
            &a,
            &MemoryFilter {
                include_superseded: true,
                ..Default::default()
            }
        ))
        .is_empty(),
        "memories left"
    );
    check!(
        port!(store.token_by_hash(&format!("{a}-h"))).is_none(),
        "token left"
    );
    let terms = crate::retrieval::tokenize::tokenize_query("shared words");
    check!(
        port!(store.lexical_search(
            &a,
            &LexicalQuery {
                terms: terms.clone(),
                collections: vec![]
            },
            5
        ))
        .is_empty(),
        "lexical rows left"
    );
    // B is untouched.
    check!(
        port!(store.pkg(&b)).len() == 1
            && port!(store.memories_by_id(&b, &["m".into()])).len() == 1,
        "other NPC changed"
    );
    check!(
        port!(store.lexical_search(
            &b,
            &LexicalQuery {
                terms,
                collections: vec![]
            },
            5
        ))
        .len()
            == 1,
        "other NPC's index changed"
    );
    check!(
        port!(store.token_by_hash(&format!("{b}-h"))).is_some(),
        "other NPC's token removed"
    );
    // The id can be created afresh.
    create(store, &a).await?;
    check!(
        port!(store.pkg(&a)).is_empty(),
        "recreated NPC inherited data"
    );
    Ok(())
}

async fn reads_are_scoped_by_npc(store: &dyn Store, p: &str) -> CaseResult {
    let a = format!("{p}iso-a");
    let b = format!("{p}iso-b");
    create(store, &a).await?;
    create(store, &b).await?;
    write(
        store,
        &a,
        vec![Write::PutMemory {
            memory: memory(
                "same-id",
                "secret of A",
                MemoryType::Other,
                Collection::Memory,
            ),
        }],
    )
    .await?;
    write(
        store,
        &b,
        vec![Write::PutMemory {
            memory: memory(
                "same-id",
                "secret of B",
                MemoryType::Other,
                Collection::Memory,
            ),
        }],
    )
    .await?;
    let got = port!(store.memories_by_id(&b, &["same-id".into()]));
    check!(
        got.len() == 1 && got[0].summary == "secret of B",
        "B read {got:?}"
    );
    let terms = crate::retrieval::tokenize::tokenize_query("secret");
    let hits = port!(store.lexical_search(
        &a,
        &LexicalQuery {
            terms,
            collections: vec![]
        },
        10
    ));
    check!(hits.len() == 1, "A's search saw {hits:?}");
    check!(
        port!(store.memories_by_id(&a, &["same-id".into()]))[0].summary == "secret of A",
        "A's memory overwritten by B's"
    );
    Ok(())
}

async fn list_npcs_pages_in_order(store: &dyn Store, p: &str) -> CaseResult {
    let ids: Vec<String> = (0..5).map(|i| format!("{p}list-{i}")).collect();
    for id in ids.iter().rev() {
        create(store, id).await?;
    }
    let mut seen = Vec::new();
    let mut after: Option<String> = Some(format!("{p}list-"));
    loop {
        let page = port!(store.list_npcs(after.as_deref(), 2));
        let mine: Vec<String> = page
            .iter()
            .map(|n| n.npcid.clone())
            .filter(|n| n.starts_with(&format!("{p}list-")))
            .collect();
        if mine.is_empty() {
            break;
        }
        seen.extend(mine);
        after = page.last().map(|n| n.npcid.clone());
    }
    check!(seen == ids, "pages {seen:?}");
    Ok(())
}

/// Runs every case; returns each case's name and outcome. `prefix` keeps runs apart.
pub async fn run_store_suite(store: &dyn Store, prefix: &str) -> Vec<(String, CaseResult)> {
    let mut out = Vec::new();
    macro_rules! case {
        ($name:ident) => {
            out.push((stringify!($name).to_string(), $name(store, prefix).await));
        };
    }
    case!(npc_round_trip_and_versions);
    case!(expected_version_conflict_applies_nothing);
    case!(writes_need_an_npc);
    case!(pkg_fields_keep_their_order);
    case!(entities_put_and_delete);
    case!(diary_dailies_and_prior);
    case!(turns_are_ordered_and_idempotent);
    case!(memories_filter_page_and_touch);
    case!(lexical_search_and_stats);
    case!(tokens_by_hash);
    case!(lease_excludes_others_until_it_lapses);
    case!(meta_values);
    case!(delete_npc_removes_everything_of_it_only);
    case!(reads_are_scoped_by_npc);
    case!(list_npcs_pages_in_order);
    out
}

/// Panics with every failing case's message: for `#[test]` wrappers.
pub async fn assert_store_suite(store: &dyn Store, prefix: &str) {
    let failures: Vec<String> = run_store_suite(store, prefix)
        .await
        .into_iter()
        .filter_map(|(name, r)| r.err().map(|e| format!("{name}: {e}")))
        .collect();
    assert!(
        failures.is_empty(),
        "store suite failures:\n{}",
        failures.join("\n")
    );
}
