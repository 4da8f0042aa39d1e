//! Suite cases: the NPC record, PKG fields, entities, diary and conversation log.

use super::*;

pub(super) async fn npc_round_trip_and_versions(store: &dyn Store, p: &str) -> CaseResult {
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

pub(super) async fn expected_version_conflict_applies_nothing(
    store: &dyn Store,
    p: &str,
) -> CaseResult {
    let id = format!("{p}conflict");
    create(store, &id).await?;
    let v = port!(store.npc(&id)).ok_or("missing")?.version;
    let mut stale = WriteBatch::expecting(v + 7);
    stale.push(Write::SetPkgField {
        key: "Hobbies".into(),
        value: PkgValue::List(vec!["Reading".into()]),
        source_turns: vec!["turn_1".into()],
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
        source_turns: Vec::new(),
    });
    port!(store.commit(&id, fresh));
    check!(
        port!(store.pkg(&id)).len() == 1,
        "matching version did not commit"
    );
    Ok(())
}

pub(super) async fn writes_need_an_npc(store: &dyn Store, p: &str) -> CaseResult {
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

pub(super) async fn pkg_fields_keep_their_order(store: &dyn Store, p: &str) -> CaseResult {
    let id = format!("{p}pkg");
    create(store, &id).await?;
    let set = |k: &str, v: PkgValue, links: &[&str]| Write::SetPkgField {
        key: k.into(),
        value: v,
        source_turns: links.iter().map(|l| l.to_string()).collect(),
    };
    write(
        store,
        &id,
        vec![
            set("Name", PkgValue::Text("A".into()), &["turn_1"]),
            set(
                "Hobbies",
                PkgValue::List(vec!["x".into(), "y".into()]),
                &["turn_2", "turn_3"],
            ),
        ],
    )
    .await?;
    write(
        store,
        &id,
        vec![
            set("Name", PkgValue::Text("B".into()), &[]),
            set("Job", PkgValue::Text("dev".into()), &["turn_9"]),
        ],
    )
    .await?;
    let pkg = port!(store.pkg(&id));
    let keys: Vec<&str> = pkg.iter().map(|f| f.key.as_str()).collect();
    check!(keys == ["Name", "Hobbies", "Job"], "order {keys:?}");
    check!(
        pkg[0].value == PkgValue::Text("B".into()),
        "Name not overwritten"
    );
    check!(
        pkg[1].value == PkgValue::List(vec!["x".into(), "y".into()]),
        "list changed"
    );
    // Links are stored with the value, in order, and replaced (here: cleared) with it.
    let links: Vec<&[String]> = pkg.iter().map(|f| f.source_turns.as_slice()).collect();
    check!(
        links
            == [
                &[][..],
                &["turn_2".to_string(), "turn_3".to_string()][..],
                &["turn_9".to_string()][..]
            ],
        "links {links:?}"
    );
    Ok(())
}

pub(super) async fn entities_put_and_delete(store: &dyn Store, p: &str) -> CaseResult {
    let id = format!("{p}rel");
    create(store, &id).await?;
    let e = |n: &str| Entity {
        name: n.into(),
        alias: vec!["a".into()],
        title: vec!["同学".into()],
        remark: "r".into(),
        source_turns: vec!["turn_4".into(), "turn_7".into()],
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
    // Rewritten without links: the links go too.
    let unlinked = Entity {
        source_turns: Vec::new(),
        ..e("Tom")
    };
    write(
        store,
        &id,
        vec![Write::PutEntity {
            id: "entity_002".into(),
            entity: unlinked.clone(),
        }],
    )
    .await?;
    let got = port!(store.entities(&id));
    check!(
        got == [("entity_002".to_string(), unlinked)],
        "entities {got:?}"
    );
    Ok(())
}

pub(super) async fn retrieval_view_matches_the_single_reads(
    store: &dyn Store,
    p: &str,
) -> CaseResult {
    let id = format!("{p}view");
    check!(
        port!(store.retrieval_view(&id)).is_none(),
        "a view of a missing NPC"
    );
    create(store, &id).await?;
    let fresh = port!(store.retrieval_view(&id)).ok_or("no view of a new NPC")?;
    check!(
        fresh.pkg.is_empty() && fresh.entities.is_empty() && fresh.dailies.is_empty(),
        "a new NPC's view {fresh:?}"
    );
    let pkg = |key: &str, value: &str| Write::SetPkgField {
        key: key.into(),
        value: PkgValue::Text(value.into()),
        source_turns: vec!["turn_1".into()],
    };
    let daily = |date: &str, summary: &str| Write::PutDaily {
        entry: DiaryEntry {
            date: date.into(),
            summary: summary.into(),
        },
    };
    let entity = Write::PutEntity {
        id: "entity_001".into(),
        entity: Entity {
            name: "小红".into(),
            alias: vec!["Red".into()],
            title: Vec::new(),
            remark: String::new(),
            source_turns: vec!["turn_2".into()],
        },
    };
    write(
        store,
        &id,
        vec![
            pkg("Name", "A"),
            entity,
            daily("2026-04-08", "b"),
            daily("2026-04-07", "a"),
            Write::SetPrior {
                prior: "long ago".into(),
            },
        ],
    )
    .await?;
    // Another NPC's profile never shows in this one's view.
    let other = format!("{p}view_other");
    create(store, &other).await?;
    write(
        store,
        &other,
        vec![pkg("Job", "spy"), daily("2026-04-09", "x")],
    )
    .await?;

    let view = port!(store.retrieval_view(&id)).ok_or("view missing")?;
    check!(
        Some(&view.npc) == port!(store.npc(&id)).as_ref(),
        "record {:?}",
        view.npc
    );
    check!(view.pkg == port!(store.pkg(&id)), "pkg {:?}", view.pkg);
    check!(
        view.entities == port!(store.entities(&id)),
        "entities {:?}",
        view.entities
    );
    check!(
        view.dailies == port!(store.diary(&id)).1,
        "dailies {:?}",
        view.dailies
    );
    let keys: Vec<&str> = view.pkg.iter().map(|f| f.key.as_str()).collect();
    let dates: Vec<&str> = view.dailies.iter().map(|d| d.date.as_str()).collect();
    check!(
        keys == ["Name"] && view.entities.len() == 1 && dates == ["2026-04-07", "2026-04-08"],
        "view {view:?}"
    );

    // A write lands in the next view, whatever the backend read before.
    write(
        store,
        &id,
        vec![
            pkg("Job", "dev"),
            Write::DeleteDaily {
                date: "2026-04-07".into(),
            },
        ],
    )
    .await?;
    let after = port!(store.retrieval_view(&id)).ok_or("view missing after a write")?;
    let keys: Vec<&str> = after.pkg.iter().map(|f| f.key.as_str()).collect();
    check!(
        keys == ["Name", "Job"] && after.dailies.len() == 1 && after.npc.version > view.npc.version,
        "view after a write {after:?}"
    );
    Ok(())
}

pub(super) async fn diary_dailies_and_prior(store: &dyn Store, p: &str) -> CaseResult {
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

pub(super) async fn restored_turns_keep_their_seq(store: &dyn Store, p: &str) -> CaseResult {
    let id = format!("{p}turns");
    create(store, &id).await?;
    check!(port!(store.last_seq(&id)) == 0, "empty log has a seq");
    write(
        store,
        &id,
        vec![
            Write::PutTurn {
                turn: turn(1, Some("s1"), Some(0), "你好"),
            },
            Write::PutTurn {
                turn: turn(2, Some("s1"), Some(1), "hello"),
            },
            Write::PutTurn {
                turn: turn(3, None, None, "no session"),
            },
        ],
    )
    .await?;
    // The same (session, index) again is ignored.
    write(
        store,
        &id,
        vec![Write::PutTurn {
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
    // By id: in seq order, unknown ids skipped, never another NPC's entry of the same id;
    // more ids than one statement binds.
    let other = format!("{p}turns-other");
    create(store, &other).await?;
    write(
        store,
        &other,
        vec![Write::PutTurn {
            turn: turn(1, None, None, "another NPC's"),
        }],
    )
    .await?;
    let mut ids: Vec<String> = (100..250).map(|i| format!("turn_{i}")).collect();
    ids.extend(["turn_3".to_string(), "turn_1".to_string()]);
    let found = port!(store.turns_by_id(&id, &ids));
    let got: Vec<(u64, &str)> = found.iter().map(|t| (t.seq, t.content.as_str())).collect();
    check!(
        got == [(1, "你好"), (3, "no session")],
        "turns_by_id {got:?}"
    );
    check!(
        port!(store.turns_by_id(&id, &[])).is_empty(),
        "no ids, no turns"
    );
    Ok(())
}
