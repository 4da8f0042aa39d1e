//! Adding, listing and deleting memories, and the conflict resolution every new memory goes
//! through (SPEC §2.3), whether it comes from the API or from a dream.

use super::ingest::{embedding_text, vector_item};
use super::new_memory::{
    check_category, check_keywords, check_summary, check_type, check_unit, NewMemory,
};
use super::Hippo;
use crate::api::*;
use crate::error::{Error, Result};
use crate::ids::validate_npcid;
use crate::memory::conflict;
use crate::memory::strength;
use crate::memory::MemoryPatch;
use crate::memory::{Collection, Memory, MemoryType};
use crate::npc::Npc;
use crate::ports::{EmbedKind, MemoryFilter, Write, WriteBatch};
use crate::sensitive::{self, Category};
use crate::time::Timestamp;

/// Most memories one `POST /api/memories` adds.
pub const MAX_MEMORIES_PER_ADD: usize = 100;
/// Page size bounds of `GET /api/memories`.
pub const MEMORY_PAGE_DEFAULT: usize = 50;
pub const MEMORY_PAGE_MAX: usize = 500;
/// The largest `offset` of `GET /api/memories` passed on to the store: 2^53 - 1, the largest
/// integer a JS number (D1's binding) holds exactly. A larger one lists nothing, as it would.
pub const MAX_LIST_OFFSET: u64 = 9_007_199_254_740_991;
/// Memories per embedder call when re-embedding.
const EMBED_CHUNK: usize = 64;
/// Records read per page when the vectors are rebuilt.
const REBUILD_PAGE: usize = 1024;
/// Passes a rebuild makes at most while writes keep landing (the last is not checked).
const REBUILD_PASSES: usize = 3;

/// Why memories written just now have no vectors, if they have none.
fn vectors_warning(npcid: &str, embedding_error: Option<String>, indexed: bool) -> Option<String> {
    let why = match (embedding_error, indexed) {
        (Some(err), _) => format!("the embedding service failed ({err})"),
        (None, false) => "the vector index failed".to_string(),
        (None, true) => return None,
    };
    Some(format!(
        "stored without vectors: {why}; they are found lexically until \
         POST /api/npc/{npcid}/vectors/rebuild"
    ))
}

/// A validated [`MemoryPatch`]: `None` leaves a field as it is.
#[derive(Debug, Clone, Default)]
struct MemoryChange {
    summary: Option<String>,
    memory_type: Option<MemoryType>,
    keywords: Option<Vec<String>>,
    importance: Option<f64>,
    /// `Some(false)`: make it not sensitive; `Some(true)`: sensitive (with the category, if
    /// one was given).
    sensitive: Option<bool>,
    sensitive_category: Option<Category>,
    pinned: Option<bool>,
}

impl MemoryChange {
    fn from_patch(patch: &MemoryPatch) -> Result<Self> {
        let change = MemoryChange {
            summary: patch
                .summary
                .as_deref()
                .map(|s| check_summary(s, "summary"))
                .transpose()?,
            memory_type: patch
                .memory_type
                .as_deref()
                .map(|t| check_type(t, "type"))
                .transpose()?,
            keywords: patch
                .keywords
                .as_deref()
                .map(|k| check_keywords(k, "keywords"))
                .transpose()?,
            importance: check_unit(patch.importance, "importance")?,
            sensitive: patch
                .sensitive
                .or(patch.sensitive_category.as_ref().map(|_| true)),
            sensitive_category: patch
                .sensitive_category
                .as_deref()
                .map(|c| check_category(c, "sensitive_category"))
                .transpose()?,
            pinned: patch.pinned,
        };
        if patch.sensitive == Some(false) && change.sensitive_category.is_some() {
            return Err(Error::invalid(
                "sensitive_category names why a memory is sensitive; it cannot go with \
                 sensitive: false",
            ));
        }
        let nothing = change.summary.is_none()
            && change.memory_type.is_none()
            && change.keywords.is_none()
            && change.importance.is_none()
            && change.sensitive.is_none()
            && change.pinned.is_none();
        if nothing {
            return Err(Error::invalid(
                "nothing to change: give summary, type, keywords, importance, sensitive, \
                 sensitive_category or pinned",
            ));
        }
        Ok(change)
    }

