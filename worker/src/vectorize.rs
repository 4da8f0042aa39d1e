//! Cloudflare Vectorize as the core's [`VectorIndex`].
//!
//! workers-rs has no Vectorize binding, so [`VectorizeSys`] declares the four methods Hippo
//! uses on the JS object the runtime puts in `env.VECTORS`, and [`Vectorize`] wraps them
//! safely (options serialized JSON-compatible: Vectorize ignores JS `Map`s).
//!
//! Layout in the index: one namespace per NPC; metadata `collection` and `type` (both need
//! metadata indexes, created before the first insert) for filtering; vector ids
//! `{npcid}/{id}` (unique across the whole index, ≤ 64 bytes) or, when that would be longer,
//! `#` + a hash, with the memory id in metadata `mid`. Vectorize cannot list a namespace, so
//! D1 keeps the ids we upserted (`vectorize_ids`) for deleting an NPC.
//!
//! Mutations are asynchronous: a query may miss a vector upserted a moment ago or return one
//! just deleted. D1 stays the source of truth (the engine skips ids it cannot find there), and
//! `POST /api/npc/{npcid}/vectors/rebuild` re-embeds from it.

use crate::d1::bind::{placeholders, statement, text, MAX_PARAMS};
use crate::d1::{query_all, Db};
use async_trait::async_trait;
use hippo::error::PortError;
use hippo::ports::{PortResult, VectorFilter, VectorIndex, VectorItem};
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

#[wasm_bindgen]
extern "C" {
    /// The runtime's Vectorize binding object (`VectorizeIndex` in workers-types).
    pub type VectorizeSys;

    #[wasm_bindgen(method, catch)]
    fn upsert(this: &VectorizeSys, vectors: JsValue) -> Result<js_sys::Promise, JsValue>;

    #[wasm_bindgen(method, catch)]
    fn query(
        this: &VectorizeSys,
        vector: JsValue,
        options: JsValue,
    ) -> Result<js_sys::Promise, JsValue>;

    #[wasm_bindgen(method, catch, js_name = deleteByIds)]
    fn delete_by_ids(this: &VectorizeSys, ids: JsValue) -> Result<js_sys::Promise, JsValue>;

    #[wasm_bindgen(method, catch, js_name = getByIds)]
    fn get_by_ids(this: &VectorizeSys, ids: JsValue) -> Result<js_sys::Promise, JsValue>;
}

/// Vectorize's limit of vectors per upsert from a Worker (also used for deletes).
pub const MAX_PER_MUTATION: usize = 1000;
/// Vectorize's limit on a vector id.
pub const MAX_ID_BYTES: usize = 64;
/// Vectorize's topK limit when neither values nor metadata are returned.
pub const MAX_TOP_K: usize = 100;

/// One vector as Vectorize takes it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VectorRecord {
    pub id: String,
    pub values: Vec<f32>,
    pub namespace: String,
    pub metadata: Map<String, Value>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct QueryOptions {
    pub top_k: usize,
    pub namespace: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub filter: Option<Value>,
    pub return_values: bool,
    pub return_metadata: &'static str,
}

#[derive(Debug, Clone, Deserialize)]
pub struct QueryMatch {
    pub id: String,
    pub score: f32,
}

#[derive(Debug, Clone, Deserialize)]
struct QueryResult {
    #[serde(default)]
    matches: Vec<QueryMatch>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct StoredVector {
    pub id: String,
    #[serde(default)]
    pub metadata: Option<Map<String, Value>>,
}

/// The safe face of a Vectorize binding.
pub struct Vectorize {
    sys: VectorizeSys,
}

fn js_error(what: &str, err: JsValue) -> PortError {
    let message = err
        .dyn_ref::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .or_else(|| err.as_string())
        .unwrap_or_else(|| format!("{err:?}"));
    PortError::Backend(format!("Vectorize {what}: {message}"))
}

fn to_js<T: Serialize>(value: &T) -> PortResult<JsValue> {
    value
        .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .map_err(|e| PortError::Backend(format!("Vectorize arguments: {e}")))
}

async fn settle(what: &str, promise: Result<js_sys::Promise, JsValue>) -> PortResult<JsValue> {
    let promise = promise.map_err(|e| js_error(what, e))?;
    JsFuture::from(promise).await.map_err(|e| js_error(what, e))
}

impl Vectorize {
    /// The binding named `name` in `env`, if the deployment has one.
    pub fn from_env(env: &worker::Env, name: &str) -> Option<Vectorize> {
        let value = js_sys::Reflect::get(env.as_ref(), &JsValue::from_str(name)).ok()?;
        if value.is_undefined() || value.is_null() {
            return None;
        }
        Some(Vectorize {
            sys: value.unchecked_into(),
        })
    }

