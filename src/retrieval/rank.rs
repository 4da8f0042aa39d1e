//! The one ranking function (SPEC §2.4): memory_retrieval, the search route and the npm API
//! all call [`rank`].
//!
//! **Candidates** are built by the caller: the lexical index's top [`LEXICAL_CANDIDATES`] for the
//! query terms ∪, with a semantic embedder (a model), the vector index's top
//! [`VECTOR_CANDIDATES`] for the query embedding (with their similarity in `vector_similarity`;
//! the built-in embedder's vectors only score the lexical index's top), plus PKG fields, relationship entities and diary dailies
//! rendered as candidates (few, so all of them), and when the query names a period, up to
//! [`TIME_CANDIDATES`] memories and diary days of it, and its turns when it is at most
//! [`TIME_TURNS_MAX_DAYS`] long. **Exclusions are the caller's job**:
//! superseded memories (`superseded_by` set), expired ones (`expires_at <= now`), archive-tier
//! ones (strength < 0.2, unless explicitly asked for) and, for memory_retrieval, sensitive
//! ones — those marked so before ranking, and what the sensitivity detector flags in the
//! ranked texts after it (see `engine::search`).
//!
//! **Score** = a weighted sum of signals, each in about 0..1 (weights: [`WEIGHTS`]):
//! - `lexical`: BM25F of the query terms over summary + keywords (×[`KEYWORD_BOOST`]) + context,
//!   with the corpus statistics the caller supplies (so the score of a memory does not depend on
//!   which other candidates came along), divided by the sum of the query terms' idf: ≈ 1 when
//!   every query term occurs once in a document of average length;
//! - `keywords`: the idf-weighted share of query terms found in the keyword field;
//! - `proximity`: the share of adjacent query-word pairs that occur adjacent in the summary
//!   (phrases: "support group", "ice cream");
//! - `vector`: the cosine similarity from the vector index (0 when absent or negative), as it
//!   is for the built-in embedder, rescaled over the query's candidates for a model
//!   ([`VectorScale`]: a model's cosines crowd into a narrow band whose level says little);
//! - `strength`: decayed strength, 0..1 (SPEC §2.2);
//! - `recency`: `exp(−age / RECENCY_TAU_DAYS)` of `updated_at`;
//! - `time`: 1 when `event_time` or `updated_at` falls in the requested date range;
//! - `speaker`: the query is about the user's (or the character's) words and the turn is theirs;
//! - `sentence`: BM25 of the summary's best-matching sentence, on the `lexical` scale;
//! - `topic`: the idf-weighted share of the query's everyday topics ([`super::topics`]) the
//!   summary touches, the idf over the candidates (a topic most of them touch says little).
//!
//! Candidates with no relevance at all (no lexical or keyword match, vector similarity below
//! the embedder's `relevant` level, outside any requested date range) are dropped: an empty answer is
//! better than an unrelated memory read aloud. Order: score, then id (deterministic).
//!
//! The weights are general choices checked on the dev halves only (LoCoMo conversations 0–2,
//! and with a model MADial and LongMemEval dev; see docs/BENCHMARKS.md), never fitted to
//! individual questions.

use super::lexical::{bm25_term, idf, CONTEXT_WEIGHT, KEYWORD_BOOST};
use super::query::{analyse, Names, Speaker, Subject};
use super::terms::{analysed, Lookup, Term, TextTerms};
use super::topics::{each, TopicSet};
use crate::memory::MemoryType;
use crate::ports::CorpusStats;
use crate::sensitive::Category;
use crate::time::phrase::DateRange;
use crate::time::Timestamp;
use indexmap::IndexMap;
use std::collections::HashMap;

/// How many lexical hits the caller fetches as candidates.
pub const LEXICAL_CANDIDATES: usize = 100;
/// How many nearest neighbours the caller fetches as candidates.
pub const VECTOR_CANDIDATES: usize = 50;
/// How many memories, diary days and turns of a period the query names ("10 days ago") the
/// caller adds as candidates, per collection: what was said then may share no word with it.
pub const TIME_CANDIDATES: usize = 100;
/// The longest period (in days) whose turns join the candidates: a day or a week pinpoints what
/// was said then; a month of turns that share no word with the question is mostly noise.
pub const TIME_TURNS_MAX_DAYS: u32 = 7;

