//! BM25F over the core tokenizer: the document model shared by the index and the ranker, and
//! an incremental in-memory inverted index (one per NPC).
//!
//! A document has up to three fields, merged into one weighted term-frequency vector (BM25F):
//! - the summary, weight 1;
//! - the keywords, weight [`KEYWORD_BOOST`]: keywords are chosen by whoever wrote the memory
//!   (the user, the dream's extractor) to say what it is about, so a hit there is worth more;
//! - context, weight [`CONTEXT_WEIGHT`]: text around the item that is not the item itself, e.g.
//!   the neighbouring turns of a conversation turn. A question often names what the turn *answers*
//!   ("Where did you go?" → "Paris, last June"). Measured on LoCoMo conversations 0–2: R@10
//!   0.66 without context, 0.71 at 0.15, 0.76 on a plateau from 0.4 to 0.6; 0.5 is its middle.
//!
//! Scores: `idf(t) × tf × (K1 + 1) / (tf + K1 × (1 − B + B × len / avg_len))`, with
//! `idf(t) = ln(1 + (N − df + 0.5) / (df + 0.5))` (always positive). `K1` = 1.2 and `B` = 0.75 are
//! the usual defaults (Robertson & Zaragoza); short memories make length normalisation matter
//! little, so there is nothing to gain from tuning them per corpus.

use super::tokenize::{tokenize, tokenize_to_index};
use crate::ports::CorpusStats;
use foldhash::{HashMap, HashMapExt};

/// Term-frequency saturation.
pub const K1: f64 = 1.2;
/// Length normalisation.
pub const B: f64 = 0.75;
/// Weight of a keyword-field occurrence relative to a summary occurrence.
pub const KEYWORD_BOOST: f64 = 2.0;
/// Weight of a context-field occurrence relative to a summary occurrence.
pub const CONTEXT_WEIGHT: f64 = 0.5;

/// A document's weighted term frequencies and weighted length.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DocTerms {
    pub tf: HashMap<String, f64>,
    pub len: f64,
}

impl DocTerms {
    pub fn new(summary: &str, keywords: &[String], context: &str) -> Self {
        let keyword_terms: Vec<String> = keywords.iter().flat_map(|k| tokenize(k)).collect();
        Self::from_terms(
            &tokenize_to_index(summary),
            &keyword_terms,
            &tokenize(context),
        )
    }

    /// From already tokenized fields.
    pub fn from_terms(summary: &[String], keywords: &[String], context: &[String]) -> Self {
        // Sized once: growing the map term by term rehashed it several times per document.
        let mut doc = DocTerms {
            tf: HashMap::with_capacity(summary.len() + keywords.len() + context.len()),
            len: 0.0,
        };
        doc.add_field(summary, 1.0);
        doc.add_field(keywords, KEYWORD_BOOST);
        doc.add_field(context, CONTEXT_WEIGHT);
        doc
    }

    fn add_field(&mut self, terms: &[String], weight: f64) {
        self.len += terms.len() as f64 * weight;
        for term in terms {
            match self.tf.get_mut(term) {
                Some(tf) => *tf += weight,
                None => {
                    self.tf.insert(term.clone(), weight);
                }
            }
        }
    }

    pub fn tf(&self, term: &str) -> f64 {
        self.tf.get(term).copied().unwrap_or(0.0)
    }
}

