//! Export and import: lossless round trips, errors that name the record, and imports raced by writes.

use super::*;

#[test]
fn export_delete_import_round_trip_is_lossless() {
    let w = world();
    npc(
        &w,
        "e",
        json!({"Name": "Xiao Ming", "Hobbies": ["Reading"]}),
    );
    run(w.hippo.apply_entity_ops(
        "e",
        json(json!({"ops": [{"op": "add", "name": "小红", "title": ["同学"]}]})),
    ))
    .unwrap();
    run(w.hippo.append_conversation(
        "e",
        json(json!({"session_id": "s", "turns": [{"role": "user", "content": "hi"}]})),
    ))
    .unwrap();
    add(
        &w,
        "e",
        json!([{"summary": "User lives in Berlin", "type": "profile"}, {"summary": "User lives in Bangkok", "type": "profile"}]),
    );
    let before = run(w.hippo.export_npc("e")).unwrap();
    run(w.hippo.delete_npc("e")).unwrap();
    assert!(matches!(run(w.hippo.get_npc("e")), Err(Error::NotFound(_))));
    assert_eq!(w.vectors.count("e"), 0);
    // Through JSON, as the route carries it.
    let doc: NpcExport = serde_json::from_str(&serde_json::to_string(&before).unwrap()).unwrap();
    run(w.hippo.import_npc("e", doc)).unwrap();
    let after = run(w.hippo.export_npc("e")).unwrap();
    assert_eq!(
        serde_json::to_value(&before).unwrap(),
        serde_json::to_value(&after).unwrap()
    );
    // Berlin, superseded by Bangkok, is kept but not indexed.
    assert_eq!(w.vectors.count("e"), 1);
    let mut wrong = before.clone();
    wrong.version = 99;
    assert!(matches!(
        run(w.hippo.import_npc("e", wrong)),
        Err(Error::InvalidInput(_))
    ));
}

#[test]
fn an_import_error_names_the_record_and_field() {
    let w = world();
    npc(&w, "src", json!({}));
    run(w.hippo.append_conversation(
        "src",
        json(json!({"session_id": "s", "turns": [
            {"role": "user", "content": "hi"}, {"role": "user", "content": "again"}
        ]})),
    ))
    .unwrap();
    add(
        &w,
        "src",
        json!([{"summary": "User lives in Berlin", "type": "profile"},
               {"summary": "User plays chess", "type": "preference"}]),
    );
    let doc = run(w.hippo.export_npc("src")).unwrap();
    let import = |edit: &dyn Fn(&mut NpcExport)| {
        let mut bad = doc.clone();
        edit(&mut bad);
        match run(w.hippo.import_npc("dst", bad)) {
            Err(Error::InvalidInput(message)) => message,
            other => panic!("{other:?}"),
        }
    };
    type Edit<'a> = &'a dyn Fn(&mut NpcExport);
    let cases: [(Edit, &str); 5] = [
        (
            &|d| d.memories[1].confidence = 2.0,
            "memories[1].confidence must be between 0 and 1",
        ),
        (
            &|d| d.memories[1].summary = " ".into(),
            "memories[1].summary cannot be empty",
        ),
        (
            &|d| d.memories[1].id = d.memories[0].id.clone(),
            "memories[1].id repeats an earlier id",
        ),
        (
            &|d| d.memories[0].source_turns = vec!["a/b".to_string()].into(),
            "memories[0].source_turns must hold turn ids",
        ),
        (
            &|d| d.turns[1].content = String::new(),
            "turns[1].content cannot be empty",
        ),
    ];
    for (edit, expected) in cases {
        let message = import(edit);
        assert!(message.starts_with(expected), "{message}");
    }
}

#[test]
fn export_and_import_keep_the_source_links_of_pkg_fields_and_people() {
    let w = world();
    npc(&w, "links", json!({}));
    run(w.hippo.append_conversation(
        "links",
        json(json!({"session_id": "s", "turns": [
            {"role": "user", "content": "我最近喜欢上了游泳。"},
            {"role": "user", "content": "我的同学小红明天过生日。"}
        ]})),
    ))
    .unwrap();
    assert_eq!(run(w.hippo.dream("links", false)).unwrap().error, None);
    let before = run(w.hippo.export_npc("links")).unwrap();
    assert!(
        before.pkg_source_turns.contains_key("Hobbies"),
        "{:?}",
        before.pkg_source_turns
    );
    assert!(!before.relationship["entity_001"].source_turns.is_empty());
    let doc: NpcExport = serde_json::from_str(&serde_json::to_string(&before).unwrap()).unwrap();
    run(w.hippo.import_npc("copy", doc)).unwrap();
    let copy = run(w.hippo.export_npc("copy")).unwrap();
    assert_eq!(copy.pkg_source_turns, before.pkg_source_turns);
    assert_eq!(copy.relationship, before.relationship);
    assert_eq!(
        run(w.hippo.get_pkg("copy")).unwrap().source_turns,
        before.pkg_source_turns
    );
    // A document from a build before the links still imports (no links).
    let mut old = serde_json::to_value(&before).unwrap();
    old.as_object_mut().unwrap().remove("pkg_source_turns");
    run(w.hippo.import_npc("old", json(old))).unwrap();
    assert!(run(w.hippo.get_pkg("old")).unwrap().source_turns.is_empty());
}