/// The weight of each signal in the score.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Weights {
    pub lexical: f64,
    pub keywords: f64,
    pub proximity: f64,
    pub vector: f64,
    pub strength: f64,
    pub recency: f64,
    pub time: f64,
    /// A conversation turn by the speaker the query is about (see [`super::query`]).
    pub speaker: f64,
    /// BM25 of the summary's best-matching sentence (same scale as `lexical`).
    pub sentence: f64,
    /// The share of the query's everyday topics the candidate touches ([`super::topics`]).
    pub topic: f64,
    /// How the vector similarity is scaled before it is weighted.
    pub vector_scale: VectorScale,
}

/// How a candidate's vector similarity becomes the `vector` signal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VectorScale {
    /// The cosine itself. The built-in embedder's cosines spread over 0..1 (unrelated texts
    /// near 0.1), so the level means something.
    Raw,
    /// `(cos − min) / (max − min)` over the query's candidates that have a similarity: a
    /// model's cosines crowd into a narrow band (multilingual-e5: 0.75–0.95 for nearly
    /// everything), where only the order within the band says which memory fits best. Added to
    /// BM25 as they are, they shift every score alike and change nothing.
    MinMax,
}

/// The weights every route uses. Lexical evidence dominates. The vector weight is set for the
/// built-in embedder, whose features mostly restate the lexical ones: on LoCoMo conversations
/// 0–2 a weight of 0.5 cost 4 points of R@10 and 0.1 was as good as none while keeping its fuzzy
/// word-piece matches as a tie-breaker. With a real embedding model use
/// [`WEIGHTS_MODEL_EMBEDDINGS`]. A requested date range is a strong but not total boost;
/// strength and recency only order otherwise similar memories, on the scale of the query's best
/// match ([`ORDER_SIGNALS_FULL_AT`]).
///
/// `topic` is small: beside a one-line question's words (best match 0.36–1.2) it only breaks
/// ties, and it decides among a dialogue's weak matches (0.06–0.1). MADial dev (ranking only)
/// R@1 / R@10 at 0 / 0.03 / **0.05** / 0.08 / 0.1: 0.312 / 0.595, 0.321 / 0.670, **0.315 /
/// 0.705**, 0.288 / 0.724, 0.284 / 0.731: the recall a larger weight adds costs the first
/// place. With the lexicon's English stems 0.05 lifts LongMemEval_S dev 0.858 → 0.875 and
/// leaves LoCoMo dev's ranking as it was; 0.1 cost LoCoMo 0–2 0.007 of R@10.
pub const WEIGHTS: Weights = Weights {
    lexical: 0.9,
    keywords: 0.3,
    proximity: 0.2,
    vector: 0.1,
    strength: 0.1,
    recency: 0.05,
    time: 0.4,
    speaker: 0.3,
    sentence: 0.2,
    topic: 0.05,
    vector_scale: VectorScale::Raw,
};

/// [`WEIGHTS`] for a semantic embedding model (multilingual-e5, bge-m3, OpenAI), whose
/// similarity adds what the words miss, rescaled per query ([`VectorScale::MinMax`]): the best
/// candidate by meaning gets the whole weight, the worst none. Tuned on the dev halves with
/// multilingual-e5-small (docs/BENCHMARKS.md, "With an embedding model"): R@10 on LoCoMo 0–2 /
/// MADial dev at 0.05 0.780 / 0.716, **0.1 0.781 / 0.717**, 0.2 0.778 / 0.667, 0.5 0.761 /
/// 0.656. Small, because a rescaled signal is strong: the order within the model's band,
/// spread over 0..1, decides among candidates the words leave close.
pub const WEIGHTS_MODEL_EMBEDDINGS: Weights = Weights {
    vector: 0.1,
    vector_scale: VectorScale::MinMax,
    ..WEIGHTS
};

