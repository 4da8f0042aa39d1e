//! Adding, listing and deleting memories, and the conflict resolution every new memory goes
//! through (SPEC §2.3), whether it comes from the API or from a dream.

use super::ingest::{embedding_text, vector_item};
use super::{Hippo, ListMemoriesQuery, MAX_ATTEMPTS};
use crate::api::*;
use crate::error::{Error, Result};
use crate::ids::{is_path_safe_id, new_id, validate_npcid};
use crate::memory::conflict;
use crate::memory::strength;
use crate::memory::{Collection, EmotionTag, Memory, MemoryInput, MemoryType};
use crate::pkg::cut_chars;
use crate::ports::{MemoryFilter, Write, WriteBatch};
use crate::time::Timestamp;

/// Limits of `POST /api/memories`.
pub const MAX_MEMORIES_PER_ADD: usize = 100;
pub const MAX_SUMMARY_CHARS: usize = 2_000;
pub const MAX_KEYWORDS: usize = 32;
pub const MAX_KEYWORD_CHARS: usize = 64;
pub const MAX_SOURCE_CHARS: usize = 64;
/// A record's `context` (a conversation chunk's neighbouring turns) at most.
pub const MAX_CONTEXT_CHARS: usize = 2 * MAX_SUMMARY_CHARS + 1;
/// Page size bounds of `GET /api/memories`.
pub const MEMORY_PAGE_DEFAULT: usize = 50;
pub const MEMORY_PAGE_MAX: usize = 500;
/// The largest `offset` of `GET /api/memories` passed on to the store: 2^53 - 1, the largest
/// integer a JS number (D1's binding) holds exactly. A larger one lists nothing, as it would.
pub const MAX_LIST_OFFSET: u64 = 9_007_199_254_740_991;
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
    /// See [`Memory::context`].
    pub context: String,
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
            context: String::new(),
        }
    }

    /// Validates one `POST /api/memories` item; errors name its index.
    pub fn from_input(input: &MemoryInput, i: usize) -> Result<Self> {
        let at = |what: &str| format!("memories[{i}].{what}");
        let summary = input.summary.trim();
        check_summary(summary, &at("summary"))?;
        let memory_type = MemoryType::parse(&input.memory_type).ok_or_else(|| {
            Error::invalid(format!(
                "{} must be one of preference, style, profile, history, project, constraint, \
                 relationship, other",
                at("type")
            ))
        })?;
        check_keywords(&input.keywords, &at("keywords"))?;
        let unit = |v: Option<f64>, name: &str, default: f64| -> Result<f64> {
            let v = v.unwrap_or(default);
            check_unit(v, &at(name))?;
            Ok(v)
        };
        let source = input
            .source
            .as_deref()
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .unwrap_or("long_term_memory");
        check_source(source, &at("source"))?;
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
            context: String::new(),
        })
    }

    /// Brings a record the dream made within the limits every stored memory keeps (the write
    /// route refuses what is over them; the dream's text is cut instead): summary and
    /// context cut, keywords trimmed, de-duplicated, cut and at most [`MAX_KEYWORDS`].
    pub(crate) fn fit_limits(&mut self) {
        self.summary = cut_chars(self.summary.trim(), MAX_SUMMARY_CHARS);
        self.context = cut_chars(&self.context, MAX_CONTEXT_CHARS);
        self.source = cut_chars(&self.source, MAX_SOURCE_CHARS);
        self.keywords = fit_keywords(std::mem::take(&mut self.keywords));
    }

    pub(crate) fn into_memory(self, now: Timestamp) -> Memory {
        Memory {
            keywords: self.keywords,
            confidence: self.confidence,
            importance: self.importance,
            source: self.source,
            event_time: self.event_time,
            expires_at: self.expires_at,
            sensitive: self.sensitive,
            collection: self.collection,
            emotion: self.emotion,
            context: self.context,
            ..Memory::new(new_id("mem"), self.memory_type, self.summary, now)
        }
    }
}

/// Keywords within the limits: trimmed, blank and repeated ones dropped, each cut to
/// [`MAX_KEYWORD_CHARS`], at most [`MAX_KEYWORDS`] (the first ones).
pub(crate) fn fit_keywords(keywords: Vec<String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for k in keywords {
        let k = cut_chars(k.trim(), MAX_KEYWORD_CHARS);
        if !k.is_empty() && !out.contains(&k) && out.len() < MAX_KEYWORDS {
            out.push(k);
        }
    }
    out
}

