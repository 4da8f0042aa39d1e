//! Adding, listing and deleting memories, and the conflict resolution every new memory goes
//! through (SPEC §2.3), whether it comes from the API or from a dream.

use super::{Hippo, ListMemoriesQuery, MAX_ATTEMPTS};
use crate::api::*;
use crate::error::{Error, Result};
use crate::ids::{new_id, validate_npcid};
use crate::memory::conflict::{self, Decision, Verdict};
use crate::memory::strength::{self, reinforce_on_encounter};
use crate::memory::{Collection, EmotionTag, Memory, MemoryInput, MemoryType};
use crate::ports::{LexicalQuery, MemoryFilter, VectorFilter, VectorItem, Write, WriteBatch};
use crate::retrieval::embed::cosine;
use crate::retrieval::tokenize::tokenize_query;
use crate::time::Timestamp;
use indexmap::IndexMap;

/// Limits of `POST /api/memories`.
pub const MAX_MEMORIES_PER_ADD: usize = 100;
pub const MAX_SUMMARY_CHARS: usize = 2_000;
pub const MAX_KEYWORDS: usize = 32;
pub const MAX_KEYWORD_CHARS: usize = 64;
/// Page size bounds of `GET /api/memories`.
pub const MEMORY_PAGE_DEFAULT: usize = 50;
pub const MEMORY_PAGE_MAX: usize = 500;
/// How many similar memories conflict resolution compares a new one with.
const CONFLICT_CANDIDATES: usize = 8;
/// Memories per embedder call when re-embedding.
const EMBED_CHUNK: usize = 64;

/// A validated memory on its way in.
#[derive(Debug, Clone, PartialEq)]
pub struct NewMemory {
    pub summary: String,
    pub memory_type: MemoryType,
    pub keywords: Vec<String>,
    pub confidence: f64,
    pub importance: f64,
    pub source: String,
    pub event_time: Option<Timestamp>,
    pub expires_at: Option<Timestamp>,
    pub sensitive: bool,
    pub collection: Collection,
    pub emotion: Option<EmotionTag>,
}

impl NewMemory {
    /// A typed long-term memory with the defaults for everything else.
    pub fn new(summary: impl Into<String>, memory_type: MemoryType, source: &str) -> Self {
        NewMemory {
            summary: summary.into(),
            memory_type,
            keywords: Vec::new(),
            confidence: 0.8,
            importance: 0.5,
            source: source.to_string(),
            event_time: None,
            expires_at: None,
            sensitive: false,
            collection: Collection::Memory,
            emotion: None,
        }
    }

    /// Validates one `POST /api/memories` item; errors name its index.
    pub fn from_input(input: &MemoryInput, i: usize) -> Result<Self> {
        let at = |what: &str| format!("memories[{i}].{what}");
        let summary = input.summary.trim();
        if summary.is_empty() {
            return Err(Error::invalid(format!("{} cannot be empty", at("summary"))));
        }
        if summary.chars().count() > MAX_SUMMARY_CHARS {
            return Err(Error::invalid(format!(
                "{} is longer than {MAX_SUMMARY_CHARS} characters",
                at("summary")
            )));
        }
        let memory_type = MemoryType::parse(&input.memory_type).ok_or_else(|| {
            Error::invalid(format!(
                "{} must be one of preference, style, profile, history, project, constraint, \
                 relationship, other",
                at("type")
            ))
        })?;
        if input.keywords.len() > MAX_KEYWORDS
            || input
                .keywords
                .iter()
                .any(|k| k.chars().count() > MAX_KEYWORD_CHARS)
        {
            return Err(Error::invalid(format!(
                "{}: at most {MAX_KEYWORDS} keywords of at most {MAX_KEYWORD_CHARS} characters",
                at("keywords")
            )));
        }
        let unit = |v: Option<f64>, name: &str, default: f64| -> Result<f64> {
            match v {
                None => Ok(default),
                Some(x) if (0.0..=1.0).contains(&x) => Ok(x),
                Some(_) => Err(Error::invalid(format!(
                    "{} must be between 0 and 1",
                    at(name)
                ))),
            }
        };
        let source = input
            .source
            .as_deref()
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .unwrap_or("long_term_memory");
        if source.chars().count() > 64 {
            return Err(Error::invalid(format!(
                "{} is longer than 64 characters",
                at("source")
            )));
        }
        Ok(NewMemory {
            summary: summary.to_string(),
            memory_type,
            keywords: input
                .keywords
                .iter()
                .map(|k| k.trim().to_string())
                .filter(|k| !k.is_empty())
                .collect(),
            confidence: unit(input.confidence, "confidence", 0.8)?,
            importance: unit(input.importance, "importance", 0.5)?,
            source: source.to_string(),
            event_time: input.event_time,
            expires_at: input.expires_at,
            sensitive: input.sensitive,
            collection: Collection::Memory,
            emotion: None,
        })
    }