/// The weights for an embedder: [`WEIGHTS_MODEL_EMBEDDINGS`] when its vectors carry meaning
/// ([`crate::ports::Embedder::semantic`]), else [`WEIGHTS`].
pub fn weights_for(semantic: bool) -> &'static Weights {
    if semantic {
        &WEIGHTS_MODEL_EMBEDDINGS
    } else {
        &WEIGHTS
    }
}

/// Recency time constant: a month-old memory keeps e⁻¹ of the recency signal.
pub const RECENCY_TAU_DAYS: f64 = 30.0;

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
    /// Who said it, for conversation turns.
    pub speaker: Option<Speaker>,
    /// The conversation turns it came from ([`crate::memory::Memory::source_turns`]).
    pub source_turns: crate::memory::TurnIds,
    /// Marked sensitive (never returned by memory_retrieval), and why when known.
    pub sensitive: bool,
    pub sensitive_category: Option<Category>,
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
            speaker: None,
            source_turns: Default::default(),
            sensitive: false,
            sensitive_category: None,
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
    /// How the query may name the user and the character.
    pub names: Names,
    /// Below this similarity a candidate found only by its vector is noise: the embedder's
    /// `relevant` threshold (its scale is the embedder's own).
    pub min_vector_similarity: f32,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Ranked {
    pub candidate: Candidate,
    pub score: f64,
    /// The part of `score` that says how well the item matches the query (every signal but
    /// strength and recency): what the relevance floor compares (see [`super::select`]).
    pub relevance: f64,
    /// Each signal's contribution to `score` (debug only); they sum to `score`.
    pub signals: Option<IndexMap<String, f64>>,
}

/// The query, analysed once.
struct Query {
    terms: Vec<String>,
    /// Each term's weight in the query (older lines of a dialogue weigh less).
    weights: Vec<f64>,
    subject: Option<Subject>,
    idf: Vec<f64>,
    idf_sum: f64,
    avg_len: f64,
    /// Adjacent pairs of query words, for proximity.
    pairs: Vec<(String, String)>,
    /// Each everyday topic's weight in the query, then times its idf over the candidates.
    topics: Vec<f64>,
    topic_sum: f64,
}

/// What ranking needs of one candidate's text: the weighted frequency of each query term
/// (BM25F over summary, keywords, context), keyword-field hits, length, proximity.
struct Analysis {
    tf: Vec<f64>,
    keyword_hit: Vec<bool>,
    len: f64,
    proximity: f64,
    /// Term frequencies of each sentence of the summary, one after the other (as many as
    /// there are query terms each), and each sentence's length: a long turn that states one
    /// relevant thing in passing ("… By the way, I just got an Air Fryer") is found by that
    /// sentence, not diluted by the rest.
    sentence_tf: Vec<f64>,
    sentence_len: Vec<f64>,
    topics: TopicSet,
}

/// Each distinct query term with the index of its signals (the last one, when a term
/// repeats), ready to look up.
fn positions(terms: &[String]) -> Lookup<'_> {
    let last: HashMap<&str, usize> = terms
        .iter()
        .enumerate()
        .map(|(i, t)| (t.as_str(), i))
        .collect();
    Lookup::new(last)
}

/// The query's adjacent word pairs, as terms to look up.
fn term_pairs(pairs: &[(String, String)]) -> Vec<(Term<'_>, Term<'_>)> {
    pairs
        .iter()
        .map(|(a, b)| (Term::new(a), Term::new(b)))
        .collect()
}