#[test]
fn an_import_marks_what_the_detector_flags_as_every_write_does() {
    // A document from another tool, or from a build whose detector missed it, says a secret
    // is not sensitive: the import applies the floor, as `add_memories` does.
    let w = world();
    npc(&w, "src", json!({}));
    add(
        &w,
        "src",
        json!([{"summary": "User likes green tea", "type": "preference"}]),
    );
    let mut doc = serde_json::to_value(run(w.hippo.export_npc("src")).unwrap()).unwrap();
    let mut secret = doc["memories"][0].clone();
    secret["id"] = json!("mem_secret");
    secret["summary"] = json!("User's password is hunter2xyz");
    secret["sensitive"] = json!(false);
    doc["memories"].as_array_mut().unwrap().push(secret);
    run(w.hippo.import_npc("dst", json(doc))).unwrap();
    let listed = run(w.hippo.list_memories("dst", ListMemoriesQuery::default())).unwrap();
    let flags: Vec<(&str, bool, Option<&str>)> = listed
        .memories
        .iter()
        .map(|m| {
            let m = &m.memory;
            (
                m.summary.as_str(),
                m.sensitive,
                m.sensitive_category.map(|c| c.as_str()),
            )
        })
        .collect();
    assert!(
        flags.contains(&("User's password is hunter2xyz", true, Some("credentials"))),
        "{flags:?}"
    );
    assert!(
        flags.contains(&("User likes green tea", false, None)),
        "{flags:?}"
    );
    let exported = run(w.hippo.export_npc("dst")).unwrap();
    assert!(exported
        .memories
        .iter()
        .any(|m| m.id == "mem_secret" && m.sensitive));
}

/// Issue 18, item 8: an import is checked by the write routes' rules, and keeps the NPC's
/// retrieval tokens (it revoked them before).
#[test]
fn import_checks_every_record_and_keeps_tokens() {
    let w = world();
    npc(&w, "imp", json!({"Name": "Xiao Ming"}));
    add(
        &w,
        "imp",
        json!([{"summary": "User likes green tea", "type": "preference"}]),
    );
    let token = run(w.hippo.issue_token("imp", TokenRequest::default()))
        .unwrap()
        .token;
    let good = run(w.hippo.export_npc("imp")).unwrap();
    let good_json = serde_json::to_value(&good).unwrap();

    let bad_docs: Vec<(&str, serde_json::Value)> = vec![
        ("importance", json!({"importance": 1e308})),
        ("confidence", json!({"confidence": -0.5})),
        ("summary", json!({"summary": "长".repeat(200_000)})),
        ("summary", json!({"summary": "   "})),
        ("id", json!({"id": ""})),
        ("id", json!({"id": "x/../y"})),
        ("id", json!({"id": ".."})),
        ("source", json!({"source": "s".repeat(65)})),
        ("superseded_by", json!({"superseded_by": "a b"})),
        (
            "source_turns",
            json!({"source_turns": (0..65).map(|i| format!("turn_{i}")).collect::<Vec<_>>()}),
        ),
        ("source_turns", json!({"source_turns": ["a b"]})),
    ];
    for (field, patch) in bad_docs {
        let mut doc = good_json.clone();
        for (k, v) in patch.as_object().unwrap() {
            doc["memories"][0][k] = v.clone();
        }
        let err = run(w.hippo.import_npc("imp", json(doc))).unwrap_err();
        assert!(
            matches!(&err, Error::InvalidInput(m) if m.starts_with(&format!("memories[0].{field}"))),
            "{field}: {err:?}"
        );
    }
    for (what, patch) in [
        ("pkg", json!({"pkg": {"Bad\nKey": "x"}})),
        ("pkg", json!({"pkg": {"Bio": "b".repeat(1025)}})),
        (
            "pkg",
            json!({"pkg": {"Hobbies": (0..11).map(|i| i.to_string()).collect::<Vec<_>>()}}),
        ),
        (
            "relationship",
            json!({"relationship": {"friend": {"name": "A"}}}),
        ),
        (
            "relationship",
            json!({"relationship": {"entity_001": {"name": " "}}}),
        ),
        (
            "relationship",
            json!({"relationship": {"entity_001": {"name": "A", "source_turns": ["t", "t"]}}}),
        ),
        (
            "pkg_source_turns",
            json!({"pkg_source_turns": {"Nickname": ["turn_1"]}}),
        ),
        (
            "diary",
            json!({"diary": {"prior": "", "dailies": [{"date": "2026-13-01", "summary": "x"}]}}),
        ),
        (
            "diary",
            json!({"diary": {"prior": "p".repeat(4001), "dailies": []}}),
        ),
        (
            "turns",
            json!({"turns": [{"id": "t1", "seq": 1, "kind": "turn", "content": "no role", "ts": 0}]}),
        ),
        (
            "display_name",
            json!({"npc": {"npcid": "imp", "display_name": "n".repeat(201), "created_at": 0, "voice_registered": false, "face_registered": false, "settings": {}, "next_entity_seq": 1, "watermark": 0}}),
        ),
    ] {
        let mut doc = good_json.clone();
        for (k, v) in patch.as_object().unwrap() {
            doc[k] = v.clone();
        }
        let err = run(w.hippo.import_npc("imp", json(doc))).unwrap_err();
        assert!(
            matches!(&err, Error::InvalidInput(m) if m.starts_with(what)),
            "{what}: {err:?}"
        );
    }
    // Nothing of the refused imports landed; the token still resolves.
    let after = run(w.hippo.export_npc("imp")).unwrap();
    assert_eq!(serde_json::to_value(&after).unwrap(), good_json);
    // A restore over the NPC keeps its tokens.
    run(w.hippo.import_npc("imp", good)).unwrap();
    assert_eq!(
        run(w.hippo.resolve_token(&format!("Bearer {token}"))).unwrap(),
        "imp"
    );
}

