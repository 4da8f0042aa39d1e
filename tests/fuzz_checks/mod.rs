//! What each fuzz target checks, shared by `fuzz/` (cargo fuzz) and the regression test
//! `tests/fuzz_regressions.rs`, which replays every input under `fuzz/regressions/<target>/`.
#![allow(dead_code)]

use hippo::api::{ConversationAppend, PkgUpdateRequest};
use hippo::pkg::{self, Pkg, PkgValue};

/// PKG updates: any body either fails to parse or merges within every limit, twice idempotently.
pub fn pkg_updates(data: &[u8]) {
    let Ok(req) = serde_json::from_slice::<PkgUpdateRequest>(data) else {
        return;
    };
    let mut current = Pkg::new();
    current.insert("Name".into(), PkgValue::Text("Xiao Ming".into()));
    let Ok(merge) = pkg::merge_updates(&current, &req.updates) else {
        return;
    };
    let mut once = current.clone();
    pkg::apply_merge(&mut once, &merge);
    assert_eq!(
        once["Name"],
        PkgValue::Text("Xiao Ming".into()),
        "a set Name changed"
    );
    for (key, value) in &once {
        assert!(
            key != "voice_registered" && key != "face_registered",
            "protected key written"
        );
        match (pkg::item_limit(key), value) {
            (Some(limit), PkgValue::List(items)) => {
                assert!(items.len() <= limit, "{key} over limit")
            }
            (None, PkgValue::Text(t)) => assert!(t.chars().count() <= pkg::MAX_TEXT_CHARS),
            _ => {}
        }
    }
    let again = pkg::merge_updates(&once, &req.updates).expect("valid once, valid twice");
    let mut twice = once.clone();
    pkg::apply_merge(&mut twice, &again);
    assert_eq!(
        once, twice,
        "applying the same updates twice changed the PKG"
    );
}

/// memory_retrieval bodies: parse or a clear error, never a panic; parsed values in range.
pub fn retrieval_request(data: &[u8]) {
    if let Ok(p) = hippo::retrieval::protocol::parse_retrieval_request(data) {
        assert!((1..=10).contains(&p.max_results));
        assert!(!p.query.trim().is_empty());
    }
}

/// Conversation appends: parse, then append through the engine; the log holds what was
/// appended, once.
pub fn conversation_append(data: &[u8]) {
    use hippo::engine::Ports;
    use hippo::ports::FixedClock;
    use std::rc::Rc;
    let Ok(req) = serde_json::from_slice::<ConversationAppend>(data) else {
        return;
    };
    let hippo = hippo::Hippo::new(Ports {
        store: Rc::new(hippo::store::MemoryStore::new()),
        vectors: Rc::new(hippo::store::MemoryVectorIndex::new()),
        embedder: Rc::new(hippo::retrieval::embed::BuiltinEmbedder::new()),
        llm: None,
        clock: Rc::new(FixedClock::at(hippo::time::Timestamp(1_775_606_400_000))),
    });
    futures::executor::block_on(async {
        hippo
            .upsert_npc("f", Default::default())
            .await
            .expect("npc");
        if let Ok(first) = hippo.append_conversation("f", req.clone()).await {
            let log = hippo.get_conversation("f", 0, 1000).await.expect("log");
            assert_eq!(log.turns.len(), first.appended);
            if req.session_id.is_some() {
                let again = hippo
                    .append_conversation("f", req)
                    .await
                    .expect("same again");
                assert_eq!(again.appended, 0, "a re-sent session was stored twice");
            }
        }
    });
}

/// The tokenizer: any text, no panic, no empty tokens, deterministic.
pub fn tokenizer(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let tokens = hippo::retrieval::tokenize::tokenize(&text);
    assert!(tokens.iter().all(|t| !t.is_empty()));
    assert_eq!(tokens, hippo::retrieval::tokenize::tokenize(&text));
}

/// Time expressions: any text, no panic; a range never ends before it starts.
pub fn time_expression(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let today = chrono::NaiveDate::from_ymd_opt(2026, 4, 8).expect("date");
    if let Some(r) = hippo::retrieval::timeparse::parse_time_range(&text, today) {
        assert!(r.start <= r.end, "{text:?} gave {r:?}");
    }
}

/// LLM output: any text becomes a validated extraction or an error message, never a panic;
/// what validates is within the parser's documented bounds.
pub fn llm_output(data: &[u8]) {
    use hippo::dream::llm::parse;
    let text = String::from_utf8_lossy(data);
    let known = ["entity_001".to_string()];
    if let Ok(x) = parse::parse_extraction(&text, &known) {
        for m in &x.memories {
            assert!((0.0..=1.0).contains(&m.importance) && (0.0..=1.0).contains(&m.confidence));
            assert!(!m.summary.trim().is_empty());
        }
        for op in &x.entity_ops {
            if let Some(id) = &op.id {
                assert!(known.contains(id), "unknown entity id {id} accepted");
            }
        }
    }
    let _ = parse::parse_verdict(&text);
    if let Ok(d) = parse::parse_diary(&text, 300) {
        assert!(d.chars().count() <= 300);
    }
}
