//! The in-memory vector index: brute-force cosine per NPC, with a compact binary snapshot
//! (the npm package persists it beside the store snapshot). Its per-NPC [`VectorSpace`] is
//! also what the Worker's D1 vector index keeps in each isolate.

use super::memory::SNAPSHOT_VERSION;
use crate::error::PortError;
use crate::memory::Collection;
use crate::ports::*;
use crate::retrieval::embed::dot;
use async_trait::async_trait;
use std::cell::{Cell, RefCell};
use std::cmp::Ordering;
use std::collections::{BTreeMap, BinaryHeap, HashMap};

/// One NPC's vectors, laid out for a fast scan: values in one flat array (`dim` per slot),
/// their norms precomputed, metadata beside them, and ids only cloned for the top hits. All
/// of one dimension (the first vector's).
#[derive(Debug, Default, Clone)]
pub struct VectorSpace {
    dim: usize,
    ids: Vec<String>,
    meta: Vec<(Collection, crate::memory::MemoryType)>,
    norms: Vec<f32>,
    values: Vec<f32>,
    slot_of: HashMap<String, usize>,
}

impl VectorSpace {
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// Inserts or replaces the item with its id; an item of another dimension is refused.
    pub fn upsert(&mut self, item: VectorItem) -> PortResult<()> {
        if self.ids.is_empty() {
            self.dim = item.values.len();
        } else if item.values.len() != self.dim {
            return Err(PortError::Backend(format!(
                "vector of dimension {} in an index of dimension {}",
                item.values.len(),
                self.dim
            )));
        }
        let norm = dot(&item.values, &item.values).sqrt();
        match self.slot_of.get(&item.id) {
            Some(&slot) => {
                self.meta[slot] = (item.collection, item.memory_type);
                self.norms[slot] = norm;
                self.values[slot * self.dim..(slot + 1) * self.dim].copy_from_slice(&item.values);
            }
            None => {
                self.slot_of.insert(item.id.clone(), self.ids.len());
                self.ids.push(item.id);
                self.meta.push((item.collection, item.memory_type));
                self.norms.push(norm);
                self.values.extend_from_slice(&item.values);
            }
        }
        Ok(())
    }

    /// Removes the item with this id, if any.
    pub fn remove(&mut self, id: &str) {
        let Some(slot) = self.slot_of.remove(id) else {
            return;
        };
        let last = self.ids.len() - 1;
        if slot != last {
            // Move the last slot into the hole.
            self.values
                .copy_within(last * self.dim..(last + 1) * self.dim, slot * self.dim);
            self.ids.swap(slot, last);
            self.meta.swap(slot, last);
            self.norms.swap(slot, last);
            self.slot_of.insert(self.ids[slot].clone(), slot);
        }
        self.ids.pop();
        self.meta.pop();
        self.norms.pop();
        self.values.truncate(last * self.dim);
    }

    fn item(&self, slot: usize) -> VectorItem {
        VectorItem {
            id: self.ids[slot].clone(),
            collection: self.meta[slot].0,
            memory_type: self.meta[slot].1,
            values: self.values[slot * self.dim..(slot + 1) * self.dim].to_vec(),
        }
    }

    /// The `top_k` best cosines among the slots the filter keeps: best first, ties by id.
    /// A query of another dimension finds nothing.
    pub fn query(&self, vector: &[f32], top_k: usize, filter: &VectorFilter) -> Vec<(String, f32)> {
        if vector.len() != self.dim || top_k == 0 {
            return Vec::new();
        }
        let qnorm = vector.iter().map(|v| v * v).sum::<f32>().sqrt();
        if qnorm == 0.0 {
            return Vec::new();
        }
        // A bounded heap of the best `top_k` so far; its top is the worst of them.
        let mut best: BinaryHeap<Hit> = BinaryHeap::with_capacity(top_k + 1);
        for (slot, row) in self.values.chunks_exact(self.dim).enumerate() {
            let (collection, memory_type) = self.meta[slot];
            if (!filter.collections.is_empty() && !filter.collections.contains(&collection))
                || (!filter.types.is_empty() && !filter.types.contains(&memory_type))
                || self.norms[slot] == 0.0
            {
                continue;
            }
            let hit = Hit {
                score: dot(row, vector) / (self.norms[slot] * qnorm),
                id: &self.ids[slot],
            };
            if best.len() < top_k {
                best.push(hit);
            } else if best.peek().is_some_and(|worst| hit < *worst) {
                best.pop();
                best.push(hit);
            }
        }
        best.into_sorted_vec()
            .into_iter()
            .map(|h| (h.id.to_string(), h.score))
            .collect()
    }
}