    /// Upserts in chunks of [`MAX_PER_MUTATION`].
    pub async fn upsert(&self, records: &[VectorRecord]) -> PortResult<()> {
        for chunk in records.chunks(MAX_PER_MUTATION) {
            settle("upsert", self.sys.upsert(to_js(&chunk)?)).await?;
        }
        Ok(())
    }

    pub async fn query(
        &self,
        vector: &[f32],
        options: &QueryOptions,
    ) -> PortResult<Vec<QueryMatch>> {
        let result = settle("query", self.sys.query(to_js(&vector)?, to_js(options)?)).await?;
        let result: QueryResult = serde_wasm_bindgen::from_value(result)
            .map_err(|e| PortError::Backend(format!("Vectorize query result: {e}")))?;
        Ok(result.matches)
    }

    pub async fn delete_by_ids(&self, ids: &[String]) -> PortResult<()> {
        for chunk in ids.chunks(MAX_PER_MUTATION) {
            settle("deleteByIds", self.sys.delete_by_ids(to_js(&chunk)?)).await?;
        }
        Ok(())
    }

    pub async fn get_by_ids(&self, ids: &[String]) -> PortResult<Vec<StoredVector>> {
        let mut out = Vec::new();
        for chunk in ids.chunks(MAX_PER_MUTATION) {
            let result = settle("getByIds", self.sys.get_by_ids(to_js(&chunk)?)).await?;
            let found: Vec<StoredVector> = serde_wasm_bindgen::from_value(result)
                .map_err(|e| PortError::Backend(format!("Vectorize getByIds result: {e}")))?;
            out.extend(found);
        }
        Ok(out)
    }
}

/// The Vectorize id of memory `id` of NPC `npcid`.
pub fn vector_id(npcid: &str, id: &str) -> String {
    let plain = format!("{npcid}/{id}");
    if plain.len() <= MAX_ID_BYTES {
        plain
    } else {
        // 1 + 40 hex characters: well inside the limit, and collisions are out of reach.
        format!("#{}", &hippo::ids::sha256_hex(&plain)[..40])
    }
}

/// The memory id in a Vectorize id of this NPC, when it is spelled out there.
pub fn memory_id<'a>(npcid: &str, vector_id: &'a str) -> Option<&'a str> {
    vector_id.strip_prefix(npcid)?.strip_prefix('/')
}

/// Vectorize's metadata filter for a [`VectorFilter`] (`None` when it filters nothing).
pub fn metadata_filter(filter: &VectorFilter) -> Option<Value> {
    let mut out = Map::new();
    if !filter.collections.is_empty() {
        let names: Vec<&str> = filter.collections.iter().map(|c| c.as_str()).collect();
        out.insert("collection".into(), json!({ "$in": names }));
    }
    if !filter.types.is_empty() {
        let names: Vec<&str> = filter.types.iter().map(|t| t.as_str()).collect();
        out.insert("type".into(), json!({ "$in": names }));
    }
    (!out.is_empty()).then_some(Value::Object(out))
}

pub fn record(npcid: &str, item: &VectorItem) -> VectorRecord {
    let mut metadata = Map::new();
    metadata.insert("collection".into(), json!(item.collection.as_str()));
    metadata.insert("type".into(), json!(item.memory_type.as_str()));
    metadata.insert("mid".into(), json!(item.id));
    VectorRecord {
        id: vector_id(npcid, &item.id),
        values: item.values.clone(),
        namespace: npcid.to_string(),
        metadata,
    }
}

/// [`Vectorize`] plus the D1 registry of upserted ids.
pub struct VectorizeIndex {
    vectorize: Vectorize,
    db: Db,
}

impl VectorizeIndex {
    pub fn new(vectorize: Vectorize, db: Db) -> Self {
        VectorizeIndex { vectorize, db }
    }

    /// Adds (`register`) or removes vector ids of the NPC in the D1 registry.
    async fn registry(&self, npcid: &str, ids: &[String], register: bool) -> PortResult<()> {
        let mut statements = Vec::new();
        for chunk in ids.chunks(MAX_PARAMS - 1) {
            let sql = if register {
                let rows: Vec<String> = (0..chunk.len())
                    .map(|i| format!("(?1, ?{})", i + 2))
                    .collect();
                format!(
                    "INSERT OR IGNORE INTO vectorize_ids (npcid, vector_id) VALUES {}",
                    rows.join(", ")
                )
            } else {
                format!(
                    "DELETE FROM vectorize_ids WHERE npcid = ?1 AND vector_id IN ({})",
                    placeholders(2, chunk.len())
                )
            };
            let mut params = vec![text(npcid)];
            params.extend(chunk.iter().map(|id| text(id)));
            statements.push(statement(&self.db, &sql, &params)?);
        }
        if statements.is_empty() {
            return Ok(());
        }
        self.db
            .batch(statements)
            .await
            .map_err(crate::d1::bind::backend)?;
        Ok(())
    }
}

#[derive(Deserialize)]
struct RegisteredId {
    vector_id: String,
}

