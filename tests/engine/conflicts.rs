//! Conflict resolution (SPEC §2.3): duplicates reinforce, new values supersede, and the look-ups
//! that find them in a large store decide as an exact scan would.

use super::*;

/// A word of three syllables, a different one for each `n` below 1,728 (made-up people and
/// places that no memory restates).
fn made_up_word(n: usize) -> String {
    const SYLLABLES: [&str; 12] = [
        "ka", "lo", "mi", "ru", "te", "zan", "po", "vek", "dis", "qua", "nor", "bel",
    ];
    [n % 12, n / 12 % 12, n / 144 % 12]
        .iter()
        .map(|&d| SYLLABLES[d])
        .collect()
}

/// Conflict resolution reads a partition of a large NPC's vectors and only the rarer words of
/// its lexical index (`VectorFilter::near`, `LexicalQuery::max_df`): buried under more
/// same-type memories than either reads whole, a restatement still reinforces and a new value
/// of a slot still supersedes, in both languages.
#[test]
fn conflicts_are_found_in_a_large_store() {
    let w = world();
    npc(&w, "big", json!({}));
    let stored = [
        "The user loves spicy hot pot",
        "用户喜欢吃辣的火锅",
        "User lives in Berlin",
        "用户住在北京",
    ];
    let kept = add(
        &w,
        "big",
        json!(stored
            .iter()
            .map(|s| json!({"summary": s, "type": "profile"}))
            .collect::<Vec<_>>()),
    );
    // More profile memories than the partition's and the lexical cut's thresholds, all with
    // "user" / "用户", each naming made-up people and places so that none restates another.
    let word = made_up_word;
    let hanzi = |n: usize| -> String {
        let table: Vec<char> = "山水花鸟鱼虫风雨雷电春夏秋冬日月星云江河湖海松竹梅兰菊桃李杏柳"
            .chars()
            .collect();
        [n % 31, n / 31 % 31, n / 961 % 31]
            .iter()
            .map(|&d| table[d])
            .collect()
    };
    for call in 0..12 {
        let filler: Vec<_> = (0..100)
            .map(|i| {
                let n = call * 100 + i;
                let summary = if n % 2 == 0 {
                    format!("The user met {} near {}", word(n), word(n * 7 + 577))
                } else {
                    format!("用户在{}遇见了{}", hanzi(n), hanzi(n * 7 + 333))
                };
                json!({"summary": summary, "type": "profile"})
            })
            .collect();
        add(&w, "big", json!(filler));
    }
    assert!(w.vectors.count("big") > 1000, "{}", w.vectors.count("big"));
    let cases = [
        ("The user really loves spicy hot pot.", "reinforced", 0),
        ("用户很喜欢吃辣的火锅", "reinforced", 1),
        ("user lives in berlin!", "reinforced", 2),
        ("User lives in Bangkok", "superseded", 2),
        ("用户住在上海", "superseded", 3),
    ];
    for (summary, action, old) in cases {
        let got = add(&w, "big", json!([{"summary": summary, "type": "profile"}]));
        let result = &got.results[0];
        assert_eq!(result.action, action, "{summary}");
        let old_id = kept.results[old].id.as_str();
        match action {
            "reinforced" => assert_eq!(result.id, old_id, "{summary}"),
            _ => assert_eq!(result.supersedes.as_deref(), Some(old_id), "{summary}"),
        }
    }
}

