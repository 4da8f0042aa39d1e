//! Adding and changing memories: validation and patch.

use super::*;

#[test]
fn memory_inputs_are_validated_with_their_index() {
    let w = world();
    npc(&w, "val", json!({}));
    let err = |m: serde_json::Value| {
        run(w.hippo.add_memories(
            "val",
            json(json!({"memories": [{"summary": "ok", "type": "other"}, m]})),
        ))
        .unwrap_err()
    };
    assert_eq!(
        err(json!({"summary": "", "type": "other"})),
        Error::InvalidInput("memories[1].summary cannot be empty".into())
    );
    assert!(
        matches!(err(json!({"summary": "x", "type": "nonsense"})), Error::InvalidInput(m) if m.starts_with("memories[1].type"))
    );
    assert!(
        matches!(err(json!({"summary": "x", "type": "other", "confidence": 1.5})), Error::InvalidInput(m) if m.contains("confidence"))
    );
    assert_eq!(
        run(w.hippo.list_memories("val", ListMemoriesQuery::default()))
            .unwrap()
            .count,
        0,
        "a rejected batch wrote something"
    );
}

#[test]
fn patch_changes_a_memory_with_the_add_validation() {
    let w = world();
    npc(&w, "p", json!({}));
    npc(&w, "q", json!({}));
    let id = add(
        &w,
        "p",
        json!([{"summary": "The user plays the violin", "type": "preference"}]),
    )
    .results[0]
        .id
        .clone();
    let other = add(
        &w,
        "q",
        json!([{"summary": "The user plays chess", "type": "preference"}]),
    )
    .results[0]
        .id
        .clone();

    let res = patch(&w, "p", &id, json!({"summary": "The user plays the cello", "keywords": ["music"], "importance": 0.9, "type": "style"})).unwrap();
    assert_eq!(res.memory.memory.summary, "The user plays the cello");
    assert_eq!(
        res.memory.memory.memory_type,
        hippo::memory::MemoryType::Style
    );
    assert_eq!(res.memory.memory.importance, 0.9);
    assert!(res.warning.is_none());
    // Re-indexed: the new words find it, the old ones do not.
    assert_eq!(retrieve(&w, "p", json!({"query": "cello"}))[0].id, id);
    assert!(retrieve(&w, "p", json!({"query": "violin"})).is_empty());
    // Re-embedded: the vector index finds it by the new text, under its new type.
    use hippo::ports::{Embedder, VectorFilter, VectorIndex};
    let embedder = hippo::retrieval::embed::BuiltinEmbedder::new();
    let v = run(embedder.embed(
        hippo::ports::EmbedKind::Document,
        &["The user plays the cello (music)".to_string()],
    ))
    .unwrap();
    let filter = VectorFilter {
        collections: vec![hippo::memory::Collection::Memory],
        types: vec![hippo::memory::MemoryType::Style],
        near: false,
        floor: None,
    };
    let hits = run(w.vectors.query("p", &v[0], 1, &filter)).unwrap();
    assert_eq!(hits[0].0, id);
    assert!(
        hits[0].1 > 0.99,
        "the stored vector is the new text's: {hits:?}"
    );

    // Sensitivity: on, with a category; off again; never off for a detected secret.
    let on = patch(&w, "p", &id, json!({"sensitive_category": "health"})).unwrap();
    assert!(on.memory.memory.sensitive);
    assert!(retrieve(&w, "p", json!({"query": "cello"})).is_empty());
    let off = patch(&w, "p", &id, json!({"sensitive": false})).unwrap();
    assert!(!off.memory.memory.sensitive && off.memory.memory.sensitive_category.is_none());
    assert_eq!(retrieve(&w, "p", json!({"query": "cello"}))[0].id, id);
    let secret = patch(
        &w,
        "p",
        &id,
        json!({"summary": "The user's locker password is cello4821"}),
    )
    .unwrap();
    assert!(
        secret.memory.memory.sensitive,
        "a summary with a secret is marked"
    );
    let refused = patch(&w, "p", &id, json!({"sensitive": false}));
    assert!(
        matches!(&refused, Err(Error::InvalidInput(m)) if m.contains("credentials")),
        "{refused:?}"
    );

    for (body, needle) in [
        (json!({}), "nothing to change"),
        (json!({"summary": "  "}), "summary cannot be empty"),
        (
            json!({"importance": 1.5}),
            "importance must be between 0 and 1",
        ),
        (json!({"type": "mood"}), "type must be one of"),
        (json!({"keywords": ["x".repeat(65)]}), "keywords"),
        (
            json!({"sensitive_category": "medical"}),
            "sensitive_category must be one of",
        ),
        (
            json!({"sensitive": false, "sensitive_category": "health"}),
            "cannot go with",
        ),
    ] {
        let got = patch(&w, "p", &id, body.clone());
        assert!(
            matches!(&got, Err(Error::InvalidInput(m)) if m.contains(needle)),
            "{body}: {got:?}"
        );
    }
    // Unknown fields are refused when the body is read.
    assert!(serde_json::from_value::<MemoryPatch>(json!({"pin": true})).is_err());

    // Another NPC's memory, and an unknown id, are not found; neither is changed.
    assert!(matches!(
        patch(&w, "p", &other, json!({"importance": 0.1})),
        Err(Error::NotFound(_))
    ));
    assert!(matches!(
        patch(&w, "p", "mem_nope", json!({"importance": 0.1})),
        Err(Error::NotFound(_))
    ));
    let q = run(w.hippo.list_memories("q", ListMemoriesQuery::default())).unwrap();
    assert_eq!(q.memories[0].memory.importance, 0.5);
}