/// A summary: non-empty after trimming, at most [`MAX_SUMMARY_CHARS`] characters.
fn check_summary(summary: &str, what: &str) -> Result<()> {
    super::conversation::check_text(summary, what, MAX_SUMMARY_CHARS)
}

fn check_keywords(keywords: &[String], what: &str) -> Result<()> {
    if keywords.len() > MAX_KEYWORDS
        || keywords
            .iter()
            .any(|k| k.chars().count() > MAX_KEYWORD_CHARS)
    {
        return Err(Error::invalid(format!(
            "{what}: at most {MAX_KEYWORDS} keywords of at most {MAX_KEYWORD_CHARS} characters"
        )));
    }
    Ok(())
}

/// Confidence, importance, an emotion's intensity: a number from 0 to 1.
fn check_unit(value: f64, what: &str) -> Result<()> {
    if (0.0..=1.0).contains(&value) {
        Ok(())
    } else {
        Err(Error::invalid(format!("{what} must be between 0 and 1")))
    }
}

fn check_source(source: &str, what: &str) -> Result<()> {
    if source.chars().count() > MAX_SOURCE_CHARS {
        return Err(Error::invalid(format!(
            "{what} is longer than {MAX_SOURCE_CHARS} characters"
        )));
    }
    Ok(())
}

/// An id a record is stored and addressed by (`DELETE /api/memories/{npcid}/{id}`).
fn check_record_id(id: &str, what: &str) -> Result<()> {
    if is_path_safe_id(id) {
        Ok(())
    } else {
        Err(Error::invalid(format!(
            "{what} must be 1-64 characters of A-Z a-z 0-9 _ . : - (not . or ..)"
        )))
    }
}

/// Checks a stored memory (an import) by the rules of `POST /api/memories`, plus what only
/// stored records have: an addressable id, `superseded_by`, `context`, an emotion tag.
/// Keywords are expected within limits already ([`fit_keywords`]).
pub(crate) fn validate_record(m: &Memory, what: &str) -> Result<()> {
    let at = |field: &str| format!("{what}.{field}");
    check_record_id(&m.id, &at("id"))?;
    check_summary(&m.summary, &at("summary"))?;
    check_keywords(&m.keywords, &at("keywords"))?;
    check_unit(m.confidence, &at("confidence"))?;
    check_unit(m.importance, &at("importance"))?;
    check_source(&m.source, &at("source"))?;
    if let Some(id) = &m.superseded_by {
        check_record_id(id, &at("superseded_by"))?;
    }
    if m.context.chars().count() > MAX_CONTEXT_CHARS {
        return Err(Error::invalid(format!(
            "{} is longer than {MAX_CONTEXT_CHARS} characters",
            at("context")
        )));
    }
    if let Some(emotion) = &m.emotion {
        check_unit(emotion.intensity, &at("emotion.intensity"))?;
        if emotion.label.chars().count() > MAX_KEYWORD_CHARS {
            return Err(Error::invalid(format!(
                "{} is longer than {MAX_KEYWORD_CHARS} characters",
                at("emotion.label")
            )));
        }
    }
    Ok(())
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
        for _ in 0..MAX_ATTEMPTS {
            let npc = self.require_npc(npcid).await?;
            let plan = self.plan_memories(npcid, items.clone()).await?;
            let batch = WriteBatch {
                writes: plan.writes,
                expect_version: Some(npc.version),
            };
            if self.try_commit(npcid, batch).await? {
                let indexed = self.upsert_vectors(npcid, plan.vectors).await;
                let why = match (plan.embedding_error, indexed) {
                    (Some(err), _) => Some(format!("the embedding service failed ({err})")),
                    (None, false) => Some("the vector index failed".to_string()),
                    (None, true) => None,
                };
                return Ok(AddMemoriesResponse {
                    status: "ok".into(),
                    results: plan.results,
                    warning: why.map(|why| {
                        format!(
                            "stored without vectors: {why}; they are found lexically until \
                             POST /api/npc/{npcid}/vectors/rebuild"
                        )
                    }),
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
            next_offset: more.then_some(query.offset.saturating_add(limit)),
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
                superseded_by: Some(id.to_string()),
                include_superseded: true,
                ..Default::default()
            };
            let others: Vec<Memory> = self.ports.store.memories(npcid, &superseded).await?;
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