impl Analysis {
    /// The candidate's texts come analysed from [`terms`] (once per text, not per query),
    /// and the query's terms are looked up in them. Counts times weights are the sums the
    /// tokens would give one by one (whole multiples of 0.5, exact in `f64`).
    fn new(c: &Candidate, positions: &Lookup, n: usize, pairs: &[(Term, Term)]) -> Self {
        // Every candidate has at least one sentence (its whole summary), so a one-sentence
        // memory is not at a disadvantage.
        let summary = analysed(&c.summary);
        let sentences = summary.sentences(&c.summary);
        let mut a = Analysis {
            tf: vec![0.0; n],
            keyword_hit: vec![false; n],
            len: 0.0,
            proximity: 0.0,
            sentence_tf: vec![0.0; n * sentences.len()],
            sentence_len: Vec::with_capacity(sentences.len()),
            topics: summary.topics,
        };
        for (k, part) in sentences.iter().enumerate() {
            let tf = &mut a.sentence_tf[k * n..(k + 1) * n];
            part.matches(positions, |i, count| tf[i] = f64::from(count));
            a.sentence_len.push(part.len() as f64);
        }
        a.add_field(&summary.whole, 1.0, positions, false);
        for keyword in &c.keywords {
            a.add_field(&analysed(keyword).whole, KEYWORD_BOOST, positions, true);
        }
        if !c.context.is_empty() {
            a.add_field(
                &analysed(&c.context).whole,
                CONTEXT_WEIGHT,
                positions,
                false,
            );
        }
        a.proximity = proximity(pairs, &summary.whole);
        a
    }

    /// Each sentence's term frequencies and length.
    fn sentences(&self) -> impl Iterator<Item = (&[f64], f64)> {
        let n = self.tf.len();
        self.sentence_len
            .iter()
            .enumerate()
            .map(move |(k, &len)| (&self.sentence_tf[k * n..(k + 1) * n], len))
    }

    fn add_field(&mut self, field: &TextTerms, weight: f64, positions: &Lookup, keyword: bool) {
        self.len += field.len() as f64 * weight;
        let (tf, hit) = (&mut self.tf, &mut self.keyword_hit);
        field.matches(positions, |i, count| {
            tf[i] += f64::from(count) * weight;
            hit[i] |= keyword;
        });
    }
}

impl Query {
    /// `stats.df` must follow [`query_terms`]; if it does not (or the corpus is empty), the
    /// candidates themselves serve as the corpus.
    fn new(text: &str, names: &Names) -> Self {
        let analysis = analyse(text, names);
        Query {
            terms: analysis.terms,
            weights: analysis.weights,
            subject: analysis.subject,
            idf: Vec::new(),
            idf_sum: 0.0,
            avg_len: 1.0,
            pairs: analysis.pairs,
            topics: analysis.topics,
            topic_sum: 0.0,
        }
    }

    fn set_statistics(&mut self, stats: &CorpusStats, docs: &[Analysis]) {
        let usable = stats.df.len() == self.terms.len() && stats.docs > 0 && stats.avg_len > 0.0;
        let (n, avg_len, df): (usize, f64, Vec<usize>) = if usable {
            (stats.docs, stats.avg_len, stats.df.clone())
        } else {
            let n = docs.len().max(1);
            let avg = docs.iter().map(|d| d.len).sum::<f64>() / n as f64;
            let df = (0..self.terms.len())
                .map(|i| docs.iter().filter(|d| d.tf[i] > 0.0).count())
                .collect();
            (n, avg.max(1.0), df)
        };
        self.idf = df
            .iter()
            .zip(&self.weights)
            .map(|(&df, w)| idf(n, df) * w)
            .collect();
        self.idf_sum = self.idf.iter().sum();
        self.avg_len = avg_len;
        // A topic most candidates touch says little about which one is meant.
        let n = docs.len().max(1);
        for (topic, w) in self.topics.iter_mut().enumerate() {
            let df = docs.iter().filter(|d| d.topics >> topic & 1 == 1).count();
            *w *= idf(n, df);
        }
        self.topic_sum = self.topics.iter().sum();
    }
}

/// Scores, filters and orders `candidates` with [`WEIGHTS`] (the built-in embedder's); at
/// most `req.max_results` come back.
pub fn rank(req: &RankRequest, candidates: Vec<Candidate>, stats: &CorpusStats) -> Vec<Ranked> {
    rank_with(&WEIGHTS, req, candidates, stats)
}

