//! The memories a new one is compared with (SPEC §2.3): its exact repeats, found by text,
//! and otherwise the vector index's nearest, the lexical index's best and what the plan
//! already wrote, cut to those [`conflict::decide_marked`](crate::memory::conflict::decide_marked) can pick.

use super::{embedding_text, IndexMap, CONFLICT_CANDIDATES, CONFLICT_MAX_DF};
use crate::engine::new_memory::NewMemory;
use crate::engine::Hippo;
use crate::error::Result;
use crate::memory::conflict::normalize_text;
use crate::memory::{Collection, Memory, MemoryType};
use crate::ports::{is_live_of_kind, EmbedKind, LexicalQuery, VectorFilter};
use crate::retrieval::embed::cosine;
use crate::retrieval::tokenize::tokenize_query_to_index;
use foldhash::HashMap;

/// The vector index's nearest ids with their cosines, best first.
pub(super) type Hits = Vec<(String, f32)>;

/// What a new memory of `memory_type` looks up in the vector index: its type's live
/// memories near it, down to `floor` (the embedder's ambiguous band).
fn near_filter(memory_type: MemoryType, floor: f32) -> VectorFilter {
    VectorFilter {
        collections: vec![Collection::Memory],
        types: vec![memory_type],
        near: true,
        floor: Some(floor),
    }
}

/// The vector index's nearest stored memories for each new one given a vector (`None` for
/// the others, and for any the index did not answer: those look up alone), asked a type at a time in one [`VectorIndex::query_each`]: the stored
/// vectors do not change while a plan is made (its own are upserted after the commit), so
/// each answer is what the memory's own look-up would be, and the index reads a probed cell
/// once for all the memories that probe it.
///
/// [`VectorIndex::query_each`]: crate::ports::VectorIndex::query_each
pub(super) async fn near_hits(
    hippo: &Hippo,
    npcid: &str,
    items: &[NewMemory],
    vectors: &[Option<&[f32]>],
) -> Vec<Option<Hits>> {
    let floor = hippo.ports.embedder.thresholds().ambiguous;
    let mut hits: Vec<Option<Hits>> = Vec::new();
    hits.resize_with(items.len(), || None);
    for memory_type in MemoryType::ALL {
        let mut asked = Vec::new();
        let mut asking: Vec<&[f32]> = Vec::new();
        for (at, (item, vector)) in items.iter().zip(vectors).enumerate() {
            if let (Collection::Memory, Some(v)) = (item.collection, *vector) {
                if item.memory_type == memory_type {
                    asked.push(at);
                    asking.push(v);
                }
            }
        }
        if asking.is_empty() {
            continue;
        }
        // A failing vector index only weakens duplicate detection; lexical still works.
        let answers = hippo
            .ports
            .vectors
            .query_each(
                npcid,
                &asking,
                CONFLICT_CANDIDATES,
                &near_filter(memory_type, floor),
            )
            .await
            .unwrap_or_default();
        for (at, answer) in asked.into_iter().zip(answers) {
            hits[at] = Some(answer);
        }
    }
    hits
}

