//! The vector index's binary snapshot (what the npm package persists beside the store
//! snapshot), and the small records of it a change log keeps.

use super::{MemoryVectorIndex, Quantized, Sink};
use crate::error::PortError;
use crate::memory::{Collection, MemoryType};
use crate::ports::*;

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
/// 1: f32 values; 2: int8 codes with their scale and norm (a quarter of the bytes).
const VECTORS_VERSION: u32 = 2;

impl MemoryVectorIndex {
    /// Compact binary snapshot: magic, version, then per vector: npcid, id, collection,
    /// type, dimension, norm and scale (f32, little endian), and the codes.
    pub fn snapshot(&self) -> Vec<u8> {
        let mut out = Vec::new();
        self.snapshot_to(&mut out);
        out
    }

    /// [`MemoryVectorIndex::snapshot`] written to `out` a vector at a time.
    pub fn snapshot_to(&self, out: &mut dyn Sink) {
        fn put_str(out: &mut dyn Sink, s: &str) {
            out.put(&(s.len() as u32).to_le_bytes());
            out.put(s.as_bytes());
        }
        out.put(VECTORS_MAGIC);
        out.put(&VECTORS_VERSION.to_le_bytes());
        for (npcid, space) in self.npcs.borrow().iter() {
            for slot in 0..space.len() {
                let (collection, memory_type) = space.meta[slot];
                put_str(out, npcid);
                put_str(out, &space.ids[slot]);
                out.put(&[collection_byte(collection)]);
                put_str(out, memory_type.as_str());
                out.put(&(space.dim as u32).to_le_bytes());
                out.put(&space.norms[slot].to_le_bytes());
                out.put(&space.scales[slot].to_le_bytes());
                let codes = space.row(slot);
                // SAFETY: i8 and u8 have one size and alignment, and every byte is valid as
                // either; the slice keeps its length and lifetime.
                out.put(unsafe { &*(codes as *const [i8] as *const [u8]) });
            }
        }
    }

    /// An index from [`MemoryVectorIndex::snapshot`] bytes of this or an earlier version.
    pub fn restore(bytes: &[u8]) -> Result<Self, PortError> {
        let mut whole = Some(bytes);
        Self::restore_from(&mut |_| whole.take().unwrap_or_default().to_vec())
    }

    /// [`MemoryVectorIndex::restore`] from bytes read a piece at a time: `read(n)` gives the
    /// next bytes, at least `n` of them unless the snapshot ends first (then all that is
    /// left; nothing at its end). A large index is never in memory twice, as codes and bytes.
    pub fn restore_from(read: &mut dyn FnMut(usize) -> Vec<u8>) -> Result<Self, PortError> {
        let bad = || PortError::Backend("not a Hippo vector snapshot".into());
        let mut r = Reader {
            bytes: Vec::new(),
            at: 0,
            read,
        };
        if r.take(8)? != VECTORS_MAGIC {
            return Err(bad());
        }
        let version = r.u32()?;
        if version == 0 || version > VECTORS_VERSION {
            return Err(bad());
        }
        let index = MemoryVectorIndex::new();
        {
            let mut npcs = index.npcs.borrow_mut();
            while !r.at_end() {
                let npcid = r.string()?;
                let id = r.string()?;
                let collection = r.take(1)?.first().copied().and_then(collection_from_byte);
                let collection = collection.ok_or_else(bad)?;
                let memory_type = MemoryType::parse(&r.string()?).ok_or_else(bad)?;
                let dim = r.u32()? as usize;
                let space = npcs.entry(npcid).or_default();
                if version == 1 {
                    let raw = r.take(dim.checked_mul(4).ok_or_else(bad)?)?;
                    let values = raw
                        .chunks_exact(4)
                        .filter_map(|c| c.first_chunk().map(|b| f32::from_le_bytes(*b)))
                        .collect();
                    space.upsert(VectorItem {
                        id,
                        collection,
                        memory_type,
                        values,
                    })?;
                } else {
                    let norm = r.f32()?;
                    let scale = r.f32()?;
                    let codes = r.take(dim)?.iter().map(|b| *b as i8).collect();
                    space.put(
                        id,
                        (collection, memory_type),
                        norm,
                        Quantized { codes, scale },
                    )?;
                }
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
                let quantized = Quantized {
                    codes: space.row(slot).to_vec(),
                    scale: space.scales[slot],
                };
                into.put(
                    space.ids[slot].to_string(),
                    space.meta[slot],
                    space.norms[slot],
                    quantized,
                )?;
            }
        }
        drop(npcs);
        self.bump();
        Ok(())
    }
}

struct Reader<'a> {
    /// Bytes read and not yet taken from `at` on.
    bytes: Vec<u8>,
    at: usize,
    read: &'a mut dyn FnMut(usize) -> Vec<u8>,
}

impl Reader<'_> {
    /// How many bytes are read from the source at least at a time.
    const PIECE: usize = 1 << 20;

    /// Whether `n` bytes are there to take, reading more when needed.
    fn fill(&mut self, n: usize) -> bool {
        if self.bytes.len() - self.at >= n {
            return true;
        }
        let left = self.bytes.len() - self.at;
        self.bytes.copy_within(self.at.., 0);
        self.bytes.truncate(left);
        self.at = 0;
        let more = (self.read)(n.max(Self::PIECE));
        self.bytes.extend_from_slice(&more);
        self.bytes.len() >= n
    }

    fn take(&mut self, n: usize) -> PortResult<&[u8]> {
        if !self.fill(n) {
            return Err(PortError::Backend("truncated vector snapshot".into()));
        }
        let start = self.at;
        self.at += n;
        Ok(&self.bytes[start..self.at])
    }

    fn at_end(&mut self) -> bool {
        !self.fill(1)
    }

    fn u32(&mut self) -> PortResult<u32> {
        let bytes = self.take(4)?.first_chunk().copied().unwrap_or_default();
        Ok(u32::from_le_bytes(bytes))
    }

    fn f32(&mut self) -> PortResult<f32> {
        Ok(f32::from_bits(self.u32()?))
    }

    fn string(&mut self) -> PortResult<String> {
        let n = self.u32()? as usize;
        String::from_utf8(self.take(n)?.to_vec())
            .map_err(|_| PortError::Backend("bad string in vector snapshot".into()))
    }
}
