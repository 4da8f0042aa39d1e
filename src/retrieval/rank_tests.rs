//! Ranking as a user would ask, in Chinese and English.

use super::*;
use crate::retrieval::lexical::LexicalIndex;
use crate::retrieval::tokenize::tokenize_query;
use crate::time::phrase::parse_time_range;

fn now() -> Timestamp {
    Timestamp::parse("2026-04-08T12:00:00Z").unwrap()
}

fn memory(id: &str, t: MemoryType, summary: &str, keywords: &[&str]) -> Candidate {
    let mut c = Candidate::new(id, CandidateKind::Memory, t, summary, now().plus_days(-20));
    c.keywords = keywords.iter().map(|k| k.to_string()).collect();
    c.confidence = 0.9;
    c.source = "explicit_user_statement".into();
    c.strength = 0.6;
    c
}

/// The demo character's memories plus a few ordinary ones.
fn corpus() -> Vec<Candidate> {
    let mut trip = memory(
        "trip",
        MemoryType::History,
        "用户去了杭州西湖散步",
        &["旅行"],
    );
    trip.event_time = Some(now().plus_days(-1));
    let mut coffee = memory(
        "coffee",
        MemoryType::History,
        "Met Alex for coffee to talk about the startup",
        &[],
    );
    coffee.event_time = Some(now().plus_days(-8));
    vec![
        memory(
            "nick",
            MemoryType::Profile,
            "用户希望灵绯称呼自己为阿澈",
            &["称呼", "昵称", "叫我"],
        ),
        memory(
            "code",
            MemoryType::Other,
            "用户和灵绯约定的暗号是“月亮醒了”",
            &["暗号", "约定"],
        ),
        memory(
            "style",
            MemoryType::Style,
            "用户喜欢先给结论，再补充两三条理由",
            &["建议格式", "回答风格"],
        ),
        memory(
            "allergy",
            MemoryType::Constraint,
            "用户对花生过敏",
            &["过敏", "饮食"],
        ),
        memory(
            "books",
            MemoryType::Preference,
            "The user loves reading mystery novels, especially Agatha Christie",
            &["favorite books"],
        ),
        memory(
            "python",
            MemoryType::Constraint,
            "Never give the user code examples in Python",
            &["programming language"],
        ),
        memory(
            "tea",
            MemoryType::Preference,
            "用户每天早上喝茉莉花茶",
            &["饮品"],
        ),
        trip,
        coffee,
    ]
}

fn stats_for(query: &str, candidates: &[Candidate]) -> CorpusStats {
    let mut index = LexicalIndex::new();
    for c in candidates {
        index.add_with_context(&c.id, &c.summary, &c.keywords, &c.context);
    }
    index.stats(&tokenize_query(query))
}

fn request(query: &str) -> RankRequest {
    RankRequest {
        query: query.to_string(),
        types: Vec::new(),
        time_range: None,
        max_results: 5,
        debug: false,
        now: now(),
        names: Default::default(),
        min_vector_similarity: crate::retrieval::embed::THRESHOLDS.relevant,
    }
}

fn run(req: &RankRequest) -> Vec<String> {
    let candidates = corpus();
    let stats = stats_for(&req.query, &candidates);
    rank(req, candidates, &stats)
        .into_iter()
        .map(|r| r.candidate.id)
        .collect()
}

fn top(query: &str) -> String {
    run(&request(query)).into_iter().next().unwrap_or_default()
}

#[test]
fn chinese_questions_find_the_memory() {
    assert_eq!(top("用户喜欢灵绯怎么称呼自己"), "nick");
    assert_eq!(top("我们之前约定的暗号是什么？"), "code");
    assert_eq!(top("我对什么东西过敏"), "allergy");
    assert_eq!(top("用户喜欢灵绯用什么格式给建议"), "style");
}

#[test]
fn paraphrases_match_through_keywords() {
    // Neither "叫我" nor "昵称" is in the summary; only the keyword field says so.
    assert_eq!(top("你还记得我喜欢你怎么叫我吗？"), "nick");
    assert_eq!(top("我的昵称"), "nick");
    assert_eq!(top("Which programming language should I avoid?"), "python");
    assert_eq!(top("what are my favorite books"), "books");
}

