//! Retrieval (SPEC §2.4): gather candidates from every source, rank them with the core's one
//! ranking function, reinforce what is returned. Serves the search route, memory_retrieval
//! and the npm `search`/`retrieve`.
//!
//! Sensitivity (docs/SECURITY.md): what is marked sensitive (memories, PKG fields of a
//! sensitive kind) is left out before ranking unless the search asks for it; every ranked
//! text then goes through the detector, and what it flags is marked, and left out unless
//! asked for. memory_retrieval never asks.

use super::Hippo;
use crate::api::*;
use crate::dream::pipeline::{QUOTE_CONFIDENCE, QUOTE_SOURCE};
use crate::error::{Error, Result};
use crate::memory::strength::{self, Tier};
use crate::memory::{Collection, Memory, MemoryType};
use crate::npc::Npc;
use crate::pkg::{PkgValue, MULTI_VALUE_LIMITS};
use crate::ports::{LexicalQuery, MemoryFilter, VectorFilter, Write, WriteBatch};
use crate::retrieval::protocol;
use crate::retrieval::rank::{self, Candidate, CandidateKind, RankRequest, Ranked};
use crate::retrieval::timeparse::parse_time_range;
use crate::retrieval::tokenize::tokenize_query;
use crate::sensitive;
use crate::time::Timestamp;
use indexmap::IndexMap;

/// `max_results` of the search route: default and upper bound.
pub const SEARCH_DEFAULT_RESULTS: usize = 10;
pub const SEARCH_MAX_RESULTS: usize = 50;
/// Memories touched in a time range that join the candidates of a time-bound query.
const TIME_CANDIDATES: usize = 100;
pub const MAX_QUERY_CHARS: usize = 2_000;
/// Ranked beyond `max_results`, so what the detector drops after ranking can be replaced.
const SENSITIVE_SLACK: usize = 10;
/// The `confidence` of a diary day: the character's own summary of what was said, as
/// unverified as what was said.
pub const DIARY_CONFIDENCE: f64 = 0.6;

/// One retrieval, validated.
#[derive(Debug, Clone)]
struct Retrieval {
    query: String,
    types: Vec<MemoryType>,
    time_hint: Option<String>,
    max_results: usize,
    include_sensitive: bool,
    include_archived: bool,
    debug: bool,
    /// Reinforce what is returned (SPEC §2.2); the brief reads without changing anything.
    reinforce: bool,
}

fn parse_types(names: Option<&Vec<String>>) -> Vec<MemoryType> {
    let wanted: Vec<MemoryType> = names
        .into_iter()
        .flatten()
        .filter_map(|n| MemoryType::parse(n))
        .collect();
    // In type order, each once (no sort: its code would be one more copy in the wasm builds).
    MemoryType::ALL
        .into_iter()
        .filter(|t| wanted.contains(t))
        .collect()
}

fn check_query(query: &str) -> Result<String> {
    let query = query.trim();
    if query.is_empty() {
        return Err(Error::invalid("query cannot be empty"));
    }
    if query.chars().count() > MAX_QUERY_CHARS {
        return Err(Error::invalid(format!(
            "query is longer than {MAX_QUERY_CHARS} characters"
        )));
    }
    Ok(query.to_string())
}

/// The retrieval type of a PKG field when rendered as a memory (SPEC §2.4).
pub(super) fn pkg_field_type(key: &str) -> MemoryType {
    match key {
        "Name" | "Nickname" => MemoryType::Profile,
        "Hobbies" | "Entertainment and Leisure" => MemoryType::Preference,
        k if k.starts_with("Favorite ") => MemoryType::Preference,
        "Important Friends" | "Other Important People" => MemoryType::Relationship,
        "Important Appointments" => MemoryType::Project,
        _ => MemoryType::Profile,
    }
}

pub(super) fn pkg_text(key: &str, value: &PkgValue) -> Option<String> {
    let value = match value {
        PkgValue::Text(t) if !t.trim().is_empty() => t.clone(),
        PkgValue::List(items) if !items.is_empty() => items.join(", "),
        _ => return None,
    };
    Some(format!("{key}: {value}"))
}

impl Hippo {
    /// `POST /api/memories/{npcid}/search`: ranked memories with scores (and each signal's
    /// contribution with `debug`).
    pub async fn search(&self, npcid: &str, req: SearchRequest) -> Result<SearchResponse> {
        let retrieval = Retrieval {
            query: check_query(&req.query)?,
            types: parse_types(req.memory_types.as_ref()),
            time_hint: req.time_hint.clone(),
            max_results: req.max_results.map_or(SEARCH_DEFAULT_RESULTS, |n| {
                n.clamp(1, SEARCH_MAX_RESULTS as i64) as usize
            }),
            include_sensitive: req.include_sensitive,
            include_archived: req.include_archived,
            debug: req.debug,
            reinforce: true,
        };
        let ranked = self.ranked(npcid, &retrieval).await?;
        Ok(protocol::render_search(&ranked))
    }