/// A scored slot, ordered best first: higher score, then smaller id.
struct Hit<'a> {
    score: f32,
    id: &'a str,
}

impl Ord for Hit<'_> {
    fn cmp(&self, other: &Self) -> Ordering {
        other
            .score
            .total_cmp(&self.score)
            .then_with(|| self.id.cmp(other.id))
    }
}

impl PartialOrd for Hit<'_> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Hit<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Hit<'_> {}

/// A brute-force vector index in memory, partitioned by NPC.
#[derive(Debug, Default)]
pub struct MemoryVectorIndex {
    npcs: RefCell<BTreeMap<String, VectorSpace>>,
    generation: Cell<u64>,
}

impl MemoryVectorIndex {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn generation(&self) -> u64 {
        self.generation.get()
    }

    /// How many vectors the NPC has (tests count deletions with it).
    pub fn count(&self, npcid: &str) -> usize {
        self.npcs.borrow().get(npcid).map_or(0, VectorSpace::len)
    }

    fn bump(&self) {
        self.generation.set(self.generation.get() + 1);
    }
}

#[async_trait(?Send)]
impl VectorIndex for MemoryVectorIndex {
    async fn upsert(&self, npcid: &str, items: Vec<VectorItem>) -> PortResult<()> {
        let mut npcs = self.npcs.borrow_mut();
        let space = npcs.entry(npcid.to_string()).or_default();
        let result = items.into_iter().try_for_each(|item| space.upsert(item));
        drop(npcs);
        self.bump();
        result
    }

    async fn query(
        &self,
        npcid: &str,
        vector: &[f32],
        top_k: usize,
        filter: &VectorFilter,
    ) -> PortResult<Vec<(String, f32)>> {
        Ok(self
            .npcs
            .borrow()
            .get(npcid)
            .map(|space| space.query(vector, top_k, filter))
            .unwrap_or_default())
    }

    async fn delete(&self, npcid: &str, ids: &[String]) -> PortResult<()> {
        if let Some(space) = self.npcs.borrow_mut().get_mut(npcid) {
            for id in ids {
                space.remove(id);
            }
        }
        self.bump();
        Ok(())
    }

    async fn delete_npc(&self, npcid: &str) -> PortResult<()> {
        self.npcs.borrow_mut().remove(npcid);
        self.bump();
        Ok(())
    }
}

/// Which collections [`Collection`] values a vector snapshot byte stands for.
fn collection_byte(c: Collection) -> u8 {
    match c {
        Collection::Memory => 0,
        Collection::Content => 1,
        Collection::Emotion => 2,
        Collection::Diary => 3,
    }
}

fn collection_from_byte(b: u8) -> Option<Collection> {
    Collection::ALL
        .into_iter()
        .find(|c| collection_byte(*c) == b)
}

const VECTORS_MAGIC: &[u8; 8] = b"HIPPOVX\0";

