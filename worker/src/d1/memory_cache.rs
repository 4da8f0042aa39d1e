//! An isolate's copy of NPCs' memories, caught up with D1 by one delta read per request.
//!
//! Over D1 alone a retrieval runs an FTS query, term statistics and a read of ~150 memory
//! rows, every time. With a copy in the isolate, a request reads only what changed since the
//! copy's memory revision: memory rows and tombstones stamped with a `rev` above it
//! (migrations 0002, 0003), in the same batch (one transaction) as the NPC's memory revision
//! and incarnation. The revision moves with every commit that changes memory rows, touches
//! included (they shape strength), while the NPC's version moves only with structural writes.
//! The copy is the core's in-memory store, so lexical search and term statistics are the
//! reference ones.
//!
//! Safe across isolates: nothing is served without that read, so a request sees every commit
//! that landed before it began, whichever isolate made it; a copy never moves backwards.
//! Bounded: an isolate keeps at most [`CAPACITY`] memories (least recently used NPCs go
//! first); an NPC bigger than that is served by SQL.

use futures_util::FutureExt;
use hippo::error::PortError;
use hippo::memory::Memory;
use hippo::npc::Npc;
use hippo::ports::{PortResult, Store, Write, WriteBatch};
use hippo::store::MemoryStore;
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

/// Memories one isolate keeps (about 1 KiB each with their lexical postings).
pub const CAPACITY: usize = 20_000;

/// Where a copy stands: the NPC's incarnation and the memory revision the copy reflects.
#[derive(Debug, Clone, PartialEq)]
pub struct Position {
    pub incarnation: String,
    pub rev: i64,
}

/// What one sync read returned.
pub struct Delta {
    /// The NPC as of the read.
    pub npc: Npc,
    pub position: Position,
    /// How many memories the NPC has: counted by a full read only (a delta's copy counts
    /// itself).
    pub count: Option<usize>,
    /// Rows written since the position asked for, in creation order.
    pub rows: Vec<Memory>,
    /// Ids deleted since the position asked for.
    pub tombstones: Vec<String>,
}

struct Entry {
    position: Position,
    store: Rc<MemoryStore>,
    count: usize,
    last_used: u64,
}

/// The copies of one isolate (or of a test's simulated isolate).
pub struct MemoryCache {
    capacity: usize,
    entries: HashMap<String, Entry>,
    ticks: u64,
    /// The NPC each token hash seen here belonged to: only a guess of which copy a token's
    /// request will read (the token itself is checked in D1 on every request).
    token_npcs: HashMap<String, String>,
}

/// The most token hashes [`MemoryCache::remember_token`] keeps (then it starts over).
const MAX_TOKENS: usize = 4096;

/// The outcome of [`MemoryCache::apply`].
pub enum Applied {
    /// Serve reads from this store.
    Serve(Rc<MemoryStore>),
    /// The NPC is bigger than the cache: serve reads from SQL.
    TooBig,
    /// The delta was read from a position of another incarnation: read everything.
    NeedsFullRead,
}

thread_local! {
    static ISOLATE: Rc<RefCell<MemoryCache>> = Rc::new(RefCell::new(MemoryCache::new(CAPACITY)));
}

/// This isolate's cache.
pub fn isolate() -> Rc<RefCell<MemoryCache>> {
    ISOLATE.with(Rc::clone)
}

impl MemoryCache {
    pub fn new(capacity: usize) -> Self {
        MemoryCache {
            capacity,
            entries: HashMap::new(),
            ticks: 0,
            token_npcs: HashMap::new(),
        }
    }

    /// The NPC the token with this hash belonged to when last seen in this isolate.
    pub fn npc_of_token(&self, token_hash: &str) -> Option<String> {
        self.token_npcs.get(token_hash).cloned()
    }

    pub fn remember_token(&mut self, token_hash: &str, npcid: &str) {
        if self.token_npcs.get(token_hash).map(String::as_str) == Some(npcid) {
            return;
        }
        if self.token_npcs.len() >= MAX_TOKENS {
            self.token_npcs.clear();
        }
        self.token_npcs
            .insert(token_hash.to_string(), npcid.to_string());
    }

    /// The position to read a delta from, `None` for a full read.
    pub fn position(&self, npcid: &str) -> Option<Position> {
        self.entries.get(npcid).map(|e| e.position.clone())
    }

    pub fn forget(&mut self, npcid: &str) {
        self.entries.remove(npcid);
    }

    /// The most memories this cache holds.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// NPCs with a copy.
    pub fn npcs(&self) -> usize {
        self.entries.len()
    }

    /// Memories held, over every NPC.
    pub fn held(&self) -> usize {
        self.entries.values().map(|e| e.count).sum()
    }