impl Hippo {
    /// Same-type, live memories similar to `item`: the vector index's nearest, the lexical
    /// index's best, and what this plan already wrote, each with its similarity and whether
    /// it has the same normalised text. Only those [`conflict::decide_marked`](crate::memory::conflict::decide_marked) can pick are
    /// returned: the same normalised text, or a similarity in the ambiguous band or above
    /// (decide takes the most similar, and below the band anything is an insert), so a call
    /// of many memories neither clones nor normalises every memory it touched for each new
    /// one. Each candidate is normalised once and each record copied once (the store's are
    /// moved out of the read). When the store's text index found no stored memory with
    /// `text` ([`StoredTexts::Differ`]), no stored text is normalised.
    pub(super) async fn conflict_candidates(
        &self,
        npcid: &str,
        item: &NewMemory,
        (vector, near): (Option<&[f32]>, Option<Hits>),
        (text, stored_texts): (&str, StoredTexts),
        touched: &IndexMap<Memory>,
        known: &mut Known,
    ) -> Result<Vec<(Memory, f32, bool)>> {
        // Below this nothing can be picked: the vector look-up's floor, and the cut below.
        let ambiguous = self.ports.embedder.thresholds().ambiguous;
        let mut sims: IndexMap<Option<f32>> = IndexMap::default();
        if let Some(v) = vector {
            // Looked up with the plan's others ([`near_hits`]), or now: a repeat embedded late.
            let hits = match near {
                Some(hits) => hits,
                // A failing vector index only weakens duplicate detection; lexical still works.
                None => self
                    .ports
                    .vectors
                    .query(
                        npcid,
                        v,
                        CONFLICT_CANDIDATES,
                        &near_filter(item.memory_type, ambiguous),
                    )
                    .await
                    .unwrap_or_default(),
            };
            for (id, s) in hits {
                sims.insert(id, Some(s));
            }
        }
        let query = LexicalQuery {
            terms: tokenize_query_to_index(&item.summary),
            collections: vec![Collection::Memory],
            max_df: Some(CONFLICT_MAX_DF),
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
        let kind = (Collection::Memory, item.memory_type);
        let same_kind = |m: &Memory| is_live_of_kind(m, kind);
        let mut found: Vec<Memory> = match (vector, stored_texts) {
            (Some(v), StoredTexts::Differ) => {
                self.most_similar_stored(npcid, (v, ambiguous), &ids, kind, &mut sims, known)
                    .await?
            }
            _ => {
                self.ports
                    .store
                    .live_memories_by_id(npcid, &ids, kind)
                    .await?
            }
        };
        // The store's, then the plan's (loops, not iterator chains: less code in the wasm),
        // with the plan's positions among the memories it touched.
        let mut planned: Vec<&Memory> = Vec::new();
        let mut planned_at: Vec<usize> = Vec::new();
        for (at, m) in touched.values().enumerate() {
            if same_kind(m) {
                planned.push(m);
                planned_at.push(at);
            }
        }
        let with_text = known.touched_with_text(touched, text).to_vec();
        let mut compared: Vec<&Memory> = Vec::new();
        for m in &found {
            compared.push(m);
        }
        compared.extend_from_slice(&planned);
        // Similarity for candidates the vector index did not score.
        let unscored = |m: &Memory| {
            sims.get(&m.id).copied().flatten().is_none() && !known.vectors.contains_key(&m.id)
        };
        let mut missing: Vec<&Memory> = Vec::new();
        for m in &compared {
            if unscored(m) {
                missing.push(m);
            }
        }
        if let (Some(v), false) = (vector, missing.is_empty()) {
            // The index's stored vectors first: embedding the texts again was a twentieth of
            // a fill's instructions (and, with a model embedder, a request per new memory).
            let ids: Vec<String> = missing.iter().map(|m| m.id.clone()).collect();
            if let Ok(scored) = self.ports.vectors.similarities(npcid, v, &ids).await {
                for (id, s) in scored {
                    sims.insert(id, Some(s));
                }
            }
            // What the index could not score, embedded again.
            missing.retain(|m| sims.get(&m.id).copied().flatten().is_none());
            if !missing.is_empty() {
                let texts: Vec<String> = missing
                    .iter()
                    .map(|m| embedding_text(&m.summary, &m.keywords))
                    .collect();
                if let Ok(vs) = self.ports.embedder.embed(EmbedKind::Document, &texts).await {
                    for (m, v) in missing.iter().zip(vs) {
                        known.vectors.insert(m.id.clone(), v);
                    }
                }
            }
        }
        let sim = |m: &Memory, known: &Known| {
            sims.get(&m.id)
                .copied()
                .flatten()
                .or_else(|| Some(cosine(vector?, known.vectors.get(&m.id)?)))
                .unwrap_or(0.0)
        };
        // Which of `compared` decide can pick (by index), with similarity and exact match.
        let mut keep: Vec<(usize, f32, bool)> = Vec::new();
        let stored = found.len();
        for (i, m) in compared.iter().enumerate() {
            let s = sim(m, known);
            let same = match (i.checked_sub(stored), stored_texts) {
                (Some(p), _) => with_text.binary_search(&planned_at[p]).is_ok(),
                (None, StoredTexts::Differ) => false,
                (None, StoredTexts::Unknown) => known.normalized(&m.summary) == text,
            };
            if s >= ambiguous || same {
                keep.push((i, s, same));
            }
        }
        // The store's memories are moved out, the plan's cloned: each record is copied once.
        // Last first, so that taking a stored one out leaves the earlier indices in place.
        let mut out = Vec::new();
        while let Some((i, s, same)) = keep.pop() {
            let memory = if i < stored {
                found.swap_remove(i)
            } else {
                planned[i - stored].clone()
            };
            out.push((memory, s, same));
        }
        out.reverse();
        Ok(out)
    }

    /// The stored memories of `ids` decide can pick when none has the new memory's text
    /// ([`StoredTexts::Differ`]): of those the index scores at or above `floor`, the most
    /// similar live ones (all of a tie, which decide breaks by age and text), and all it does
    /// not score (the caller compares or embeds them). Decide keeps one: reading every find
    /// was a tenth of a fill in the package. The finds' index similarities go into `sims`
    /// first, except for a vector the plan knows (the caller's cosine, not the index's).
    async fn most_similar_stored(
        &self,
        npcid: &str,
        (vector, floor): (&[f32], f32),
        ids: &[String],
        kind: (Collection, MemoryType),
        sims: &mut IndexMap<Option<f32>>,
        known: &Known,
    ) -> Result<Vec<Memory>> {
        // The index is not asked for a memory whose vector the plan knows: the caller
        // compares that vector (its cosine, not the index's int8 rescoring).
        let unscored: Vec<String> = ids
            .iter()
            .filter(|id| sims.get(*id).copied().flatten().is_none())
            .filter(|id| !known.vectors.contains_key(*id))
            .cloned()
            .collect();
        if !unscored.is_empty() {
            let scored = self
                .ports
                .vectors
                .similarities(npcid, vector, &unscored)
                .await;
            for (id, s) in scored.unwrap_or_default() {
                sims.insert(id, Some(s));
            }
        }
        // Those the index did not score (a vector the plan knows, or none) are read always.
        let score = |id: &String| sims.get(id).copied().flatten();
        // Level by level from the top: the best one's record may be gone or of another type.
        let mut above: Option<f32> = None;
        loop {
            let level = ids
                .iter()
                .filter_map(score)
                .filter(|s| *s >= floor && above.is_none_or(|above| *s < above))
                .max_by(f32::total_cmp);
            let wanted: Vec<String> = ids
                .iter()
                .filter(|id| score(id).is_none_or(|s| Some(s) == level))
                .cloned()
                .collect();
            if wanted.is_empty() {
                return Ok(Vec::new());
            }
            let found = self
                .ports
                .store
                .live_memories_by_id(npcid, &wanted, kind)
                .await?;
            if level.is_none() || found.iter().any(|m| score(&m.id) == level) {
                return Ok(found);
            }
            above = level;
        }
    }

    /// `exact` with their similarity to `vector` (decide reinforces the most similar of
    /// several copies); one needs none.
    pub(super) async fn most_similar_first(
        &self,
        npcid: &str,
        mut exact: Vec<(Memory, f32, bool)>,
        vector: Option<&[f32]>,
        known: &Known,
    ) -> Vec<(Memory, f32, bool)> {
        let Some(v) = vector.filter(|_| exact.len() > 1) else {
            return exact;
        };
        let ids: Vec<String> = exact.iter().map(|(m, _, _)| m.id.clone()).collect();
        // A few copies: a list, not a map (less code in the wasm).
        let scored = self
            .ports
            .vectors
            .similarities(npcid, v, &ids)
            .await
            .unwrap_or_default();
        for (m, s, _) in &mut exact {
            *s = known
                .vectors
                .get(&m.id)
                .map(|known| cosine(v, known))
                .or_else(|| scored.iter().find(|(id, _)| *id == m.id).map(|(_, s)| *s))
                .unwrap_or(0.0);
        }
        exact
    }
}

/// What conflict resolution knows of the stored memories' texts beside a new memory's.
#[derive(Debug, Clone, Copy)]
pub(super) enum StoredTexts {
    /// The store keeps no text index: any stored candidate may have the same text.
    Unknown,
    /// The store's text index found no live memory of the kind with the same text.
    Differ,
}

/// What a plan knows of the memories it compared so far: their embeddings (planned or
/// loaded), for similarity, and their normalised texts (a memory of the plan is compared
/// with each later one of its type: normalising it each time was a tenth of a fill).
#[derive(Default)]
pub(super) struct Known {
    pub(super) vectors: IndexMap<Vec<f32>>,
    pub(super) normalized: HashMap<String, String>,
    /// Positions in the plan's touched memories by normalised text, for the first
    /// `texts_indexed` of them (a touched memory keeps its position and its summary):
    /// looking each one up again for every new memory was 2% of a fill.
    touched_texts: HashMap<String, Vec<usize>>,
    texts_indexed: usize,
}

impl Known {
    /// `normalize_text(summary)`, once per distinct summary of the plan.
    pub(super) fn normalized(&mut self, summary: &str) -> &str {
        if !self.normalized.contains_key(summary) {
            self.normalized
                .insert(summary.to_string(), normalize_text(summary));
        }
        self.normalized.get(summary).map_or("", String::as_str)
    }