    fn into_memory(self, now: Timestamp) -> Memory {
        Memory {
            id: new_id("mem"),
            memory_type: self.memory_type,
            summary: self.summary,
            keywords: self.keywords,
            confidence: self.confidence,
            importance: self.importance,
            source: self.source,
            created_at: now,
            updated_at: now,
            last_accessed_at: now,
            access_count: 0,
            encounter_count: 1,
            event_time: self.event_time,
            expires_at: self.expires_at,
            sensitive: self.sensitive,
            superseded_by: None,
            collection: self.collection,
            emotion: self.emotion,
        }
    }
}

/// The text a memory is embedded from: its summary, and its keywords when it has any.
pub fn embedding_text(summary: &str, keywords: &[String]) -> String {
    if keywords.is_empty() {
        summary.to_string()
    } else {
        format!("{summary} ({})", keywords.join(", "))
    }
}

/// What ingesting a group of memories will write: computed, not yet committed.
#[derive(Debug, Clone, Default)]
pub struct MemoryPlan {
    pub writes: Vec<Write>,
    /// Vectors to upsert once the writes are durable.
    pub vectors: Vec<VectorItem>,
    /// One per input, in order.
    pub results: Vec<AddMemoryResult>,
}

impl Hippo {
    /// Conflict resolution for new memories (SPEC §2.3), in order, each seeing the ones before
    /// it. Exact duplicates and near-identical texts reinforce the existing memory; a new
    /// value for the same subject slot supersedes the old one (kept as history); the
    /// ambiguous band asks the LLM when one is configured, else the deterministic rules.
    /// Content and emotion records are inserted as they are.
    pub async fn plan_memories(&self, npcid: &str, items: Vec<NewMemory>) -> Result<MemoryPlan> {
        let now = self.now();
        let texts: Vec<String> = items
            .iter()
            .map(|m| embedding_text(&m.summary, &m.keywords))
            .collect();
        // Without vectors the lexical path still finds the memories; the index can be rebuilt.
        let vectors = self.ports.embedder.embed(&texts).await.ok();
        let thresholds = self.ports.embedder.thresholds();
        // Every memory this plan writes, latest version, in first-touched order.
        let mut touched: IndexMap<String, Memory> = IndexMap::new();
        // Embeddings of memories known so far (planned or loaded), for similarity.
        let mut known_vectors: IndexMap<String, Vec<f32>> = IndexMap::new();
        let mut plan = MemoryPlan::default();

        for (i, item) in items.into_iter().enumerate() {
            let vector = vectors.as_ref().and_then(|v| v.get(i).cloned());
            if item.collection != Collection::Memory {
                plan_insert(
                    &mut plan,
                    &mut touched,
                    &mut known_vectors,
                    item,
                    vector,
                    now,
                );
                continue;
            }
            let candidates = self
                .conflict_candidates(
                    npcid,
                    &item,
                    vector.as_deref(),
                    &touched,
                    &mut known_vectors,
                )
                .await?;
            let refs: Vec<(&Memory, f32)> = candidates.iter().map(|(m, s)| (m, *s)).collect();
            let mut decision = conflict::decide(&item.summary, &refs, thresholds);
            if let Decision::Ambiguous { id } = &decision {
                let old = candidates.iter().find(|(m, _)| &m.id == id).map(|(m, _)| m);
                let verdict = match old {
                    Some(old) => self.verdict(&item.summary, &old.summary).await,
                    None => Verdict::Distinct,
                };
                decision = match verdict {
                    Verdict::Duplicate => Decision::Reinforce { id: id.clone() },
                    Verdict::Supersedes => {
                        let old = old.cloned().expect("a verdict needs the old memory");
                        plan_supersede(&mut plan, &mut touched, item, vector, &old, now);
                        continue;
                    }
                    Verdict::Distinct => Decision::Insert,
                };
            }
            match decision {
                Decision::Reinforce { id } => {
                    let existing = touched.get(&id).cloned().or_else(|| {
                        candidates
                            .iter()
                            .find(|(m, _)| m.id == id)
                            .map(|(m, _)| m.clone())
                    });
                    let Some(mut existing) = existing else {
                        return Err(Error::Internal(format!("candidate {id} vanished")));
                    };
                    reinforce_on_encounter(&mut existing, item.importance, now);
                    for k in item.keywords {
                        if !existing.keywords.contains(&k) {
                            existing.keywords.push(k);
                        }
                    }
                    plan.results.push(AddMemoryResult {
                        id: id.clone(),
                        action: "reinforced".into(),
                        supersedes: None,
                    });
                    touched.insert(id, existing);
                }
                Decision::Insert => plan_insert(
                    &mut plan,
                    &mut touched,
                    &mut known_vectors,
                    item,
                    vector,
                    now,
                ),
                Decision::Ambiguous { .. } => unreachable!("resolved above"),
            }
        }
        plan.writes = touched
            .into_values()
            .map(|memory| Write::PutMemory { memory })
            .collect();
        Ok(plan)
    }

