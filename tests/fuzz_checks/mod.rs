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
    if let Ok(p) = hippo::api::protocol::parse_retrieval_request(data) {
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
    if let Some(r) = hippo::time::phrase::parse_time_range(&text, today) {
        assert!(r.start <= r.end, "{text:?} gave {r:?}");
    }
    // The dream's dates, on an ordinary day and at the ends of the calendar (a date told as
    // done moves back a week, a month or a year from there).
    for day in [today, chrono::NaiveDate::MIN, chrono::NaiveDate::MAX] {
        if let Some(w) = hippo::time::when::find(&text, day) {
            for &(s, e) in &w.spans {
                assert!(
                    s <= e && text.get(s..e).is_some(),
                    "{text:?}: span {s}..{e}"
                );
            }
            let _ = (w.restate(&text), w.restate_all(&text), w.strip(&text));
        }
    }
}

/// LLM output: any text becomes a validated extraction or an error message, never a panic;
/// what validates is within the parser's documented bounds.
pub fn llm_output(data: &[u8]) {
    use hippo::llm::parse;
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

/// Route names of the whole-request target, in [`hippo::api::OpKind::ALL`] order; `clock`
/// (after them) sets the clock to the body's milliseconds.
pub const HTTP_ROUTES: [&str; 24] = [
    "list_npcs",
    "get_npc",
    "put_npc",
    "delete_npc",
    "get_pkg",
    "put_pkg",
    "get_relationship",
    "post_relationship",
    "get_diary",
    "dream",
    "append_conversation",
    "get_conversation",
    "add_memories",
    "list_memories",
    "update_memory",
    "delete_memory",
    "search_memories",
    "issue_token",
    "revoke_token",
    "export_npc",
    "import_npc",
    "rebuild_vectors",
    "retrieve",
    "clock",
];

/// Separates the requests of one input (ASCII record separator).
pub const REQUEST_SEPARATOR: u8 = 0x1e;

/// Whole HTTP requests through the Worker's path (`Operation::parse` → `Hippo::execute`) on
/// the in-memory store, a sequence of up to 8 per input, each:
///
/// ```text
/// <route name or any first byte> [npcid] [id]\n<query string>\n<body bytes>
/// ```
///
/// (requests separated by 0x1E). A route name picks the route; otherwise the first byte does.
/// Checks: no panic; an error is the caller's (400/404/409/413 kinds), never an internal or
/// storage error; answers serialize; memory_retrieval answers stay within the protocol's
/// limits; and whatever the sequence stored exports and imports again (a backup of anything
/// the write routes accept can be restored).
pub fn http_requests(data: &[u8]) {
    use hippo::api::{OpKind, Operation, RawRequest, Reply};
    use hippo::engine::Ports;
    use hippo::error::Error;
    use hippo::ports::FixedClock;
    use std::rc::Rc;

    let clock = Rc::new(FixedClock::at(hippo::time::Timestamp(1_775_642_400_000)));
    let hippo = hippo::Hippo::new(Ports {
        store: Rc::new(hippo::store::MemoryStore::new()),
        vectors: Rc::new(hippo::store::MemoryVectorIndex::new()),
        embedder: Rc::new(hippo::retrieval::embed::BuiltinEmbedder::new()),
        llm: None,
        clock: clock.clone(),
    });
    let run = |kind: OpKind, path: &[(&str, &str)], query: &[(String, String)], body: &[u8]| {
        let raw = RawRequest { path, query, body };
        let op = Operation::parse(kind, &raw)?;
        futures::executor::block_on(hippo.execute(op))
    };
    // The NPC "f" with something in every part of its memory.
    let seed: [(OpKind, &str); 5] = [
        (
            OpKind::PutNpc,
            r#"{"display_name":"F","pkg":{"Name":"Xiao Ming","Hobbies":"hiking"}}"#,
        ),
        (
            OpKind::PostRelationship,
            r#"{"ops":[{"op":"add","name":"Anna","title":["sister"]}]}"#,
        ),
        (
            OpKind::AppendConversation,
            r#"{"session_id":"s","turns":[{"role":"user","content":"我昨天去爬山了"},{"role":"assistant","content":"好棒"}]}"#,
        ),
        (
            OpKind::AddMemories,
            r#"{"memories":[{"summary":"The user likes green tea","type":"preference"}]}"#,
        ),
        (OpKind::IssueToken, "{}"),
    ];
    for (kind, body) in seed {
        run(kind, &[("npcid", "f")], &[], body.as_bytes()).expect("seed request");
    }

    for request in data.split(|b| *b == REQUEST_SEPARATOR).take(8) {
        let mut lines = request.splitn(3, |b| *b == b'\n');
        let head = String::from_utf8_lossy(lines.next().unwrap_or_default()).into_owned();
        let query_line = String::from_utf8_lossy(lines.next().unwrap_or_default()).into_owned();
        let body = lines.next().unwrap_or_default();
        let mut words = head.split(' ');
        let name = words.next().unwrap_or_default();
        let index = HTTP_ROUTES
            .iter()
            .position(|r| *r == name)
            .unwrap_or_else(|| {
                usize::from(request.first().copied().unwrap_or(0)) % HTTP_ROUTES.len()
            });
        let Some(kind) = OpKind::ALL.get(index).copied() else {
            let ms = std::str::from_utf8(body)
                .ok()
                .and_then(|b| b.trim().parse::<i64>().ok());
            clock.set(hippo::time::Timestamp(ms.unwrap_or(0)));
            continue;
        };
        let npcid = words.next().unwrap_or("f");
        let second = words.next().unwrap_or("x");
        let path = [("npcid", npcid), ("id", second), ("token_id", second)];
        let query: Vec<(String, String)> = query_line
            .split('&')
            .filter(|p| !p.is_empty())
            .map(|p| match p.split_once('=') {
                Some((k, v)) => (k.to_string(), v.to_string()),
                None => (p.to_string(), String::new()),
            })
            .collect();
        match run(kind, &path, &query, body) {
            Ok(reply) => {
                let json = serde_json::to_vec(&reply).expect("every reply serializes");
                if let Reply::Retrieval(r) = &reply {
                    assert!(r.memories.len() <= 10, "{} results", r.memories.len());
                    assert!(json.len() <= hippo::api::protocol::MAX_BODY_BYTES);
                    for m in &r.memories {
                        assert!(
                            m.summary.chars().count() <= hippo::api::protocol::MAX_SUMMARY_CHARS
                        );
                    }
                }
            }
            Err(e) => assert!(
                matches!(
                    e,
                    Error::InvalidInput(_)
                        | Error::NotFound(_)
                        | Error::Busy(_)
                        | Error::TooLarge(_)
                ),
                "{kind:?} answered an internal error to input: {e:?}"
            ),
        }
    }

    // Whatever was stored can be backed up and restored.
    let Ok(Reply::Export(doc)) = run(OpKind::ExportNpc, &[("npcid", "f")], &[], b"") else {
        return;
    };
    let bytes = serde_json::to_vec(&doc).expect("an export serializes");
    if let Err(e) = run(OpKind::ImportNpc, &[("npcid", "restored")], &[], &bytes) {
        panic!("the export of what the routes accepted does not import: {e:?}");
    }
    let Ok(Reply::Export(again)) = run(OpKind::ExportNpc, &[("npcid", "restored")], &[], b"")
    else {
        panic!("the restored NPC does not export");
    };
    assert_eq!(
        (&again.pkg, &again.memories.len()),
        (&doc.pkg, &doc.memories.len())
    );
}