    /// The positions in `touched` (the plan's memories, in first-touched order) of those
    /// whose normalised summary is `text`, ascending.
    fn touched_with_text(&mut self, touched: &IndexMap<Memory>, text: &str) -> &[usize] {
        while let Some((_, m)) = touched.get_index(self.texts_indexed) {
            let normalized = self.normalized(&m.summary).to_string();
            let at = self.texts_indexed;
            self.touched_texts.entry(normalized).or_default().push(at);
            self.texts_indexed += 1;
        }
        let found = self.touched_texts.get(text).map_or(&[][..], Vec::as_slice);
        debug_assert!(found.iter().all(|&at| touched
            .get_index(at)
            .is_some_and(|(_, m)| normalize_text(&m.summary) == text)));
        found
    }
}

/// `item`'s exact duplicates — live memories of its kind with its normalised `text` — among
/// `stored` (the store's, found by text; `None`: the store keeps no text index or none
/// matched) and the plan's: decide reinforces one of them whatever else is near, so the
/// similarity look-ups are skipped and a repeat costs a hash look-up. A stored memory the
/// plan touched counts in the plan's version, as in the similarity path.
pub(super) fn exact_candidates(
    stored: Option<Vec<Memory>>,
    item: &NewMemory,
    text: &str,
    touched: &IndexMap<Memory>,
    known: &mut Known,
) -> Vec<(Memory, f32, bool)> {
    let kind = (Collection::Memory, item.memory_type);
    let mut exact: Vec<(Memory, f32, bool)> = Vec::new();
    for m in stored.into_iter().flatten() {
        if !touched.contains_key(&m.id) {
            exact.push((m, 0.0, true));
        }
    }
    for &at in known.touched_with_text(touched, text) {
        if let Some((_, m)) = touched
            .get_index(at)
            .filter(|(_, m)| is_live_of_kind(m, kind))
        {
            exact.push((m.clone(), 0.0, true));
        }
    }
    exact
}