    /// Same-type, live memories similar to `item`: the vector index's nearest, the lexical
    /// index's best, and what this plan already wrote, each with its similarity.
    async fn conflict_candidates(
        &self,
        npcid: &str,
        item: &NewMemory,
        vector: Option<&[f32]>,
        touched: &IndexMap<String, Memory>,
        known_vectors: &mut IndexMap<String, Vec<f32>>,
    ) -> Result<Vec<(Memory, f32)>> {
        let mut sims: IndexMap<String, Option<f32>> = IndexMap::new();
        if let Some(v) = vector {
            let filter = VectorFilter {
                collections: vec![Collection::Memory],
                types: vec![item.memory_type],
            };
            // A failing vector index only weakens duplicate detection; lexical still works.
            if let Ok(hits) = self
                .ports
                .vectors
                .query(npcid, v, CONFLICT_CANDIDATES, &filter)
                .await
            {
                for (id, s) in hits {
                    sims.insert(id, Some(s));
                }
            }
        }
        let query = LexicalQuery {
            terms: tokenize_query(&item.summary),
            collections: vec![Collection::Memory],
        };
        for (id, _) in self
            .ports
            .store
            .lexical_search(npcid, &query, CONFLICT_CANDIDATES)
            .await?
        {
            sims.entry(id).or_insert(None);
        }
        let ids: Vec<String> = sims
            .keys()
            .filter(|id| !touched.contains_key(*id))
            .cloned()
            .collect();
        let mut found: Vec<Memory> = self.ports.store.memories_by_id(npcid, &ids).await?;
        found.extend(touched.values().cloned());
        found.retain(|m| {
            m.collection == Collection::Memory
                && m.memory_type == item.memory_type
                && m.superseded_by.is_none()
        });
        // Similarity for candidates the vector index did not score.
        let missing: Vec<&Memory> = found
            .iter()
            .filter(|m| {
                sims.get(&m.id).copied().flatten().is_none() && !known_vectors.contains_key(&m.id)
            })
            .collect();
        if let (Some(_), false) = (vector, missing.is_empty()) {
            let texts: Vec<String> = missing
                .iter()
                .map(|m| embedding_text(&m.summary, &m.keywords))
                .collect();
            if let Ok(vs) = self.ports.embedder.embed(&texts).await {
                for (m, v) in missing.iter().zip(vs) {
                    known_vectors.insert(m.id.clone(), v);
                }
            }
        }
        Ok(found
            .into_iter()
            .map(|m| {
                let sim = sims
                    .get(&m.id)
                    .copied()
                    .flatten()
                    .or_else(|| Some(cosine(vector?, known_vectors.get(&m.id)?)))
                    .unwrap_or(0.0);
                (m, sim)
            })
            .collect())
    }

