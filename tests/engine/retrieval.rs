//! Retrieval and search: the contract, what they embed and read, and answers without a vector index.

use super::*;

#[test]
fn read_only_retrieval_writes_nothing_and_the_normal_one_reinforces() {
    let w = world();
    npc(&w, "ro", json!({}));
    add(
        &w,
        "ro",
        json!([{"summary": "The user likes jasmine tea", "type": "preference"}]),
    );
    let counts = |w: &World| -> Vec<u32> {
        run(w.hippo.list_memories("ro", Default::default()))
            .unwrap()
            .memories
            .iter()
            .map(|m| m.memory.access_count)
            .collect()
    };
    let generation = w.store.generation();
    for _ in 0..3 {
        let request = hippo::api::protocol::parse_retrieval_request(br#"{"query": "jasmine tea"}"#);
        let found = run(w.hippo.retrieve_read_only("ro", request.unwrap())).unwrap();
        assert_eq!(found.memories.len(), 1);
    }
    assert_eq!(
        w.store.generation(),
        generation,
        "a read-only retrieval wrote"
    );
    assert_eq!(counts(&w), [0]);
    retrieve(&w, "ro", json!({"query": "jasmine tea"}));
    assert_eq!(counts(&w), [1]);
    assert!(w.store.generation() > generation);
}

#[test]
fn retrieval_answers_the_demo_questions_in_chinese() {
    let w = world();
    npc(&w, "01", json!({"Nickname": "阿澈"}));
    add(
        &w,
        "01",
        json!([
            {"summary": "用户喜欢灵绯叫他阿澈", "type": "preference", "keywords": ["称呼", "昵称", "名字"]},
            {"summary": "用户和灵绯约定的暗号是“月亮醒了”", "type": "other", "keywords": ["暗号", "约定"]},
            {"summary": "用户喜欢先给结论，再补充两三条理由的建议格式", "type": "style", "keywords": ["建议", "格式", "回答风格"]},
            {"summary": "用户对花生过敏", "type": "constraint", "keywords": ["过敏", "饮食"]},
            {"summary": "用户的银行卡密码线索", "type": "other", "sensitive": true, "keywords": ["暗号", "密码"]}
        ]),
    );
    let first = |q: &str| {
        retrieve(&w, "01", json!({"query": q, "max_results": 3}))[0]
            .summary
            .clone()
    };
    assert!(first("用户喜欢灵绯怎么称呼自己").contains("阿澈"));
    assert!(first("用户和灵绯之前约定的暗号").contains("月亮醒了"));
    assert!(first("用户喜欢灵绯用什么格式给建议").contains("先给结论"));
    assert!(first("我对什么过敏").contains("花生"));
    let all = retrieve(&w, "01", json!({"query": "暗号 密码", "max_results": 10}));
    assert!(
        all.iter().all(|m| !m.summary.contains("银行卡")),
        "sensitive memory returned: {all:?}"
    );
    let typed = retrieve(
        &w,
        "01",
        json!({"query": "用户", "memory_types": ["constraint", "bogus"], "max_results": 10}),
    );
    assert!(
        !typed.is_empty() && typed.iter().all(|m| m.memory_type == "constraint"),
        "{typed:?}"
    );
}

#[test]
fn retrieval_contract_limits_and_empty_answers() {
    let w = world();
    npc(&w, "x", json!({}));
    assert_eq!(
        run(w.hippo.retrieve("x", json(json!({"query": "  "})))).unwrap_err(),
        Error::InvalidInput("query is required and must not be empty".into())
    );
    let none = run(w.hippo.retrieve(
        "x",
        json(json!({"query": "nothing here", "live_id": 7, "extra": true})),
    ))
    .unwrap();
    assert_eq!(serde_json::to_string(&none).unwrap(), r#"{"memories":[]}"#);
    // Thirty distinct memories about stamp collections (distinct, so none is a duplicate; all
    // match the query's content, so the relevance floor keeps them).
    let words: Vec<String> = (0..120)
        .map(|i| format!("w{}x{}", i * 7919 % 1000, i))
        .collect();
    let many: Vec<serde_json::Value> = words
        .chunks(4)
        .map(|w| json!({"summary": format!("stamp collection {}", w.join(" ")), "type": "preference"}))
        .collect();
    add(&w, "x", json!(many));
    let n = |max: serde_json::Value| {
        retrieve(
            &w,
            "x",
            json!({"query": "stamp collection", "max_results": max}),
        )
        .len()
    };
    assert_eq!(n(json!(null)), 5);
    assert_eq!(n(json!(100)), 10);
    assert_eq!(n(json!(0)), 1);
}

#[test]
fn retrieval_reinforces_what_it_returns() {
    let w = world();
    npc(&w, "rf", json!({}));
    add(
        &w,
        "rf",
        json!([{"summary": "The user plays the violin", "type": "preference"}]),
    );
    retrieve(&w, "rf", json!({"query": "violin"}));
    retrieve(&w, "rf", json!({"query": "violin"}));
    let m = &run(w.hippo.list_memories("rf", ListMemoriesQuery::default()))
        .unwrap()
        .memories[0];
    assert_eq!(m.memory.access_count, 2);
    assert!(m.memory.importance > 0.5);
}

#[test]
fn vector_index_down_still_answers_lexically() {
    let w = world();
    npc(&w, "v", json!({}));
    add(
        &w,
        "v",
        json!([{"summary": "The user is allergic to peanuts", "type": "constraint"}]),
    );
    let degraded = hippo::Hippo::new(Ports {
        vectors: Rc::new(DownVectors),
        ..w.hippo.ports().clone()
    });
    let found = run(degraded.retrieve("v", json(json!({"query": "peanut allergy"})))).unwrap();
    assert_eq!(found.memories.len(), 1);
    // Writes still land (vectors are rebuilt later), and the answer says they have none.
    let written = run(degraded.add_memories(
        "v",
        json(json!({"memories": [{"summary": "The user runs marathons", "type": "preference"}]})),
    ))
    .unwrap();
    let warning = written.warning.expect("a warning");
    assert!(
        warning.contains("vector index failed") && warning.contains("/api/npc/v/vectors/rebuild"),
        "{warning}"
    );
    let healthy = run(w.hippo.add_memories(
        "v",
        json(json!({"memories": [{"summary": "The user paints", "type": "preference"}]})),
    ))
    .unwrap();
    assert_eq!(healthy.warning, None);
    assert_eq!(run(w.hippo.rebuild_vectors("v")).unwrap(), 3);
    assert_eq!(w.vectors.count("v"), 3);
}

#[test]
fn a_search_gives_each_item_the_turns_it_came_from_when_asked() {
    let w = world();
    npc(&w, "src", json!({}));
    let said = [
        ("user", "Please remember this: my password is hunter2xyz. I went hiking at Mount Tai today, the view was amazing.", "2026-04-07T18:00:00Z"),
        ("assistant", "Got it. How was the hike?", "2026-04-07T18:01:00Z"),
        ("user", "I am allergic to peanuts.", "2026-04-07T18:02:00Z"),
        ("user", "我最近喜欢上了游泳。", "2026-04-07T18:03:00Z"),
    ];
    let turns: Vec<serde_json::Value> = said
        .iter()
        .map(|(role, content, ts)| json!({"role": role, "content": content, "ts": ts}))
        .collect();
    run(w
        .hippo
        .append_conversation("src", json(json!({"session_id": "s", "turns": turns}))))
    .unwrap();
    assert_eq!(run(w.hippo.dream("src", false)).unwrap().error, None);
    let log = run(w.hippo.get_conversation("src", 0, 100)).unwrap().turns;
    let id = |i: usize| log[i].id.clone();

    // Not asked: no `sources` at all.
    let plain = search(&w, "src", json!({"query": "what is the user allergic to"}));
    let wire = serde_json::to_value(&plain).unwrap();
    assert!(
        wire.as_array()
            .unwrap()
            .iter()
            .all(|h| h.get("sources").is_none()),
        "{wire}"
    );

    // The fact, and the words it came from.
    let hits = search(
        &w,
        "src",
        json!({"query": "what is the user allergic to", "include_sources": true}),
    );
    let fact = hits
        .iter()
        .find(|h| h.summary.contains("peanut") && h.source != "conversation_quote")
        .expect("the fact");
    assert_eq!(
        fact.sources.as_deref().unwrap(),
        [SourceTurn {
            turn_id: id(2),
            role: "user".into(),
            ts: hippo::time::Timestamp::parse("2026-04-07T18:02:00Z").unwrap(),
            text: "I am allergic to peanuts.".into(),
        }]
    );
    // A PKG value too.
    let hits = search(&w, "src", json!({"query": "游泳", "include_sources": true}));
    let hobby = hits
        .iter()
        .find(|h| h.id == "pkg:Hobbies")
        .expect("the PKG field");
    assert_eq!(hobby.sources.as_ref().unwrap()[0].turn_id, id(3));

    // The quote as kept: what the detector removed never comes back, even to an admin who
    // asks for sensitive items.
    for sensitive in [false, true] {
        let hits = search(
            &w,
            "src",
            json!({"query": "password hiking Mount Tai", "include_sources": true, "include_sensitive": sensitive, "max_results": 50}),
        );
        let quoted: Vec<&SourceTurn> = hits
            .iter()
            .flat_map(|h| h.sources.iter().flatten())
            .collect();
        assert!(
            quoted
                .iter()
                .any(|s| s.turn_id == id(0) && s.text.contains("Mount Tai")),
            "{hits:?}"
        );
        assert!(
            quoted.iter().all(|s| !s.text.contains("hunter2xyz")),
            "{quoted:?}"
        );
    }

    // A quote marked sensitive is left out unless sensitive items are asked for, as
    // memory_retrieval would leave it out.
    let quote = memories_of(&w, "src", "content")
        .into_iter()
        .find(|m| *m.memory.source_turns == [id(2)])
        .expect("the quote of the allergy turn");
    run(w
        .hippo
        .update_memory("src", &quote.memory.id, json(json!({"sensitive": true}))))
    .unwrap();
    let sources_of_fact = |include_sensitive: bool| {
        search(&w, "src", json!({"query": "what is the user allergic to", "include_sources": true, "include_sensitive": include_sensitive}))
            .into_iter()
            .find(|h| h.summary.contains("peanut") && h.source != "conversation_quote")
            .and_then(|h| h.sources)
            .unwrap()
    };
    assert!(sources_of_fact(false).is_empty());
    assert_eq!(sources_of_fact(true)[0].turn_id, id(2));

    // memory_retrieval's wire format is fixed: the field is ignored there.
    let answer = run(w.hippo.retrieve(
        "src",
        json(json!({"query": "allergic", "include_sources": true})),
    ))
    .unwrap();
    for item in serde_json::to_value(&answer).unwrap()["memories"]
        .as_array()
        .unwrap()
    {
        let mut keys: Vec<&str> = item
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        keys.sort();
        assert_eq!(
            keys,
            [
                "confidence",
                "id",
                "source",
                "summary",
                "type",
                "updated_at"
            ]
        );
    }
}

#[test]
fn search_explains_its_ranking_and_can_include_sensitive_memories() {
    let w = world();
    npc(&w, "s", json!({"Hobbies": ["Reading"]}));
    add(
        &w,
        "s",
        json!([
            {"summary": "The user reads science fiction every night", "type": "preference", "keywords": ["books"]},
            {"summary": "The user's diary password hint is about books", "type": "other", "sensitive": true}
        ]),
    );
    let res = run(w.hippo.search(
        "s",
        json(json!({"query": "what books does the user read", "debug": true})),
    ))
    .unwrap();
    let top = &res.memories[0];
    assert!(top.summary.contains("science fiction"), "{res:?}");
    let signals = top.signals.as_ref().expect("debug returns signals");
    let sum: f64 = signals.values().sum();
    assert!(
        (sum - top.score).abs() < 1e-6,
        "signals {signals:?} do not add up to {}",
        top.score
    );
    assert!(res.memories.iter().all(|m| !m.summary.contains("password")));
    let with = run(w.hippo.search(
        "s",
        json(json!({"query": "password hint", "include_sensitive": true})),
    ))
    .unwrap();
    assert!(with.memories.iter().any(|m| m.summary.contains("password")));
    let plain = run(w.hippo.search("s", json(json!({"query": "books"})))).unwrap();
    assert!(plain.memories.iter().all(|m| m.signals.is_none()));
}

/// Issue 18, item 9: every retrieval re-embedded every PKG field, entity and diary day.
/// Their vectors are cached by text: a retrieval embeds the query and the texts not seen (the
/// query as a query, the texts as documents: two calls).
#[test]
fn retrieval_embeds_only_the_query_and_unseen_structured_texts() {
    let (_w, embedder, hippo) = counting_world();
    let fields: Vec<_> = (0..50)
        .map(|i| json!({"key": format!("Field {i}"), "value": format!("value {i}")}))
        .collect();
    run(hippo.upsert_npc("c", NpcUpsert::default())).unwrap();
    run(hippo.update_pkg("c", json(json!({ "updates": fields })))).unwrap();
    let ops: Vec<_> = (0..100)
        .map(|i| json!({"op": "add", "name": format!("Person {i}")}))
        .collect();
    run(hippo.apply_entity_ops("c", json(json!({ "ops": ops })))).unwrap();
    let ask = |query: &str| {
        embedder.texts.borrow_mut().clear();
        let found = run(hippo.retrieve("c", json(json!({ "query": query })))).unwrap();
        (embedder.texts.borrow().clone(), found.memories)
    };
    let (first, hits) = ask("who is Person 7");
    assert_eq!(first, [1, 50 + 100]);
    assert!(hits.iter().any(|m| m.summary == "Person 7"), "{hits:?}");
    let (second, again) = ask("who is Person 7");
    assert_eq!(second, [1], "only the query");
    assert_eq!(again, hits, "cached vectors rank the same");
    run(hippo.update_pkg(
        "c",
        json(json!({"updates": [{"key": "City", "value": "Chengdu"}]})),
    ))
    .unwrap();
    assert_eq!(
        ask("where do I live").0,
        [1, 1],
        "the query and the new field"
    );
    // Instances sharing one cache (a Worker isolate's requests): the first embeds all, the
    // next only its query.
    let cache = Rc::new(std::cell::RefCell::new(Default::default()));
    for want in [&[1, 51 + 100][..], &[1]] {
        let instance = hippo::Hippo::new(hippo.ports().clone()).with_embedding_cache(cache.clone());
        embedder.texts.borrow_mut().clear();
        run(instance.retrieve("c", json(json!({"query": "Person 7"})))).unwrap();
        assert_eq!(embedder.texts.borrow().as_slice(), want);
    }
}

/// The built-in embedder, declared semantic or not.
struct BuiltinAs {
    inner: BuiltinEmbedder,
    semantic: bool,
}

#[async_trait::async_trait(?Send)]
impl Embedder for BuiltinAs {
    fn name(&self) -> &str {
        self.inner.name()
    }
    fn dimension(&self) -> usize {
        self.inner.dimension()
    }
    fn thresholds(&self) -> hippo::ports::SimilarityThresholds {
        self.inner.thresholds()
    }
    fn semantic(&self) -> bool {
        self.semantic
    }
    async fn embed(&self, kind: EmbedKind, texts: &[String]) -> PortResult<Vec<Vec<f32>>> {
        self.inner.embed(kind, texts).await
    }
}

/// A vector index that counts its searches (conflict resolution's near look-ups apart) and
/// records which ids it was asked to score.
#[derive(Default)]
struct SpyVectors {
    inner: MemoryVectorIndex,
    scans: std::cell::Cell<usize>,
    scored: std::cell::RefCell<Vec<String>>,
    /// Whether it answers `similarities` (Vectorize does not: it keeps no copy to score from).
    answers_similarities: bool,
    /// Conflict resolution's near look-ups asked one at a time, and the sizes of those asked
    /// together.
    near_alone: std::cell::Cell<usize>,
    near_together: std::cell::RefCell<Vec<usize>>,
}

#[async_trait::async_trait(?Send)]
impl VectorIndex for SpyVectors {
    async fn upsert(&self, npcid: &str, items: Vec<VectorItem>) -> PortResult<()> {
        self.inner.upsert(npcid, items).await
    }
    async fn query(
        &self,
        npcid: &str,
        vector: &[f32],
        top_k: usize,
        filter: &VectorFilter,
    ) -> PortResult<Vec<(String, f32)>> {
        match filter.near {
            false => self.scans.set(self.scans.get() + 1),
            true => self.near_alone.set(self.near_alone.get() + 1),
        }
        self.inner.query(npcid, vector, top_k, filter).await
    }
    async fn query_each(
        &self,
        npcid: &str,
        vectors: &[&[f32]],
        top_k: usize,
        filter: &VectorFilter,
    ) -> PortResult<Vec<Vec<(String, f32)>>> {
        if filter.near {
            self.near_together.borrow_mut().push(vectors.len());
        }
        self.inner.query_each(npcid, vectors, top_k, filter).await
    }
    async fn similarities(
        &self,
        npcid: &str,
        vector: &[f32],
        ids: &[String],
    ) -> PortResult<Vec<(String, f32)>> {
        self.scored.borrow_mut().extend_from_slice(ids);
        if !self.answers_similarities {
            return Ok(Vec::new());
        }
        self.inner.similarities(npcid, vector, ids).await
    }
    async fn delete(&self, npcid: &str, ids: &[String]) -> PortResult<()> {
        self.inner.delete(npcid, ids).await
    }
    async fn delete_npc(&self, npcid: &str) -> PortResult<()> {
        self.inner.delete_npc(npcid).await
    }
}

/// The built-in embedder's vectors are hashed features of the words the lexical index holds:
/// a retrieval scores the candidates it found with them, and does not scan every vector for
/// more (its nearest added nothing on the dev sets, docs/BENCHMARKS.md, and the scan was most
/// of a call at 100k); what the index cannot score is embedded again. A model's nearest can
/// share no word with the query: it still scans.
#[test]
fn only_a_semantic_embedder_searches_the_vector_index_in_a_retrieval() {
    for (semantic, answers_similarities) in [(false, true), (false, false), (true, true)] {
        let vectors = Rc::new(SpyVectors {
            answers_similarities,
            ..SpyVectors::default()
        });
        let hippo = hippo::Hippo::new(Ports {
            store: Rc::new(MemoryStore::new()),
            vectors: vectors.clone(),
            embedder: Rc::new(BuiltinAs {
                inner: BuiltinEmbedder::new(),
                semantic,
            }),
            llm: None,
            clock: Rc::new(FixedClock::at(t("2026-04-08T10:00:00Z"))),
        });
        run(hippo.upsert_npc("v", NpcUpsert::default())).unwrap();
        run(hippo.add_memories(
            "v",
            json(json!({"memories": [
                {"summary": "The user drinks green tea every morning", "type": "preference"},
                {"summary": "The user plays chess on Sundays", "type": "preference"}
            ]})),
        ))
        .unwrap();
        let tea = run(hippo.list_memories("v", ListMemoriesQuery::default()))
            .unwrap()
            .memories
            .into_iter()
            .find(|m| m.memory.summary.contains("tea"))
            .expect("the tea memory")
            .memory
            .id;
        vectors.scored.borrow_mut().clear();
        let res = run(hippo.search(
            "v",
            json(json!({"query": "green tea in the morning", "debug": true})),
        ))
        .unwrap();
        let top = &res.memories[0];
        assert_eq!(top.id, tea, "{res:?}");
        let vector = top.signals.as_ref().expect("debug")["vector"];
        assert!(
            vector > 0.0,
            "the vector signal scores the top memory: {res:?}"
        );
        assert_eq!(
            vectors.scans.get(),
            usize::from(semantic),
            "semantic: {semantic}"
        );
        assert_eq!(
            vectors.scored.borrow().contains(&tea),
            !semantic,
            "semantic: {semantic}"
        );
    }
}

/// A call's new memories look up their nearest stored ones together, one `query_each` per
/// type, not one `query` each: the in-memory index then reads each probed cell once for all
/// of them (docs/BENCHMARKS.md). A word-for-word repeat of a stored memory is found by its
/// text and looks nothing up.
#[test]
fn a_call_of_new_memories_asks_the_vector_index_once_per_type() {
    let vectors = Rc::new(SpyVectors {
        answers_similarities: true,
        ..SpyVectors::default()
    });
    let hippo = hippo::Hippo::new(Ports {
        store: Rc::new(MemoryStore::new()),
        vectors: vectors.clone(),
        embedder: Rc::new(BuiltinEmbedder::new()),
        llm: None,
        clock: Rc::new(FixedClock::at(t("2026-04-08T10:00:00Z"))),
    });
    run(hippo.upsert_npc("v", NpcUpsert::default())).unwrap();
    let stored = "The user drinks green tea every morning";
    run(hippo.add_memories(
        "v",
        json(json!({"memories": [{"summary": stored, "type": "preference"}]})),
    ))
    .unwrap();
    vectors.near_together.borrow_mut().clear();
    let res = run(hippo.add_memories(
        "v",
        json(json!({"memories": [
            {"summary": "The user plays chess on Sundays", "type": "preference"},
            {"summary": "The user lives in Lisbon", "type": "profile"},
            {"summary": stored, "type": "preference"},
            {"summary": "The user likes jazz records", "type": "preference"},
            {"summary": "The user works as a nurse", "type": "profile"},
            {"summary": "The user hates cold weather", "type": "preference"}
        ]})),
    ))
    .unwrap();
    let actions: Vec<&str> = res.results.iter().map(|r| r.action.as_str()).collect();
    assert_eq!(
        actions,
        [
            "inserted",
            "inserted",
            "reinforced",
            "inserted",
            "inserted",
            "inserted"
        ]
    );
    assert_eq!(vectors.near_alone.get(), 0);
    assert_eq!(*vectors.near_together.borrow(), [3, 2]);
}

/// A dialogue sent as the query tells its own story ("我昨天开始看…"): a time phrase in its
/// earlier lines is not a request for that day's memories. Only its last line, what is said
/// now, asks for a period; a one-line question is its own last line.
#[test]
fn a_dialogue_asks_for_a_period_only_in_its_last_line() {
    let w = world();
    npc(&w, "b", json!({}));
    add(
        &w,
        "b",
        json!([{"summary": "用户喜欢看武侠小说，最喜欢金庸", "type": "preference"}]),
    );
    w.clock.advance_hours(30.0 * 24.0);
    add(
        &w,
        "b",
        json!([{"summary": "用户去超市买了牛奶和面包", "type": "history"}]),
    );
    w.clock.advance_hours(24.0);
    let summaries = |query: &str| -> Vec<String> {
        retrieve(&w, "b", json!({ "query": query }))
            .into_iter()
            .map(|m| m.summary)
            .collect()
    };
    let story = "用户: 我昨天开始看一本新的武侠小说，里面的英雄真是太酷了！\n\
                 灵绯: 哇，那听起来很有趣！他们都做了些什么？\n\
                 用户: 主角用他的剑挡下了飞来的箭，保护了整个村庄！";
    assert_eq!(summaries(story), ["用户喜欢看武侠小说，最喜欢金庸"]);
    let asking = "用户: 今天好累啊\n灵绯: 辛苦了，休息一下吧\n用户: 我昨天干什么了？";
    assert!(
        summaries(asking).contains(&"用户去超市买了牛奶和面包".to_string()),
        "{:?}",
        summaries(asking)
    );
}