#[test]
fn the_store_text_index_changes_no_decision() {
    // The same calls through a store that finds exact repeats by text (the in-memory store)
    // and through one that keeps no text index (the similarity path alone): the same action
    // on the same memory for every new one.
    let indexed = world();
    let plain = world();
    let without_index = hippo::Hippo::new(Ports {
        store: Rc::new(TestStore::failing(plain.store.clone())),
        ..plain.hippo.ports().clone()
    });
    let calls: [&[&str]; 4] = [
        &[
            "The user likes green tea",
            "The user lives in Berlin",
            "用户最喜欢的饮料是咖啡",
            "The user has a dog named Max",
            "The user collects old maps",
        ],
        &[
            "the user likes GREEN tea!",
            "The user lives in Bern",
            "用户最喜欢的饮料是茶",
            "The user has a dog named Max",
            "The user plays chess on weekends",
            "The user likes green tea",
        ],
        &[
            "The user lives in Berlin",
            "The user likes green tea.",
            "用户最喜欢的饮料是茶。",
            "The user plays chess at weekends",
            "The user lives in Bern",
        ],
        // A repeat whose keywords make its vector unlike the stored one's: only its text
        // says it is the same memory.
        &[
            "The user collects old maps|kayak, harbour, lantern, violin, glacier, orchard, \
           pepper, quartz, saddle, tunnel, walrus, yodel, zephyr, bramble, cobalt, dynamo",
        ],
    ];
    // Each result as (action, which memory, which it supersedes), memories numbered in the
    // order they first appear (ids are random).
    let outcomes = |hippo: &hippo::Hippo| {
        run(hippo.upsert_npc("same", json(json!({"display_name": "灵绯", "pkg": {}})))).unwrap();
        let mut numbers: Vec<String> = Vec::new();
        let mut number = |id: &str| match numbers.iter().position(|n| n == id) {
            Some(at) => at,
            None => {
                numbers.push(id.to_string());
                numbers.len() - 1
            }
        };
        let mut out = Vec::new();
        for summaries in calls {
            let memories: Vec<_> = summaries
                .iter()
                .map(|s| {
                    let (summary, keywords) = s.split_once('|').unwrap_or((s, ""));
                    let keywords: Vec<&str> =
                        keywords.split(", ").filter(|k| !k.is_empty()).collect();
                    json!({"summary": summary, "keywords": keywords, "type": "preference"})
                })
                .collect();
            let added =
                run(hippo.add_memories("same", json(json!({ "memories": memories })))).unwrap();
            for r in added.results {
                let supersedes = r.supersedes.as_deref().map(&mut number);
                out.push((r.action, number(&r.id), supersedes));
            }
        }
        out
    };
    let with_text = outcomes(&indexed.hippo);
    assert_eq!(with_text, outcomes(&without_index));
    // And the calls exercise every path: repeats, restatements, new values, new memories.
    for action in ["inserted", "reinforced", "superseded"] {
        assert!(
            with_text.iter().any(|(a, _, _)| a == action),
            "{with_text:?}"
        );
    }
}

#[test]
fn a_closer_memory_of_another_type_does_not_hide_the_one_decide_picks() {
    // Conflict resolution reads the stored finds from the most similar down, and stops at
    // the first similarity with a live memory of the new one's type (decide keeps one). Here
    // the most similar find is the lexical look-up's (it sees every type): a history memory
    // with the new memory's very text. The preference it restates is the next one down, and
    // is reinforced, as reading every find decided it (the store without a text index).
    let decisions = |w: &World| {
        npc(w, "kinds", json!({}));
        let first = add(
            w,
            "kinds",
            json!([
                {"summary": "The user loves spicy hot pot", "type": "preference"},
                {"summary": "The user really loves spicy hot pot.", "type": "history"},
            ]),
        );
        let again = add(
            w,
            "kinds",
            json!([{"summary": "The user really loves spicy hot pot.", "type": "preference"}]),
        );
        let result = &again.results[0];
        (result.action.clone(), result.id == first.results[0].id)
    };
    let indexed = world();
    assert_eq!(decisions(&indexed), ("reinforced".to_string(), true));
    let plain = world();
    let without_index = World {
        hippo: hippo::Hippo::new(Ports {
            store: Rc::new(TestStore::failing(plain.store.clone())),
            ..plain.hippo.ports().clone()
        }),
        ..plain
    };
    assert_eq!(decisions(&without_index), ("reinforced".to_string(), true));
}

