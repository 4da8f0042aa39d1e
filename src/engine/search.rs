//! Retrieval (SPEC §2.4): gather candidates from every source, rank them with the core's one
//! ranking function, reinforce what is returned. Serves the search route, memory_retrieval
//! and the npm `search`/`retrieve`.
//!
//! Sensitivity (docs/SECURITY.md): what is marked sensitive (memories, PKG fields of a
//! sensitive kind) is left out before ranking unless the search asks for it; every ranked
//! text then goes through the detector, and what it flags is marked, and left out unless
//! asked for. memory_retrieval never asks.

use super::dream::{diary_record_id, DIARY_CONFIDENCE};
use super::Hippo;
use crate::api::protocol;
use crate::api::*;
use crate::dream::records::{QUOTE_CONFIDENCE, QUOTE_SOURCE};
use crate::error::{Error, Result};
use crate::memory::strength;
use crate::memory::{Collection, Memory, MemoryType};
use crate::npc::Npc;
use crate::pkg::{PkgValue, MULTI_VALUE_LIMITS};
use crate::ports::{EmbedKind, LexicalQuery, MemoryFilter, RetrievalView, VectorFilter};
use crate::retrieval::embed;
use crate::retrieval::embed_cache::{text_key, TextKey};
use crate::retrieval::query::{
    analyse, asking_line, is_dialogue, split_speaker, Names, VOICED_SUBJECT_STRENGTH,
};
use crate::retrieval::rank::{self, Candidate, CandidateKind, RankRequest, Ranked};
use crate::retrieval::select::{select, Selection};
use crate::retrieval::terms;
use crate::sensitive;
use crate::time::phrase::parse_time_range;
use crate::time::Timestamp;
use futures_util::future::join;
use indexmap::IndexMap;
use std::rc::Rc;

/// `max_results` of the search route: default and upper bound.
pub const SEARCH_DEFAULT_RESULTS: usize = 10;
pub const SEARCH_MAX_RESULTS: usize = 50;
pub const MAX_QUERY_CHARS: usize = 2_000;
/// Ranked beyond `max_results`, so what the detector and [`select`] drop after ranking can be
/// replaced.
const SELECTION_SLACK: usize = 20;

