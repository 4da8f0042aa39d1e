//! The database's embedder: a different one is refused, and re-embedding pages through every NPC.

use super::*;

#[test]
fn a_database_refuses_a_different_embedder() {
    let w = world();
    npc(&w, "emb", json!({}));
    run(hippo::ports::Store::set_meta(
        w.store.as_ref(),
        "embedder",
        "other-model:1024",
    ))
    .unwrap();
    let err = run(w.hippo.add_memories(
        "emb",
        json(json!({"memories": [{"summary": "x", "type": "other"}]})),
    ))
    .unwrap_err();
    assert!(matches!(err, Error::NotConfigured(_)), "{err:?}");
}

#[test]
fn reembedding_pages_through_every_npc_and_adopts_the_configured_embedder() {
    let w = world();
    let per_page = hippo::api::REEMBED_NPCS_PER_PAGE;
    // One NPC more than a page, each with one memory.
    let ids: Vec<String> = (0..=per_page).map(|i| format!("re{i:03}")).collect();
    for id in &ids {
        npc(&w, id, json!({}));
        add(
            &w,
            id,
            json!([{"summary": format!("{id} likes tea"), "type": "preference"}]),
        );
    }
    run(hippo::ports::Store::set_meta(
        w.store.as_ref(),
        "embedder",
        "other-model:1024",
    ))
    .unwrap();

    let first = run(w.hippo.reembed_page(None)).unwrap();
    assert_eq!((first.npcs, first.vectors), (per_page, per_page));
    let after = first.next.clone().expect("a second page");
    assert_eq!(
        run(hippo::ports::Store::meta(w.store.as_ref(), "embedder")).unwrap(),
        Some(first.embedder.clone()),
        "the first page records the configured embedder"
    );
    let last = run(w.hippo.reembed_page(Some(&after))).unwrap();
    assert_eq!((last.npcs, last.vectors, last.next), (1, 1, None));
    assert_eq!(last.embedder, first.embedder);

    // The npm package's whole walk gives the sum of the pages.
    run(hippo::ports::Store::set_meta(
        w.store.as_ref(),
        "embedder",
        "other-model:1024",
    ))
    .unwrap();
    let all = run(w.hippo.reembed_all()).unwrap();
    assert_eq!((all.status.as_str(), all.vectors), ("ok", per_page + 1));
    assert_eq!(all.embedder, first.embedder);
    add(
        &w,
        "re000",
        json!([{"summary": "re000 paints", "type": "preference"}]),
    );
}

/// An embedder that, once armed, deletes the NPC's first memory in the middle of its next
/// call: a write landing while the vectors are rebuilt.
struct DeletingEmbedder {
    inner: BuiltinEmbedder,
    store: Rc<MemoryStore>,
    armed: std::cell::Cell<bool>,
}

#[async_trait::async_trait(?Send)]
impl Embedder for DeletingEmbedder {
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
        false
    }
    async fn embed(&self, kind: EmbedKind, texts: &[String]) -> PortResult<Vec<Vec<f32>>> {
        if self.armed.replace(false) {
            let first = self
                .store
                .memories("r", &MemoryFilter::default())
                .await?
                .into_iter()
                .next()
                .expect("a memory");
            let mut batch = WriteBatch::new();
            batch.push(Write::DeleteMemory { id: first.id });
            self.store.commit("r", batch).await?;
        }
        self.inner.embed(kind, texts).await
    }
}

#[test]
fn a_rebuild_over_many_pages_misses_no_record_when_one_is_deleted_meanwhile() {
    let store = Rc::new(MemoryStore::new());
    let vectors = Rc::new(MemoryVectorIndex::new());
    let embedder = Rc::new(DeletingEmbedder {
        inner: BuiltinEmbedder::new(),
        store: store.clone(),
        armed: std::cell::Cell::new(false),
    });
    let hippo = hippo::Hippo::new(Ports {
        store: store.clone(),
        vectors: vectors.clone(),
        embedder: embedder.clone(),
        llm: None,
        clock: Rc::new(FixedClock::at(t("2026-04-08T10:00:00Z"))),
    });
    run(hippo.upsert_npc("r", NpcUpsert::default())).unwrap();
    run(hippo.add_memories(
        "r",
        json(json!({"memories": [{"summary": "The user keeps bees", "type": "preference"}]})),
    ))
    .unwrap();
    // More records than one page of the rebuild (1,024), imported in one document.
    let mut doc = run(hippo.export_npc("r")).unwrap();
    let one = doc.memories[0].clone();
    doc.memories = (0..1_100)
        .map(|i| {
            let mut m = one.clone();
            m.id = format!("m{i:05}");
            m.summary = format!("Note number {i} about the garden");
            m
        })
        .collect();
    run(hippo.import_npc("r", doc)).unwrap();
    assert_eq!(vectors.count("r"), 1_100);

    embedder.armed.set(true);
    run(hippo.rebuild_vectors("r")).unwrap();
    let left = run(store.memories(
        "r",
        &MemoryFilter {
            include_superseded: true,
            ..Default::default()
        },
    ))
    .unwrap();
    assert_eq!(left.len(), 1_099);
    let missing: Vec<&str> = left
        .iter()
        .filter(|m| !vectors.has("r", &m.id))
        .map(|m| m.id.as_str())
        .collect();
    assert!(missing.is_empty(), "records without a vector: {missing:?}");
    assert_eq!(
        vectors.count("r"),
        1_099,
        "and no vector of the deleted record"
    );
}
