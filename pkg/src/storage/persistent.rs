//! [`PersistentStore`]: the core's in-memory store, saved whole through an adapter after every
//! mutation, before that mutation's promise resolves.
//!
//! Saves run one at a time and coalesce: a save writes everything changed so far, so callers
//! queued behind it find their change already durable. If a save fails, the in-memory state
//! is rolled back to what the adapter last stored, and every caller whose change was not yet
//! durable gets the error: what a resolved promise reported is on disk, nothing else is.

use super::adapter::JsAdapter;
use super::format::{self, Section, STORE_SECTION};
use async_trait::async_trait;
use futures::lock::Mutex;
use hippo::conversation::Turn;
use hippo::diary::DiaryEntry;
use hippo::error::PortError;
use hippo::memory::Memory;
use hippo::npc::Npc;
use hippo::pkg::PkgValue;
use hippo::ports::*;
use hippo::relationship::Entity;
use hippo::store::memory::MemoryStore;
use hippo::time::Timestamp;
use std::cell::{Cell, RefCell};
use std::rc::Rc;

pub struct PersistentStore {
    /// Replaced wholesale on rollback; cloned out so no borrow is held across an await.
    state: RefCell<Rc<MemoryStore>>,
    saver: Option<Saver>,
    /// Set when a failed save could not even reload the durable state: the instance refuses
    /// everything rather than serve changes that are not on disk.
    poisoned: RefCell<Option<String>>,
}

struct Saver {
    adapter: JsAdapter,
    /// One save at a time.
    turn: Mutex<()>,
    /// Generation of the in-memory state: +1 per mutation.
    changed: Cell<u64>,
    /// The newest generation known to be saved.
    durable: Cell<u64>,
    /// Generations up to this one were rolled back after a failed save.
    lost_through: Cell<u64>,
}

impl PersistentStore {
    /// A store that lives only in memory (`storage: "memory"`).
    pub fn in_memory() -> Self {
        PersistentStore {
            state: RefCell::new(Rc::new(MemoryStore::new())),
            saver: None,
            poisoned: RefCell::new(None),
        }
    }

    /// Loads what the adapter last saved (an empty store if nothing yet).
    pub async fn open(adapter: JsAdapter) -> Result<Self, hippo::Error> {
        let store = load_state(&adapter).await?;
        Ok(PersistentStore {
            state: RefCell::new(Rc::new(store)),
            saver: Some(Saver {
                adapter,
                turn: Mutex::new(()),
                changed: Cell::new(0),
                durable: Cell::new(0),
                lost_through: Cell::new(0),
            }),
            poisoned: RefCell::new(None),
        })
    }

    /// Waits until every mutation made so far is durable (a no-op for `"memory"`).
    pub async fn flush(&self) -> PortResult<()> {
        self.check()?;
        match &self.saver {
            Some(saver) if saver.changed.get() > saver.lost_through.get() => {
                self.save_through(saver.changed.get()).await
            }
            _ => Ok(()),
        }
    }

    /// Flushes, then lets the adapter release its resources.
    pub async fn close(&self) -> PortResult<()> {
        let flushed = self.flush().await;
        if let Some(saver) = &self.saver {
            saver.adapter.close().await?;
        }
        flushed
    }

    /// The whole state as the persisted format.
    pub fn encode(&self) -> Vec<u8> {
        format::encode(&[Section {
            tag: STORE_SECTION,
            bytes: self.state.borrow().snapshot(),
        }])
    }

    fn check(&self) -> PortResult<()> {
        match &*self.poisoned.borrow() {
            Some(why) => Err(PortError::Backend(format!(
                "storage is unusable after a failed save ({why}); open it again"
            ))),
            None => Ok(()),
        }
    }

    fn store(&self) -> PortResult<Rc<MemoryStore>> {
        self.check()?;
        Ok(self.state.borrow().clone())
    }

    /// Called after each successful in-memory mutation.
    async fn persist(&self) -> PortResult<()> {
        let Some(saver) = &self.saver else {
            return Ok(());
        };
        let generation = saver.changed.get() + 1;
        saver.changed.set(generation);
        self.save_through(generation).await
    }

    async fn save_through(&self, generation: u64) -> PortResult<()> {
        let saver = self.saver.as_ref().expect("only persisted stores save");
        let _turn = saver.turn.lock().await;
        if saver.durable.get() >= generation {
            return Ok(());
        }
        if saver.lost_through.get() >= generation {
            return Err(PortError::Backend(
                "storage save failed; the change was rolled back".into(),
            ));
        }
        self.check()?;
        let target = saver.changed.get();
        match saver.adapter.save(&self.encode()).await {
            Ok(()) => {
                saver.durable.set(target);
                Ok(())
            }
            Err(error) => {
                self.roll_back(saver).await;
                Err(error)
            }
        }
    }