/// Inverse document frequency; positive even for a term in every document.
pub fn idf(docs: usize, df: usize) -> f64 {
    let n = docs.max(df) as f64;
    let df = df as f64;
    (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
}

/// One term's BM25 contribution.
pub fn bm25_term(idf: f64, tf: f64, len: f64, avg_len: f64) -> f64 {
    if tf <= 0.0 {
        return 0.0;
    }
    let norm = 1.0 - B + B * len / avg_len.max(1e-9);
    idf * tf * (K1 + 1.0) / (tf + K1 * norm)
}

#[derive(Debug, Clone, Copy)]
struct Posting {
    slot: u32,
    tf: f32,
}

#[derive(Debug, Clone)]
struct Doc {
    id: String,
    terms: Vec<u32>,
}

/// An incremental inverted index with BM25F scoring.
#[derive(Debug, Default, Clone)]
pub struct LexicalIndex {
    term_ids: HashMap<String, u32>,
    postings: Vec<Vec<Posting>>,
    slots: Vec<Option<Doc>>,
    /// Each slot's weighted length (0 when free), beside the slots: a search reads one per
    /// posting, and a dense row of lengths stays in cache where the documents do not.
    lens: Vec<f32>,
    /// Slots a search skips (a superseded memory: never a candidate) though they count in the
    /// corpus statistics, as in a backend that filters when it searches.
    hidden: Vec<bool>,
    free_slots: Vec<u32>,
    by_id: HashMap<String, u32>,
    total_len: f64,
    scratch: std::cell::RefCell<Scratch>,
}

/// What [`LexicalIndex::search_rare`] fills and empties again: one score per slot (zero
/// between searches) and the slots it scored.
#[derive(Debug, Default, Clone)]
struct Scratch {
    scores: Vec<f64>,
    touched: Vec<u32>,
}

impl LexicalIndex {
    pub fn new() -> Self {
        Self::default()
    }

    /// Indexes a document; re-adding an id replaces it.
    pub fn add(&mut self, id: &str, summary: &str, keywords: &[String]) {
        self.add_with_context(id, summary, keywords, "");
    }

    /// [`LexicalIndex::add`] with a context field (see the module docs).
    pub fn add_with_context(
        &mut self,
        id: &str,
        summary: &str,
        keywords: &[String],
        context: &str,
    ) {
        self.remove(id);
        let doc = DocTerms::new(summary, keywords, context);
        let slot = match self.free_slots.pop() {
            Some(slot) => slot,
            None => {
                self.slots.push(None);
                self.lens.push(0.0);
                self.hidden.push(false);
                (self.slots.len() - 1) as u32
            }
        };
        let mut terms = Vec::with_capacity(doc.tf.len());
        for (term, tf) in doc.tf {
            let next_id = self.postings.len() as u32;
            let term_id = *self.term_ids.entry(term).or_insert(next_id);
            if term_id == next_id {
                self.postings.push(Vec::new());
            }
            self.postings[term_id as usize].push(Posting {
                slot,
                tf: tf as f32,
            });
            terms.push(term_id);
        }
        self.total_len += doc.len;
        self.slots[slot as usize] = Some(Doc {
            id: id.to_string(),
            terms,
        });
        self.lens[slot as usize] = doc.len as f32;
        self.by_id.insert(id.to_string(), slot);
    }

    /// Removes a document; unknown ids are ignored.
    pub fn remove(&mut self, id: &str) {
        let Some(slot) = self.by_id.remove(id) else {
            return;
        };
        if let Some(doc) = self.slots[slot as usize].take() {
            for term in doc.terms {
                let list = &mut self.postings[term as usize];
                if let Some(pos) = list.iter().position(|p| p.slot == slot) {
                    list.swap_remove(pos);
                }
            }
            self.total_len -= std::mem::take(&mut self.lens[slot as usize]) as f64;
        }
        self.hidden[slot as usize] = false;
        self.free_slots.push(slot);
    }

    /// Whether searches skip document `id` (it stays in the statistics); unknown ids are
    /// ignored, and re-adding a document shows it again.
    pub fn set_hidden(&mut self, id: &str, hidden: bool) {
        if let Some(&slot) = self.by_id.get(id) {
            self.hidden[slot as usize] = hidden;
        }
    }

    pub fn len(&self) -> usize {
        self.by_id.len()
    }

    pub fn is_empty(&self) -> bool {
        self.by_id.is_empty()
    }

    pub fn contains(&self, id: &str) -> bool {
        self.by_id.contains_key(id)
    }

    pub fn avg_len(&self) -> f64 {
        if self.is_empty() {
            0.0
        } else {
            self.total_len / self.len() as f64
        }
    }

    fn df(&self, term: &str) -> usize {
        self.term_ids
            .get(term)
            .map_or(0, |&t| self.postings[t as usize].len())
    }

    /// Corpus statistics of `terms`, in the order given.
    pub fn stats(&self, terms: &[String]) -> CorpusStats {
        CorpusStats {
            docs: self.len(),
            avg_len: self.avg_len(),
            df: terms.iter().map(|t| self.df(t)).collect(),
        }
    }

    /// The `limit` best documents for `terms` (each term counted once), best first; ties by id.
    pub fn search(&self, terms: &[String], limit: usize) -> Vec<(String, f64)> {
        self.search_rare(terms, limit, usize::MAX)
    }

    /// [`LexicalIndex::search`] over the terms in at most `max_df` documents: a term most
    /// documents have ("user", "用户") says little about which one restates a new memory, and
    /// reading its postings made each look-up cost grow with the index. The cost is at most
    /// `max_df` postings per term; an index of at most `max_df` documents is searched exactly
    /// as by `search`. Conflict resolution asks this once per new memory.
    pub fn search_rare(&self, terms: &[String], limit: usize, max_df: usize) -> Vec<(String, f64)> {
        if limit == 0 || self.is_empty() {
            return Vec::new();
        }
        // Scores by slot, and the slots scored, in buffers kept between searches (scores all
        // zero outside one), so that a search costs its postings, not allocations the size
        // of the index (at 100k memories a common word's were most of a search's time).
        let mut scratch = self.scratch.borrow_mut();
        let Scratch { scores, touched } = &mut *scratch;
        scores.resize(self.slots.len(), 0.0);
        touched.clear();
        self.score(terms, max_df, |slot, score| {
            if scores[slot] == 0.0 {
                touched.push(slot as u32);
            }
            scores[slot] += score;
        });
        let score_of = |slot: &u32| scores[*slot as usize];
        // Keep what scores at least the `limit`-th best score, found among the scores alone:
        // over a long conversation most documents share a common term and many tie (repeated
        // small talk), and comparing their ids was most of a search.
        let mut nth = f64::NEG_INFINITY;
        if touched.len() > limit {
            let by_score = |a: &u32, b: &u32| score_of(b).total_cmp(&score_of(a));
            nth = score_of(touched.select_nth_unstable_by(limit - 1, by_score).1);
        }
        let hits = touched
            .iter()
            .map(|slot| (*slot as usize, score_of(slot)))
            .filter(|(_, score)| score.total_cmp(&nth).is_ge())
            .collect();
        for slot in touched.iter() {
            scores[*slot as usize] = 0.0;
        }
        drop(scratch);
        self.best(hits, limit)
    }

    /// Calls `add(slot, score)` for each posting of each distinct term in at most `max_df`
    /// documents.
    fn score(&self, terms: &[String], max_df: usize, mut add: impl FnMut(usize, f64)) {
        let avg_len = self.avg_len();
        let mut seen = foldhash::HashSet::with_capacity_and_hasher(terms.len(), Default::default());
        for term in terms.iter().filter(|t| seen.insert(t.as_str())) {
            let Some(&term_id) = self.term_ids.get(term) else {
                continue;
            };
            let list = &self.postings[term_id as usize];
            if list.len() > max_df {
                continue;
            }
            let term_idf = idf(self.len(), list.len());
            for posting in list {
                let slot = posting.slot as usize;
                if self.hidden[slot] {
                    continue;
                }
                add(
                    slot,
                    bm25_term(term_idf, posting.tf as f64, self.lens[slot] as f64, avg_len),
                );
            }
        }
    }

    /// The `limit` best of the scored slots `hits`, best first; ties by id. Ids are read only
    /// here, for what the search kept: reading every scored document's was a cache miss each.
    fn best(&self, hits: Vec<(usize, f64)>, limit: usize) -> Vec<(String, f64)> {
        // Each id's first 8 bytes as a number, read once: ties at the cut can be thousands
        // of documents, and comparing ids through their pointers cost a cache miss per
        // comparison. Big-endian with zero padding orders as the bytes do; equal keys fall
        // back to the ids themselves.
        let key = |id: &str| {
            let mut bytes = [0u8; 8];
            let head = &id.as_bytes()[..id.len().min(8)];
            bytes[..head.len()].copy_from_slice(head);
            u64::from_be_bytes(bytes)
        };
        let mut hits: Vec<(f64, u64, &str)> = hits
            .into_iter()
            .filter_map(|(slot, score)| {
                let id = self.slots[slot].as_ref()?.id.as_str();
                Some((score, key(id), id))
            })
            .collect();
        let by_score = |a: &(f64, u64, &str), b: &(f64, u64, &str)| {
            b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)).then(a.2.cmp(b.2))
        };
        if hits.len() > limit {
            hits.select_nth_unstable_by(limit - 1, by_score);
            hits.truncate(limit);
        }
        crate::order::sort_by(&mut hits, by_score);
        hits.into_iter()
            .map(|(s, _, id)| (id.to_string(), s))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::retrieval::tokenize::tokenize_query;

    fn ids(hits: &[(String, f64)]) -> Vec<&str> {
        hits.iter().map(|(id, _)| id.as_str()).collect()
    }

    fn sample() -> LexicalIndex {
        let mut index = LexicalIndex::new();
        index.add("m1", "The user likes reading science fiction books", &[]);
        index.add("m2", "The user is allergic to peanuts", &["allergy".into()]);
        index.add("m3", "用户对花生过敏", &["过敏".into(), "花生".into()]);
        index.add("m4", "The user plays football on weekends", &[]);
        index
    }

    #[test]
    fn finds_english_and_chinese_documents() {
        let index = sample();
        let hits = index.search(&tokenize_query("what books does the user read?"), 10);
        assert_eq!(ids(&hits)[0], "m1");
        let hits = index.search(&tokenize_query("用户有什么过敏吗"), 10);
        assert_eq!(ids(&hits)[0], "m3");
    }

    #[test]
    fn keyword_field_is_searchable_and_boosted() {
        let index = sample();
        // "allergy" appears only as a keyword of m2; m2 must come first.
        let hits = index.search(&tokenize_query("allergies"), 10);
        assert_eq!(ids(&hits), ["m2"]);
        let mut index = LexicalIndex::new();
        index.add("summary", "a cup of tea in the morning", &[]);
        index.add("keyword", "a cup in the morning", &["tea".into()]);
        let hits = index.search(&tokenize_query("tea"), 10);
        assert_eq!(ids(&hits), ["keyword", "summary"]);
    }

    #[test]
    fn re_adding_replaces_and_remove_forgets() {
        let mut index = sample();
        index.add("m1", "The user likes jazz", &[]);
        assert_eq!(index.len(), 4);
        assert!(index.search(&tokenize_query("books"), 10).is_empty());
        assert_eq!(ids(&index.search(&tokenize_query("jazz"), 10)), ["m1"]);
        index.remove("m1");
        index.remove("unknown");
        assert_eq!(index.len(), 3);
        assert!(index.search(&tokenize_query("jazz"), 10).is_empty());
        // A freed slot is reused without resurrecting the old postings.
        index.add("m5", "Weekend hiking", &[]);
        let mut found = ids(&index.search(&tokenize_query("weekends"), 10))
            .into_iter()
            .map(String::from)
            .collect::<Vec<_>>();
        found.sort();
        assert_eq!(found, ["m4", "m5"]);
    }

    #[test]
    fn stats_report_docs_average_length_and_df() {
        let index = sample();
        let terms = tokenize_query("user peanuts unknownword");
        let stats = index.stats(&terms);
        assert_eq!(stats.docs, 4);
        assert_eq!(stats.df, vec![3, 1, 0]);
        assert!(stats.avg_len > 1.0);
        assert_eq!(LexicalIndex::new().stats(&terms).avg_len, 0.0);
    }

    #[test]
    fn a_rare_search_skips_the_terms_most_documents_have() {
        let index = sample();
        // Four documents: with max_df 4 every term is read, as by `search`.
        let q = tokenize_query("the user likes science books and peanuts");
        assert_eq!(index.search_rare(&q, 10, 4), index.search(&q, 10));
        // "user" is in three: skipped at 2, so only the documents with rarer terms are found.
        let hits = index.search_rare(&tokenize_query("user peanuts"), 10, 2);
        assert_eq!(ids(&hits), ["m2"]);
        assert!(index.search_rare(&tokenize_query("user"), 10, 2).is_empty());
    }

    #[test]
    fn limit_and_ties_are_deterministic() {
        let mut index = LexicalIndex::new();
        for id in ["c", "a", "b"] {
            index.add(id, "same text", &[]);
        }
        let hits = index.search(&tokenize_query("text"), 2);
        assert_eq!(ids(&hits), ["a", "b"]);
        assert!(index.search(&tokenize_query("text"), 0).is_empty());
    }

    #[test]
    fn the_cut_is_the_full_order_cut_when_many_tie() {
        // Many documents share a term with equal scores on both sides of the cut; the best
        // `limit` are the first `limit` of the whole list ordered by score, then id.
        let mut index = LexicalIndex::new();
        let texts = ["tea time", "tea", "tea and talk today", "tea tea"];
        for i in 0..300 {
            let id = format!("d{:03}", (i * 7919) % 300);
            index.add(&id, texts[i % texts.len()], &[]);
        }
        let terms = tokenize_query("tea talk");
        let all = index.search(&terms, 1000);
        assert_eq!(all.len(), 300);
        for limit in [1, 74, 75, 76, 100, 150, 299] {
            assert_eq!(index.search(&terms, limit), all[..limit], "limit {limit}");
        }
    }

    #[test]
    fn ties_order_by_the_whole_id() {
        // Ids that share their first 8 bytes, are prefixes of each other, or are shorter
        // than 8: a tie still orders as the ids' bytes do.
        let mut ids_in = [
            "mem_0123ff",
            "mem_0123",
            "mem_0123a",
            "mem_01",
            "mem_0124",
            "m",
            "mem_0123fe",
            "mem_0123\u{e9}",
            "az",
            "za",
            "ya1",
        ];
        let mut index = LexicalIndex::new();
        for id in ids_in {
            index.add(id, "same text", &[]);
        }
        ids_in.sort();
        for limit in 1..=ids_in.len() {
            let hits = index.search(&tokenize_query("text"), limit);
            assert_eq!(ids(&hits), ids_in[..limit], "limit {limit}");
        }
    }

    #[test]
    fn idf_is_positive_and_decreasing() {
        assert!(idf(100, 100) > 0.0);
        assert!(idf(100, 1) > idf(100, 10));
    }
}
