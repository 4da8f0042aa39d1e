//! Memories by their normalised text ([`normalize_text`]) and kind: where conflict resolution
//! finds a new memory's exact duplicates with one hash look-up. Most of what a dream or a
//! bulk add writes restates something already stored; without this each repeat paid the
//! whole similarity look-up (vector cells, lexical postings, candidate records) to learn what
//! its text alone says.
//!
//! Positions, not ids: a memory is its position in the store's insertion-ordered map, so an
//! entry costs a hash and a `u32` (about 20 bytes a memory). Keys are 64-bit hashes of the
//! kind and text; a collision only adds a candidate, which the caller checks by its text.

use crate::memory::conflict::normalize_text;
use crate::memory::{Collection, Memory, MemoryType};
use foldhash::HashMap;
use std::hash::{BuildHasher, Hash, Hasher};

/// The positions of the memories with each text and kind. The first position of a key is in
/// `first`; a key shared by several memories (a value that came back after being superseded,
/// a collision) keeps the others in `more`.
#[derive(Debug, Clone, Default)]
pub struct TextIndex {
    first: HashMap<u64, u32>,
    more: HashMap<u64, Vec<u32>>,
}

/// The key of a memory with this kind and normalised text.
pub fn text_key(kind: (Collection, MemoryType), normalized: &str) -> u64 {
    // Fixed seeds: keys are compared within one index only, but equal across its lifetime.
    let mut hasher = foldhash::fast::FixedState::with_seed(0x0048_6970_706f).build_hasher();
    (kind.0 as u8, kind.1 as u8).hash(&mut hasher);
    normalized.hash(&mut hasher);
    hasher.finish()
}

/// The key of a stored memory.
pub fn memory_key(memory: &Memory) -> u64 {
    text_key(
        (memory.collection, memory.memory_type),
        &normalize_text(&memory.summary),
    )
}

impl TextIndex {
    /// The index of memories in this order.
    pub fn of<'a>(memories: impl Iterator<Item = &'a Memory>) -> Self {
        let mut index = TextIndex::default();
        for (at, memory) in memories.enumerate() {
            index.add(memory_key(memory), at);
        }
        index
    }

    /// The positions with `key`, in no particular order.
    pub fn positions(&self, key: u64) -> Vec<usize> {
        let mut out: Vec<usize> = self
            .first
            .get(&key)
            .map(|&p| p as usize)
            .into_iter()
            .collect();
        if let Some(more) = self.more.get(&key) {
            out.extend(more.iter().map(|&p| p as usize));
        }
        out
    }

    pub fn add(&mut self, key: u64, at: usize) {
        let at = at as u32;
        match self.first.get(&key) {
            None => {
                self.first.insert(key, at);
            }
            Some(_) => self.more.entry(key).or_default().push(at),
        }
    }

    /// Forgets that the memory at `at` has `key`.
    pub fn remove(&mut self, key: u64, at: usize) {
        let at = at as u32;
        if self.first.get(&key) == Some(&at) {
            let next = self.more.get_mut(&key).and_then(Vec::pop);
            match next {
                Some(next) => {
                    self.first.insert(key, next);
                }
                None => {
                    self.first.remove(&key);
                }
            }
        } else if let Some(more) = self.more.get_mut(&key) {
            more.retain(|&p| p != at);
        }
        if self.more.get(&key).is_some_and(Vec::is_empty) {
            self.more.remove(&key);
        }
    }

    /// The memory at `at` (with `key`) was removed and every later one moved down one place.
    pub fn shifted_out(&mut self, key: u64, at: usize) {
        self.remove(key, at);
        let at = at as u32;
        let down = |p: &mut u32| {
            if *p > at {
                *p -= 1;
            }
        };
        self.first.values_mut().for_each(down);
        self.more.values_mut().flatten().for_each(down);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::Timestamp;

    fn memory(id: &str, summary: &str) -> Memory {
        Memory::new(id, MemoryType::Profile, summary, Timestamp(0))
    }

    #[test]
    fn a_text_finds_every_memory_that_normalises_to_it_and_follows_removals() {
        let memories = [
            memory("a", "The user lives in Berlin."),
            memory("b", "the user LIVES in berlin"),
            memory("c", "The user lives in Bern."),
            memory("d", "用户住在柏林。"),
        ];
        let mut index = TextIndex::of(memories.iter());
        let berlin = memory_key(&memories[0]);
        let mut found = index.positions(berlin);
        found.sort_unstable();
        assert_eq!(found, [0, 1]);
        assert_eq!(index.positions(memory_key(&memories[3])), [3]);
        // Another type with the same words is another key.
        let mut other = memories[0].clone();
        other.memory_type = MemoryType::Preference;
        assert!(index.positions(memory_key(&other)).is_empty());
        // "a" leaves: "b" moves to 0, "d" to 2.
        index.shifted_out(berlin, 0);
        assert_eq!(index.positions(berlin), [0]);
        assert_eq!(index.positions(memory_key(&memories[2])), [1]);
        assert_eq!(index.positions(memory_key(&memories[3])), [2]);
        index.remove(berlin, 0);
        assert!(index.positions(berlin).is_empty());
        assert!(index.first.len() == 2 && index.more.is_empty());
    }
}