/// One retrieval, validated.
#[derive(Debug, Clone)]
struct Retrieval {
    query: String,
    types: Vec<MemoryType>,
    time_hint: Option<String>,
    max_results: usize,
    include_sensitive: bool,
    include_archived: bool,
    /// Leave out what matches much worse than the best item ([`select`]).
    floor: bool,
    debug: bool,
    /// Reinforce what is returned (SPEC §2.2); off only for read-only callers.
    reinforce: bool,
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
            types: protocol::memory_types(req.memory_types.as_deref()),
            time_hint: req.time_hint.clone(),
            max_results: req.max_results.map_or(SEARCH_DEFAULT_RESULTS, |n| {
                protocol::clamp_count(n, SEARCH_MAX_RESULTS)
            }),
            include_sensitive: req.include_sensitive,
            include_archived: req.include_archived,
            floor: false,
            debug: req.debug,
            reinforce: true,
        };
        let (ranked, _) = self.ranked(npcid, &retrieval).await?;
        let sources = if req.include_sources {
            Some(self.sources(npcid, &ranked, req.include_sensitive).await?)
        } else {
            None
        };
        Ok(protocol::render_search(&ranked, sources))
    }

    /// memory_retrieval (SPEC §3.4): never sensitive or archived memories, small answers.
    pub async fn retrieve(&self, npcid: &str, req: RetrievalRequest) -> Result<RetrievalResponse> {
        self.retrieve_parsed(npcid, protocol::ParsedRetrieval::from_request(req)?)
            .await
    }

    /// memory_retrieval for a validated request (what `Operation::Retrieve` carries).
    pub async fn retrieve_parsed(
        &self,
        npcid: &str,
        parsed: protocol::ParsedRetrieval,
    ) -> Result<RetrievalResponse> {
        self.retrieve_with(npcid, parsed, true).await
    }

    /// memory_retrieval that writes nothing: what it returns is not reinforced. For the public
    /// demo provider, whose anonymous callers must not be able to cause writes.
    pub async fn retrieve_read_only(
        &self,
        npcid: &str,
        parsed: protocol::ParsedRetrieval,
    ) -> Result<RetrievalResponse> {
        self.retrieve_with(npcid, parsed, false).await
    }

    async fn retrieve_with(
        &self,
        npcid: &str,
        parsed: protocol::ParsedRetrieval,
        reinforce: bool,
    ) -> Result<RetrievalResponse> {
        let retrieval = Retrieval {
            query: check_query(&parsed.query)?,
            types: parsed.memory_types,
            time_hint: parsed.time_hint,
            max_results: parsed.max_results,
            include_sensitive: false,
            include_archived: false,
            floor: true,
            debug: false,
            reinforce,
        };
        let (ranked, npc) = self.ranked(npcid, &retrieval).await?;
        let voice = protocol::Voice::new(&retrieval.query, &npc.display_name, self.now());
        Ok(protocol::render_retrieval(&ranked, &voice))
    }

    /// What memory_retrieval would answer for `query` (its ranking, selection and voice;
    /// never sensitive or archived), as (id, kind, the text the character would read),
    /// without reinforcing anything: the brief's "relevant" part.
    pub(super) async fn relevant(
        &self,
        npcid: &str,
        query: &str,
        max_results: usize,
    ) -> Result<Vec<(String, CandidateKind, String)>> {
        let retrieval = Retrieval {
            query: check_query(query)?,
            types: Vec::new(),
            time_hint: None,
            max_results,
            include_sensitive: false,
            include_archived: false,
            floor: true,
            debug: false,
            reinforce: false,
        };
        let (ranked, npc) = self.ranked(npcid, &retrieval).await?;
        let voice = protocol::Voice::new(&retrieval.query, &npc.display_name, self.now());
        Ok(ranked
            .into_iter()
            .map(|x| {
                let c = x.candidate;
                let text = voice.render(&c).unwrap_or_else(|| c.summary.clone());
                (c.id, c.kind, text)
            })
            .collect())
    }

    /// The selected answer, and the NPC it is about.
    async fn ranked(&self, npcid: &str, r: &Retrieval) -> Result<(Vec<Ranked>, Npc)> {
        let store = &self.ports.store;
        crate::ids::validate_npcid(npcid)?;
        let view = store
            .retrieval_view(npcid)
            .await?
            .ok_or_else(|| Error::NotFound(super::no_such_npc(npcid)))?;
        let now = self.now();
        let today = now.date();
        let time_range = r
            .time_hint
            .as_deref()
            .and_then(|h| parse_time_range(h, today))
            .or_else(|| parse_time_range(asking_line(&r.query), today));
        let (npc, mut structured) = structured_candidates(view);
        let names = names_of(&npc, &structured);
        // Marked items are left out before they are embedded or ranked.
        structured.retain(|c| !c.sensitive || r.include_sensitive);
        let analysis = analyse(&r.query, &names);
        let voiced_subject = analysis
            .subject
            .filter(|s| r.floor && s.strength >= VOICED_SUBJECT_STRENGTH)
            .map(|s| s.speaker);
        let terms = analysis.terms;
        let searched = vec![Collection::Memory, Collection::Content, Collection::Diary];

        let mut found_ids: IndexMap<String, Option<f32>> = IndexMap::new();
        if !terms.is_empty() {
            let query = LexicalQuery {
                terms: terms.clone(),
                collections: searched.clone(),
                max_df: None,
            };
            for (id, _) in store
                .lexical_search(npcid, &query, rank::LEXICAL_CANDIDATES)
                .await?
            {
                found_ids.insert(id, None);
            }
        }

        // If embedding fails the answer comes from the lexical path alone.
        let (query_vector, structured_vectors) =
            match self.embed_for_retrieval(&r.query, &structured).await {
                Some((q, s)) => (Some(q), s),
                None => (None, Vec::new()),
            };
        // A model's nearest vectors find what shares no word with the query. The built-in
        // embedder's vectors are hashed features of the words the lexical index holds: its
        // nearest added nothing (docs/BENCHMARKS.md, "The built-in embedder scores, it does
        // not search"), and scanning every vector was most of a call at 100k, so its vectors
        // only score what the words found.
        let semantic = self.ports.embedder.semantic();
        // How many of the candidates (the first, in `found_ids`' order) the words found.
        let found_by_words = found_ids.len();
        if let Some(qv) = &query_vector {
            let hits = if semantic {
                let filter = VectorFilter {
                    collections: searched.clone(),
                    types: r.types.clone(),
                    near: false,
                    floor: None,
                };
                let top_k = rank::VECTOR_CANDIDATES;
                self.ports.vectors.query(npcid, qv, top_k, &filter).await
            } else {
                let ids: Vec<String> = found_ids.keys().cloned().collect();
                self.ports.vectors.similarities(npcid, qv, &ids).await
            };
            // A vector index that is down degrades the answer, never fails it (SPEC §3.4).
            for (id, sim) in hits.unwrap_or_default() {
                found_ids.insert(id, Some(sim));
            }
        }
        if let Some(range) = &time_range {
            let since = Timestamp::from_date(range.start);
            // The memories, the diary days and, for a short period, the turns of the period
            // ("what did we do last week", "what did I buy 10 days ago"): what was said then
            // may share no word with the question. Turns are many, so only those inside it.
            let mut collections = vec![Collection::Memory, Collection::Diary];
            if range.days() <= rank::TIME_TURNS_MAX_DAYS {
                collections.push(Collection::Content);
            }
            for collection in collections {
                let filter = MemoryFilter {
                    collection: Some(collection),
                    updated_since: Some(since),
                    limit: Some(rank::TIME_CANDIDATES),
                    ..Default::default()
                };
                for m in store.memories(npcid, &filter).await? {
                    let said_then = m.event_time.is_some_and(|t| range.contains(t));
                    if collection != Collection::Content || said_then {
                        found_ids.entry(m.id).or_insert(None);
                    }
                }
            }
        }

        let ids: Vec<String> = found_ids.keys().cloned().collect();
        let memories = store.memories_by_id(npcid, &ids).await?;
        if let (Some(qv), embed::NAME) = (&query_vector, self.ports.embedder.name()) {
            // What the index did not score (Vectorize holds no copy to score ids from; a memory
            // written while the embedder failed), embedded again: the built-in embedder is
            // local and cheap, and every backend then ranks alike.
            for m in &memories {
                if matches!(found_ids.get_full(&m.id), Some((at, _, None)) if at < found_by_words) {
                    let text = super::embedding_text(&m.summary, &m.keywords);
                    let sim = embed::cosine(qv, &embed::BuiltinEmbedder.embed_text(&text));
                    found_ids.insert(m.id.clone(), Some(sim));
                }
            }
        }
        let mut candidates: Vec<Candidate> = memories
            .into_iter()
            .filter(|m| self.retrievable(m, r, now))
            .map(|m| {
                let sim = found_ids.get(&m.id).copied().flatten();
                memory_candidate(m, sim, now, self)
            })
            .collect();
        for (i, mut c) in structured.into_iter().enumerate() {
            // A diary day in the window is also a record once written (the record wins).
            if candidates.iter().any(|x| x.id == c.id) {
                continue;
            }
            c.vector_similarity = match (
                &query_vector,
                structured_vectors.get(i).and_then(Option::as_ref),
            ) {
                (Some(q), Some(v)) => Some(embed::cosine(q, v)),
                _ => None,
            };
            candidates.push(c);
        }

        let stats = store.term_stats(npcid, &terms).await?;
        let request = RankRequest {
            query: r.query.clone(),
            types: r.types.clone(),
            time_range,
            max_results: r.max_results + SELECTION_SLACK,
            debug: r.debug,
            now,
            names,
            min_vector_similarity: self.ports.embedder.thresholds().relevant,
        };
        let weights = rank::weights_for(self.ports.embedder.semantic());
        let mut ranked = rank::rank_with(weights, &request, candidates, &stats);
        for x in &mut ranked {
            let c = &mut x.candidate;
            if !c.sensitive {
                c.sensitive_category = terms::sensitive_category(&c.summary);
                c.sensitive = c.sensitive_category.is_some();
            }
        }
        ranked.retain(|x| r.include_sensitive || !x.candidate.sensitive);
        let ranked = select(
            ranked,
            Selection {
                floor: r.floor,
                absolute_floor: !is_dialogue(&r.query),
                include_archived: r.include_archived,
                voiced_subject,
                max_results: r.max_results,
            },
        );

        // Retrieval reinforces what it returns (SPEC §2.2); a failed reinforcement never
        // fails the read that triggered it.
        if r.reinforce {
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
            self.reinforce(npcid, touched, now).await;
        }
        Ok((ranked, npc))
    }

    /// The query's vector and the structured candidates' vectors, in order: those the cache
    /// holds are taken from it, the rest embedded in one call with the query (and cached).
    /// `None` when the embedder fails.
    async fn embed_for_retrieval(
        &self,
        query: &str,
        structured: &[Candidate],
    ) -> Option<(Vec<f32>, Vec<Option<Rc<[f32]>>>)> {
        let embedder = self.configured_embedder();
        let keys: Vec<TextKey> = structured
            .iter()
            .map(|c| text_key(&embedder, &c.summary))
            .collect();
        let mut found: Vec<Option<Rc<[f32]>>> = {
            let mut cache = self.embed_cache.borrow_mut();
            keys.iter().map(|k| cache.get(k)).collect()
        };
        let missing: Vec<usize> = (0..found.len()).filter(|&i| found[i].is_none()).collect();
        let texts: Vec<String> = missing
            .iter()
            .map(|&i| structured[i].summary.clone())
            .collect();
        // The query and the structured facts are embedded as what they are (a model such as
        // e5 marks them differently), side by side.
        let embedder = &self.ports.embedder;
        let (query_vector, vectors) = join(
            embedder.embed(EmbedKind::Query, &[query.to_string()]),
            async {
                if texts.is_empty() {
                    Ok(Vec::new())
                } else {
                    embedder.embed(EmbedKind::Document, &texts).await
                }
            },
        )
        .await;
        let query_vector = query_vector.ok()?.into_iter().next()?;
        let mut cache = self.embed_cache.borrow_mut();
        // Facts whose embedding failed are ranked without a vector.
        for (i, vector) in missing.into_iter().zip(vectors.unwrap_or_default()) {
            let vector: Rc<[f32]> = vector.into();
            cache.insert(keys[i], vector.clone());
            found[i] = Some(vector);
        }
        // A short answer from the embedder leaves the rest without a vector.
        Some((query_vector, found))
    }

    /// SPEC §2.4 exclusions: superseded, expired, emotion snippets, and unless asked for,
    /// sensitive memories. Archive-tier memories are ranked and then kept only when they
    /// match about as well as the best item ([`select`], docs/LIFECYCLE.md).
    fn retrievable(&self, m: &Memory, r: &Retrieval, now: Timestamp) -> bool {
        m.superseded_by.is_none()
            && !m.is_expired(now)
            && m.collection != Collection::Emotion
            && (r.include_sensitive || !m.sensitive)
    }
}