    /// DUPLICATE / SUPERSEDES / DISTINCT for the ambiguous band: the LLM when configured
    /// (falling back to the rules if it fails or answers garbage), else the rules.
    async fn verdict(&self, new_summary: &str, old_summary: &str) -> Verdict {
        // LEAD-PENDING-DREAM: ask the LLM here once dream::llm lands.
        conflict::rule_verdict(new_summary, old_summary)
    }

    /// Upserts vectors after their memories are durable. The vector index is derived data:
    /// a failure here leaves the memory findable lexically until `rebuild_vectors`.
    pub(crate) async fn upsert_vectors(&self, npcid: &str, vectors: Vec<VectorItem>) -> bool {
        vectors.is_empty() || self.ports.vectors.upsert(npcid, vectors).await.is_ok()
    }

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
        self.check_embedder().await?;
        for _ in 0..MAX_ATTEMPTS {
            let npc = self.require_npc(npcid).await?;
            let plan = self.plan_memories(npcid, items.clone()).await?;
            let batch = WriteBatch {
                writes: plan.writes,
                expect_version: Some(npc.version),
            };
            if self.try_commit(npcid, batch).await? {
                self.upsert_vectors(npcid, plan.vectors).await;
                return Ok(AddMemoriesResponse {
                    status: "ok".into(),
                    results: plan.results,
                });
            }
        }
        Err(Self::too_contended(npcid))
    }

    pub async fn list_memories(&self, npcid: &str, query: ListMemoriesQuery) -> Result<MemoryList> {
        self.require_npc(npcid).await?;
        let collection = match query.collection.as_deref().unwrap_or("memory") {
            "memory" => Some(Collection::Memory),
            "content" => Some(Collection::Content),
            "emotion" => Some(Collection::Emotion),
            "all" => None,
            other => {
                return Err(Error::invalid(format!(
                    "collection must be memory, content, emotion or all, not {other:?}"
                )))
            }
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
            updated_since: None,
            offset: query.offset,
            limit: Some(limit + 1),
        };
        let mut found = self.ports.store.memories(npcid, &filter).await?;
        let more = found.len() > limit;
        found.truncate(limit);
        let now = self.now();
        let memories: Vec<MemoryView> = found
            .into_iter()
            .map(|memory| {
                let s = strength::strength(&memory, now, &self.decay);
                MemoryView {
                    strength: s,
                    tier: strength::tier(s).as_str().to_string(),
                    memory,
                }
            })
            .collect();
        Ok(MemoryList {
            npcid: npcid.to_string(),
            count: memories.len(),
            next_offset: more.then_some(query.offset + limit),
            memories,
        })
    }

    /// Hard delete, from the store and the vector index. Memories the deleted one had
    /// superseded come back (SPEC §2.3).
    pub async fn delete_memory(&self, npcid: &str, id: &str) -> Result<()> {
        for _ in 0..MAX_ATTEMPTS {
            let npc = self.require_npc(npcid).await?;
            let Some(target) = self
                .ports
                .store
                .memories_by_id(npcid, &[id.to_string()])
                .await?
                .pop()
            else {
                return Err(Error::not_found(format!("memory {id} does not exist")));
            };
            let superseded = MemoryFilter {
                collection: Some(target.collection),
                include_superseded: true,
                ..Default::default()
            };
            let others: Vec<Memory> = self
                .ports
                .store
                .memories(npcid, &superseded)
                .await?
                .into_iter()
                .filter(|m| m.superseded_by.as_deref() == Some(id))
                .collect();
            let mut batch = WriteBatch::expecting(npc.version);
            batch.push(Write::DeleteMemory { id: id.to_string() });
            for memory in conflict::resurrect_on_delete(&target, &others) {
                batch.push(Write::PutMemory { memory });
            }
            if self.try_commit(npcid, batch).await? {
                // Best effort: a stale vector of a deleted memory is dropped at load time.
                let _ = self.ports.vectors.delete(npcid, &[id.to_string()]).await;
                return Ok(());
            }
        }
        Err(Self::too_contended(npcid))
    }

    /// Re-embeds every record of the NPC into a fresh vector index namespace. D1 (the
    /// store) is the source of truth; this is how the index is repaired or migrated.
    pub async fn rebuild_vectors(&self, npcid: &str) -> Result<usize> {
        self.require_npc(npcid).await?;
        let all = self
            .ports
            .store
            .memories(
                npcid,
                &MemoryFilter {
                    include_superseded: true,
                    ..Default::default()
                },
            )
            .await?;
        self.ports.vectors.delete_npc(npcid).await?;
        for chunk in all.chunks(EMBED_CHUNK) {
            let texts: Vec<String> = chunk
                .iter()
                .map(|m| embedding_text(&m.summary, &m.keywords))
                .collect();
            let vectors = self.ports.embedder.embed(&texts).await?;
            let items = chunk
                .iter()
                .zip(vectors)
                .map(|(m, v)| vector_item(m, v))
                .collect();
            self.ports.vectors.upsert(npcid, items).await?;
        }
        Ok(all.len())
    }
}