#[test]
fn an_exact_repeat_is_found_by_its_text_when_similarity_cannot_see_it() {
    // The vector index is down and every word of the repeat is in more memories than the
    // lexical look-up reads: only the text itself can still find the stored memory.
    let w = world();
    npc(&w, "rep", json!({}));
    let degraded = hippo::Hippo::new(Ports {
        vectors: Rc::new(DownVectors),
        ..w.hippo.ports().clone()
    });
    let add_degraded = |summaries: Vec<String>| {
        let memories: Vec<_> = summaries
            .iter()
            .map(|s| json!({"summary": s, "type": "preference"}))
            .collect();
        run(degraded.add_memories("rep", json(json!({ "memories": memories })))).unwrap()
    };
    let first = add_degraded(vec!["The user likes green tea".into()]);
    // Memories that each hold one word of it among made-up ones, so that none is similar
    // to it or to another.
    let name = made_up_word;
    let fillers: Vec<String> = ["user", "likes", "green", "tea"]
        .iter()
        .enumerate()
        .flat_map(|(w, word)| {
            (0..70).map(move |i| {
                let n = (w * 70 + i) * 4;
                format!(
                    "{} {} {word} {} {}",
                    name(n),
                    name(n + 1),
                    name(n + 2),
                    name(n + 3)
                )
            })
        })
        .collect();
    for chunk in fillers.chunks(100) {
        let filled = add_degraded(chunk.to_vec());
        assert!(filled.results.iter().all(|r| r.action == "inserted"));
    }
    let again = add_degraded(vec!["the user likes GREEN tea!".into()]);
    assert_eq!(again.results[0].action, "reinforced");
    assert_eq!(again.results[0].id, first.results[0].id);
    // Of another type it is another memory.
    let other = run(degraded.add_memories(
        "rep",
        json(json!({"memories": [{"summary": "The user likes green tea", "type": "profile"}]})),
    ))
    .unwrap();
    assert_eq!(other.results[0].action, "inserted");
}

#[test]
fn a_restatement_finds_a_memory_stored_without_a_vector() {
    // Stored while the vector index was down, the memory has no vector: a restatement finds
    // it by its words, embeds its text, and reinforces it. The store's text index said no
    // memory has the restatement's text, which must not drop a hit the index cannot score.
    let w = world();
    npc(&w, "nv", json!({}));
    let degraded = hippo::Hippo::new(Ports {
        vectors: Rc::new(DownVectors),
        ..w.hippo.ports().clone()
    });
    let add_to = |hippo: &hippo::Hippo, summary: &str| {
        let memories = json!([{ "summary": summary, "type": "preference" }]);
        run(hippo.add_memories("nv", json(json!({ "memories": memories })))).unwrap()
    };
    let first = add_to(&degraded, "The user likes green tea in the morning");
    assert_eq!(w.vectors.count("nv"), 0);
    let again = add_to(&w.hippo, "The user likes green tea every morning");
    assert_eq!(again.results[0].action, "reinforced");
    assert_eq!(again.results[0].id, first.results[0].id);
}

#[test]
fn a_repeat_is_embedded_only_when_its_stored_copy_was_replaced_in_the_same_call() {
    let (w, embedder, hippo) = counting_world();
    run(hippo.upsert_npc("e", NpcUpsert::default())).unwrap();
    // Texts per embedding request, and the results.
    let add = |memories: serde_json::Value| {
        embedder.texts.borrow_mut().clear();
        let added = run(hippo.add_memories("e", json(json!({ "memories": memories })))).unwrap();
        let actions: Vec<(String, String)> = added
            .results
            .into_iter()
            .map(|r| (r.action, r.id))
            .collect();
        (embedder.texts.borrow().clone(), actions)
    };
    let (requests, first) = add(json!([
        {"summary": "User lives in Berlin", "type": "profile"},
        {"summary": "The user likes green tea", "type": "preference"}
    ]));
    assert_eq!(requests, [2]);
    // Two repeats and a new memory: one request, for the new one.
    let (requests, second) = add(json!([
        {"summary": "user lives in berlin.", "type": "profile"},
        {"summary": "The user plays chess", "type": "preference"},
        {"summary": "The user likes green tea", "type": "preference"}
    ]));
    assert_eq!(requests, [1]);
    assert_eq!(second[0], ("reinforced".to_string(), first[0].1.clone()));
    assert_eq!(second[1].0, "inserted");
    assert_eq!(second[2], ("reinforced".to_string(), first[1].1.clone()));
    // A repeat of what the same call replaced is compared by similarity: it is embedded.
    let (requests, third) = add(json!([
        {"summary": "User lives in Bangkok", "type": "profile"},
        {"summary": "User lives in Berlin", "type": "profile"}
    ]));
    assert_eq!(requests, [1, 1]);
    assert_eq!(third[0].0, "superseded");
    assert_eq!(third[1].0, "superseded");
    assert_eq!(
        w.vectors.count("e"),
        3,
        "every live memory has its vector, the two superseded ones none"
    );
    // Two stored copies (an import may hold both): decide reinforces the more similar, so
    // the repeat needs its vector, and it goes in the call's one request.
    let tea = run(w.store.memories_by_id("e", &[first[1].1.clone()])).unwrap();
    let copy = hippo::memory::Memory {
        id: "mem_tea_copy".into(),
        ..tea[0].clone()
    };
    let text = hippo::engine::embedding_text(&copy.summary, &copy.keywords);
    let values = run(BuiltinEmbedder::new().embed(EmbedKind::Document, &[text])).unwrap();
    let vector = hippo::ports::VectorItem {
        id: copy.id.clone(),
        collection: copy.collection,
        memory_type: copy.memory_type,
        values: values[0].clone(),
    };
    let mut batch = WriteBatch::new();
    batch.push(Write::PutMemory { memory: copy });
    run(w.store.commit("e", batch)).unwrap();
    run(hippo::ports::VectorIndex::upsert(
        &*w.vectors,
        "e",
        vec![vector],
    ))
    .unwrap();
    let (requests, fourth) = add(json!([
        {"summary": "The user likes green tea", "type": "preference"},
        {"summary": "The user plays go", "type": "preference"}
    ]));
    assert_eq!(requests, [2]);
    assert_eq!(fourth[0].0, "reinforced");
    assert!(
        [first[1].1.as_str(), "mem_tea_copy"].contains(&fourth[0].1.as_str()),
        "{fourth:?}"
    );
}