    /// Brings the copy of `npcid` to the delta's position. `since` is the position the delta
    /// was read from (`None`: a full read).
    pub fn apply(
        &mut self,
        npcid: &str,
        since: Option<&Position>,
        delta: Delta,
    ) -> PortResult<Applied> {
        self.ticks += 1;
        // A delta's rows are distinct memories of the NPC: more than fit say it is too big.
        if delta.count.unwrap_or(delta.rows.len()) > self.capacity {
            self.forget(npcid);
            return Ok(Applied::TooBig);
        }
        let current = self.entries.get(npcid).map(|e| e.position.clone());
        let fresh_copy = match (since, &current) {
            (None, _) => true,
            (Some(since), Some(current)) if since.incarnation == current.incarnation => {
                if since.incarnation != delta.position.incarnation {
                    return Ok(Applied::NeedsFullRead);
                }
                false
            }
            // The copy was replaced or dropped while this delta was read.
            (Some(_), _) => return Ok(Applied::NeedsFullRead),
        };
        if fresh_copy {
            let store = Rc::new(MemoryStore::new());
            commit_now(&store, npcid, one(Write::PutNpc(delta.npc.clone())))?;
            self.entries.insert(
                npcid.to_string(),
                Entry {
                    position: Position {
                        incarnation: delta.position.incarnation.clone(),
                        rev: i64::MIN,
                    },
                    store,
                    count: 0,
                    last_used: 0,
                },
            );
        }
        let Some(entry) = self.entries.get_mut(npcid) else {
            // Neither a fresh copy nor an existing one: read everything again.
            return Ok(Applied::NeedsFullRead);
        };
        // Another request of this isolate may have brought the copy further already: a delta
        // read at an older revision is dropped. One read at the copy's own revision still
        // applies: rows edited outside Hippo's commits carry a stamp above the revision
        // without moving it (migration 0002), and come with every delta until a commit passes
        // them. Rows are whole, so re-applying what the copy already has is harmless.
        if delta.position.rev >= entry.position.rev {
            let mut batch = WriteBatch::new();
            // Tombstones first: a deleted-then-recreated memory comes back at the end, as
            // its new row does in D1's creation order.
            for id in delta.tombstones {
                batch.push(Write::DeleteMemory { id });
            }
            for memory in delta.rows {
                batch.push(Write::PutMemory { memory });
            }
            if !batch.is_empty() {
                commit_now(&entry.store, npcid, batch)?;
            }
            entry.position = delta.position;
            entry.count = delta
                .count
                .unwrap_or_else(|| entry.store.memory_count(npcid));
        }
        entry.last_used = self.ticks;
        if entry.count > self.capacity {
            self.forget(npcid);
            return Ok(Applied::TooBig);
        }
        let store = entry.store.clone();
        self.evict_beyond_capacity(npcid);
        Ok(Applied::Serve(store))
    }

    /// Drops the least recently used copies (never `keep`) until the cache fits.
    fn evict_beyond_capacity(&mut self, keep: &str) {
        while self.held() > self.capacity {
            let Some(oldest) = self
                .entries
                .iter()
                .filter(|(id, _)| id.as_str() != keep)
                .min_by_key(|(_, e)| e.last_used)
                .map(|(id, _)| id.clone())
            else {
                return;
            };
            self.entries.remove(&oldest);
        }
    }
}

/// The in-memory store's commit never waits: run it to completion here, so no borrow of the
/// cache is held across an await.
fn commit_now(store: &MemoryStore, npcid: &str, batch: WriteBatch) -> PortResult<()> {
    store
        .commit(npcid, batch)
        .now_or_never()
        .unwrap_or_else(|| {
            Err(PortError::Backend(
                "the in-memory store's commit waited".into(),
            ))
        })
}

fn one(write: Write) -> WriteBatch {
    let mut batch = WriteBatch::new();
    batch.push(write);
    batch
}

#[cfg(test)]
mod tests {
    use super::*;
    use hippo::memory::MemoryType;
    use hippo::ports::MemoryFilter;
    use hippo::time::Timestamp;

    fn delta(incarnation: &str, rev: i64, count: usize, rows: &[(&str, &str)]) -> Delta {
        Delta {
            npc: Npc::new("n", Timestamp(0)),
            position: Position {
                incarnation: incarnation.into(),
                rev,
            },
            count: Some(count),
            rows: rows
                .iter()
                .map(|(id, text)| Memory::new(*id, MemoryType::Other, *text, Timestamp(0)))
                .collect(),
            tombstones: Vec::new(),
        }
    }

    /// A delta read from a copy's position: D1 does not count the NPC's memories for it.
    fn uncounted(incarnation: &str, rev: i64, rows: &[(&str, &str)]) -> Delta {
        Delta {
            count: None,
            ..delta(incarnation, rev, 0, rows)
        }
    }