fn vector_item(memory: &Memory, values: Vec<f32>) -> VectorItem {
    VectorItem {
        id: memory.id.clone(),
        collection: memory.collection,
        memory_type: memory.memory_type,
        values,
    }
}

fn plan_insert(
    plan: &mut MemoryPlan,
    touched: &mut IndexMap<String, Memory>,
    known_vectors: &mut IndexMap<String, Vec<f32>>,
    item: NewMemory,
    vector: Option<Vec<f32>>,
    now: Timestamp,
) {
    let memory = item.into_memory(now);
    plan.results.push(AddMemoryResult {
        id: memory.id.clone(),
        action: "inserted".into(),
        supersedes: None,
    });
    if let Some(v) = vector {
        known_vectors.insert(memory.id.clone(), v.clone());
        plan.vectors.push(vector_item(&memory, v));
    }
    touched.insert(memory.id.clone(), memory);
}

/// Inserts `item` as the new value and marks `old_id` as superseded by it.
fn plan_supersede(
    plan: &mut MemoryPlan,
    touched: &mut IndexMap<String, Memory>,
    item: NewMemory,
    vector: Option<Vec<f32>>,
    old: &Memory,
    now: Timestamp,
) {
    let memory = item.into_memory(now);
    // The plan's own version of the old memory if it already touched it.
    let mut old = touched.get(&old.id).cloned().unwrap_or_else(|| old.clone());
    old.superseded_by = Some(memory.id.clone());
    plan.results.push(AddMemoryResult {
        id: memory.id.clone(),
        action: "superseded".into(),
        supersedes: Some(old.id.clone()),
    });
    touched.insert(old.id.clone(), old);
    if let Some(v) = vector {
        plan.vectors.push(vector_item(&memory, v));
    }
    touched.insert(memory.id.clone(), memory);
}