    /// Back to what is durable; everything newer is reported lost to its callers.
    async fn roll_back(&self, saver: &Saver) {
        saver.lost_through.set(saver.changed.get());
        match load_state(&saver.adapter).await {
            Ok(store) => *self.state.borrow_mut() = Rc::new(store),
            Err(error) => *self.poisoned.borrow_mut() = Some(error.to_string()),
        }
    }
}

async fn load_state(adapter: &JsAdapter) -> Result<MemoryStore, hippo::Error> {
    let Some(bytes) = adapter.load().await? else {
        return Ok(MemoryStore::new());
    };
    let sections = format::decode(&bytes).map_err(unreadable)?;
    let store = format::find(&sections, STORE_SECTION).ok_or_else(|| unreadable("no store section"))?;
    MemoryStore::restore(store).map_err(|e| unreadable(e.to_string()))
}

fn unreadable(why: impl std::fmt::Display) -> hippo::Error {
    hippo::Error::Port(PortError::Backend(format!("cannot read the stored data: {why}")))
}

#[async_trait(?Send)]
impl Store for PersistentStore {
    async fn npc(&self, npcid: &str) -> PortResult<Option<Npc>> {
        self.store()?.npc(npcid).await
    }
    async fn list_npcs(&self, after: Option<&str>, limit: usize) -> PortResult<Vec<Npc>> {
        self.store()?.list_npcs(after, limit).await
    }
    async fn pkg(&self, npcid: &str) -> PortResult<Vec<(String, PkgValue)>> {
        self.store()?.pkg(npcid).await
    }
    async fn entities(&self, npcid: &str) -> PortResult<Vec<(String, Entity)>> {
        self.store()?.entities(npcid).await
    }
    async fn diary(&self, npcid: &str) -> PortResult<(String, Vec<DiaryEntry>)> {
        self.store()?.diary(npcid).await
    }
    async fn turns(&self, npcid: &str, after_seq: u64, limit: usize) -> PortResult<Vec<Turn>> {
        self.store()?.turns(npcid, after_seq, limit).await
    }
    async fn last_seq(&self, npcid: &str) -> PortResult<u64> {
        self.store()?.last_seq(npcid).await
    }
    async fn memories(&self, npcid: &str, filter: &MemoryFilter) -> PortResult<Vec<Memory>> {
        self.store()?.memories(npcid, filter).await
    }
    async fn memories_by_id(&self, npcid: &str, ids: &[String]) -> PortResult<Vec<Memory>> {
        self.store()?.memories_by_id(npcid, ids).await
    }
    async fn lexical_search(
        &self,
        npcid: &str,
        query: &LexicalQuery,
        limit: usize,
    ) -> PortResult<Vec<(String, f64)>> {
        self.store()?.lexical_search(npcid, query, limit).await
    }
    async fn term_stats(&self, npcid: &str, terms: &[String]) -> PortResult<CorpusStats> {
        self.store()?.term_stats(npcid, terms).await
    }
    async fn commit(&self, npcid: &str, batch: WriteBatch) -> PortResult<()> {
        self.store()?.commit(npcid, batch).await?;
        self.persist().await
    }
    async fn token_by_hash(&self, token_hash: &str) -> PortResult<Option<TokenRecord>> {
        self.store()?.token_by_hash(token_hash).await
    }
    async fn tokens(&self, npcid: &str) -> PortResult<Vec<TokenRecord>> {
        self.store()?.tokens(npcid).await
    }
    /// Leases coordinate dreams inside this process; they are not worth a save of their own.
    async fn acquire_lease(
        &self,
        npcid: &str,
        holder: &str,
        now: Timestamp,
        until: Timestamp,
    ) -> PortResult<bool> {
        self.store()?.acquire_lease(npcid, holder, now, until).await
    }
    async fn release_lease(&self, npcid: &str, holder: &str) -> PortResult<()> {
        self.store()?.release_lease(npcid, holder).await
    }
    async fn meta(&self, key: &str) -> PortResult<Option<String>> {
        self.store()?.meta(key).await
    }
    async fn set_meta(&self, key: &str, value: &str) -> PortResult<()> {
        self.store()?.set_meta(key, value).await?;
        self.persist().await
    }
}