    /// memory_retrieval (SPEC §3.4): never sensitive or archived memories, small answers.
    pub async fn retrieve(&self, npcid: &str, req: RetrievalRequest) -> Result<RetrievalResponse> {
        let parsed = protocol::ParsedRetrieval::from_request(&req)?;
        let retrieval = Retrieval {
            query: check_query(&parsed.query)?,
            types: parsed.memory_types,
            time_hint: parsed.time_hint,
            max_results: parsed.max_results,
            include_sensitive: false,
            include_archived: false,
            debug: false,
            reinforce: true,
        };
        let ranked = self.ranked(npcid, &retrieval).await?;
        Ok(protocol::render_retrieval(&ranked))
    }

    /// What memory_retrieval would rank for `query` (never sensitive or archived), without
    /// reinforcing it: the brief's "relevant" part.
    pub(super) async fn relevant(
        &self,
        npcid: &str,
        query: &str,
        max_results: usize,
    ) -> Result<Vec<Ranked>> {
        let retrieval = Retrieval {
            query: check_query(query)?,
            types: Vec::new(),
            time_hint: None,
            max_results,
            include_sensitive: false,
            include_archived: false,
            debug: false,
            reinforce: false,
        };
        self.ranked(npcid, &retrieval).await
    }

    async fn ranked(&self, npcid: &str, r: &Retrieval) -> Result<Vec<Ranked>> {
        let store = &self.ports.store;
        crate::ids::validate_npcid(npcid)?;
        store.read_ahead_for_retrieval(npcid).await?;
        let npc = self.require_npc(npcid).await?;
        let now = self.now();
        let today = now.date();
        let time_range = r
            .time_hint
            .as_deref()
            .and_then(|h| parse_time_range(h, today))
            .or_else(|| parse_time_range(&r.query, today));
        let terms = tokenize_query(&r.query);
        let searched = vec![Collection::Memory, Collection::Content];

        let mut found_ids: IndexMap<String, Option<f32>> = IndexMap::new();
        if !terms.is_empty() {
            let query = LexicalQuery {
                terms: terms.clone(),
                collections: searched.clone(),
            };
            for (id, _) in store
                .lexical_search(npcid, &query, rank::LEXICAL_CANDIDATES)
                .await?
            {
                found_ids.insert(id, None);
            }
        }

        let structured = self.structured_candidates(npcid, &npc).await?;
        let mut texts = vec![r.query.clone()];
        texts.extend(structured.iter().map(|c| c.summary.clone()));
        // If embedding fails the answer comes from the lexical path alone.
        let embedded = self.ports.embedder.embed(&texts).await.ok();
        let query_vector = embedded.as_ref().and_then(|v| v.first().cloned());
        if let Some(qv) = &query_vector {
            let filter = VectorFilter {
                collections: searched.clone(),
                types: r.types.clone(),
            };
            // A vector index that is down degrades the answer, never fails it (SPEC §3.4).
            if let Ok(hits) = self
                .ports
                .vectors
                .query(npcid, qv, rank::VECTOR_CANDIDATES, &filter)
                .await
            {
                for (id, sim) in hits {
                    found_ids.insert(id, Some(sim));
                }
            }
        }
        if let Some(range) = &time_range {
            let since = Timestamp::from_date(range.start);
            let filter = MemoryFilter {
                collection: Some(Collection::Memory),
                updated_since: Some(since),
                limit: Some(TIME_CANDIDATES),
                ..Default::default()
            };
            for m in store.memories(npcid, &filter).await? {
                found_ids.entry(m.id).or_insert(None);
            }
        }

        let ids: Vec<String> = found_ids.keys().cloned().collect();
        let memories = store.memories_by_id(npcid, &ids).await?;
        let mut candidates: Vec<Candidate> = memories
            .into_iter()
            .filter(|m| self.retrievable(m, r, now))
            .map(|m| {
                let sim = found_ids.get(&m.id).copied().flatten();
                memory_candidate(m, sim, now, self)
            })
            .collect();
        for (mut c, i) in structured.into_iter().zip(1..) {
            if c.sensitive && !r.include_sensitive {
                continue;
            }
            c.vector_similarity = match (&query_vector, embedded.as_ref().and_then(|v| v.get(i))) {
                (Some(q), Some(v)) => Some(crate::retrieval::embed::cosine(q, v)),
                _ => None,
            };
            candidates.push(c);
        }

        let stats = store.term_stats(npcid, &terms).await?;
        let request = RankRequest {
            query: r.query.clone(),
            types: r.types.clone(),
            time_range,
            max_results: r.max_results + SENSITIVE_SLACK,
            debug: r.debug,
            now,
        };
        let mut ranked = rank::rank(&request, candidates, &stats);
        for x in &mut ranked {
            let c = &mut x.candidate;
            if !c.sensitive {
                c.sensitive_category = sensitive::category_of(&c.summary);
                c.sensitive = c.sensitive_category.is_some();
            }
        }
        ranked.retain(|x| r.include_sensitive || !x.candidate.sensitive);
        ranked.truncate(r.max_results);

        // Retrieval reinforces what it returns (SPEC §2.2). A failed reinforcement must not
        // fail the read that triggered it.
        let touched: Vec<String> = ranked
            .iter()
            .filter(|x| {
                matches!(
                    x.candidate.kind,
                    CandidateKind::Memory | CandidateKind::Conversation
                )
            })
            .map(|x| x.candidate.id.clone())
            .collect();
        if r.reinforce && !touched.is_empty() {
            let mut batch = WriteBatch::new();
            batch.push(Write::Touch {
                ids: touched,
                at: now,
            });
            let _ = store.commit(npcid, batch).await;
        }
        Ok(ranked)
    }

