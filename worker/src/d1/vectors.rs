//! A vector index in D1: vectors as BLOBs of little-endian f32, brute-force cosine per NPC.
//!
//! What local dev runs (Vectorize has no local emulation), and a fallback for deployments
//! without Vectorize. Reading every BLOB of an NPC for each query would be slow, so isolates
//! keep decoded copies checked against a per-NPC generation number ([`vector_cache`]), in the
//! core's [`VectorSpace`] (the in-memory index's, so both score alike).
//!
//! [`vector_cache`]: super::vector_cache

use super::bind::*;
use super::request::RequestState;
use super::rows::collection_from_name;
use super::vector_cache::{self, Change};
use super::Db;
use async_trait::async_trait;
use hippo::error::PortError;
use hippo::memory::{Collection, MemoryType};
use hippo::ports::{PortResult, VectorFilter, VectorIndex, VectorItem};
use hippo::store::VectorSpace;
use serde::Deserialize;
use std::rc::Rc;
use wasm_bindgen::{JsCast, JsValue};

pub struct D1VectorIndex {
    db: Db,
    /// Shared with the request's store, whose retrieval read fetches the vector generation.
    request: Rc<RequestState>,
}

/// The statement reading an NPC's vector generation (0 before its first vector).
pub fn generation_statement(db: &Db, npcid: &str) -> PortResult<worker::D1PreparedStatement> {
    statement(
        db,
        "SELECT COALESCE((SELECT gen FROM vector_generations WHERE npcid = ?1), 0) AS gen",
        &[text(npcid)],
    )
}

#[derive(Deserialize)]
pub(super) struct Generation {
    pub gen: i64,
}

impl D1VectorIndex {
    /// The index of the request whose state is `request` (made
    /// [`RequestState::with_d1_vectors`], so the store reads generations for it).
    pub fn new(db: Db, request: Rc<RequestState>) -> Self {
        D1VectorIndex { db, request }
    }

    /// Runs `statements` and the NPC's generation bump in one batch (one transaction), then
    /// replays `change` on this isolate's copy if nobody else wrote in between.
    async fn write(
        &self,
        npcid: &str,
        mut statements: Vec<worker::D1PreparedStatement>,
        change: Change<'_>,
    ) -> PortResult<()> {
        statements.push(statement(
            &self.db,
            "INSERT INTO vector_generations (npcid, gen) VALUES (?1, 1) \
             ON CONFLICT (npcid) DO UPDATE SET gen = gen + 1 RETURNING gen",
            &[text(npcid)],
        )?);
        let results = batch(&self.db, statements).await?;
        let generation = results
            .last()
            .and_then(|r| r.results::<Generation>().ok())
            .and_then(|mut rows| rows.pop())
            .map(|g| g.gen);
        match generation {
            Some(generation) => vector_cache::after_write(npcid, generation, change),
            None => vector_cache::after_write(npcid, i64::MIN, Change::Clear),
        }
        Ok(())
    }

    /// The NPC's vectors, from the isolate's copy when D1's generation says it is current.
    async fn load(&self, npcid: &str) -> PortResult<Rc<VectorSpace>> {
        // A cheap read of the generation first (unless the store's read fetched it).
        let generation = match self.request.take_vector_generation(npcid) {
            Some(generation) => generation,
            None => {
                let rows = raw_rows(&generation_statement(&self.db, npcid)?).await?;
                rows.first()
                    .and_then(|row| row.first())
                    .and_then(|v| v.as_f64())
                    .unwrap_or(0.0) as i64
            }
        };
        self.load_at(npcid, generation).await
    }

    /// The NPC's vectors at D1's `generation`: the isolate's copy when it is that one, else
    /// read whole (the read returns the generation in every row: one statement, so the rows
    /// and the number agree).
    async fn load_at(&self, npcid: &str, generation: i64) -> PortResult<Rc<VectorSpace>> {
        if let Some(space) = vector_cache::get(npcid, generation) {
            return Ok(space);
        }
        let rows_stmt = statement(
            &self.db,
            "SELECT (SELECT gen FROM vector_generations WHERE npcid = ?1), id, collection, \
             type, vec FROM vectors WHERE npcid = ?1",
            &[text(npcid)],
        )?;
        let rows = raw_rows(&rows_stmt).await?;
        let mut space = VectorSpace::default();
        let mut loaded_generation = generation;
        for row in rows {
            let [gen, id, collection, memory_type, vec]: [JsValue; 5] = row
                .try_into()
                .map_err(|_| PortError::Backend("unreadable vector row".into()))?;
            loaded_generation = gen.as_f64().unwrap_or(0.0) as i64;
            let item = VectorItem {
                id: id.as_string().unwrap_or_default(),
                collection: collection
                    .as_string()
                    .and_then(|c| collection_from_name(&c))
                    .unwrap_or(Collection::Memory),
                memory_type: memory_type
                    .as_string()
                    .and_then(|t| MemoryType::parse(&t))
                    .unwrap_or(MemoryType::Other),
                values: decode_f32(&vec),
            };
            // A vector of another dimension than the NPC's first (left by an embedder
            // change) can match no query of that embedder: it is left out.
            let _ = space.upsert(item);
        }
        let space = Rc::new(space);
        vector_cache::put(npcid, loaded_generation, space.clone());
        Ok(space)
    }
}

