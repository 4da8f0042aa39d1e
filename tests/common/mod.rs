//! A Hippo over the in-memory ports at a fixed clock, for the engine tests.
#![allow(dead_code)]

use async_trait::async_trait;
use hippo::engine::Ports;
use hippo::error::PortError;
use hippo::ports::*;
use hippo::retrieval::embed::BuiltinEmbedder;
use hippo::store::{MemoryStore, MemoryVectorIndex};
use hippo::time::Timestamp;
use hippo::Hippo;
use std::rc::Rc;

pub struct World {
    pub hippo: Hippo,
    pub store: Rc<MemoryStore>,
    pub vectors: Rc<MemoryVectorIndex>,
    pub clock: Rc<FixedClock>,
}

pub fn t(text: &str) -> Timestamp {
    Timestamp::parse(text).expect("valid timestamp")
}

pub fn world() -> World {
    world_with(Rc::new(MemoryStore::new()))
}

pub fn world_with(store: Rc<MemoryStore>) -> World {
    let vectors = Rc::new(MemoryVectorIndex::new());
    let clock = Rc::new(FixedClock::at(t("2026-04-08T10:00:00Z")));
    let hippo = Hippo::new(Ports {
        store: store.clone(),
        vectors: vectors.clone(),
        embedder: Rc::new(BuiltinEmbedder::new()),
        llm: None,
        clock: clock.clone(),
    });
    World {
        hippo,
        store,
        vectors,
        clock,
    }
}

pub fn run<F: std::future::Future>(f: F) -> F::Output {
    futures::executor::block_on(f)
}

pub fn json<T: serde::de::DeserializeOwned>(v: serde_json::Value) -> T {
    serde_json::from_value(v).expect("test JSON matches the type")
}

/// Creates (or updates) NPC `npcid` with the initial `pkg`.
pub fn npc(w: &World, npcid: &str, pkg: serde_json::Value) {
    run(w.hippo.upsert_npc(
        npcid,
        json(serde_json::json!({"display_name": "灵绯", "pkg": pkg})),
    ))
    .unwrap();
}

/// `POST /api/memories/{npcid}` with `memories`.
pub fn add(w: &World, npcid: &str, memories: serde_json::Value) -> hippo::api::AddMemoriesResponse {
    run(w
        .hippo
        .add_memories(npcid, json(serde_json::json!({ "memories": memories }))))
    .unwrap()
}

/// Yields to the executor once, so `join!`ed operations interleave at every store call.
pub struct YieldOnce(bool);

impl std::future::Future for YieldOnce {
    type Output = ();
    fn poll(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<()> {
        if self.0 {
            std::task::Poll::Ready(())
        } else {
            self.0 = true;
            cx.waker().wake_by_ref();
            std::task::Poll::Pending
        }
    }
}

/// The in-memory store behind a test double: it can yield before every call, so `join!`ed
/// operations interleave at each store call, and it fails the commits `fail` picks.
pub struct TestStore {
    pub inner: Rc<MemoryStore>,
    pub interleave: bool,
    pub fail: std::cell::Cell<fn(&WriteBatch) -> bool>,
}

pub fn never(_: &WriteBatch) -> bool {
    false
}

impl TestStore {
    /// Concurrent writers through this store see each other's races.
    pub fn interleaving(inner: Rc<MemoryStore>) -> Self {
        TestStore {
            inner,
            interleave: true,
            fail: std::cell::Cell::new(never),
        }
    }

    /// Commits fail ("disk full") while `fail` says so for the batch.
    pub fn failing(inner: Rc<MemoryStore>) -> Self {
        TestStore {
            inner,
            interleave: false,
            fail: std::cell::Cell::new(never),
        }
    }

    async fn pause(&self) {
        if self.interleave {
            YieldOnce(false).await;
        }
    }
}

macro_rules! delegate {
    ($(async fn $name:ident(&self $(, $arg:ident: $ty:ty)*) -> $ret:ty;)*) => {
        #[async_trait(?Send)]
        impl Store for TestStore {
            async fn commit(&self, npcid: &str, batch: WriteBatch) -> PortResult<()> {
                self.pause().await;
                if (self.fail.get())(&batch) {
                    return Err(PortError::Backend("disk full".into()));
                }
                self.inner.commit(npcid, batch).await
            }
            $(async fn $name(&self $(, $arg: $ty)*) -> $ret {
                self.pause().await;
                self.inner.$name($($arg),*).await
            })*
        }
    };
}

delegate! {
        async fn retrieval_view(&self, npcid: &str) -> PortResult<Option<RetrievalView>>;
        async fn npc(&self, npcid: &str) -> PortResult<Option<hippo::npc::Npc>>;
        async fn list_npcs(&self, after: Option<&str>, limit: usize) -> PortResult<Vec<hippo::npc::Npc>>;
        async fn pkg(&self, npcid: &str) -> PortResult<Vec<hippo::pkg::PkgField>>;
        async fn entities(&self, npcid: &str) -> PortResult<Vec<(String, hippo::relationship::Entity)>>;
        async fn diary(&self, npcid: &str) -> PortResult<(String, Vec<hippo::diary::DiaryEntry>)>;
        async fn turns(&self, npcid: &str, after_seq: u64, limit: usize) -> PortResult<Vec<hippo::conversation::Turn>>;
        async fn turns_by_id(&self, npcid: &str, ids: &[String]) -> PortResult<Vec<hippo::conversation::Turn>>;
        async fn append_turns(&self, npcid: &str, turns: Vec<hippo::conversation::Turn>) -> PortResult<Appended>;
        async fn last_seq(&self, npcid: &str) -> PortResult<u64>;
        async fn memories(&self, npcid: &str, filter: &MemoryFilter) -> PortResult<Vec<hippo::memory::Memory>>;
        async fn memories_by_id(&self, npcid: &str, ids: &[String]) -> PortResult<Vec<hippo::memory::Memory>>;
        async fn lexical_search(&self, npcid: &str, query: &LexicalQuery, limit: usize) -> PortResult<Vec<(String, f64)>>;
        async fn term_stats(&self, npcid: &str, terms: &[String]) -> PortResult<CorpusStats>;
        async fn token_by_hash(&self, token_hash: &str) -> PortResult<Option<TokenRecord>>;
        async fn tokens(&self, npcid: &str) -> PortResult<Vec<TokenRecord>>;
        async fn acquire_lease(&self, npcid: &str, holder: &str, now: Timestamp, until: Timestamp) -> PortResult<bool>;
        async fn release_lease(&self, npcid: &str, holder: &str) -> PortResult<()>;
        async fn meta(&self, key: &str) -> PortResult<Option<String>>;
        async fn set_meta(&self, key: &str, value: &str) -> PortResult<()>;
}

/// A vector index that is down.
pub struct DownVectors;

#[async_trait(?Send)]
impl VectorIndex for DownVectors {
    async fn upsert(&self, _: &str, _: Vec<VectorItem>) -> PortResult<()> {
        Err(PortError::Backend("vector index down".into()))
    }
    async fn query(
        &self,
        _: &str,
        _: &[f32],
        _: usize,
        _: &VectorFilter,
    ) -> PortResult<Vec<(String, f32)>> {
        Err(PortError::Backend("vector index down".into()))
    }
    async fn delete(&self, _: &str, _: &[String]) -> PortResult<()> {
        Err(PortError::Backend("vector index down".into()))
    }
    async fn delete_npc(&self, _: &str) -> PortResult<()> {
        Err(PortError::Backend("vector index down".into()))
    }
}