    /// SPEC §2.4 exclusions: superseded, expired, emotion snippets, and unless asked for,
    /// sensitive and archive-tier memories.
    fn retrievable(&self, m: &Memory, r: &Retrieval, now: Timestamp) -> bool {
        m.superseded_by.is_none()
            && !m.is_expired(now)
            && m.collection != Collection::Emotion
            && (r.include_sensitive || !m.sensitive)
            && (r.include_archived
                || strength::tier(strength::strength(m, now, &self.decay)) != Tier::Archive)
    }

    /// PKG fields, relationship entities and diary dailies rendered as memories.
    async fn structured_candidates(&self, npcid: &str, npc: &Npc) -> Result<Vec<Candidate>> {
        let store = &self.ports.store;
        let mut out = Vec::new();
        // Structured facts are current by construction: full strength and trust.
        let structured =
            |id: String, kind, memory_type, summary: String, keywords, source: &str| {
                let mut c = Candidate::new(id, kind, memory_type, summary, npc.created_at);
                c.keywords = keywords;
                c.source = source.to_string();
                c
            };
        for (key, value) in store.pkg(npcid).await? {
            if let Some(text) = pkg_text(&key, &value) {
                let multi = MULTI_VALUE_LIMITS.iter().any(|(k, _)| *k == key);
                let keywords = if multi { vec![key.clone()] } else { Vec::new() };
                let mut c = structured(
                    format!("pkg:{key}"),
                    CandidateKind::Pkg,
                    pkg_field_type(&key),
                    text,
                    keywords,
                    "pkg",
                );
                // An "Address" or "ID Number" field is sensitive whatever its value says.
                c.sensitive_category = sensitive::key_category(&key);
                c.sensitive = c.sensitive_category.is_some();
                out.push(c);
            }
        }
        for (id, e) in store.entities(npcid).await? {
            let text = entity_text(&e);
            let mut keywords = e.alias.clone();
            keywords.extend(e.title.iter().cloned());
            out.push(structured(
                format!("rel:{id}"),
                CandidateKind::Relationship,
                MemoryType::Relationship,
                text,
                keywords,
                "relationship",
            ));
        }
        let (_, dailies) = store.diary(npcid).await?;
        for d in dailies {
            let when = crate::time::parse_date(&d.date).map(Timestamp::from_date);
            let mut c = structured(
                format!("diary:{}", d.date),
                CandidateKind::Diary,
                MemoryType::History,
                d.summary,
                Vec::new(),
                "diary",
            );
            c.confidence = DIARY_CONFIDENCE;
            c.event_time = when;
            c.updated_at = when.unwrap_or(c.updated_at);
            out.push(c);
        }
        Ok(out)
    }
}

/// An entity as one line: `name (titles), also called aliases: remark`.
pub(super) fn entity_text(e: &crate::relationship::Entity) -> String {
    let mut text = e.name.clone();
    if !e.title.is_empty() {
        text.push_str(&format!(" ({})", e.title.join(", ")));
    }
    if !e.alias.is_empty() {
        text.push_str(&format!(", also called {}", e.alias.join(", ")));
    }
    if !e.remark.is_empty() {
        text.push_str(&format!(": {}", e.remark));
    }
    text
}

fn memory_candidate(m: Memory, sim: Option<f32>, now: Timestamp, hippo: &Hippo) -> Candidate {
    let kind = if m.collection == Collection::Content {
        CandidateKind::Conversation
    } else {
        CandidateKind::Memory
    };
    let mut c = Candidate::new(
        m.id.clone(),
        kind,
        m.memory_type,
        m.summary.clone(),
        m.updated_at,
    );
    c.strength = strength::strength(&m, now, hippo.decay());
    c.keywords = m.keywords;
    c.confidence = m.confidence;
    c.source = m.source;
    if kind == CandidateKind::Conversation {
        // A quote, whatever an older dream stored: said, not verified.
        c.source = QUOTE_SOURCE.to_string();
        c.confidence = c.confidence.min(QUOTE_CONFIDENCE);
    }
    c.sensitive = m.sensitive;
    c.sensitive_category = m.sensitive_category;
    c.event_time = m.event_time;
    c.vector_similarity = sim;
    c.context = m.context;
    c
}
