//! NPCs, the PKG, relationships, the diary and conversation appends.

use super::*;

#[test]
fn npc_create_then_update_keeps_unchanged_fields() {
    let w = world();
    let created = run(w.hippo.upsert_npc(
        "a",
        json(json!({"display_name": "A", "voice_registered": true})),
    ))
    .unwrap();
    assert!(created.created && created.voice_registered && !created.face_registered);
    let updated = run(w
        .hippo
        .upsert_npc("a", json(json!({"face_registered": true}))))
    .unwrap();
    assert!(!updated.created);
    assert_eq!(updated.display_name, "A");
    assert!(updated.voice_registered && updated.face_registered);
    let bad = run(w.hippo.upsert_npc("a b", NpcUpsert::default())).unwrap_err();
    assert!(matches!(bad, Error::InvalidInput(_)));
    let bad = run(w
        .hippo
        .upsert_npc("a", json(json!({"settings": {"diary_window": 0}}))))
    .unwrap_err();
    assert!(matches!(bad, Error::InvalidInput(_)), "{bad:?}");
}

#[test]
fn pkg_routes_follow_the_seed() {
    let w = world();
    npc(
        &w,
        "abc123",
        json!({"Name": "Xiao Ming", "Hobbies": "Reading,Running"}),
    );
    let res = run(w.hippo.update_pkg("abc123", json(json!({"updates": [
        {"key": "Hobbies", "value": "Swimming,Painting"},
        {"key": "Favorite Books", "value": ["Three-Body Problem", "One Hundred Years of Solitude"]},
        {"key": "Name", "value": "Someone Else"},
        {"key": "voice_registered", "value": "true"}
    ]})))).unwrap();
    assert_eq!(res.status, "ok");
    assert_eq!(res.updated_fields, ["Hobbies", "Favorite Books"]);
    let view = run(w.hippo.get_pkg("abc123")).unwrap();
    assert_eq!(view.pkg["Name"], PkgValue::Text("Xiao Ming".into()));
    assert_eq!(
        view.pkg["Hobbies"],
        PkgValue::List(vec![
            "Reading".into(),
            "Running".into(),
            "Swimming".into(),
            "Painting".into()
        ])
    );
    assert_eq!(view.pkg["voice_registered"], PkgValue::Flag(false));
    let empty = run(w.hippo.update_pkg("abc123", json(json!({"updates": []})))).unwrap_err();
    assert_eq!(empty, Error::InvalidInput("updates cannot be empty".into()));
    let missing = run(w.hippo.update_pkg(
        "nobody",
        json(json!({"updates": [{"key": "A", "value": "b"}]})),
    ))
    .unwrap_err();
    assert_eq!(
        missing,
        Error::NotFound("NPC nobody does not exist or has no PKG".into())
    );
    assert!(matches!(
        run(w.hippo.get_pkg("nobody")),
        Err(Error::NotFound(_))
    ));
}

#[test]
fn parallel_pkg_updates_both_land() {
    let store = Rc::new(hippo::store::MemoryStore::new());
    let w = world_with(store.clone());
    npc(&w, "p", json!({}));
    let interleaved = hippo::Hippo::new(Ports {
        store: Rc::new(TestStore::interleaving(store.clone())),
        ..w.hippo.ports().clone()
    });
    let a = interleaved.update_pkg(
        "p",
        json(json!({"updates": [{"key": "Hobbies", "value": "Chess"}]})),
    );
    let b = interleaved.update_pkg(
        "p",
        json(
            json!({"updates": [{"key": "Hobbies", "value": "Go"}, {"key": "Job", "value": "dev"}]}),
        ),
    );
    let (ra, rb) = run(async { futures::join!(a, b) });
    ra.unwrap();
    rb.unwrap();
    let pkg = run(w.hippo.get_pkg("p")).unwrap().pkg;
    match &pkg["Hobbies"] {
        PkgValue::List(items) => {
            assert!(
                items.contains(&"Chess".to_string()) && items.contains(&"Go".to_string()),
                "{items:?}"
            )
        }
        other => panic!("Hobbies is {other:?}"),
    }
    assert_eq!(pkg["Job"], PkgValue::Text("dev".into()));
}

#[test]
fn relationships_and_diary_views() {
    let w = world();
    npc(&w, "r", json!({}));
    let res = run(w.hippo.apply_entity_ops("r", json(json!({"ops": [
        {"op": "add", "name": "Xiao Hong", "alias": ["Honghong"], "title": ["Classmate"], "remark": "Often plays basketball together"},
        {"op": "add", "name": "Teacher Zhang", "title": ["Class Teacher"], "remark": "Math teacher"},
        {"op": "update", "name": "honghong", "title": ["Best friend"]}
    ]})))).unwrap();
    assert_eq!(res.count, 2);
    let ids: Vec<&str> = res.results.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(ids, ["entity_001", "entity_002", "entity_001"]);
    let view = run(w.hippo.get_relationships("r")).unwrap();
    assert_eq!(view.count, 2);
    assert_eq!(
        view.relationship["entity_001"].title,
        ["Classmate", "Best friend"]
    );
    let gone = run(w.hippo.apply_entity_ops(
        "r",
        json(json!({"ops": [{"op": "delete", "name": "Nobody"}]})),
    ))
    .unwrap_err();
    assert!(matches!(gone, Error::NotFound(_)));
    let diary = run(w.hippo.get_diary("r")).unwrap();
    assert_eq!((diary.count, diary.prior.as_str()), (0, ""));
}