#[async_trait(?Send)]
impl VectorIndex for VectorizeIndex {
    async fn upsert(&self, npcid: &str, items: Vec<VectorItem>) -> PortResult<()> {
        let records: Vec<VectorRecord> = items.iter().map(|i| record(npcid, i)).collect();
        let ids: Vec<String> = records.iter().map(|r| r.id.clone()).collect();
        // Registry first: an id registered without a vector is harmless; the reverse would
        // leave a vector that deleting the NPC cannot find.
        self.registry(npcid, &ids, true).await?;
        self.vectorize.upsert(&records).await
    }

    async fn query(
        &self,
        npcid: &str,
        vector: &[f32],
        top_k: usize,
        filter: &VectorFilter,
    ) -> PortResult<Vec<(String, f32)>> {
        if top_k == 0 {
            return Ok(Vec::new());
        }
        let options = QueryOptions {
            top_k: top_k.min(MAX_TOP_K),
            namespace: npcid.to_string(),
            filter: metadata_filter(filter),
            return_values: false,
            return_metadata: "none",
        };
        let matches = self.vectorize.query(vector, &options).await?;
        // Hashed ids carry their memory id in metadata: look those up (rare: long npcids).
        let hashed: Vec<String> = matches
            .iter()
            .filter(|m| m.id.starts_with('#'))
            .map(|m| m.id.clone())
            .collect();
        let mut resolved = std::collections::HashMap::new();
        if !hashed.is_empty() {
            for stored in self.vectorize.get_by_ids(&hashed).await? {
                if let Some(mid) = stored
                    .metadata
                    .as_ref()
                    .and_then(|m| m.get("mid"))
                    .and_then(Value::as_str)
                {
                    if vector_id(npcid, mid) == stored.id {
                        resolved.insert(stored.id.clone(), mid.to_string());
                    }
                }
            }
        }
        Ok(matches
            .into_iter()
            .filter_map(|m| {
                let id = match memory_id(npcid, &m.id) {
                    Some(id) => id.to_string(),
                    None => resolved.get(&m.id)?.clone(),
                };
                Some((id, m.score))
            })
            .collect())
    }

    async fn delete(&self, npcid: &str, ids: &[String]) -> PortResult<()> {
        let vector_ids: Vec<String> = ids.iter().map(|id| vector_id(npcid, id)).collect();
        self.vectorize.delete_by_ids(&vector_ids).await?;
        self.registry(npcid, &vector_ids, false).await
    }

    async fn delete_npc(&self, npcid: &str) -> PortResult<()> {
        loop {
            let page: Vec<RegisteredId> = query_all(
                &self.db,
                "SELECT vector_id FROM vectorize_ids WHERE npcid = ?1 LIMIT ?2",
                &[text(npcid), crate::d1::bind::uint(MAX_PER_MUTATION as u64)],
            )
            .await?;
            if page.is_empty() {
                return Ok(());
            }
            let ids: Vec<String> = page.into_iter().map(|r| r.vector_id).collect();
            self.vectorize.delete_by_ids(&ids).await?;
            self.registry(npcid, &ids, false).await?;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hippo::memory::{Collection, MemoryType};

    #[test]
    fn vector_ids_fit_and_map_back() {
        let short = vector_id("npc-1", "mem_0123456789abcdef");
        assert_eq!(short, "npc-1/mem_0123456789abcdef");
        assert_eq!(memory_id("npc-1", &short), Some("mem_0123456789abcdef"));
        // Another NPC's prefix never maps.
        assert_eq!(memory_id("npc", &short), None);
        let long_npc = "n".repeat(64);
        let long = vector_id(&long_npc, "mem_0123456789abcdef");
        assert!(long.len() <= MAX_ID_BYTES && long.starts_with('#'));
        assert_eq!(memory_id(&long_npc, &long), None);
        assert_ne!(long, vector_id(&long_npc, "mem_other"));
    }

    #[test]
    fn filters_use_in_on_indexed_metadata() {
        assert_eq!(metadata_filter(&VectorFilter::default()), None);
        let f = metadata_filter(&VectorFilter {
            collections: vec![Collection::Memory],
            types: vec![MemoryType::Profile, MemoryType::Style],
            near: false,
            floor: None,
        })
        .unwrap();
        assert_eq!(
            f,
            json!({"collection": {"$in": ["memory"]}, "type": {"$in": ["profile", "style"]}})
        );
    }

    #[test]
    fn records_carry_namespace_and_metadata() {
        let r = record(
            "a",
            &VectorItem {
                id: "m1".into(),
                collection: Collection::Content,
                memory_type: MemoryType::History,
                values: vec![0.5, 0.5],
            },
        );
        assert_eq!(r.namespace, "a");
        assert_eq!(r.id, "a/m1");
        assert_eq!(
            Value::Object(r.metadata),
            json!({"collection": "content", "type": "history", "mid": "m1"})
        );
    }
}