#[test]
fn duplicates_reinforce_and_new_values_supersede() {
    let w = world();
    npc(&w, "m", json!({}));
    let first = add(
        &w,
        "m",
        json!([{"summary": "User lives in Berlin", "type": "profile"}]),
    );
    let berlin = first.results[0].id.clone();
    let dup = add(
        &w,
        "m",
        json!([{"summary": "user lives in Berlin.", "type": "profile", "importance": 0.9}]),
    );
    assert_eq!(dup.results[0].action, "reinforced");
    assert_eq!(dup.results[0].id, berlin);
    let listed = run(w.hippo.list_memories("m", ListMemoriesQuery::default())).unwrap();
    assert_eq!(listed.count, 1);
    assert_eq!(listed.memories[0].memory.encounter_count, 2);
    assert!(
        (listed.memories[0].memory.importance - 0.7).abs() < 1e-9,
        "running average of 0.5 and 0.9"
    );
    let moved = add(
        &w,
        "m",
        json!([{"summary": "User lives in Bangkok", "type": "profile"}]),
    );
    assert_eq!(moved.results[0].action, "superseded");
    assert_eq!(
        moved.results[0].supersedes.as_deref(),
        Some(berlin.as_str())
    );
    let found = retrieve(&w, "m", json!({"query": "where does the user live"}));
    assert!(
        found.iter().any(|m| m.summary == "User lives in Bangkok"),
        "{found:?}"
    );
    assert!(
        found.iter().all(|m| m.id != berlin),
        "superseded memory returned"
    );
    // Deleting the newer one resurrects the older.
    run(w.hippo.delete_memory("m", &moved.results[0].id)).unwrap();
    let found = retrieve(&w, "m", json!({"query": "where does the user live"}));
    assert_eq!(found.first().map(|m| m.id.as_str()), Some(berlin.as_str()));
    assert!(matches!(
        run(w.hippo.delete_memory("m", "mem_nope")),
        Err(Error::NotFound(_))
    ));
}

