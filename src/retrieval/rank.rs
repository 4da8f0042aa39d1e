//! The one ranking function (SPEC §2.4): memory_retrieval, the search route and the npm API
//! all call [`rank`].
//!
//! **Candidates** are built by the caller: the lexical index's top [`LEXICAL_CANDIDATES`] for the
//! query terms ∪ the vector index's top [`VECTOR_CANDIDATES`] for the query embedding (with their
//! similarity in `vector_similarity`), plus PKG fields, relationship entities and diary dailies
//! rendered as candidates (few, so all of them). **Exclusions are the caller's job, before
//! candidates are built**: superseded memories (`superseded_by` set), expired ones
//! (`expires_at <= now`), archive-tier ones (strength < 0.2, unless explicitly asked for) and,
//! for memory_retrieval, sensitive ones. [`rank`] never sees them.
//!
//! **Score** = a weighted sum of signals, each in about 0..1 (the weights are the `W_*` consts):
//! - `lexical`: BM25F of the query terms over summary + keywords (×[`super::lexical::KEYWORD_BOOST`]) + context,
//!   with the corpus statistics the caller supplies (so the score of a memory does not depend on
//!   which other candidates came along), divided by the sum of the query terms' idf: ≈ 1 when
//!   every query term occurs once in a document of average length;
//! - `keywords`: the idf-weighted share of query terms found in the keyword field;
//! - `proximity`: the share of adjacent query-word pairs that occur adjacent in the summary
//!   (phrases: "support group", "ice cream");
//! - `vector`: the cosine similarity from the vector index (0 when absent or negative);
//! - `strength`: decayed strength, 0..1 (SPEC §2.2);
//! - `recency`: `exp(−age / RECENCY_TAU_DAYS)` of `updated_at`;
//! - `time`: 1 when `event_time` or `updated_at` falls in the requested date range.
//!
//! Candidates with no relevance at all (no lexical or keyword match, vector similarity below
//! [`MIN_VECTOR_SIMILARITY`], outside any requested date range) are dropped: an empty answer is
//! better than an unrelated memory read aloud. Order: score, then id (deterministic).
//!
//! The weights are general choices checked on LoCoMo conversations 0–2 only (see
//! docs/BENCHMARKS.md), never fitted to individual questions.

use super::lexical::{bm25_term, idf, DocTerms};
use super::timeparse::DateRange;
use super::tokenize::{tokenize, tokenize_query};
use crate::memory::MemoryType;
use crate::ports::CorpusStats;
use crate::time::Timestamp;
use indexmap::IndexMap;
use std::collections::HashSet;

/// How many lexical hits the caller fetches as candidates.
pub const LEXICAL_CANDIDATES: usize = 100;
/// How many nearest neighbours the caller fetches as candidates.
pub const VECTOR_CANDIDATES: usize = 50;

pub const W_LEXICAL: f64 = 1.0;
pub const W_KEYWORDS: f64 = 0.3;
pub const W_PROXIMITY: f64 = 0.2;
pub const W_VECTOR: f64 = 0.5;
pub const W_STRENGTH: f64 = 0.1;
pub const W_RECENCY: f64 = 0.05;
pub const W_TIME: f64 = 0.4;
/// Recency time constant: a month-old memory keeps e⁻¹ of the recency signal.
pub const RECENCY_TAU_DAYS: f64 = 30.0;
/// Below this cosine, a vector-only candidate is noise (see the embedder's thresholds).
pub const MIN_VECTOR_SIMILARITY: f32 = 0.2;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CandidateKind {
    Memory,
    Pkg,
    Relationship,
    Diary,
    Conversation,
}

/// One rankable item, whatever it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    pub id: String,
    pub kind: CandidateKind,
    pub memory_type: MemoryType,
    pub summary: String,
    pub keywords: Vec<String>,
    /// Trust (0..1), passed through to the answer; never part of the score.
    pub confidence: f64,
    pub source: String,
    pub updated_at: Timestamp,
    pub event_time: Option<Timestamp>,
    /// Decayed strength (0..1).
    pub strength: f64,
    /// Cosine similarity to the query from the vector index, if it returned this item.
    pub vector_similarity: Option<f32>,
    /// Text around the item that is not the item (e.g. neighbouring conversation turns),
    /// matched at [`super::lexical::CONTEXT_WEIGHT`]. Empty for most candidates.
    pub context: String,
}