    /// Whether the memory's vector (and its type filter in the index) must be rewritten.
    fn reindexes(&self) -> bool {
        self.summary.is_some() || self.keywords.is_some() || self.memory_type.is_some()
    }

    fn apply(&self, mut m: Memory, now: Timestamp) -> Result<Memory> {
        if let Some(summary) = &self.summary {
            m.summary = summary.clone();
        }
        if let Some(t) = self.memory_type {
            m.memory_type = t;
        }
        if let Some(keywords) = &self.keywords {
            m.keywords = keywords.clone();
        }
        if let Some(importance) = self.importance {
            m.importance = importance;
        }
        if let Some(pinned) = self.pinned {
            m.pinned = pinned;
        }
        let detected = sensitive::category_of(&m.summary);
        match (self.sensitive, detected) {
            (Some(false), Some(category)) => {
                return Err(Error::invalid(format!(
                    "the summary holds {} data the sensitivity detector flags; edit the \
                     summary, or keep the memory sensitive",
                    category.as_str()
                )))
            }
            (Some(false), None) => {
                m.sensitive = false;
                m.sensitive_category = None;
            }
            (Some(true), _) => {
                m.sensitive = true;
                m.sensitive_category = self
                    .sensitive_category
                    .or(m.sensitive_category)
                    .or(detected);
            }
            // A summary that now holds a secret is marked, as a new memory would be.
            (None, Some(category)) if !m.sensitive => {
                m.sensitive = true;
                m.sensitive_category = Some(category);
            }
            (None, _) => {}
        }
        m.updated_at = now;
        Ok(m)
    }
}

impl Hippo {
    pub async fn add_memories(
        &self,
        npcid: &str,
        req: AddMemoriesRequest,
    ) -> Result<AddMemoriesResponse> {
        validate_npcid(npcid)?;
        if req.memories.is_empty() {
            return Err(Error::invalid("memories cannot be empty"));
        }
        if req.memories.len() > MAX_MEMORIES_PER_ADD {
            return Err(Error::invalid(format!(
                "at most {MAX_MEMORIES_PER_ADD} memories per request"
            )));
        }
        let items = req
            .memories
            .iter()
            .enumerate()
            .map(|(i, m)| NewMemory::from_input(m, i))
            .collect::<Result<Vec<_>>>()?;
        self.check_embedder(true).await?;
        let mut plan = self
            .retry_commit(npcid, async || -> Result<_> {
                let npc = self.require_npc(npcid).await?;
                let mut plan = self.plan_memories(npcid, items.clone()).await?;
                let batch = WriteBatch {
                    writes: std::mem::take(&mut plan.writes),
                    expect_version: Some(npc.version),
                };
                Ok((batch, plan))
            })
            .await?;
        let indexed = self
            .index_after_commit(npcid, std::mem::take(&mut plan.vectors), &plan.unindexed)
            .await;
        Ok(AddMemoriesResponse {
            status: "ok".into(),
            results: plan.results,
            warning: vectors_warning(npcid, plan.embedding_error, indexed),
        })
    }

