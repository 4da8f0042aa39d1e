//! The in-memory vector index: brute-force cosine per NPC, with a compact binary snapshot
//! (the npm package persists it beside the store snapshot).

use super::memory::SNAPSHOT_VERSION;
use crate::error::PortError;
use crate::memory::Collection;
use crate::ports::*;
use crate::retrieval::embed::cosine;
use async_trait::async_trait;
use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;

/// A brute-force vector index in memory, partitioned by NPC.
#[derive(Debug, Default)]
pub struct MemoryVectorIndex {
    npcs: RefCell<BTreeMap<String, BTreeMap<String, VectorItem>>>,
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
        self.npcs.borrow().get(npcid).map_or(0, |m| m.len())
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
        for item in items {
            space.insert(item.id.clone(), item);
        }
        drop(npcs);
        self.bump();
        Ok(())
    }

    async fn query(
        &self,
        npcid: &str,
        vector: &[f32],
        top_k: usize,
        filter: &VectorFilter,
    ) -> PortResult<Vec<(String, f32)>> {
        let npcs = self.npcs.borrow();
        let Some(space) = npcs.get(npcid) else {
            return Ok(Vec::new());
        };
        let mut hits: Vec<(String, f32)> = space
            .values()
            .filter(|i| filter.collections.is_empty() || filter.collections.contains(&i.collection))
            .filter(|i| filter.types.is_empty() || filter.types.contains(&i.memory_type))
            .map(|i| (i.id.clone(), cosine(vector, &i.values)))
            .collect();
        hits.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        hits.truncate(top_k);
        Ok(hits)
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
    }
}

fn collection_from_byte(b: u8) -> Option<Collection> {
    [Collection::Memory, Collection::Content, Collection::Emotion]
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
            for item in space.values() {
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
                let collection = collection_from_byte(r.take(1)?[0]).ok_or_else(bad)?;
                let memory_type = crate::memory::MemoryType::parse(&r.string()?).ok_or_else(bad)?;
                let dim = r.u32()? as usize;
                let raw = r.take(dim.checked_mul(4).ok_or_else(bad)?)?;
                let values = raw
                    .chunks_exact(4)
                    .map(|c| f32::from_le_bytes(c.try_into().expect("4 bytes")))
                    .collect();
                npcs.entry(npcid).or_default().insert(
                    id.clone(),
                    VectorItem {
                        id,
                        collection,
                        memory_type,
                        values,
                    },
                );
            }
        }
        Ok(index)
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
        let out = &self.bytes[self.at..end];
        self.at = end;
        Ok(out)
    }

    fn u32(&mut self) -> PortResult<u32> {
        Ok(u32::from_le_bytes(
            self.take(4)?.try_into().expect("4 bytes"),
        ))
    }

    fn string(&mut self) -> PortResult<String> {
        let n = self.u32()? as usize;
        String::from_utf8(self.take(n)?.to_vec())
            .map_err(|_| PortError::Backend("bad string in vector snapshot".into()))
    }
}
