//! Vectors of texts already embedded, by the embedder and a hash of the text. Every
//! retrieval ranks the NPC's PKG fields, relationship entities and diary days by vector too;
//! they change rarely, so a retrieval embeds only the query and the texts this cache has not
//! seen. Bounded by the floats it holds (least recently used go first), and shared by the
//! requests of a Worker isolate (`Hippo::with_embedding_cache`).
#![deny(clippy::indexing_slicing, clippy::arithmetic_side_effects)]

use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::rc::Rc;

/// Floats held at most by default: 8 MiB, e.g. 8,192 texts of the built-in embedder (256
/// dimensions) or 1,365 of a 1,536-dimension model (a whole NPC at the PKG and entity caps
/// with some diary days).
pub const DEFAULT_CAPACITY_FLOATS: usize = 2 * 1024 * 1024;

/// The key of a text: SHA-256 of the embedder's `name:dimension` and the text, so vectors of
/// two embedders never mix.
pub type TextKey = [u8; 32];

pub fn text_key(embedder: &str, text: &str) -> TextKey {
    let mut hash = Sha256::new();
    hash.update(embedder.as_bytes());
    hash.update([0u8]);
    hash.update(text.as_bytes());
    hash.finalize().into()
}

struct Entry {
    vector: Rc<[f32]>,
    last_used: u64,
}

pub struct EmbeddingCache {
    entries: HashMap<TextKey, Entry>,
    held_floats: usize,
    capacity_floats: usize,
    ticks: u64,
}

impl EmbeddingCache {
    pub fn new(capacity_floats: usize) -> Self {
        EmbeddingCache {
            entries: HashMap::new(),
            held_floats: 0,
            capacity_floats,
            ticks: 0,
        }
    }

    pub fn get(&mut self, key: &TextKey) -> Option<Rc<[f32]>> {
        self.ticks = self.ticks.wrapping_add(1);
        let entry = self.entries.get_mut(key)?;
        entry.last_used = self.ticks;
        Some(entry.vector.clone())
    }

    pub fn insert(&mut self, key: TextKey, vector: Rc<[f32]>) {
        if vector.len() > self.capacity_floats {
            return;
        }
        self.ticks = self.ticks.wrapping_add(1);
        let added = vector.len();
        let entry = Entry {
            vector,
            last_used: self.ticks,
        };
        if let Some(old) = self.entries.insert(key, entry) {
            self.held_floats = self.held_floats.saturating_sub(old.vector.len());
        }
        self.held_floats = self.held_floats.saturating_add(added);
        if self.held_floats > self.capacity_floats {
            self.evict();
        }
    }

    /// Texts held.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Drops the least recently used entries until a quarter of the capacity is free, so
    /// eviction (a sort) runs once per many inserts, not on each.
    fn evict(&mut self) {
        let target = self
            .capacity_floats
            .saturating_sub(self.capacity_floats / 4);
        let mut by_age: Vec<(u64, TextKey)> = self
            .entries
            .iter()
            .map(|(k, e)| (e.last_used, *k))
            .collect();
        crate::order::sort_by(&mut by_age, Ord::cmp);
        for (_, key) in by_age {
            if self.held_floats <= target {
                break;
            }
            if let Some(old) = self.entries.remove(&key) {
                self.held_floats = self.held_floats.saturating_sub(old.vector.len());
            }
        }
    }
}

impl Default for EmbeddingCache {
    fn default() -> Self {
        Self::new(DEFAULT_CAPACITY_FLOATS)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(x: f32, dim: usize) -> Rc<[f32]> {
        vec![x; dim].into()
    }

    #[test]
    fn keys_separate_texts_and_embedders() {
        assert_eq!(text_key("builtin:256", "a"), text_key("builtin:256", "a"));
        assert_ne!(text_key("builtin:256", "a"), text_key("builtin:256", "b"));
        assert_ne!(text_key("builtin:256", "a"), text_key("openai:x:1536", "a"));
        // The separator keeps "ab" + "c" apart from "a" + "bc".
        assert_ne!(text_key("ab", "c"), text_key("a", "bc"));
    }

    #[test]
    fn holds_at_most_its_capacity_and_keeps_what_was_used_last() {
        let mut cache = EmbeddingCache::new(40);
        for i in 0u8..4 {
            cache.insert([i; 32], v(f32::from(i), 10));
        }
        assert_eq!(cache.len(), 4);
        assert!(cache.get(&[0; 32]).is_some());
        cache.insert([9; 32], v(9.0, 10));
        // Over 40 floats: evicted down to 30, the least recently used first (1 and 2).
        assert!(cache.held_floats <= 30);
        assert!(cache.get(&[0; 32]).is_some() && cache.get(&[9; 32]).is_some());
        assert!(cache.get(&[1; 32]).is_none() && cache.get(&[2; 32]).is_none());
        // Replacing a text counts it once; a vector larger than the cache is not kept.
        cache.insert([9; 32], v(1.0, 10));
        assert_eq!(cache.held_floats, 30);
        cache.insert([7; 32], v(1.0, 41));
        assert!(cache.get(&[7; 32]).is_none());
    }
}
