//! [`PersistedState`]: the core's in-memory store and vector index, saved together through an
//! adapter. Mutations only mark the state changed; each API call saves once when it is done,
//! before its promise resolves ([`PersistedState::flush`]), so an operation of many writes
//! (an import, a dream: commits plus vector upserts) costs one save, not one per write.
//!
//! Saves run one at a time and coalesce: a save writes everything changed so far, so callers
//! queued behind it find their change already durable. If a save fails, the in-memory state
//! is rolled back to what the adapter last stored and every caller whose change was not yet
//! durable gets the error: what a resolved promise reported is saved, nothing else is.

use super::adapter::JsAdapter;
use super::format::{self, Section, STORE_SECTION, VECTORS_SECTION};
use futures::lock::Mutex;
use hippo::error::PortError;
use hippo::ports::PortResult;
use hippo::store::{MemoryStore, MemoryVectorIndex};
use std::cell::{Cell, RefCell};
use std::rc::Rc;

pub struct PersistedState {
    /// Both replaced wholesale on rollback; cloned out so no borrow is held across an await.
    store: RefCell<Rc<MemoryStore>>,
    vectors: RefCell<Rc<MemoryVectorIndex>>,
    saver: Option<Saver>,
    /// Set when a failed save could not even reload the saved state: the instance refuses
    /// everything rather than serve changes that are not saved.
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

struct Loaded {
    store: MemoryStore,
    vectors: MemoryVectorIndex,
}

impl PersistedState {
    /// State that lives only in memory (`storage: "memory"`).
    pub fn in_memory() -> Self {
        Self::with(
            Loaded {
                store: MemoryStore::new(),
                vectors: MemoryVectorIndex::new(),
            },
            None,
        )
    }

    /// Loads what the adapter last saved (empty if nothing yet).
    pub async fn open(adapter: JsAdapter) -> Result<Self, hippo::Error> {
        let loaded = load(&adapter).await?;
        let saver = Saver {
            adapter,
            turn: Mutex::new(()),
            changed: Cell::new(0),
            durable: Cell::new(0),
            lost_through: Cell::new(0),
        };
        Ok(Self::with(loaded, Some(saver)))
    }

    fn with(loaded: Loaded, saver: Option<Saver>) -> Self {
        PersistedState {
            store: RefCell::new(Rc::new(loaded.store)),
            vectors: RefCell::new(Rc::new(loaded.vectors)),
            saver,
            poisoned: RefCell::new(None),
        }
    }

    pub fn store(&self) -> PortResult<Rc<MemoryStore>> {
        self.check()?;
        Ok(self.store.borrow().clone())
    }

    pub fn vectors(&self) -> PortResult<Rc<MemoryVectorIndex>> {
        self.check()?;
        Ok(self.vectors.borrow().clone())
    }

    /// The whole state in the persisted format.
    pub fn encode(&self) -> PortResult<Vec<u8>> {
        Ok(format::encode(&[
            Section {
                tag: STORE_SECTION,
                bytes: self.store.borrow().snapshot()?,
            },
            Section {
                tag: VECTORS_SECTION,
                bytes: self.vectors.borrow().snapshot(),
            },
        ]))
    }

    /// Called after each successful in-memory mutation: the next flush saves it.
    pub fn mark_changed(&self) {
        if let Some(saver) = &self.saver {
            saver.changed.set(saver.changed.get().saturating_add(1));
        }
    }

    /// Saves every mutation made so far, unless already saved (a no-op for `"memory"`).
    pub async fn flush(&self) -> PortResult<()> {
        self.check()?;
        match &self.saver {
            Some(saver) if saver.changed.get() > saver.lost_through.get() => {
                self.save_through(saver, saver.changed.get()).await
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

    fn check(&self) -> PortResult<()> {
        match &*self.poisoned.borrow() {
            Some(why) => Err(PortError::Backend(format!(
                "storage is unusable after a failed save ({why}); open it again"
            ))),
            None => Ok(()),
        }
    }

    async fn save_through(&self, saver: &Saver, generation: u64) -> PortResult<()> {
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
        let saved = match self.encode() {
            Ok(bytes) => saver.adapter.save(&bytes).await,
            Err(error) => Err(error),
        };
        match saved {
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

    /// Back to what is saved; everything newer is reported lost to its callers.
    async fn roll_back(&self, saver: &Saver) {
        saver.lost_through.set(saver.changed.get());
        match load(&saver.adapter).await {
            Ok(loaded) => {
                *self.store.borrow_mut() = Rc::new(loaded.store);
                *self.vectors.borrow_mut() = Rc::new(loaded.vectors);
            }
            Err(error) => *self.poisoned.borrow_mut() = Some(error.to_string()),
        }
    }
}

async fn load(adapter: &JsAdapter) -> Result<Loaded, hippo::Error> {
    let Some(bytes) = adapter.load().await? else {
        return Ok(Loaded {
            store: MemoryStore::new(),
            vectors: MemoryVectorIndex::new(),
        });
    };
    decode(&bytes).map_err(|why| {
        hippo::Error::Port(PortError::Backend(format!(
            "cannot read the stored data: {why}"
        )))
    })
}

fn decode(bytes: &[u8]) -> Result<Loaded, String> {
    let sections = format::decode(bytes)?;
    let store = format::find(&sections, STORE_SECTION).ok_or("no store section")?;
    let store = MemoryStore::restore(store).map_err(|e| e.to_string())?;
    // The vector index is derived data: a file without one starts with an empty index.
    let vectors = match format::find(&sections, VECTORS_SECTION) {
        Some(bytes) => MemoryVectorIndex::restore(bytes).map_err(|e| e.to_string())?,
        None => MemoryVectorIndex::new(),
    };
    Ok(Loaded { store, vectors })
}