/// Rows as arrays of JS values (BLOBs arrive as arrays of numbers).
async fn raw_rows(stmt: &worker::D1PreparedStatement) -> PortResult<Vec<Vec<JsValue>>> {
    let rows = stmt.raw_js_value().await.map_err(backend)?;
    Ok(rows
        .into_iter()
        .map(|row| js_sys::Array::from(&row).to_vec())
        .collect())
}

/// A BLOB (array of byte values, or an ArrayBuffer) as f32s.
fn decode_f32(blob: &JsValue) -> Vec<f32> {
    let bytes = if let Some(buffer) = blob.dyn_ref::<js_sys::ArrayBuffer>() {
        js_sys::Uint8Array::new(buffer).to_vec()
    } else {
        js_sys::Uint8Array::new(blob).to_vec()
    };
    f32_from_le_bytes(&bytes)
}

pub fn f32_to_le_bytes(values: &[f32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

pub fn f32_from_le_bytes(bytes: &[u8]) -> Vec<f32> {
    bytes
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

#[async_trait(?Send)]
impl VectorIndex for D1VectorIndex {
    async fn upsert(&self, npcid: &str, items: Vec<VectorItem>) -> PortResult<()> {
        if items.is_empty() {
            return Ok(());
        }
        let mut statements = Vec::with_capacity(items.len() + 1);
        for item in &items {
            statements.push(statement(
                &self.db,
                "INSERT INTO vectors (npcid, id, collection, type, vec) VALUES (?1, ?2, ?3, ?4, ?5) \
                 ON CONFLICT (npcid, id) DO UPDATE SET collection = excluded.collection, \
                 type = excluded.type, vec = excluded.vec",
                &[
                    text(npcid),
                    text(&item.id),
                    text(item.collection.as_str()),
                    text(item.memory_type.as_str()),
                    bytes(&f32_to_le_bytes(&item.values)),
                ],
            )?);
        }
        self.write(npcid, statements, Change::Upsert(&items)).await
    }

    async fn query(
        &self,
        npcid: &str,
        vector: &[f32],
        top_k: usize,
        filter: &VectorFilter,
    ) -> PortResult<Vec<(String, f32)>> {
        let space = self.load(npcid).await?;
        Ok(space.query(vector, top_k, filter))
    }

    /// One load of the NPC's vectors (a round trip to check its generation) for all of them:
    /// conflict resolution asks a call's new memories together.
    async fn query_each(
        &self,
        npcid: &str,
        vectors: &[&[f32]],
        top_k: usize,
        filter: &VectorFilter,
    ) -> PortResult<Vec<Vec<(String, f32)>>> {
        let space = self.load(npcid).await?;
        Ok(vectors
            .iter()
            .map(|vector| space.query(vector, top_k, filter))
            .collect())
    }

    /// When this request's store read fetched the NPC's vector generation and no look-up
    /// used it yet (a retrieval, which scores its candidates with the built-in embedder's
    /// vectors instead of scanning them), from the copy at that generation: no round trip
    /// more than a query's. Otherwise from the isolate's copy as it is, without asking D1:
    /// conflict resolution asks right after its near look-up read or refreshed that copy,
    /// and a second round trip per new memory would cost more than the built-in embedder
    /// does. Without a copy (an NPC over the cache's capacity), nothing: the engine embeds.
    async fn similarities(
        &self,
        npcid: &str,
        vector: &[f32],
        ids: &[String],
    ) -> PortResult<Vec<(String, f32)>> {
        let space = match self.request.take_vector_generation(npcid) {
            Some(generation) => Some(self.load_at(npcid, generation).await?),
            None => vector_cache::latest(npcid),
        };
        Ok(space
            .map(|space| space.similarities(vector, ids))
            .unwrap_or_default())
    }

    async fn delete(&self, npcid: &str, ids: &[String]) -> PortResult<()> {
        if ids.is_empty() {
            return Ok(());
        }
        let mut statements = Vec::new();
        for chunk in ids.chunks(MAX_PARAMS - 1) {
            let mut params = vec![text(npcid)];
            params.extend(chunk.iter().map(|id| text(id)));
            statements.push(statement(
                &self.db,
                &format!(
                    "DELETE FROM vectors WHERE npcid = ?1 AND id IN ({})",
                    placeholders(2, chunk.len())
                ),
                &params,
            )?);
        }
        self.write(npcid, statements, Change::Delete(ids)).await
    }

    async fn delete_npc(&self, npcid: &str) -> PortResult<()> {
        // The generation row stays (bumped, never reset), so no isolate can mistake a
        // re-created NPC's vectors for its cached copy of the old ones.
        let delete = statement(
            &self.db,
            "DELETE FROM vectors WHERE npcid = ?1",
            &[text(npcid)],
        )?;
        self.write(npcid, vec![delete], Change::Clear).await
    }

    /// Its scores are a [`VectorSpace`]'s, read from the isolate's copy.
    fn score_error(&self, dim: usize) -> Option<f32> {
        Some(hippo::store::vectors::rescored_error(dim))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blob_bytes_round_trip() {
        let v = [0.25f32, -1.5, 3.0e-7, f32::MAX];
        assert_eq!(f32_from_le_bytes(&f32_to_le_bytes(&v)), v);
    }
}