    /// `PATCH /api/memories/{npcid}/{id}`: changes the fields given, with the validation of
    /// `POST /api/memories`. A new summary, keywords or type re-embed the memory (and the
    /// lexical index follows the stored text). Sensitivity stays a floor: `sensitive: false`
    /// on a text the detector flags is refused, and a new summary it flags is marked.
    pub async fn update_memory(
        &self,
        npcid: &str,
        id: &str,
        patch: MemoryPatch,
    ) -> Result<UpdateMemoryResponse> {
        validate_npcid(npcid)?;
        let change = MemoryChange::from_patch(&patch)?;
        if change.reindexes() {
            self.check_embedder(true).await?;
        }
        let memory = self
            .retry_commit(npcid, async || -> Result<_> {
                let (npc, current) = self.require_memory(npcid, id).await?;
                let memory = change.apply(current, self.now())?;
                let mut batch = WriteBatch::expecting(npc.version);
                batch.push(Write::PutMemory {
                    memory: memory.clone(),
                });
                Ok((batch, memory))
            })
            .await?;
        let mut warning = None;
        // A superseded memory has no vector (search never returns it).
        if change.reindexes() && memory.superseded_by.is_none() {
            let text = embedding_text(&memory.summary, &memory.keywords);
            let (vectors, error) = match self
                .ports
                .embedder
                .embed(EmbedKind::Document, &[text])
                .await
            {
                Ok(mut v) => (v.pop().map(|v| vec![vector_item(&memory, v)]), None),
                Err(e) => (None, Some(e.to_string())),
            };
            let indexed = self
                .index_after_commit(npcid, vectors.unwrap_or_default(), &[])
                .await;
            warning = vectors_warning(npcid, error, indexed);
        }
        Ok(UpdateMemoryResponse {
            status: "ok".into(),
            memory: self.view(memory, self.now()),
            warning,
        })
    }

    pub async fn list_memories(&self, npcid: &str, query: ListMemoriesQuery) -> Result<MemoryList> {
        self.require_npc(npcid).await?;
        let collection = match query.collection.as_deref().unwrap_or("memory") {
            "all" => None,
            name => match Collection::parse(name) {
                Some(c) => Some(c),
                None => {
                    return Err(Error::invalid(format!(
                        "collection must be memory, content, emotion, diary or all, not {name:?}"
                    )))
                }
            },
        };
        let limit = query
            .limit
            .unwrap_or(MEMORY_PAGE_DEFAULT)
            .clamp(1, MEMORY_PAGE_MAX);
        let filter = MemoryFilter {
            collection,
            types: query
                .types
                .iter()
                .filter_map(|t| MemoryType::parse(t))
                .collect(),
            include_superseded: query.include_superseded,
            offset: query
                .offset
                .min(usize::try_from(MAX_LIST_OFFSET).unwrap_or(usize::MAX)),
            limit: Some(limit + 1),
            ..Default::default()
        };
        let mut found = self.ports.store.memories(npcid, &filter).await?;
        let more = found.len() > limit;
        found.truncate(limit);
        let now = self.now();
        let memories: Vec<MemoryView> = found
            .into_iter()
            .map(|memory| self.view(memory, now))
            .collect();
        Ok(MemoryList {
            npcid: npcid.to_string(),
            count: memories.len(),
            next_offset: more.then_some(query.offset.saturating_add(limit)),
            memories,
        })
    }

    /// Hard delete, from the store and the vector index. Memories the deleted one had
    /// superseded come back (SPEC §2.3).
    pub async fn delete_memory(&self, npcid: &str, id: &str) -> Result<()> {
        let resurrected = self
            .retry_commit(npcid, async || -> Result<_> {
                let (npc, target) = self.require_memory(npcid, id).await?;
                let superseded = MemoryFilter {
                    superseded_by: Some(id.to_string()),
                    include_superseded: true,
                    ..Default::default()
                };
                let others: Vec<Memory> = self.ports.store.memories(npcid, &superseded).await?;
                let mut batch = WriteBatch::expecting(npc.version);
                batch.push(Write::DeleteMemory { id: id.to_string() });
                let resurrected = conflict::resurrect_on_delete(&target, &others);
                for memory in &resurrected {
                    batch.push(Write::PutMemory {
                        memory: memory.clone(),
                    });
                }
                Ok((batch, resurrected))
            })
            .await?;
        // Best effort: a stale vector of a deleted memory is dropped at load time.
        let _ = self.ports.vectors.delete(npcid, &[id.to_string()]).await;
        // What came back is searchable again, so it is indexed again (superseded, it had no
        // vector). Best effort too: the lexical path finds it meanwhile.
        let _ = self.index_memories(npcid, &resurrected).await;
        Ok(())
    }

