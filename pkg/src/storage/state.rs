//! [`PersistedState`]: the core's in-memory store and vector index, saved through an adapter.
//! Mutations are applied in memory and recorded; each API call saves once when it is done,
//! before its promise resolves ([`PersistedState::flush`]), so an operation of many writes
//! (an import, a dream: commits plus vector upserts) costs one save, not one per write.
//!
//! A save is one of two writes. If the adapter can `append`, it appends the records of the
//! changes since the last save (a few hundred bytes for a turn or a retrieval's
//! reinforcement); otherwise, and whenever the appended log has grown past half the last
//! snapshot (at least [`MIN_LOG_BEFORE_SNAPSHOT`]), it saves a whole new snapshot, which
//! replaces snapshot and log at once. So the bytes a call writes do not grow with the store,
//! and the store on disk stays under 1.5 times its snapshot.
//!
//! A change that the next snapshot will carry is not recorded (an import's record would be
//! the size of the store). Such a change, or an erasure, made while a save is under way asks
//! for a snapshot that the running save does not fulfil: the next save is one.
//!
//! Saves run one at a time and coalesce: a save writes everything changed so far, so callers
//! queued behind it find their change already durable. If a save fails, the in-memory state
//! is rolled back to what the adapter last stored and every caller whose change was not yet
//! durable gets the error: what a resolved promise reported is saved, nothing else is.

use super::adapter::JsAdapter;
use super::format::{self, SectionAt, SECTION_OVERHEAD, STORE_SECTION, VECTORS_SECTION};
use super::log::{self, LOG_SECTION};
use futures::lock::Mutex;
use hippo::error::PortError;
use hippo::ports::PortResult;
use hippo::store::Sink;
use hippo::store::{MemoryStore, MemoryVectorIndex};
use std::cell::{Cell, RefCell};
use std::ops::Range;
use std::rc::Rc;

/// The log may always grow to this size before a snapshot replaces it (small stores).
pub const MIN_LOG_BEFORE_SNAPSHOT: usize = 1 << 20;

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
    /// Framed records of the changes not yet saved (kept only if the adapter can append).
    pending: RefCell<Vec<u8>>,
    /// What the adapter holds: the bytes of the last snapshot and of the records after it.
    stored: Cell<Stored>,
    /// How many times a snapshot was asked for: one asked while a save is under way is
    /// still owed when it ends (that save's bytes may not hold the change that asked).
    snapshot_asks: Cell<u64>,
}

#[derive(Clone, Copy, Default)]
struct Stored {
    snapshot_bytes: usize,
    log_bytes: usize,
    /// The next save must be a snapshot: nothing is stored yet, the log ends in a torn
    /// record, an append failed, or a change could not be recorded.
    snapshot_next: bool,
}

struct Loaded {
    store: MemoryStore,
    vectors: MemoryVectorIndex,
    stored: Stored,
}