#[test]
fn english_questions_find_the_memory() {
    assert_eq!(top("What do I like to read?"), "books");
    assert_eq!(top("python examples"), "python");
}

#[test]
fn types_filter_keeps_only_the_requested_types() {
    let mut req = request("用户");
    req.types = vec![MemoryType::Constraint];
    req.max_results = 10;
    let ids = run(&req);
    assert_eq!(ids, ["allergy"]);
    req.types = vec![MemoryType::Constraint, MemoryType::Preference];
    req.query = "user 用户".into();
    let mut ids = run(&req);
    ids.sort();
    assert_eq!(ids, ["allergy", "books", "python", "tea"]);
}

#[test]
fn time_hints_boost_what_happened_then() {
    let today = now().date();
    let mut req = request("我去了哪里");
    req.time_range = parse_time_range("昨天", today);
    assert_eq!(run(&req)[0], "trip");
    // Only the date matches: still returned, because the user asked about that time.
    let mut req = request("what did I do");
    req.time_range = parse_time_range("last week", today);
    assert_eq!(run(&req), ["coffee"]);
}

#[test]
fn unrelated_queries_return_nothing() {
    assert!(run(&request("量子力学")).is_empty());
    assert!(run(&request("quantum mechanics")).is_empty());
    assert!(run(&request("   ")).is_empty());
}

#[test]
fn same_data_same_order_whatever_the_input_order() {
    let req = RankRequest {
        max_results: 10,
        ..request("用户 user")
    };
    let forward = corpus();
    let stats = stats_for(&req.query, &forward);
    let mut backward = forward.clone();
    backward.reverse();
    let a: Vec<_> = rank(&req, forward, &stats);
    let b: Vec<_> = rank(&req, backward, &stats);
    assert_eq!(a, b);
    assert!(a.len() > 3);
    // Exact ties are broken by id.
    let twins = vec![
        memory("b", MemoryType::Other, "same words", &[]),
        memory("a", MemoryType::Other, "same words", &[]),
    ];
    let req = request("same words");
    let stats = stats_for(&req.query, &twins);
    let ids: Vec<_> = rank(&req, twins, &stats)
        .into_iter()
        .map(|r| r.candidate.id)
        .collect();
    assert_eq!(ids, ["a", "b"]);
}

#[test]
fn debug_signals_explain_the_score() {
    let mut req = request("我对什么过敏");
    req.debug = true;
    let candidates = corpus();
    let stats = stats_for(&req.query, &candidates);
    let ranked = rank(&req, candidates, &stats);
    for r in &ranked {
        let signals = r.signals.as_ref().expect("debug fills signals");
        let sum: f64 = signals.values().sum();
        assert!((sum - r.score).abs() < 1e-9);
        for name in [
            "lexical",
            "keywords",
            "proximity",
            "vector",
            "strength",
            "recency",
            "time",
        ] {
            assert!(signals.contains_key(name), "{name}");
        }
    }
    assert!(ranked[0].signals.as_ref().unwrap()["keywords"] > 0.0);
    req.debug = false;
    let stats = stats_for(&req.query, &corpus());
    assert!(rank(&req, corpus(), &stats)
        .iter()
        .all(|r| r.signals.is_none()));
}

#[test]
fn corpus_statistics_decide_which_term_matters() {
    let pair = || {
        vec![
            memory("apple", MemoryType::Other, "apple", &[]),
            memory("pear", MemoryType::Other, "pear", &[]),
        ]
    };
    let req = request("apple pear");
    let rare_apple = CorpusStats {
        docs: 1000,
        avg_len: 1.0,
        df: vec![2, 500],
    };
    let ranked = rank(&req, pair(), &rare_apple);
    assert_eq!(ranked[0].candidate.id, "apple");
    let rare_pear = CorpusStats {
        docs: 1000,
        avg_len: 1.0,
        df: vec![500, 2],
    };
    assert_eq!(rank(&req, pair(), &rare_pear)[0].candidate.id, "pear");
}