    fn served(applied: Applied) -> Rc<MemoryStore> {
        match applied {
            Applied::Serve(store) => store,
            Applied::TooBig => panic!("too big"),
            Applied::NeedsFullRead => panic!("needs a full read"),
        }
    }

    fn summaries(store: &MemoryStore) -> Vec<String> {
        store
            .memories("n", &MemoryFilter::default())
            .now_or_never()
            .unwrap()
            .unwrap()
            .into_iter()
            .map(|m| m.summary)
            .collect()
    }

    #[test]
    fn deltas_move_a_copy_forward_never_back() {
        let mut cache = MemoryCache::new(10);
        let full = delta("i1", 3, 2, &[("a", "one"), ("b", "two")]);
        served(cache.apply("n", None, full).unwrap());
        let at3 = cache.position("n").unwrap();
        assert_eq!(at3.rev, 3);
        let mut newer = delta("i1", 5, 2, &[("b", "TWO")]);
        newer.tombstones = vec!["a".into()];
        newer
            .rows
            .push(Memory::new("c", MemoryType::Other, "three", Timestamp(0)));
        let store = served(cache.apply("n", Some(&at3), newer).unwrap());
        assert_eq!(summaries(&store), ["TWO", "three"]);
        // A slower request's delta from revision 3, read before revision 5 landed: ignored.
        let stale = delta("i1", 4, 2, &[("b", "two again")]);
        let store = served(cache.apply("n", Some(&at3), stale).unwrap());
        assert_eq!(summaries(&store), ["TWO", "three"]);
        assert_eq!(cache.position("n").unwrap().rev, 5);
    }

    #[test]
    fn another_incarnation_needs_a_full_read() {
        let mut cache = MemoryCache::new(10);
        served(
            cache
                .apply("n", None, delta("i1", 9, 1, &[("a", "old")]))
                .unwrap(),
        );
        let at9 = cache.position("n").unwrap();
        let recreated = delta("i2", 12, 1, &[("z", "new")]);
        assert!(matches!(
            cache.apply("n", Some(&at9), recreated),
            Ok(Applied::NeedsFullRead)
        ));
        let store = served(
            cache
                .apply("n", None, delta("i2", 12, 1, &[("z", "new")]))
                .unwrap(),
        );
        assert_eq!(summaries(&store), ["new"]);
    }

    #[test]
    fn capacity_bounds_the_copies() {
        let mut cache = MemoryCache::new(3);
        assert!(matches!(
            cache.apply("n", None, delta("i", 1, 4, &[])),
            Ok(Applied::TooBig)
        ));
        assert_eq!(cache.held(), 0);
        served(
            cache
                .apply("x", None, delta("i", 1, 2, &[("x1", "x"), ("x2", "x")]))
                .unwrap(),
        );
        served(
            cache
                .apply("y", None, delta("i", 1, 2, &[("y1", "y"), ("y2", "y")]))
                .unwrap(),
        );
        // x was used least recently and goes; y stays.
        assert!(cache.position("x").is_none());
        assert!(cache.position("y").is_some());
        assert_eq!(cache.held(), 2);
    }

    #[test]
    fn an_uncounted_delta_is_counted_by_the_copy() {
        let mut cache = MemoryCache::new(3);
        served(
            cache
                .apply("n", None, delta("i", 1, 2, &[("a", "x"), ("b", "x")]))
                .unwrap(),
        );
        let at1 = cache.position("n").unwrap();
        // A rewrite of a held memory and one new memory: three in all, which still fit.
        let store = served(
            cache
                .apply(
                    "n",
                    Some(&at1),
                    uncounted("i", 2, &[("a", "y"), ("c", "x")]),
                )
                .unwrap(),
        );
        assert_eq!(summaries(&store), ["y", "x", "x"]);
        assert_eq!(cache.held(), 3);
        // A fourth memory: the copy no longer fits and goes; SQL serves the NPC.
        let at2 = cache.position("n").unwrap();
        assert!(matches!(
            cache.apply("n", Some(&at2), uncounted("i", 3, &[("d", "x")])),
            Ok(Applied::TooBig)
        ));
        assert!(cache.position("n").is_none());
        assert_eq!(cache.held(), 0);
    }

    #[test]
    fn a_delta_of_more_rows_than_fit_is_too_big() {
        let mut cache = MemoryCache::new(2);
        served(
            cache
                .apply("n", None, delta("i", 1, 1, &[("a", "x")]))
                .unwrap(),
        );
        let at1 = cache.position("n").unwrap();
        let rows = [("b", "x"), ("c", "x"), ("d", "x")];
        assert!(matches!(
            cache.apply("n", Some(&at1), uncounted("i", 2, &rows)),
            Ok(Applied::TooBig)
        ));
        assert!(cache.position("n").is_none());
    }
}