/// [`rank`] with other weights: every route passes [`weights_for`] its embedder; benchmarks
/// explore others.
pub fn rank_with(
    weights: &Weights,
    req: &RankRequest,
    candidates: Vec<Candidate>,
    stats: &CorpusStats,
) -> Vec<Ranked> {
    let candidates: Vec<Candidate> = candidates
        .into_iter()
        .filter(|c| req.types.is_empty() || req.types.contains(&c.memory_type))
        .collect();
    let mut query = Query::new(&req.query, &req.names);
    let positions = positions(&query.terms);
    let pairs = term_pairs(&query.pairs);
    let analyses: Vec<Analysis> = candidates
        .iter()
        .map(|c| Analysis::new(c, &positions, query.terms.len(), &pairs))
        .collect();
    query.set_statistics(stats, &analyses);

    let vector_scale = VectorScaler::new(weights.vector_scale, &candidates);
    let mut ranked: Vec<Ranked> = candidates
        .into_iter()
        .zip(&analyses)
        .filter_map(|(c, a)| {
            let signals = score(weights, &query, req, &c, a, &vector_scale)?;
            Some(Ranked {
                score: signals.iter().sum(),
                relevance: CONTENT.iter().map(|&i| signals[i]).sum(),
                signals: req.debug.then(|| {
                    SIGNALS
                        .iter()
                        .zip(signals)
                        .map(|(name, v)| (name.to_string(), v))
                        .collect()
                }),
                candidate: c,
            })
        })
        .collect();
    // Strength, recency and speaker on the scale of the best match (ORDER_SIGNALS_FULL_AT);
    // untouched from it up, so one-line questions rank exactly as before.
    let order_scale =
        ranked.iter().map(|r| r.relevance).fold(0.0, f64::max) / ORDER_SIGNALS_FULL_AT;
    if order_scale < 1.0 {
        for r in &mut ranked {
            r.score = r.relevance + (r.score - r.relevance) * order_scale;
            let debug = r.signals.iter_mut().flat_map(|s| s.values_mut());
            for (i, v) in debug.enumerate() {
                if ORDER_ONLY.contains(&i) {
                    *v *= order_scale;
                }
            }
        }
    }
    crate::order::sort_by(&mut ranked, |a, b| {
        b.score
            .total_cmp(&a.score)
            .then_with(|| a.candidate.id.cmp(&b.candidate.id))
    });
    ranked.truncate(req.max_results);
    ranked
}

/// Signal names, in the order of [`score`]'s array (the debug output's keys).
pub const SIGNALS: [&str; 10] = [
    "lexical",
    "keywords",
    "proximity",
    "vector",
    "strength",
    "recency",
    "time",
    "speaker",
    "sentence",
    "topic",
];

/// Signals that order similar matches but say nothing about how well the content matches
/// (the speaker signal says whose words they are, true of every fact about the user): strength,
/// recency and speaker, by their place in [`SIGNALS`].
pub(crate) const ORDER_ONLY: [usize; 3] = [4, 5, 7];
/// The other signals: how well a candidate matches (its `relevance`).
pub(crate) const CONTENT: [usize; 7] = [0, 1, 2, 3, 6, 8, 9];

/// The best candidate's content score from which the order-only signals weigh in full; under
/// it they shrink with it, so that they keep ordering what matches alike. Their weights were
/// set on one-line questions, whose best match scores 0.36 or more in 95% of LoCoMo's and 0.72
/// or more in LongMemEval's. A dialogue sent as the query (MADial: the conversation so far)
/// spreads its words' share over many terms, and its best match scores 0.06–0.1: at full
/// weight a memory reinforced by an earlier answer, or told last week, outranked the one the
/// dialogue was about. 0.5 changes no LongMemEval answer; 1.0 began to move them
/// (docs/BENCHMARKS.md, "Order signals on the content's scale").
pub const ORDER_SIGNALS_FULL_AT: f64 = 0.5;

/// [`VectorScale`] applied: the range of the candidates' similarities, once per query.
struct VectorScaler {
    scale: VectorScale,
    min: f32,
    max: f32,
}