#[test]
fn strength_recency_and_vectors_break_lexical_ties() {
    let mut strong = memory("z-strong", MemoryType::Other, "garden roses", &[]);
    strong.strength = 0.9;
    let weak = memory("a-weak", MemoryType::Other, "garden roses", &[]);
    let req = request("roses");
    let stats = CorpusStats::default();
    assert_eq!(
        rank(&req, vec![weak.clone(), strong], &stats)[0]
            .candidate
            .id,
        "z-strong"
    );
    let mut newer = memory("z-new", MemoryType::Other, "garden roses", &[]);
    newer.updated_at = now();
    assert_eq!(
        rank(&req, vec![weak.clone(), newer], &stats)[0]
            .candidate
            .id,
        "z-new"
    );
    // A vector-only candidate counts when similar enough, and is dropped when not.
    let mut near = memory("near", MemoryType::Other, "blossoms in the yard", &[]);
    near.vector_similarity = Some(0.6);
    let mut far = memory("far", MemoryType::Other, "tax forms", &[]);
    far.vector_similarity = Some(0.05);
    let ids: Vec<_> = rank(&req, vec![near, far, weak], &stats)
        .into_iter()
        .map(|r| r.candidate.id)
        .collect();
    assert_eq!(ids, ["a-weak", "near"]);
}

/// A dialogue sent as the query (the conversation so far) spreads its words' share over many
/// terms, so every content score is small. The memory the dialogue is about must still beat one
/// that only shares its everyday words, however much stronger and newer that one is; with a
/// one-line question strength and recency still break ties (above).
#[test]
fn a_dialogue_finds_what_it_is_about_before_what_is_strong_and_new() {
    let dialogue = "Bart: 我今天在公园玩了整整一天，还跟朋友一起玩滑梯呢！\n\
        Assistant: 那听起来真的很有乐趣啊！滑梯是你最喜欢的游戏吗？\n\
        Bart: 对啊，我最喜欢滑梯，还有秋千。你小时候喜欢什么游戏？\n\
        Assistant: 我小时候最喜欢玩跳绳。你试过跳绳吗？\n\
        Bart: 试过，但是我不太擅长。我更喜欢跟朋友们追来追去玩捉迷藏。\n\
        Assistant: 捉迷藏是一个很好玩的游戏，你一般藏在哪里？\n\
        Bart: 哈哈，上次我藏在一个大树后面，他们找了好久都没找到我，我今天特别开心！";
    let mut park = memory(
        "park",
        MemoryType::History,
        "Bart和同学们在公园玩捉迷藏，感到非常开心",
        &[],
    );
    park.strength = 0.0;
    park.updated_at = now().plus_days(-300);
    let mut party = memory(
        "party",
        MemoryType::History,
        "Bart在生日派对上和朋友一起吃蛋糕，感到非常开心",
        &[],
    );
    party.strength = 1.0;
    party.updated_at = now().plus_days(-2);
    let mut candidates = vec![party, park];
    // Everyday words in most memories, as in a real store: they weigh little. None is of the
    // dialogue's topics but friends (games, the park, jumping rope), as the party is not.
    for (i, event) in [
        "去动物园看企鹅",
        "在家看动画片",
        "参加绘画比赛",
        "和表哥包饺子",
        "养了一只小乌龟",
        "去博物馆",
    ]
    .iter()
    .enumerate()
    {
        let text = format!("Bart和朋友{event}，感到非常开心");
        candidates.push(memory(
            &format!("other{i}"),
            MemoryType::History,
            &text,
            &[],
        ));
    }
    let stats = stats_for(dialogue, &candidates);
    let ranked = rank(&request(dialogue), candidates, &stats);
    let ids: Vec<&str> = ranked.iter().map(|r| r.candidate.id.as_str()).collect();
    assert_eq!(ids[..2], ["park", "party"]);
    assert!(
        ranked[0].relevance < ORDER_SIGNALS_FULL_AT,
        "{:?}",
        ranked[0].relevance
    );
}

#[test]
fn the_order_only_signals_are_strength_recency_and_speaker_the_rest_content() {
    assert_eq!(
        ORDER_ONLY.map(|i| SIGNALS[i]),
        ["strength", "recency", "speaker"]
    );
    let mut all: Vec<usize> = CONTENT.iter().chain(&ORDER_ONLY).copied().collect();
    all.sort();
    assert_eq!(all, (0..SIGNALS.len()).collect::<Vec<_>>());
}

#[test]
fn max_results_limits_the_answer() {
    let mut req = request("用户 user");
    req.max_results = 2;
    assert_eq!(run(&req).len(), 2);
}