impl MemoryVectorIndex {
    /// Compact binary snapshot: magic, version, then per vector: npcid, id, collection,
    /// type, dimension and little-endian f32 values.
    pub fn snapshot(&self) -> Vec<u8> {
        fn put_str(out: &mut Vec<u8>, s: &str) {
            out.extend_from_slice(&(s.len() as u32).to_le_bytes());
            out.extend_from_slice(s.as_bytes());
        }
        let mut out = VECTORS_MAGIC.to_vec();
        out.extend_from_slice(&SNAPSHOT_VERSION.to_le_bytes());
        for (npcid, space) in self.npcs.borrow().iter() {
            for item in (0..space.len()).map(|slot| space.item(slot)) {
                put_str(&mut out, npcid);
                put_str(&mut out, &item.id);
                out.push(collection_byte(item.collection));
                put_str(&mut out, item.memory_type.as_str());
                out.extend_from_slice(&(item.values.len() as u32).to_le_bytes());
                for v in &item.values {
                    out.extend_from_slice(&v.to_le_bytes());
                }
            }
        }
        out
    }

    pub fn restore(bytes: &[u8]) -> Result<Self, PortError> {
        let bad = || PortError::Backend("not a Hippo vector snapshot".into());
        let mut r = Reader { bytes, at: 0 };
        if r.take(8)? != VECTORS_MAGIC {
            return Err(bad());
        }
        let version = r.u32()?;
        if version == 0 || version > SNAPSHOT_VERSION {
            return Err(bad());
        }
        let index = MemoryVectorIndex::new();
        {
            let mut npcs = index.npcs.borrow_mut();
            while r.at < bytes.len() {
                let npcid = r.string()?;
                let id = r.string()?;
                let collection = r.take(1)?.first().copied().and_then(collection_from_byte);
                let collection = collection.ok_or_else(bad)?;
                let memory_type = crate::memory::MemoryType::parse(&r.string()?).ok_or_else(bad)?;
                let dim = r.u32()? as usize;
                let raw = r.take(dim.checked_mul(4).ok_or_else(bad)?)?;
                let values = raw
                    .chunks_exact(4)
                    .filter_map(|c| c.first_chunk().map(|b| f32::from_le_bytes(*b)))
                    .collect();
                npcs.entry(npcid).or_default().upsert(VectorItem {
                    id,
                    collection,
                    memory_type,
                    values,
                })?;
            }
        }
        Ok(index)
    }
}

/// Vector writes as small records, for stores that persist a log of changes instead of
/// rewriting a whole snapshot (the npm package): the records use the snapshot format.
impl MemoryVectorIndex {
    /// A snapshot holding only these vectors of one NPC.
    pub fn snapshot_of(npcid: &str, items: &[VectorItem]) -> PortResult<Vec<u8>> {
        let index = Self::new();
        {
            let mut npcs = index.npcs.borrow_mut();
            let space = npcs.entry(npcid.to_string()).or_default();
            for item in items {
                space.upsert(item.clone())?;
            }
        }
        Ok(index.snapshot())
    }

    /// Upserts every vector of a snapshot (of [`Self::snapshot_of`]) into this index.
    pub fn absorb(&self, bytes: &[u8]) -> PortResult<()> {
        let other = Self::restore(bytes)?;
        let mut npcs = self.npcs.borrow_mut();
        for (npcid, space) in other.npcs.into_inner() {
            let into = npcs.entry(npcid).or_default();
            for slot in 0..space.len() {
                into.upsert(space.item(slot))?;
            }
        }
        drop(npcs);
        self.bump();
        Ok(())
    }
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> PortResult<&'a [u8]> {
        let end = self
            .at
            .checked_add(n)
            .filter(|e| *e <= self.bytes.len())
            .ok_or_else(|| PortError::Backend("truncated vector snapshot".into()))?;
        let out = self
            .bytes
            .get(self.at..end)
            .ok_or_else(|| PortError::Backend("truncated vector snapshot".into()))?;
        self.at = end;
        Ok(out)
    }

    fn u32(&mut self) -> PortResult<u32> {
        let bytes = self.take(4)?.first_chunk().copied().unwrap_or_default();
        Ok(u32::from_le_bytes(bytes))
    }

    fn string(&mut self) -> PortResult<String> {
        let n = self.u32()? as usize;
        String::from_utf8(self.take(n)?.to_vec())
            .map_err(|_| PortError::Backend("bad string in vector snapshot".into()))
    }
}