impl VectorScaler {
    fn new(scale: VectorScale, candidates: &[Candidate]) -> Self {
        let sims = candidates.iter().filter_map(|c| c.vector_similarity);
        let (min, max) = sims.fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), s| {
            (lo.min(s), hi.max(s))
        });
        VectorScaler { scale, min, max }
    }

    /// The `vector` signal of a similarity, 0..1.
    fn signal(&self, similarity: Option<f32>) -> f64 {
        let Some(s) = similarity else {
            return 0.0;
        };
        match self.scale {
            VectorScale::Raw => s.max(0.0) as f64,
            // One candidate, or all alike: nothing tells them apart, each is the best there is.
            VectorScale::MinMax if self.max - self.min <= f32::EPSILON => 1.0,
            VectorScale::MinMax => ((s - self.min) / (self.max - self.min)) as f64,
        }
    }
}

/// The weighted signals of one candidate, or `None` if it is not relevant at all.
fn score(
    w: &Weights,
    q: &Query,
    req: &RankRequest,
    c: &Candidate,
    a: &Analysis,
    vector_scale: &VectorScaler,
) -> Option<[f64; 10]> {
    let mut bm25 = 0.0;
    let mut keyword_idf = 0.0;
    for (i, &idf) in q.idf.iter().enumerate() {
        bm25 += bm25_term(idf, a.tf[i], a.len, q.avg_len);
        if a.keyword_hit[i] {
            keyword_idf += idf;
        }
    }
    let share = |x: f64| if q.idf_sum > 0.0 { x / q.idf_sum } else { 0.0 };
    let best_sentence = a
        .sentences()
        .map(|(tf, len)| {
            q.idf
                .iter()
                .zip(tf)
                .map(|(&idf, &tf)| bm25_term(idf, tf, len, q.avg_len))
                .sum::<f64>()
        })
        .fold(0.0, f64::max);
    let (lexical, keyword) = (share(bm25), share(keyword_idf));
    let similarity = c.vector_similarity.unwrap_or(0.0);
    let in_range = req
        .time_range
        .is_some_and(|r| r.contains(c.updated_at) || c.event_time.is_some_and(|t| r.contains(t)));
    if lexical <= 0.0 && similarity < req.min_vector_similarity && !in_range {
        return None;
    }
    let age_days = req.now.hours_since(c.updated_at) / 24.0;
    let recency = (-age_days / RECENCY_TAU_DAYS).exp();
    Some([
        w.lexical * lexical,
        w.keywords * keyword,
        w.proximity * a.proximity,
        w.vector * vector_scale.signal(c.vector_similarity),
        w.strength * c.strength.clamp(0.0, 1.0),
        w.recency * recency,
        if in_range { w.time } else { 0.0 },
        w.speaker * speaker_match(q.subject, c.speaker),
        w.sentence * share(best_sentence),
        w.topic * topic_share(q, a.topics),
    ])
}

/// The idf-weighted share of the query's topics that the candidate touches.
fn topic_share(q: &Query, topics: TopicSet) -> f64 {
    if q.topic_sum <= 0.0 {
        return 0.0;
    }
    // From +0: an empty `sum` of floats is -0, which the debug signals would print.
    let shared = each(topics)
        .filter_map(|t| q.topics.get(t))
        .fold(0.0, |sum, w| sum + w);
    shared / q.topic_sum
}

/// 1 when a conversation turn is by the speaker the query is about; facts (no speaker) are
/// the user's, so they count as the user's words.
fn speaker_match(subject: Option<Subject>, speaker: Option<Speaker>) -> f64 {
    let Some(subject) = subject else {
        return 0.0;
    };
    match (subject.speaker, speaker) {
        (s, Some(c)) if s == c => subject.strength,
        (Speaker::User, None) => subject.strength,
        _ => 0.0,
    }
}

/// The terms a query is searched and scored with (the lexical index and the corpus
/// statistics must be asked for exactly these).
pub fn query_terms(query: &str, names: &Names) -> Vec<String> {
    analyse(query, names).terms
}

/// Share of the query's adjacent word pairs found adjacent in the summary.
fn proximity(pairs: &[(Term, Term)], summary: &TextTerms) -> f64 {
    if pairs.is_empty() {
        return 0.0;
    }
    let found = pairs
        .iter()
        .filter(|(a, b)| summary.adjacent(*a, *b))
        .count();
    found as f64 / pairs.len() as f64
}

#[cfg(test)]
#[path = "rank_tests.rs"]
mod tests;