/// The analysis of a candidate as ranking first computed it: every token of every field
/// tokenized and looked up one by one. The analysed texts must give exactly these numbers
/// (the LoCoMo figures of docs/BENCHMARKS.md depend on them to the last bit).
fn token_by_token(c: &Candidate, terms: &[String], pairs: &[(String, String)]) -> Analysis {
    use crate::retrieval::tokenize::tokenize;
    let position: HashMap<&str, usize> = terms
        .iter()
        .enumerate()
        .map(|(i, t)| (t.as_str(), i))
        .collect();
    let mut a = Analysis {
        tf: vec![0.0; terms.len()],
        keyword_hit: vec![false; terms.len()],
        len: 0.0,
        proximity: 0.0,
        sentence_tf: Vec::new(),
        sentence_len: Vec::new(),
        topics: crate::retrieval::terms::TextTerms::new(&c.summary).topics(),
    };
    let mut parts = crate::text::sentences(&c.summary);
    if parts.is_empty() {
        parts.push(&c.summary);
    }
    for part in parts {
        let tokens = tokenize(part);
        let mut tf = vec![0.0; terms.len()];
        for token in &tokens {
            if let Some(&i) = position.get(token.as_str()) {
                tf[i] += 1.0;
            }
        }
        a.sentence_tf.extend(tf);
        a.sentence_len.push(tokens.len() as f64);
    }
    let field = |a: &mut Analysis, tokens: &[String], weight: f64, keyword: bool| {
        a.len += tokens.len() as f64 * weight;
        for token in tokens {
            if let Some(&i) = position.get(token.as_str()) {
                a.tf[i] += weight;
                a.keyword_hit[i] |= keyword;
            }
        }
    };
    let summary = tokenize(&c.summary);
    field(&mut a, &summary, 1.0, false);
    for keyword in &c.keywords {
        field(&mut a, &tokenize(keyword), KEYWORD_BOOST, true);
    }
    if !c.context.is_empty() {
        field(&mut a, &tokenize(&c.context), CONTEXT_WEIGHT, false);
    }
    let found = pairs
        .iter()
        .filter(|(x, y)| summary.windows(2).any(|w| &w[0] == x && &w[1] == y))
        .count();
    a.proximity = if pairs.is_empty() {
        0.0
    } else {
        found as f64 / pairs.len() as f64
    };
    a
}

#[test]
fn analysed_texts_give_exactly_the_token_by_token_numbers() {
    let mut candidates = corpus();
    let mut turn = memory(
        "turn",
        MemoryType::History,
        "Work was busy. I had noodles for dinner, noodles again! By the way, I just got an Air Fryer. 我妹妹叫林可，在杭州读大学。",
        &["noodles", "晚饭", "noodles"],
    );
    turn.context =
        "Assistant: What did you have for dinner?\nUser: 面条，还是面条。 Air fryer fries!".into();
    candidates.push(turn);
    let queries = [
        "what did I have for dinner",
        "noodles noodles air fryer",
        "林可在哪里读大学",
        "我妹妹叫什么名字？妹妹",
        "ice cream support group",
        "",
    ];
    for query in queries {
        let q = Query::new(query, &Names::default());
        let positions = positions(&q.terms);
        for c in &candidates {
            let got = Analysis::new(c, &positions, q.terms.len(), &term_pairs(&q.pairs));
            let want = token_by_token(c, &q.terms, &q.pairs);
            assert_eq!(got.tf, want.tf, "{query} / {}", c.id);
            assert_eq!(got.keyword_hit, want.keyword_hit, "{query} / {}", c.id);
            assert_eq!(got.len.to_bits(), want.len.to_bits(), "{query} / {}", c.id);
            assert_eq!(
                got.proximity.to_bits(),
                want.proximity.to_bits(),
                "{query} / {}",
                c.id
            );
            assert_eq!(got.sentence_tf, want.sentence_tf, "{query} / {}", c.id);
            assert_eq!(got.sentence_len, want.sentence_len, "{query} / {}", c.id);
            assert_eq!(got.topics, want.topics, "{query} / {}", c.id);
            let sentences: Vec<(&[f64], f64)> = got.sentences().collect();
            assert_eq!(
                sentences.len(),
                got.sentence_len.len(),
                "{query} / {}",
                c.id
            );
        }
    }
}

