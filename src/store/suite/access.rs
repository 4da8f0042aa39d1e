//! Suite cases: tokens, leases, meta, NPC deletion, isolation between NPCs, listing.

use super::*;

pub(super) async fn tokens_by_hash(store: &dyn Store, p: &str) -> CaseResult {
    let id = format!("{p}tok");
    create(store, &id).await?;
    let rec = TokenRecord {
        token_id: "tok_1".into(),
        npcid: id.clone(),
        token_hash: format!("{p}hash1"),
        created_at: Timestamp(T0),
        expires_at: None,
        scopes: vec![Scope::Read, Scope::Write],
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

pub(super) async fn lease_excludes_others_until_it_lapses(
    store: &dyn Store,
    p: &str,
) -> CaseResult {
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

pub(super) async fn meta_values(store: &dyn Store, p: &str) -> CaseResult {
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

pub(super) async fn delete_npc_removes_everything_of_it_only(
    store: &dyn Store,
    p: &str,
) -> CaseResult {
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
                    source_turns: vec!["turn_1".into()],
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
                Write::PutTurn {
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
                        scopes: vec![Scope::Retrieval],
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
                collections: vec![],
                max_df: None,
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
                collections: vec![],
                max_df: None,
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

pub(super) async fn reads_are_scoped_by_npc(store: &dyn Store, p: &str) -> CaseResult {
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
            collections: vec![],
            max_df: None,
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

pub(super) async fn list_npcs_pages_in_order(store: &dyn Store, p: &str) -> CaseResult {
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