#[test]
fn conversation_appends_are_idempotent_per_session_and_index() {
    let w = world();
    npc(&w, "c", json!({}));
    let body = json!({"session_id": "s1", "turns": [
        {"role": "user", "content": "叫我阿澈就好"},
        {"role": "assistant", "content": "好的，阿澈"}
    ], "summary": "打招呼"});
    let first = run(w.hippo.append_conversation("c", json(body.clone()))).unwrap();
    assert_eq!(
        (first.appended, first.duplicates, first.last_seq),
        (3, 0, 3)
    );
    let again = run(w.hippo.append_conversation("c", json(body))).unwrap();
    assert_eq!((again.appended, again.duplicates), (0, 3));
    let next = run(w.hippo.append_conversation(
        "c",
        json(json!({"session_id": "s1", "turns": [
            {"role": "user", "content": "明天见", "index": 2}
        ]})),
    ))
    .unwrap();
    assert_eq!((next.appended, next.last_seq), (1, 4));
    let log = run(w.hippo.get_conversation("c", 0, 100)).unwrap();
    assert_eq!(log.turns.len(), 4);
    assert_eq!(log.turns[3].content, "明天见");
    // Appends need no read first; an unknown NPC is still a 404, and nothing is stored.
    let missing = run(w.hippo.append_conversation(
        "nobody",
        json(json!({"turns": [{"role": "user", "content": "hi"}]})),
    ))
    .unwrap_err();
    assert!(matches!(missing, Error::NotFound(_)), "{missing:?}");
    let bad = run(w.hippo.append_conversation(
        "c",
        json(json!({"turns": [{"role": "system", "content": "x"}]})),
    ))
    .unwrap_err();
    assert_eq!(
        bad,
        Error::InvalidInput("turns[0].role must be \"user\" or \"assistant\"".into())
    );
}

/// Issue 18, item 9: PKG fields and entities are capped per NPC: a 400 on the API, what the
/// dream finds beyond the cap is dropped (the dream does not fail), an import over the cap
/// is a 400.
#[test]
fn pkg_fields_and_entities_are_capped_per_npc() {
    let w = world();
    npc(&w, "cap", json!({}));
    let fields: Vec<_> = (0..hippo::pkg::MAX_FIELDS)
        .map(|i| json!({"key": format!("Field {i}"), "value": "x"}))
        .collect();
    run(w
        .hippo
        .update_pkg("cap", json(json!({ "updates": fields }))))
    .unwrap();
    // Changing an existing field is fine; one more field is not.
    run(w.hippo.update_pkg(
        "cap",
        json(json!({"updates": [{"key": "Field 0", "value": "y"}]})),
    ))
    .unwrap();
    let err = run(w.hippo.update_pkg(
        "cap",
        json(json!({"updates": [{"key": "City", "value": "Paris"}]})),
    ))
    .unwrap_err();
    assert!(
        matches!(&err, Error::InvalidInput(m) if m.contains("at most 256 fields")),
        "{err:?}"
    );
    let err = run(w
        .hippo
        .upsert_npc("cap", json(json!({"pkg": {"City": "Paris"}}))))
    .unwrap_err();
    assert!(matches!(err, Error::InvalidInput(_)));

    // The dream finds a new field ("Hobbies": it does on an NPC under the cap) and drops it
    // without failing.
    let said =
        json!({"turns": [{"role": "user", "content": "I love swimming and my hobby is painting"}]});
    npc(&w, "free", json!({}));
    for id in ["cap", "free"] {
        run(w.hippo.append_conversation(id, json(said.clone()))).unwrap();
        assert_eq!(run(w.hippo.dream(id, false)).unwrap().error, None);
    }
    assert!(run(w.hippo.get_pkg("free"))
        .unwrap()
        .pkg
        .contains_key("Hobbies"));
    let pkg = run(w.hippo.get_pkg("cap")).unwrap().pkg;
    assert!(!pkg.contains_key("Hobbies") && pkg.len() == hippo::pkg::MAX_FIELDS + 2);

    let ops: Vec<_> = (0..hippo::relationship::MAX_ENTITIES)
        .map(|i| json!({"op": "add", "name": format!("Person {i}")}))
        .collect();
    run(w.hippo.apply_entity_ops("cap", json(json!({ "ops": ops })))).unwrap();
    let err = run(w.hippo.apply_entity_ops(
        "cap",
        json(json!({"ops": [{"op": "add", "name": "One more"}]})),
    ))
    .unwrap_err();
    assert!(
        matches!(&err, Error::InvalidInput(m) if m.contains("at most 1000 entities")),
        "{err:?}"
    );
    // Adding a known name updates it: no new entity.
    run(w.hippo.apply_entity_ops(
        "cap",
        json(json!({"ops": [{"op": "add", "name": "Person 1", "title": ["friend"]}]})),
    ))
    .unwrap();

    let mut doc = run(w.hippo.export_npc("cap")).unwrap();
    run(w.hippo.import_npc("copy", doc.clone())).unwrap();
    doc.pkg
        .insert("One more".into(), PkgValue::Text("x".into()));
    let err = run(w.hippo.import_npc("copy", doc)).unwrap_err();
    assert!(
        matches!(&err, Error::InvalidInput(m) if m.contains("more than 256 fields")),
        "{err:?}"
    );
}
