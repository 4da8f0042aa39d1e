//! A vector index in D1: vectors as BLOBs of little-endian f32, brute-force cosine per NPC.
//!
//! What local dev runs (Vectorize has no local emulation), and a fallback for deployments
//! without Vectorize. Reading every BLOB of an NPC for each query would be slow, so isolates
//! keep decoded copies checked against a per-NPC generation number ([`vector_cache`]).
//!
//! [`vector_cache`]: super::vector_cache

use super::bind::*;
use super::rows::collection_from_name;
use super::vector_cache::{self, Change, Space};
use super::Db;
use async_trait::async_trait;
use hippo::error::PortError;
use hippo::memory::{Collection, MemoryType};
use hippo::ports::{PortResult, VectorFilter, VectorIndex, VectorItem};
use hippo::retrieval::embed::dot;
use serde::Deserialize;
use std::rc::Rc;
use wasm_bindgen::{JsCast, JsValue};

pub struct D1VectorIndex {
    db: Db,
    /// Generations the store read ahead in this request (each used once).
    read_ahead: Option<VectorGenerations>,
}

/// Vector generations read ahead by the store's retrieval read, for the vector index of the
/// same request: one round trip fewer per retrieval.
pub type VectorGenerations = Rc<std::cell::RefCell<std::collections::HashMap<String, i64>>>;

/// The statement reading an NPC's vector generation (0 before its first vector).
pub fn generation_statement(db: &Db, npcid: &str) -> PortResult<worker::D1PreparedStatement> {
    statement(
        db,
        "SELECT COALESCE((SELECT gen FROM vector_generations WHERE npcid = ?1), 0) AS gen",
        &[text(npcid)],
    )
}

#[derive(Deserialize)]
struct Generation {
    gen: i64,
}

impl D1VectorIndex {
    pub fn new(db: Db) -> Self {
        D1VectorIndex {
            db,
            read_ahead: None,
        }
    }

    /// Takes generations the store reads ahead into `read_ahead`.
    pub fn with_read_ahead(db: Db, read_ahead: VectorGenerations) -> Self {
        D1VectorIndex {
            db,
            read_ahead: Some(read_ahead),
        }
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
        let results = self.db.batch(statements).await.map_err(backend)?;
        if let Some(err) = results.iter().find_map(|r| r.error()) {
            return Err(classify(&err));
        }
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
    async fn load(&self, npcid: &str) -> PortResult<Rc<Space>> {
        // A cheap read of the generation first (unless the store read it ahead); the full
        // read below returns the generation in every row (one statement, so the rows and the
        // number agree).
        let ahead = self
            .read_ahead
            .as_ref()
            .and_then(|r| r.borrow_mut().remove(npcid));
        let generation = match ahead {
            Some(generation) => generation,
            None => {
                let rows = raw_rows(&generation_statement(&self.db, npcid)?).await?;
                rows.first()
                    .and_then(|row| row.first())
                    .and_then(|v| v.as_f64())
                    .unwrap_or(0.0) as i64
            }
        };
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
        let mut items = Vec::with_capacity(rows.len());
        let mut loaded_generation = generation;
        for row in rows {
            let [gen, id, collection, memory_type, vec]: [JsValue; 5] = row
                .try_into()
                .map_err(|_| PortError::Backend("unreadable vector row".into()))?;
            loaded_generation = gen.as_f64().unwrap_or(0.0) as i64;
            items.push(VectorItem {
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
            });
        }
        let space = Rc::new(Space::new(items));
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

/// The best `top_k` items for `vector` by cosine similarity, best first; ties by id. The
/// items must be unit-length ([`Space`] stores them so), which leaves one dot product each.
pub fn nearest(
    items: &[VectorItem],
    vector: &[f32],
    top_k: usize,
    filter: &VectorFilter,
) -> Vec<(String, f32)> {
    let norm = dot(vector, vector).sqrt();
    if norm == 0.0 || top_k == 0 {
        return Vec::new();
    }
    let mut hits: Vec<(&VectorItem, f32)> = items
        .iter()
        .filter(|i| filter.collections.is_empty() || filter.collections.contains(&i.collection))
        .filter(|i| filter.types.is_empty() || filter.types.contains(&i.memory_type))
        .filter(|i| i.values.len() == vector.len())
        .map(|i| (i, dot(vector, &i.values) / norm))
        .collect();
    let order = |a: &(&VectorItem, f32), b: &(&VectorItem, f32)| {
        b.1.total_cmp(&a.1).then_with(|| a.0.id.cmp(&b.0.id))
    };
    if hits.len() > top_k {
        hits.select_nth_unstable_by(top_k - 1, order);
        hits.truncate(top_k);
    }
    hits.sort_by(order);
    hits.into_iter().map(|(i, s)| (i.id.clone(), s)).collect()
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
        Ok(nearest(&space.items, vector, top_k, filter))
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
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(id: &str, c: Collection, t: MemoryType, values: &[f32]) -> VectorItem {
        VectorItem {
            id: id.into(),
            collection: c,
            memory_type: t,
            values: values.to_vec(),
        }
    }

    #[test]
    fn blob_bytes_round_trip() {
        let v = [0.25f32, -1.5, 3.0e-7, f32::MAX];
        assert_eq!(f32_from_le_bytes(&f32_to_le_bytes(&v)), v);
    }

    #[test]
    fn nearest_ranks_filters_and_cuts() {
        let items = [
            item("a", Collection::Memory, MemoryType::Profile, &[1.0, 0.0]),
            item("b", Collection::Memory, MemoryType::Preference, &[0.8, 0.6]),
            item("c", Collection::Content, MemoryType::History, &[0.0, 1.0]),
        ];
        // The query need not be unit-length: scores are cosines either way.
        let all = nearest(&items, &[2.0, 0.0], 10, &VectorFilter::default());
        assert_eq!(
            all.iter().map(|h| h.0.as_str()).collect::<Vec<_>>(),
            ["a", "b", "c"]
        );
        assert!((all[1].1 - 0.8).abs() < 1e-6);
        let filtered = nearest(
            &items,
            &[1.0, 0.0],
            1,
            &VectorFilter {
                collections: vec![Collection::Memory],
                types: vec![MemoryType::Preference],
            },
        );
        assert_eq!(filtered, vec![("b".to_string(), filtered[0].1)]);
    }
}