    /// Deletes every memory of the NPC (every collection, superseded ones too), from the
    /// store and the vector index: MCP `forget` with `all`. The profile, relationships, diary
    /// and conversation log stay. Returns how many were deleted.
    pub async fn forget_all_memories(&self, npcid: &str) -> Result<usize> {
        let ids = self
            .retry_commit(npcid, async || -> Result<_> {
                let npc = self.require_npc(npcid).await?;
                let every = MemoryFilter {
                    include_superseded: true,
                    ..Default::default()
                };
                let ids: Vec<String> = self
                    .ports
                    .store
                    .memories(npcid, &every)
                    .await?
                    .into_iter()
                    .map(|m| m.id)
                    .collect();
                let mut batch = WriteBatch::expecting(npc.version);
                for id in &ids {
                    batch.push(Write::DeleteMemory { id: id.clone() });
                }
                Ok((batch, ids))
            })
            .await?;
        // Best effort, as for one memory: stale vectors are dropped at load time.
        let _ = self.ports.vectors.delete(npcid, &ids).await;
        Ok(ids.len())
    }

    /// The NPC and its memory `id` (404 for either, and for another NPC's memory).
    async fn require_memory(&self, npcid: &str, id: &str) -> Result<(Npc, Memory)> {
        let npc = self.require_npc(npcid).await?;
        match self
            .ports
            .store
            .memories_by_id(npcid, &[id.to_string()])
            .await?
            .pop()
        {
            Some(memory) => Ok((npc, memory)),
            None => Err(Error::not_found(format!("memory {id} does not exist"))),
        }
    }

    /// A memory with its strength and tier at `now`.
    fn view(&self, memory: Memory, now: Timestamp) -> MemoryView {
        let s = strength::strength(&memory, now, &self.decay);
        MemoryView {
            strength: s,
            tier: strength::tier(s).as_str().to_string(),
            memory,
        }
    }

    /// Re-embeds every record of the NPC search can return (not superseded memories: see
    /// [`MemoryPlan::unindexed`](super::ingest::MemoryPlan)) into a fresh vector index
    /// namespace. D1 (the store) is the source of truth; this is how the index is repaired
    /// or migrated.
    pub async fn rebuild_vectors(&self, npcid: &str) -> Result<usize> {
        let mut version = self.require_npc(npcid).await?.version;
        // A pass again while writes land meanwhile: a record deleted during a pass shifts the
        // later pages by one, so the pass may have skipped one (and kept the deleted one's).
        let mut pass = 1;
        loop {
            self.ports.vectors.delete_npc(npcid).await?;
            let done = self.embed_pages(npcid).await?;
            if pass == REBUILD_PASSES {
                return Ok(done);
            }
            let now = self.require_npc(npcid).await?.version;
            if now == version {
                return Ok(done);
            }
            (version, pass) = (now, pass + 1);
        }
    }

    /// Embeds `memories` and upserts their vectors.
    async fn index_memories(&self, npcid: &str, memories: &[Memory]) -> Result<()> {
        if memories.is_empty() {
            return Ok(());
        }
        let texts: Vec<String> = memories
            .iter()
            .map(|m| embedding_text(&m.summary, &m.keywords))
            .collect();
        let vectors = self
            .ports
            .embedder
            .embed(EmbedKind::Document, &texts)
            .await?;
        let items = memories
            .iter()
            .zip(vectors)
            .map(|(m, v)| vector_item(m, v))
            .collect();
        Ok(self.ports.vectors.upsert(npcid, items).await?)
    }

    /// Embeds every live record of the NPC, a page at a time (not all at once: in wasm, memory
    /// taken at a peak is never given back, and a copy of 100k records was most of an
    /// import's peak).
    async fn embed_pages(&self, npcid: &str) -> Result<usize> {
        let mut done = 0;
        loop {
            let page = self
                .ports
                .store
                .memories(
                    npcid,
                    &MemoryFilter {
                        limit: Some(REBUILD_PAGE),
                        offset: done,
                        ..Default::default()
                    },
                )
                .await?;
            for chunk in page.chunks(EMBED_CHUNK) {
                self.index_memories(npcid, chunk).await?;
            }
            done += page.len();
            if page.len() < REBUILD_PAGE {
                return Ok(done);
            }
        }
    }
}
