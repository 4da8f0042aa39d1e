//! Suite cases: memories (filters, paging, reinforcement) and lexical search.

use super::*;
use crate::sensitive::Category;

pub(super) async fn memories_filter_page_and_touch(store: &dyn Store, p: &str) -> CaseResult {
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
    // Conflict resolution's read: live, of the kind asked, in the order asked.
    let every: Vec<String> = ["c1", "m3", "m1", "nope", "m2"].map(String::from).into();
    for (kind, want) in [
        ((Collection::Memory, MemoryType::Profile), vec!["m2"]),
        ((Collection::Memory, MemoryType::Preference), vec!["m3"]),
        ((Collection::Content, MemoryType::History), vec!["c1"]),
        ((Collection::Memory, MemoryType::History), vec![]),
    ] {
        let got = ids(port!(store.live_memories_by_id(&id, &every, kind)));
        check!(got == want, "live of {kind:?}: {got:?}");
    }
    let elsewhere = ids(port!(store.live_memories_by_id(
        &format!("{p}nobody"),
        &every,
        (Collection::Memory, MemoryType::Profile)
    )));
    check!(elsewhere.is_empty(), "another NPC's: {elsewhere:?}");
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
    // Sensitivity and its category are stored, and a rewrite replaces them.
    let mut secret = memory("m5", "用户有乙肝", MemoryType::Profile, Collection::Memory);
    secret.sensitive = true;
    secret.sensitive_category = Some(Category::Health);
    for want in [Some(Category::Health), None] {
        secret.sensitive_category = want;
        write(
            store,
            &id,
            vec![Write::PutMemory {
                memory: secret.clone(),
            }],
        )
        .await?;
        let back = port!(store.memories_by_id(&id, &["m5".into()]))
            .pop()
            .ok_or("m5 gone")?;
        check!(
            back.sensitive && back.sensitive_category == want,
            "sensitivity {:?} / {:?}, want true / {want:?}",
            back.sensitive,
            back.sensitive_category
        );
    }
    // A pin is stored, and a rewrite replaces it.
    for want in [true, false] {
        let pinned = Memory {
            pinned: want,
            ..memory(
                "m6",
                "用户的狗叫旺财",
                MemoryType::History,
                Collection::Memory,
            )
        };
        write(store, &id, vec![Write::PutMemory { memory: pinned }]).await?;
        let back = port!(store.memories_by_id(&id, &["m6".into()]))
            .pop()
            .ok_or("m6 gone")?;
        check!(back.pinned == want, "pinned {} want {want}", back.pinned);
    }
    write(store, &id, vec![Write::DeleteMemory { id: "m3".into() }]).await?;
    check!(
        port!(store.memories_by_id(&id, &["m3".into()])).is_empty(),
        "deleted memory still there"
    );
    Ok(())
}

/// A superseded memory is never a search hit, however well it matches: a routine's past days
/// (each superseded by the next) would crowd the live memories out of a search's top. It
/// still counts in the corpus statistics, as every backend keeps it in its index.
pub(super) async fn lexical_search_skips_superseded(store: &dyn Store, p: &str) -> CaseResult {
    use crate::retrieval::tokenize::tokenize_query;
    let id = format!("{p}lexsup");
    create(store, &id).await?;
    let days = 12;
    let mut writes = Vec::new();
    for day in 0..days {
        let mut m = memory(
            &format!("day{day:02}"),
            &format!("We had a long budget meeting on 2025-06-{:02}", day + 1),
            MemoryType::History,
            Collection::Memory,
        );
        // Each day superseded by the next; the last one live.
        if day + 1 < days {
            m.superseded_by = Some(format!("day{:02}", day + 1));
        }
        writes.push(Write::PutMemory { memory: m });
    }
    let other = memory(
        "hiring",
        "A budget meeting about hiring",
        MemoryType::History,
        Collection::Memory,
    );
    writes.push(Write::PutMemory { memory: other });
    write(store, &id, writes).await?;
    let query = LexicalQuery {
        terms: tokenize_query("long budget meeting"),
        collections: vec![Collection::Memory],
        max_df: None,
    };
    let mut hits: Vec<String> = port!(store.lexical_search(&id, &query, 5))
        .into_iter()
        .map(|(id, _)| id)
        .collect();
    hits.sort();
    check!(
        hits == [format!("day{:02}", days - 1), "hiring".into()],
        "hits {hits:?}, want the live day and the other meeting"
    );
    // A memory superseded by a later write leaves the hits too; the statistics keep it.
    let mut last = memory(
        "hiring",
        "A budget meeting about hiring",
        MemoryType::History,
        Collection::Memory,
    );
    last.superseded_by = Some(format!("day{:02}", days - 1));
    write(store, &id, vec![Write::PutMemory { memory: last }]).await?;
    let hits = port!(store.lexical_search(&id, &query, 5));
    check!(
        hits.iter().map(|(id, _)| id.clone()).collect::<Vec<_>>()
            == [format!("day{:02}", days - 1)],
        "after a supersede: {hits:?}"
    );
    // Live again (what deleting its successor does): a hit again.
    write(
        store,
        &id,
        vec![Write::PutMemory {
            memory: memory(
                "hiring",
                "A budget meeting about hiring",
                MemoryType::History,
                Collection::Memory,
            ),
        }],
    )
    .await?;
    let hits = port!(store.lexical_search(&id, &query, 5));
    check!(
        hits.iter().any(|(id, _)| id == "hiring"),
        "live again, not found: {hits:?}"
    );
    let stats = port!(store.term_stats(&id, &tokenize_query("budget")));
    check!(
        stats.docs == days + 1 && stats.df == vec![days + 1],
        "statistics count every memory: {stats:?}"
    );
    Ok(())
}

