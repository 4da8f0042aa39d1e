//! [`Hippo`]: the operations every binding exposes (HTTP routes, npm methods), over the ports.
//!
//! Each method takes the same request object as its HTTP route and returns the same response
//! object. The rules live in their own modules (`pkg`, `relationship`, `memory`, `retrieval`,
//! `dream`); the engine reads what a rule needs, applies it, and commits the resulting
//! writes as one atomic [`WriteBatch`], retrying when another writer got there first.

mod brief;
mod commit;
mod conversation;
mod dream;
mod execute;
mod ingest;
mod memories;
mod new_memory;
pub(crate) mod npcs;
mod reembed;
mod reinforce;
mod search;
mod sources;
mod tokens;
mod transfer;

pub use crate::memory::{MAX_CONTEXT_CHARS, MAX_KEYWORDS, MAX_KEYWORD_CHARS, MAX_SUMMARY_CHARS};
pub use brief::{BRIEF_DEFAULT_TOKENS, BRIEF_MAX_TOKENS};
pub(crate) use commit::CommitError;
pub use conversation::MAX_TURN_CHARS;
pub use ingest::{embedding_text, MemoryPlan, CONFLICT_CANDIDATES, CONFLICT_MAX_DF};
pub use memories::{MEMORY_PAGE_DEFAULT, MEMORY_PAGE_MAX};
pub use new_memory::NewMemory;
pub use reinforce::{Deferred, Flushed};
pub use sources::MAX_SOURCES_PER_ITEM;

use crate::error::{Error, Result};
use crate::ids::validate_npcid;
use crate::memory::conflict::Slots;
use crate::memory::strength::DecayConfig;
use crate::npc::Npc;
use crate::ports::{Clock, Embedder, Llm, Store, VectorIndex};
use crate::retrieval::embed_cache::EmbeddingCache;
use crate::time::Timestamp;
use std::cell::{Cell, RefCell};
use std::rc::Rc;

/// The outside world, as the core sees it.
#[derive(Clone)]
pub struct Ports {
    pub store: Rc<dyn Store>,
    pub vectors: Rc<dyn VectorIndex>,
    pub embedder: Rc<dyn Embedder>,
    /// `None`: the built-in extractor and summarizer serve.
    pub llm: Option<Rc<dyn Llm>>,
    pub clock: Rc<dyn Clock>,
}

/// The meta key recording which embedder the database's vectors come from.
const EMBEDDER_META_KEY: &str = "embedder";

pub struct Hippo {
    ports: Ports,
    decay: DecayConfig,
    embedder_checked: Cell<bool>,
    /// Vectors of structured candidates (PKG fields, entities, diary days) by text.
    embed_cache: Rc<RefCell<EmbeddingCache>>,
    /// Subject slots of the texts conflict resolution compared lately (a bounded memo).
    slots: RefCell<Slots>,
    /// Where retrievals queue their touches when the binding commits them after answering.
    deferred: Option<Rc<Deferred>>,
}

/// The 404 message of an operation on an NPC that does not exist.
fn no_such_npc(npcid: &str) -> String {
    format!("NPC {npcid} does not exist")
}

impl Hippo {
    pub fn new(ports: Ports) -> Self {
        Hippo {
            ports,
            decay: DecayConfig::default(),
            embedder_checked: Cell::new(false),
            embed_cache: Rc::new(RefCell::new(EmbeddingCache::default())),
            slots: RefCell::new(Slots::default()),
            deferred: None,
        }
    }

    /// Shares `cache` with other instances (a Worker isolate builds one `Hippo` per request
    /// and keeps one cache for all of them).
    pub fn with_embedding_cache(mut self, cache: Rc<RefCell<EmbeddingCache>>) -> Self {
        self.embed_cache = cache;
        self
    }

    pub fn ports(&self) -> &Ports {
        &self.ports
    }

    pub fn decay(&self) -> &DecayConfig {
        &self.decay
    }

    /// The clock's time, moved into the years timestamps can hold (a JS `clock` callback
    /// may answer anything).
    fn now(&self) -> Timestamp {
        self.ports.clock.now().clamped()
    }

    /// The NPC, or 404 with `message(npcid)`.
    async fn require_npc_with(&self, npcid: &str, message: fn(&str) -> String) -> Result<Npc> {
        validate_npcid(npcid)?;
        self.ports
            .store
            .npc(npcid)
            .await?
            .ok_or_else(|| Error::NotFound(message(npcid)))
    }

    async fn require_npc(&self, npcid: &str) -> Result<Npc> {
        self.require_npc_with(npcid, no_such_npc).await
    }

    /// The database records the embedder's name and dimension on first use and refuses a
    /// different one: vectors of two embedders are not comparable (SPEC §2.6).
    /// `record`: write the configured embedder down if the database has none yet (a dry run
    /// writes nothing, so it only checks).
    async fn check_embedder(&self, record: bool) -> Result<()> {
        if self.embedder_checked.get() {
            return Ok(());
        }
        let mine = self.configured_embedder();
        match self.ports.store.meta(EMBEDDER_META_KEY).await? {
            None if !record => return Ok(()),
            None => self.ports.store.set_meta(EMBEDDER_META_KEY, &mine).await?,
            Some(recorded) if recorded == mine => {}
            Some(recorded) => {
                return Err(Error::NotConfigured(format!(
                    "the database's vectors come from embedder {recorded}, but {mine} is \
                     configured; configure {recorded} again, or re-embed everything with \
                     POST /api/admin/reembed"
                )))
            }
        }
        self.embedder_checked.set(true);
        Ok(())
    }

    /// `name:dimension` of the configured embedder, as the database records it.
    fn configured_embedder(&self) -> String {
        let e = &self.ports.embedder;
        format!("{}:{}", e.name(), e.dimension())
    }

    /// Forgets the recorded embedder and records the configured one (the explicit
    /// re-embedding operation calls this before rebuilding every NPC's vectors).
    async fn adopt_embedder(&self) -> Result<String> {
        let mine = self.configured_embedder();
        self.ports.store.set_meta(EMBEDDER_META_KEY, &mine).await?;
        self.embedder_checked.set(true);
        Ok(mine)
    }

    /// Runs the dream of one NPC (SPEC §2.5).
    pub async fn dream(&self, npcid: &str, dry_run: bool) -> Result<crate::api::DreamReport> {
        self.require_npc(npcid).await?;
        self.check_embedder(!dry_run).await?;
        dream::run_dream(self, npcid, dry_run).await
    }
}