#[test]
fn a_models_similarities_are_rescaled_over_the_querys_candidates() {
    // e5-like cosines: everything in a narrow high band.
    let mut req = request("garden");
    req.debug = true;
    req.max_results = 10;
    req.min_vector_similarity = 0.75;
    let with = |id: &str, text: &str, similarity: f32| {
        let mut c = memory(id, MemoryType::Other, text, &[]);
        c.vector_similarity = Some(similarity);
        c
    };
    let candidates = vec![
        with("best", "roses and tulips", 0.95),
        with("middle", "the garden shed", 0.90),
        with("worst", "tax forms", 0.85),
        with("noise", "a parking ticket", 0.70),
    ];
    let stats = stats_for(&req.query, &candidates);
    let vector_of = |weights: &Weights| -> Vec<(String, f64)> {
        rank_with(weights, &req, candidates.clone(), &stats)
            .into_iter()
            .map(|r| (r.candidate.id, r.signals.unwrap()["vector"]))
            .collect()
    };
    let model = vector_of(&WEIGHTS_MODEL_EMBEDDINGS);
    let w = WEIGHTS_MODEL_EMBEDDINGS.vector;
    let signal = |id: &str| model.iter().find(|(i, _)| i == id).map(|(_, v)| *v);
    // The range includes the dropped candidate's 0.70: min-max runs over every similarity.
    assert!((signal("best").unwrap() - w).abs() < 1e-6, "{model:?}");
    assert!(
        (signal("middle").unwrap() - w * 0.8).abs() < 1e-6,
        "{model:?}"
    );
    assert!(
        (signal("worst").unwrap() - w * 0.6).abs() < 1e-6,
        "{model:?}"
    );
    assert_eq!(signal("noise"), None, "below the embedder's relevant level");
    // The built-in embedder's weights use the cosine as it is.
    let raw = vector_of(&WEIGHTS);
    let best = raw.iter().find(|(i, _)| i == "best").unwrap().1;
    assert!((best - WEIGHTS.vector * 0.95).abs() < 1e-6, "{raw:?}");
    assert_eq!(
        raw[0].0, "middle",
        "the word decides when vectors weigh little"
    );
}

#[test]
fn a_lone_similarity_is_the_best_there_is() {
    let mut req = request("garden");
    req.debug = true;
    let mut only = memory("only", MemoryType::Other, "roses", &[]);
    only.vector_similarity = Some(0.8);
    let stats = stats_for(&req.query, std::slice::from_ref(&only));
    let ranked = rank_with(&WEIGHTS_MODEL_EMBEDDINGS, &req, vec![only], &stats);
    let vector = ranked[0].signals.as_ref().unwrap()["vector"];
    assert_eq!(vector, WEIGHTS_MODEL_EMBEDDINGS.vector);
    assert_eq!(weights_for(true), &WEIGHTS_MODEL_EMBEDDINGS);
    assert_eq!(weights_for(false), &WEIGHTS);
}

#[test]
fn a_dialogue_finds_memories_of_its_topic_that_share_none_of_its_words() {
    // The user talks about a pizza place; what they told before about eating out says
    // neither "pizza" nor "店". Every memory shares the same everyday words with the dialogue.
    let dialogue = "Bart: 你知道吗，我今天发现了一个超级好吃的披萨店！\n\
        Assistant: 真的吗？你最喜欢哪种口味？\n\
        Bart: 我喜欢加了很多香肠的，那里的环境也很好！";
    let mut candidates = vec![memory(
        "restaurant",
        MemoryType::History,
        "Bart和爸爸妈妈去了一家环境很好的餐厅，感到非常开心",
        &[],
    )];
    for (i, event) in [
        "去了一家环境很好的书店",
        "在环境很好的公园跑步",
        "看了一部很好的电影",
    ]
    .iter()
    .enumerate()
    {
        candidates.push(memory(
            &format!("other{i}"),
            MemoryType::History,
            &format!("Bart{event}，感到非常开心"),
            &[],
        ));
    }
    let stats = stats_for(dialogue, &candidates);
    let ranked = rank(&request(dialogue), candidates, &stats);
    assert_eq!(ranked[0].candidate.id, "restaurant", "{ranked:#?}");
}