pub(super) async fn lexical_search_and_stats(store: &dyn Store, p: &str) -> CaseResult {
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
        max_df: None,
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
    // Rewriting a memory: new text replaces the old in the index; new counters alone keep it.
    let mut rewritten = memory(
        "a",
        "用户对芒果过敏",
        MemoryType::Constraint,
        Collection::Memory,
    );
    rewritten.keywords = vec!["mango".into()];
    write(
        store,
        &id,
        vec![Write::PutMemory {
            memory: rewritten.clone(),
        }],
    )
    .await?;
    let old_text = port!(store.lexical_search(&id, &q("peanut", vec![]), 10));
    check!(
        old_text.is_empty(),
        "the old keyword still finds {old_text:?}"
    );
    rewritten.access_count = 3;
    write(store, &id, vec![Write::PutMemory { memory: rewritten }]).await?;
    let new_text = port!(store.lexical_search(&id, &q("mango", vec![]), 10));
    check!(
        new_text.first().map(|h| h.0.as_str()) == Some("a"),
        "the new keyword, after a counters-only rewrite {new_text:?}"
    );
    let peanut = port!(store.term_stats(&id, &tokenize_query("peanut")));
    check!(
        peanut.df == vec![0],
        "df of a removed keyword {:?}",
        peanut.df
    );
    write(store, &id, vec![Write::DeleteMemory { id: "b".into() }]).await?;
    let after = port!(store.lexical_search(&id, &q("books", vec![]), 10));
    check!(
        after.iter().all(|h| h.0 != "b"),
        "deleted memory still searchable"
    );
    Ok(())
}

/// Conflict resolution's exact duplicates by text, for a backend that indexes texts: every
/// live memory of the kind whose summary normalises alike, and still after the writes that
/// move, rewrite, supersede and delete memories once the index exists.
pub(super) async fn exact_texts_follow_writes(store: &dyn Store, p: &str) -> CaseResult {
    use crate::memory::conflict::normalize_text;
    let id = format!("{p}texts");
    create(store, &id).await?;
    let profile = (Collection::Memory, MemoryType::Profile);
    let preference = (Collection::Memory, MemoryType::Preference);
    let put =
        |id: &str, summary: &str, (collection, t): (Collection, MemoryType)| Write::PutMemory {
            memory: memory(id, summary, t, collection),
        };
    write(
        store,
        &id,
        vec![
            put("m1", "User lives in Berlin", profile),
            put("m2", "用户喜欢喝茶。", preference),
            put("m3", "user lives in berlin!", profile),
            put("m4", "User lives in Berlin", preference),
            put(
                "c1",
                "User lives in Berlin",
                (Collection::Content, MemoryType::History),
            ),
        ],
    )
    .await?;
    // The ids of the live memories of `kind` with `text`'s normalised text (None: no index).
    let exact = |npcid: String, kind, text: &'static str| async move {
        let normalized = normalize_text(text);
        let found = port!(store.live_memories_with_text(&npcid, kind, &normalized));
        let Some(found) = found else {
            return Ok::<_, String>(None);
        };
        // An answer may hold other texts; it never holds another kind or a replaced memory.
        check!(
            found.iter().all(|m| is_live_of_kind(m, kind)),
            "{text}: {found:?}"
        );
        let mut ids: Vec<String> = found
            .into_iter()
            .filter(|m| normalize_text(&m.summary) == normalized)
            .map(|m| m.id)
            .collect();
        ids.sort();
        Ok(Some(ids))
    };
    let Some(berlin) = exact(id.clone(), profile, "User lives in Berlin.").await? else {
        return Ok(()); // This backend finds duplicates by similarity alone.
    };
    check!(berlin == ["m1", "m3"], "Berlin profiles {berlin:?}");
    let elsewhere = exact(format!("{p}nobody"), profile, "User lives in Berlin").await?;
    check!(
        elsewhere.as_ref().is_none_or(Vec::is_empty),
        "another NPC's: {elsewhere:?}"
    );
    let mut replaced = memory(
        "m6",
        "User lives in Berlin",
        MemoryType::Profile,
        Collection::Memory,
    );
    replaced.superseded_by = Some("m5".into());
    write(
        store,
        &id,
        vec![
            Write::DeleteMemory { id: "m1".into() },
            put("m3", "User lives in Bern", profile),
            put("m5", "USER lives in Berlin", profile),
            Write::PutMemory { memory: replaced },
        ],
    )
    .await?;
    for (kind, text, want) in [
        (profile, "user lives in berlin", vec!["m5"]),
        (profile, "User lives in Bern.", vec!["m3"]),
        (preference, "用户喜欢喝茶", vec!["m2"]),
        (preference, "User lives in Berlin", vec!["m4"]),
    ] {
        let got = exact(id.clone(), kind, text).await?;
        check!(
            got.as_ref().is_some_and(|g| *g == want),
            "{text} ({kind:?}): {got:?}, want {want:?}"
        );
    }
    Ok(())
}