/// Restoring an export taken before a retrieval reinforced its memories: the import replaces
/// the NPC whole, so the memories' access counts are no concurrency guard for it (it answered
/// 409 on every try when they were).
#[test]
fn import_restores_an_export_taken_before_a_reinforcement() {
    let w = world();
    npc(&w, "old", json!({}));
    add(
        &w,
        "old",
        json!([{"summary": "User likes green tea", "type": "preference"}]),
    );
    let before = run(w.hippo.export_npc("old")).unwrap();
    let found = run(w.hippo.retrieve("old", json(json!({"query": "green tea"})))).unwrap();
    assert!(
        !found.memories.is_empty(),
        "the retrieval reinforces the memory"
    );
    run(w.hippo.import_npc("old", before.clone())).unwrap();
    let after = run(w.hippo.export_npc("old")).unwrap();
    assert_eq!(after.memories, before.memories);
}

#[test]
fn an_import_raced_by_a_write_is_busy_and_writes_nothing() {
    let store = Rc::new(MemoryStore::new());
    let w = world_with(store.clone());
    npc(&w, "i", json!({}));
    add(
        &w,
        "i",
        json!([{"summary": "The user keeps bees", "type": "preference"}]),
    );
    let mut doc = run(w.hippo.export_npc("i")).unwrap();
    doc.memories[0].summary = "The user restores old clocks".into();
    // Each store call yields, so the write below lands between the import's read of the NPC
    // and its commit.
    let interleaved = hippo::Hippo::new(Ports {
        store: Rc::new(TestStore::interleaving(store.clone())),
        ..w.hippo.ports().clone()
    });
    let import = interleaved.import_npc("i", doc);
    // One store call, which lands after the import has read the NPC (both yield first; the
    // import is polled first) and before its commit.
    let racing = TestStore::interleaving(store.clone());
    let mut batch = WriteBatch::new();
    batch.push(Write::SetPkgField {
        key: "Hobbies".into(),
        value: PkgValue::Text("Chess".into()),
        source_turns: Default::default(),
    });
    let write = racing.commit("i", batch);
    let (imported, written) = run(async { futures::join!(import, write) });
    written.unwrap();
    assert!(
        matches!(imported, Err(Error::Busy(_))),
        "the import must not erase the write that landed first: {imported:?}"
    );
    // Nothing of the document landed, and the write is kept.
    let summaries: Vec<String> = run(w.hippo.list_memories("i", ListMemoriesQuery::default()))
        .unwrap()
        .memories
        .into_iter()
        .map(|m| m.memory.summary)
        .collect();
    assert_eq!(summaries, ["The user keeps bees"]);
    assert_eq!(
        run(w.hippo.get_pkg("i")).unwrap().pkg["Hobbies"],
        PkgValue::Text("Chess".into())
    );
}