impl Candidate {
    /// A candidate with neutral defaults: confidence 1, strength 1, no keywords, no context.
    pub fn new(
        id: impl Into<String>,
        kind: CandidateKind,
        memory_type: MemoryType,
        summary: impl Into<String>,
        updated_at: Timestamp,
    ) -> Self {
        Candidate {
            id: id.into(),
            kind,
            memory_type,
            summary: summary.into(),
            keywords: Vec::new(),
            confidence: 1.0,
            source: String::new(),
            updated_at,
            event_time: None,
            strength: 1.0,
            vector_similarity: None,
            context: String::new(),
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct RankRequest {
    pub query: String,
    /// Empty = all types.
    pub types: Vec<MemoryType>,
    pub time_range: Option<DateRange>,
    pub max_results: usize,
    /// Fill [`Ranked::signals`].
    pub debug: bool,
    pub now: Timestamp,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Ranked {
    pub candidate: Candidate,
    pub score: f64,
    /// Each signal's contribution to `score` (debug only); they sum to `score`.
    pub signals: Option<IndexMap<String, f64>>,
}

/// The query, analysed once.
struct Query {
    terms: Vec<String>,
    idf: Vec<f64>,
    idf_sum: f64,
    avg_len: f64,
    /// Adjacent pairs of query words, for proximity.
    pairs: Vec<(String, String)>,
}

impl Query {
    /// `stats.df` must follow `tokenize_query(query)`; if it does not (or the corpus is empty),
    /// the candidates themselves serve as the corpus.
    fn new(text: &str, stats: &CorpusStats, docs: &[DocTerms]) -> Self {
        let terms = tokenize_query(text);
        let usable = stats.df.len() == terms.len() && stats.docs > 0 && stats.avg_len > 0.0;
        let (n, avg_len, df): (usize, f64, Vec<usize>) = if usable {
            (stats.docs, stats.avg_len, stats.df.clone())
        } else {
            let n = docs.len().max(1);
            let avg = docs.iter().map(|d| d.len).sum::<f64>() / n as f64;
            let df = terms
                .iter()
                .map(|t| docs.iter().filter(|d| d.tf(t) > 0.0).count())
                .collect();
            (n, avg.max(1.0), df)
        };
        let idf: Vec<f64> = df.iter().map(|&df| idf(n, df)).collect();
        let idf_sum = idf.iter().sum();
        let words: Vec<String> = tokenize(text)
            .into_iter()
            .filter(|t| !t.chars().any(super::tokenize::is_cjk))
            .collect();
        let pairs = words
            .windows(2)
            .filter(|w| w[0] != w[1])
            .map(|w| (w[0].clone(), w[1].clone()))
            .collect();
        Query {
            terms,
            idf,
            idf_sum,
            avg_len,
            pairs,
        }
    }
}

/// Scores, filters and orders `candidates`; at most `req.max_results` come back.
pub fn rank(req: &RankRequest, candidates: Vec<Candidate>, stats: &CorpusStats) -> Vec<Ranked> {
    let candidates: Vec<Candidate> = candidates
        .into_iter()
        .filter(|c| req.types.is_empty() || req.types.contains(&c.memory_type))
        .collect();
    let analysed: Vec<(Vec<String>, HashSet<String>, DocTerms)> = candidates
        .iter()
        .map(|c| {
            let summary = tokenize(&c.summary);
            let keywords: Vec<String> = c.keywords.iter().flat_map(|k| tokenize(k)).collect();
            let context = if c.context.is_empty() {
                Vec::new()
            } else {
                tokenize(&c.context)
            };
            let doc = DocTerms::from_terms(&summary, &keywords, &context);
            (summary, keywords.into_iter().collect(), doc)
        })
        .collect();
    let docs: Vec<DocTerms> = analysed.iter().map(|a| a.2.clone()).collect();
    let query = Query::new(&req.query, stats, &docs);

    let mut ranked: Vec<Ranked> = candidates
        .into_iter()
        .zip(analysed)
        .filter_map(|(c, (summary, keywords, doc))| {
            let signals = score(&query, req, &c, &summary, &keywords, &doc)?;
            let total = signals.values().sum();
            Some(Ranked {
                candidate: c,
                score: total,
                signals: req.debug.then_some(signals),
            })
        })
        .collect();
    ranked.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then_with(|| a.candidate.id.cmp(&b.candidate.id))
    });
    ranked.truncate(req.max_results);
    ranked
}

/// The weighted signals of one candidate, or `None` if it is not relevant at all.
fn score(
    q: &Query,
    req: &RankRequest,
    c: &Candidate,
    summary: &[String],
    keywords: &HashSet<String>,
    doc: &DocTerms,
) -> Option<IndexMap<String, f64>> {
    let mut bm25 = 0.0;
    let mut keyword_idf = 0.0;
    for (term, &idf) in q.terms.iter().zip(&q.idf) {
        bm25 += bm25_term(idf, doc.tf(term), doc.len, q.avg_len);
        if keywords.contains(term) {
            keyword_idf += idf;
        }
    }
    let lexical = if q.idf_sum > 0.0 {
        bm25 / q.idf_sum
    } else {
        0.0
    };
    let keyword = if q.idf_sum > 0.0 {
        keyword_idf / q.idf_sum
    } else {
        0.0
    };
    let proximity = proximity(&q.pairs, summary);
    let vector = c.vector_similarity.unwrap_or(0.0).max(0.0);
    let in_range = req
        .time_range
        .is_some_and(|r| r.contains(c.updated_at) || c.event_time.is_some_and(|t| r.contains(t)));
    if lexical <= 0.0 && vector < MIN_VECTOR_SIMILARITY && !in_range {
        return None;
    }
    let age_days = req.now.hours_since(c.updated_at) / 24.0;
    let recency = (-age_days / RECENCY_TAU_DAYS).exp();
    let mut signals = IndexMap::new();
    signals.insert("lexical".to_string(), W_LEXICAL * lexical);
    signals.insert("keywords".to_string(), W_KEYWORDS * keyword);
    signals.insert("proximity".to_string(), W_PROXIMITY * proximity);
    signals.insert("vector".to_string(), W_VECTOR * vector as f64);
    signals.insert(
        "strength".to_string(),
        W_STRENGTH * c.strength.clamp(0.0, 1.0),
    );
    signals.insert("recency".to_string(), W_RECENCY * recency);
    signals.insert("time".to_string(), if in_range { W_TIME } else { 0.0 });
    Some(signals)
}

/// Share of the query's adjacent word pairs found adjacent in the summary.
fn proximity(pairs: &[(String, String)], summary: &[String]) -> f64 {
    if pairs.is_empty() {
        return 0.0;
    }
    let found = pairs
        .iter()
        .filter(|(a, b)| summary.windows(2).any(|w| &w[0] == a && &w[1] == b))
        .count();
    found as f64 / pairs.len() as f64
}

#[cfg(test)]
#[path = "rank_tests.rs"]
mod tests;