impl PersistedState {
    /// State that lives only in memory (`storage: "memory"`).
    pub fn in_memory() -> Self {
        Self::with(empty(), None)
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
            pending: RefCell::new(Vec::new()),
            stored: Cell::new(loaded.stored),
            snapshot_asks: Cell::new(0),
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

    /// Whether mutations need their log records (`record` otherwise ignores them): only
    /// when the adapter can append them.
    /// Not when the next save is a snapshot anyway (an import's records would be as large as
    /// the store).
    pub fn logging(&self) -> bool {
        self.saver
            .as_ref()
            .is_some_and(|s| s.adapter.can_append() && !s.stored.get().snapshot_next)
    }

    /// Called after each successful in-memory mutation with its log record (see
    /// [`PersistedState::logging`]): the next flush saves it.
    pub fn record(&self, record: Option<PortResult<Vec<u8>>>) {
        let Some(saver) = &self.saver else { return };
        saver.changed.set(saver.changed.get().saturating_add(1));
        match record {
            Some(Ok(bytes)) => {
                let stored = saver.stored.get();
                let mut pending = saver.pending.borrow_mut();
                let logged = stored
                    .log_bytes
                    .saturating_add(pending.len())
                    .saturating_add(bytes.len());
                if logged <= log_limit(stored) {
                    pending.extend_from_slice(&bytes);
                } else {
                    // Past what the log may hold, the save is a snapshot: keep no records.
                    *pending = Vec::new();
                    drop(pending);
                    saver.snapshot_next();
                }
            }
            // The change is in memory either way: a snapshot will carry it (also when it was
            // not recorded because the next save was to be a snapshot anyway).
            Some(Err(_)) | None => saver.snapshot_next(),
        }
    }

    /// The next save writes a whole snapshot (after a deletion: see `storage::ports`).
    pub fn snapshot_next(&self) {
        if let Some(saver) = &self.saver {
            saver.snapshot_next();
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
        let records = saver.pending.take();
        let stored = saver.stored.get();
        let asks = saver.snapshot_asks.get();
        let saved = if saver.adapter.can_append()
            && !stored.snapshot_next
            && stored.log_bytes.saturating_add(records.len()) <= log_limit(stored)
        {
            saver.adapter.append(&records).await.map(|()| Stored {
                log_bytes: stored.log_bytes.saturating_add(records.len()),
                snapshot_next: false,
                ..stored
            })
        } else {
            drop(records);
            // The whole state in the persisted format (a snapshot, no log), each section
            // streamed as it is written.
            let store = self.store.borrow().clone();
            let vectors = self.vectors.borrow().clone();
            let store = |out: &mut dyn Sink| store.snapshot_to(out).map_err(|e| e.to_string());
            let vectors = |out: &mut dyn Sink| {
                vectors.snapshot_to(out);
                Ok(())
            };
            saver
                .adapter
                .save_sections(&[(STORE_SECTION, &store), (VECTORS_SECTION, &vectors)])
                .await
                .map(|file| Stored {
                    snapshot_bytes: file,
                    log_bytes: 0,
                    snapshot_next: false,
                })
        };
        match saved {
            Ok(mut stored) => {
                // A change made while this save was under way that asked for a snapshot (an
                // erasure, or one left unrecorded) is not in what was just written.
                stored.snapshot_next = saver.snapshot_asks.get() > asks;
                saver.stored.set(stored);
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
        saver.pending.take();
        match load(&saver.adapter).await {
            Ok(loaded) => {
                *self.store.borrow_mut() = Rc::new(loaded.store);
                *self.vectors.borrow_mut() = Rc::new(loaded.vectors);
                saver.stored.set(loaded.stored);
            }
            Err(error) => *self.poisoned.borrow_mut() = Some(error.to_string()),
        }
        // A failed append may have left part of a record behind: start over from a snapshot.
        saver.snapshot_next();
    }
}

impl Saver {
    fn snapshot_next(&self) {
        self.snapshot_asks
            .set(self.snapshot_asks.get().saturating_add(1));
        self.stored.set(Stored {
            snapshot_next: true,
            ..self.stored.get()
        });
    }
}

fn empty() -> Loaded {
    Loaded {
        store: MemoryStore::new(),
        vectors: MemoryVectorIndex::new(),
        stored: Stored {
            snapshot_next: true,
            ..Stored::default()
        },
    }
}

/// How large the appended log may grow before a snapshot replaces it.
fn log_limit(stored: Stored) -> usize {
    MIN_LOG_BEFORE_SNAPSHOT.max(stored.snapshot_bytes / 2)
}

async fn load(adapter: &JsAdapter) -> Result<Loaded, hippo::Error> {
    let Some(file) = adapter.load().await? else {
        return Ok(empty());
    };
    decode(&file).await.map_err(|why| {
        hippo::Error::Port(PortError::Backend(format!(
            "cannot read the stored data: {why}"
        )))
    })
}

/// The snapshot, then every log record after it replayed in order. The file stays the
/// adapter's JS array: one section at a time is copied into wasm memory, and the store's
/// bytes are freed before the vectors' are read.
async fn decode(file: &js_sys::Uint8Array) -> Result<Loaded, String> {
    let len = file.length() as usize;
    let read = |range: Range<usize>| file.subarray(range.start as u32, range.end as u32).to_vec();
    let table = format::table(len, &read)?;
    let store = table.find(STORE_SECTION).ok_or("no store section")?;
    let store = MemoryStore::restore(&read(store)).map_err(|e| e.to_string())?;
    // The vector index is derived data: a file without one starts with an empty index.
    let vectors = match table.find(VECTORS_SECTION) {
        // Read a piece at a time: the section is never in wasm memory beside its index.
        Some(range) => {
            let mut at = range.start;
            let mut next = |n: usize| {
                let end = at.saturating_add(n).min(range.end);
                let piece = read(at..end);
                at = end;
                piece
            };
            MemoryVectorIndex::restore_from(&mut next).map_err(|e| e.to_string())?
        }
        None => MemoryVectorIndex::new(),
    };
    let mut torn = table.torn;
    let mut stored = Stored::default();
    let records: Vec<&SectionAt> = table
        .sections
        .iter()
        .filter(|s| s.tag == LOG_SECTION)
        .collect();
    for (n, section) in records.iter().enumerate() {
        let size = SECTION_OVERHEAD.saturating_add(section.body.len());
        stored.log_bytes = stored.log_bytes.saturating_add(size);
        let body = read(section.body.clone());
        match log::verify(&body) {
            Some(payload) => log::replay(payload, &store, &vectors).await?,
            // The last append, cut short with its length written: never acknowledged.
            None if n.saturating_add(1) == records.len() => torn = true,
            None => return Err(format!("log record {n} is damaged")),
        }
    }
    stored.snapshot_bytes = len.saturating_sub(stored.log_bytes);
    stored.snapshot_next = torn;
    Ok(Loaded {
        store,
        vectors,
        stored,
    })
}