/// A slot that changes often (where the user lives, month after month) keeps one live value.
/// Its old values are equally similar to a new one, and while they stayed in the vector index
/// they filled the conflict look-up's nearest, so the live value was often left out and a new
/// value was inserted beside it: two, then three "current" homes.
#[test]
fn a_slot_changed_many_times_keeps_one_live_value() {
    let w = world();
    npc(&w, "m", json!({}));
    let cities = [
        "Berlin", "Bangkok", "Lisbon", "Oslo", "Nairobi", "Quito", "Hanoi", "Dublin", "Lima",
        "Seoul", "Porto", "Riga", "Accra", "Turin", "Perth", "Malmo", "Cusco", "Split", "Tartu",
        "Bergen", "Ghent", "Leeds", "Nice", "Pune",
    ];
    for (i, city) in cities.iter().enumerate() {
        let added = add(
            &w,
            "m",
            json!([{"summary": format!("User lives in {city}"), "type": "profile"}]),
        );
        if i > 0 {
            assert_eq!(added.results[0].action, "superseded", "{city}");
        }
        let live = run(w.hippo.list_memories("m", ListMemoriesQuery::default())).unwrap();
        let live: Vec<&str> = live
            .memories
            .iter()
            .map(|m| m.memory.summary.as_str())
            .collect();
        assert_eq!(live, [format!("User lives in {city}")], "after {city}");
        // Only what search can return is indexed.
        assert_eq!(w.vectors.count("m"), 1, "after {city}");
    }
    // The newest value deleted, the one before comes back, searchable again.
    let newest = run(w.hippo.list_memories("m", ListMemoriesQuery::default())).unwrap();
    run(w.hippo.delete_memory("m", &newest.memories[0].memory.id)).unwrap();
    assert_eq!(w.vectors.count("m"), 1);
    let found = retrieve(&w, "m", json!({"query": "where does the user live"}));
    assert_eq!(
        found.first().map(|m| m.summary.as_str()),
        Some("User lives in Nice")
    );
    // A rebuild indexes the live memories only.
    assert_eq!(run(w.hippo.rebuild_vectors("m")).unwrap(), 1);
}

#[test]
fn a_routine_told_on_many_days_keeps_its_latest_day() {
    let w = world();
    npc(&w, "d", json!({}));
    let live = |w: &World| -> Vec<String> {
        let mut live: Vec<String> = run(w.hippo.list_memories("d", ListMemoriesQuery::default()))
            .unwrap()
            .memories
            .into_iter()
            .map(|m| m.memory.summary)
            .collect();
        live.sort();
        live
    };
    // What the dream writes for "today I had a long meeting" on three days, in both languages:
    // to the built-in embedder each is the previous one (it reinforced the first day's).
    for day in ["2025-06-09", "2025-06-10", "2026-01-28"] {
        let added = add(
            &w,
            "d",
            json!([
                {"summary": format!("用户{day}开了好久的会"), "type": "history"},
                {"summary": format!("We had a long meeting about the new project on {day}"), "type": "history"},
            ]),
        );
        let actions: Vec<&str> = added.results.iter().map(|r| r.action.as_str()).collect();
        let expected = if day == "2025-06-09" {
            "inserted"
        } else {
            "superseded"
        };
        assert_eq!(actions, [expected; 2], "{day}");
        assert_eq!(
            live(&w),
            [
                format!("We had a long meeting about the new project on {day}"),
                format!("用户{day}开了好久的会"),
            ],
            "{day}"
        );
    }
    // The same day told again is the same fact; another event on another day is another fact.
    let added = add(
        &w,
        "d",
        json!([
            {"summary": "用户2026-01-28开了好久的会", "type": "history"},
            {"summary": "We had a long meeting about the budget on 2026-02-02", "type": "history"},
        ]),
    );
    let actions: Vec<&str> = added.results.iter().map(|r| r.action.as_str()).collect();
    assert_eq!(actions, ["reinforced", "inserted"]);
    assert_eq!(live(&w).len(), 3);
}

/// Conflict resolution reads a pair's score as the cosine of their summaries' words only when
/// neither memory has keywords (their vectors are of the summary and its keywords). A stored
/// memory with keywords, restated in the same words without them, scores in the ambiguous band
/// (its keywords weigh on its vector), and is still the same memory: the verdict compares the
/// summaries' own words.
#[test]
fn a_restatement_of_a_memory_with_keywords_is_a_duplicate() {
    let w = world();
    npc(&w, "m", json!({}));
    let first = add(
        &w,
        "m",
        json!([{"summary": "The user really loves spicy hot pot.", "type": "preference",
                "keywords": ["sichuan", "chongqing", "restaurant", "friday", "dinner", "friends"]}]),
    );
    let again = add(
        &w,
        "m",
        json!([{"summary": "The user loves spicy hot pot", "type": "preference"}]),
    );
    assert_eq!(again.results[0].action, "reinforced", "{again:?}");
    assert_eq!(again.results[0].id, first.results[0].id);
}