/// The NPC, and its PKG fields, relationship entities and diary dailies rendered as
/// memories.
fn structured_candidates(view: RetrievalView) -> (Npc, Vec<Candidate>) {
    let RetrievalView {
        npc,
        pkg,
        entities,
        dailies,
    } = view;
    let mut out = Vec::new();
    // Structured facts are current by construction: full strength and trust.
    let structured = |id: String, kind, memory_type, summary: String, keywords, source: &str| {
        let mut c = Candidate::new(id, kind, memory_type, summary, npc.created_at);
        c.keywords = keywords;
        c.source = source.to_string();
        c
    };
    for field in pkg {
        let (key, value) = (field.key, field.value);
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
            c.source_turns = field.source_turns.into();
            out.push(c);
        }
    }
    for (id, e) in entities {
        let text = entity_text(&e);
        let mut keywords = e.alias.clone();
        keywords.extend(e.title.iter().cloned());
        let mut c = structured(
            format!("rel:{id}"),
            CandidateKind::Relationship,
            MemoryType::Relationship,
            text,
            keywords,
            "relationship",
        );
        c.source_turns = e.source_turns.into();
        out.push(c);
    }
    for d in dailies {
        let when = crate::time::parse_date(&d.date).map(Timestamp::from_date);
        let mut c = structured(
            diary_record_id(&d.date),
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
    (npc, out)
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
    let kind = match m.collection {
        Collection::Content => CandidateKind::Conversation,
        Collection::Diary => CandidateKind::Diary,
        Collection::Memory | Collection::Emotion => CandidateKind::Memory,
    };
    // A turn is stored as "User: …" / "Assistant: …": who said it is a signal, the label
    // itself is not words to match.
    let (speaker, text) = match kind {
        CandidateKind::Conversation => split_speaker(&m.summary),
        _ => (None, m.summary.as_str()),
    };
    let mut c = Candidate::new(
        m.id.clone(),
        kind,
        m.memory_type,
        text.to_string(),
        m.updated_at,
    );
    c.speaker = speaker;
    c.strength = strength::strength(&m, now, hippo.decay());
    c.source_turns = m.source_turns;
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

/// The names a query may call the user and the character by: the PKG's Name and Nickname,
/// the NPC's display name.
fn names_of(npc: &Npc, structured: &[Candidate]) -> Names {
    let mut names = Names::default();
    for c in structured.iter().filter(|c| c.kind == CandidateKind::Pkg) {
        for key in ["Name: ", "Nickname: "] {
            if let Some(value) = c.summary.strip_prefix(key) {
                names.user.extend(value.split(", ").map(str::to_string));
            }
        }
    }
    if !npc.display_name.trim().is_empty() {
        names.character.push(npc.display_name.trim().to_string());
    }
    names
}
