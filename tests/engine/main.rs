//! The engine over in-memory ports: every operation's contract, as the routes expose it.

#[path = "../common/mod.rs"]
mod common;

mod access;
mod conflicts;
mod embedders;
mod memories;
mod records;
mod reinforcement;
mod retrieval;
mod sensitive;
mod transfer;

use common::*;
use hippo::api::ListMemoriesQuery;
use hippo::api::*;
use hippo::engine::Ports;
use hippo::pkg::PkgValue;
use hippo::ports::{
    EmbedKind, Embedder, FixedClock, MemoryFilter, PortResult, Store, VectorFilter, VectorIndex,
    VectorItem, Write, WriteBatch,
};
use hippo::retrieval::embed::BuiltinEmbedder;
use hippo::store::{MemoryStore, MemoryVectorIndex};
use hippo::Error;
use serde_json::json;
use std::rc::Rc;

fn retrieve(w: &World, npcid: &str, body: serde_json::Value) -> Vec<RetrievedMemory> {
    run(w.hippo.retrieve(npcid, json(body))).unwrap().memories
}

fn memories_of(w: &World, npcid: &str, collection: &str) -> Vec<MemoryView> {
    let q = ListMemoriesQuery {
        collection: Some(collection.into()),
        limit: Some(500),
        ..Default::default()
    };
    run(w.hippo.list_memories(npcid, q)).unwrap().memories
}

/// A world whose engine embeds through a [`CountingEmbedder`] over the built-in one.
fn counting_world() -> (World, Rc<CountingEmbedder>, hippo::Hippo) {
    let embedder = Rc::new(CountingEmbedder {
        inner: hippo::retrieval::embed::BuiltinEmbedder::new(),
        texts: Default::default(),
    });
    let w = world();
    let hippo = hippo::Hippo::new(Ports {
        embedder: embedder.clone(),
        ..w.hippo.ports().clone()
    });
    (w, embedder, hippo)
}

/// An embedder that counts the texts it is asked for (any embedder: built-in or external).
struct CountingEmbedder {
    inner: hippo::retrieval::embed::BuiltinEmbedder,
    texts: std::cell::RefCell<Vec<usize>>,
}

#[async_trait::async_trait(?Send)]
impl hippo::ports::Embedder for CountingEmbedder {
    fn name(&self) -> &str {
        "counting"
    }
    fn dimension(&self) -> usize {
        self.inner.dimension()
    }
    fn thresholds(&self) -> hippo::ports::SimilarityThresholds {
        self.inner.thresholds()
    }
    fn semantic(&self) -> bool {
        self.inner.semantic()
    }
    async fn embed(
        &self,
        kind: hippo::ports::EmbedKind,
        texts: &[String],
    ) -> hippo::ports::PortResult<Vec<Vec<f32>>> {
        self.texts.borrow_mut().push(texts.len());
        self.inner.embed(kind, texts).await
    }
}

fn search(w: &World, npcid: &str, body: serde_json::Value) -> Vec<SearchHit> {
    run(w.hippo.search(npcid, json(body))).unwrap().memories
}

fn patch(
    w: &World,
    npcid: &str,
    id: &str,
    body: serde_json::Value,
) -> hippo::Result<UpdateMemoryResponse> {
    run(w.hippo.update_memory(npcid, id, json(body)))
}
