//! Conflict resolution for new memories (SPEC §2.3), shared by `POST /api/memories` and the
//! dream: each new memory is compared with the most similar live memories of its type and is
//! inserted, reinforces a duplicate, or supersedes an older value.

mod candidates;

use super::new_memory::{fit_keywords, NewMemory};
use super::Hippo;
use crate::api::AddMemoryResult;
use crate::error::{Error, Result};
use crate::memory::conflict::{self, normalize_text, Decision, Verdict};
use crate::memory::strength::reinforce_on_encounter;
use crate::memory::{Collection, Memory};
use crate::ports::{EmbedKind, VectorItem, Write};
use crate::retrieval::embed::{self, same_words_cached};
use crate::sensitive;
use crate::time::Timestamp;
use candidates::{exact_candidates, near_hits, Known, StoredTexts};

/// An insertion-ordered map by memory id, hashed with foldhash (SipHash, the default, was a
/// twentieth of a fill's instructions: every new memory looks ids up in several of these).
type IndexMap<V> = indexmap::IndexMap<String, V, foldhash::fast::RandomState>;

/// How many similar memories conflict resolution compares a new one with.
pub const CONFLICT_CANDIDATES: usize = 8;
/// The most memories a term of a new memory may be in for its lexical look-up to read it
/// ([`LexicalQuery::max_df`](crate::ports::LexicalQuery::max_df)): "user" / "用户" are in most memories, and reading all of their
/// postings made each new memory's look-up cost grow with the store. An NPC with at most this
/// many memories is searched exactly as without it.
pub const CONFLICT_MAX_DF: usize = 64;

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
    /// Memories this plan superseded: their vectors leave the index once the writes are
    /// durable ([`Hippo::index_after_commit`]).
    pub unindexed: Vec<String>,
    /// One per input, in order.
    pub results: Vec<AddMemoryResult>,
    /// Why the new memories have no vectors, if the embedder failed.
    pub embedding_error: Option<String>,
}

impl Hippo {
    /// Conflict resolution for new memories (SPEC §2.3), in order, each seeing the ones before
    /// it. Exact duplicates and near-identical texts reinforce the existing memory; a new
    /// value for the same subject slot supersedes the old one (kept as history); the
    /// ambiguous band asks the LLM when one is configured, else the deterministic rules.
    /// Content and emotion records are inserted as they are. Sensitivity is a floor: what the
    /// detector flags is sensitive, and a sensitive duplicate or successor makes the kept
    /// memory sensitive (never the other way).
    pub async fn plan_memories(
        &self,
        npcid: &str,
        mut items: Vec<NewMemory>,
    ) -> Result<MemoryPlan> {
        let now = self.now();
        // What the dream extracted is cut to the limits every stored memory keeps, after the
        // detector has read the whole text.
        for item in &mut items {
            sensitive::apply_floor(
                &item.summary,
                &mut item.sensitive,
                &mut item.sensitive_category,
            );
            item.fit_limits();
        }
        let texts: Vec<String> = items
            .iter()
            .map(|m| embedding_text(&m.summary, &m.keywords))
            .collect();
        let normalized: Vec<String> = items.iter().map(|m| normalize_text(&m.summary)).collect();
        let mut known = Known::default();
        for (item, text) in items.iter().zip(&normalized) {
            known.normalized.insert(item.summary.clone(), text.clone());
        }
        // Stored memories each new one repeats word for word, found by text before anything
        // is embedded: a repeat is reinforced, so its vector (with a model, a request) would
        // be wasted. `None`: not a repeat of a stored memory, or the store keeps no text index.
        let mut repeats: Vec<Option<Vec<Memory>>> = Vec::with_capacity(items.len());
        // Whether the store answered for the item: then a stored memory it did not return has
        // another text, and the similarity path need not compare texts.
        let mut stored_texts: Vec<StoredTexts> = Vec::with_capacity(items.len());
        for (item, text) in items.iter().zip(&normalized) {
            let mut stored = None;
            if item.collection == Collection::Memory {
                stored = self
                    .ports
                    .store
                    .live_memories_with_text(npcid, (item.collection, item.memory_type), text)
                    .await?;
            }
            stored_texts.push(match stored {
                Some(_) => StoredTexts::Differ,
                None => StoredTexts::Unknown,
            });
            if let Some(found) = &mut stored {
                found.retain(|m| m.summary == item.summary || known.normalized(&m.summary) == text);
            }
            repeats.push(stored.filter(|found| !found.is_empty()));
        }
        // Embedded in one request: all but the repeats of exactly one stored memory (decide
        // picks the most similar of several copies, so those need their vectors). Without
        // vectors the lexical path still finds the memories; the index can be rebuilt.
        let skipped: Vec<bool> = repeats
            .iter()
            .map(|found| found.as_ref().is_some_and(|f| f.len() == 1))
            .collect();
        let to_embed: Vec<String> = texts
            .iter()
            .zip(&skipped)
            .filter(|(_, skipped)| !**skipped)
            .map(|(text, _)| text.clone())
            .collect();
        let mut vectors: Vec<Option<Vec<f32>>> = vec![None; items.len()];
        let mut embedding_error = None;
        if !to_embed.is_empty() {
            match self
                .ports
                .embedder
                .embed(EmbedKind::Document, &to_embed)
                .await
            {
                Ok(embedded) => {
                    let slots = vectors.iter_mut().zip(&skipped).filter(|(_, s)| !**s);
                    for ((slot, _), v) in slots.zip(embedded) {
                        *slot = Some(v);
                    }
                }
                Err(err) => embedding_error = Some(err.to_string()),
            }
        }
        // A repeat of a stored memory is compared with its copies, not looked up.
        let looked_up: Vec<Option<&[f32]>> = vectors
            .iter()
            .zip(&repeats)
            .map(|(v, found)| v.as_deref().filter(|_| found.is_none()))
            .collect();
        let mut near = near_hits(self, npcid, &items, &looked_up).await;
        let thresholds = self.ports.embedder.thresholds();
        // Every memory this plan writes, latest version, in first-touched order.
        let mut touched: IndexMap<Memory> = IndexMap::default();
        let mut plan = MemoryPlan {
            embedding_error,
            ..MemoryPlan::default()
        };

        for (i, item) in items.into_iter().enumerate() {
            let mut vector = vectors[i].take();
            if item.collection != Collection::Memory {
                plan_insert(
                    &mut plan,
                    &mut touched,
                    &mut known.vectors,
                    item,
                    vector,
                    now,
                );
                continue;
            }
            let text = &normalized[i];
            let exact = exact_candidates(repeats[i].take(), &item, text, &touched, &mut known);
            // A skipped repeat needs its vector after all when the plan has already replaced
            // what it repeats, or added another copy.
            if skipped[i] && exact.len() != 1 {
                match self
                    .ports
                    .embedder
                    .embed(EmbedKind::Document, &texts[i..=i])
                    .await
                {
                    Ok(embedded) => vector = embedded.into_iter().next(),
                    Err(err) => {
                        plan.embedding_error.get_or_insert(err.to_string());
                    }
                }
            }
            let mut candidates = if exact.is_empty() {
                self.conflict_candidates(
                    npcid,
                    &item,
                    (vector.as_deref(), near[i].take()),
                    (text, stored_texts[i]),
                    &touched,
                    &mut known,
                )
                .await?
            } else {
                self.most_similar_first(npcid, exact, vector.as_deref(), &known)
                    .await
            };
            let refs: Vec<(&Memory, f32, bool)> =
                candidates.iter().map(|(m, s, e)| (m, *s, *e)).collect();
            let mut decision = conflict::decide_marked(
                &item.summary,
                &refs,
                thresholds,
                &mut self.slots.borrow_mut(),
            );
            if let Decision::Ambiguous { id } = &decision {
                let old = candidates.iter().find(|(m, _, _)| &m.id == id);
                let summary_vector =
                    builtin_summary_vector(self.ports.embedder.name(), &item, vector.as_deref());
                decision = match old {
                    Some((old, score, _)) => match self
                        .verdict(
                            (&item.summary, summary_vector),
                            &old.summary,
                            self.words_differ(summary_vector, old, *score),
                        )
                        .await
                    {
                        Verdict::Duplicate => Decision::Reinforce { id: id.clone() },
                        Verdict::Supersedes => {
                            let old = old.clone();
                            plan_supersede(
                                &mut plan,
                                &mut touched,
                                &mut known.vectors,
                                item,
                                vector,
                                &old,
                                now,
                            );
                            continue;
                        }
                        Verdict::Distinct => Decision::Insert,
                    },
                    None => Decision::Insert,
                };
            }
            match decision {
                Decision::Reinforce { id } => {
                    let existing = touched.get(&id).cloned().or_else(|| {
                        let at = candidates.iter().position(|(m, _, _)| m.id == id)?;
                        Some(candidates.swap_remove(at).0)
                    });
                    let Some(mut existing) = existing else {
                        return Err(Error::Internal(format!("candidate {id} vanished")));
                    };
                    reinforce_on_encounter(&mut existing, item.importance, now);
                    let mut keywords = std::mem::take(&mut existing.keywords);
                    keywords.extend(item.keywords);
                    existing.keywords = fit_keywords(keywords);
                    // Said again: the new turns are sources too (re-dreaming the same turns
                    // adds nothing).
                    existing.source_turns = existing.source_turns.merged(&item.source_turns);
                    existing.pinned |= item.pinned;
                    if item.sensitive {
                        existing.sensitive = true;
                        existing.sensitive_category =
                            existing.sensitive_category.or(item.sensitive_category);
                    }
                    plan.results
                        .push(AddMemoryResult::new(&existing, "reinforced", None));
                    touched.insert(id, existing);
                }
                // An ambiguous pair is resolved above; left over, it is a new memory.
                Decision::Insert | Decision::Ambiguous { .. } => plan_insert(
                    &mut plan,
                    &mut touched,
                    &mut known.vectors,
                    item,
                    vector,
                    now,
                ),
            }
        }
        // A superseded memory leaves the vector index: search never returns it, and the
        // conflict look-up's nearest were its slot's old values, equally similar, so a slot
        // that changed often kept several live values (the ones crowded out of the look-up).
        for memory in touched.values() {
            if memory.superseded_by.is_some() {
                plan.unindexed.push(memory.id.clone());
            }
        }
        plan.writes = touched
            .into_values()
            .map(|memory| Write::PutMemory { memory })
            .collect();
        Ok(plan)
    }

    /// DUPLICATE / SUPERSEDES / DISTINCT for a pair [`conflict::decide_marked`] called
    /// ambiguous (so their texts normalise differently): the LLM when configured (falling
    /// back to the rules if it fails or answers garbage), else the rules.
    /// `new_vector`: the built-in embedder's vector of exactly `new_summary`, when known.
    /// `words_differ`: [`Hippo::words_differ`] of the pair.
    async fn verdict(
        &self,
        (new_summary, new_vector): (&str, Option<&[f32]>),
        old_summary: &str,
        words_differ: bool,
    ) -> Verdict {
        if let Some(model) = &self.ports.llm {
            if let Some(v) = crate::llm::ask_verdict(model.as_ref(), new_summary, old_summary).await
            {
                return v;
            }
        }
        let same_words = |a: &str, b: &str| {
            if words_differ && a == new_summary && b == old_summary {
                return false;
            }
            let a_vector = new_vector.filter(|_| a == new_summary);
            same_words_cached(&self.embed_cache, (a, a_vector), b)
        };
        let slots = &mut self.slots.borrow_mut();
        conflict::rule_verdict_of_other_texts(new_summary, old_summary, same_words, slots)
    }

    /// Whether a pair's `score` already shows that its summaries are not the same words
    /// ([`embed::same_words`]), so the old one need not be embedded again (that was a
    /// twentieth of a fill of long memories, and nearly every verdict's answer). The score is
    /// the cosine of the two memories' embedding texts, which are their summaries alone when
    /// neither has keywords, by the built-in embedder when `new_vector` is known; read from the
    /// vector index, it is within the index's
    /// [`crate::ports::VectorIndex::score_error`] of the exact cosine.
    fn words_differ(&self, new_vector: Option<&[f32]>, old: &Memory, score: f32) -> bool {
        let Some(v) = new_vector.filter(|_| old.keywords.is_empty()) else {
            return false;
        };
        let error = self.ports.vectors.score_error(v.len());
        error.is_some_and(|error| score + error < embed::THRESHOLDS.duplicate)
    }

    /// A committed write's index changes: its new vectors in, then the vectors of the
    /// memories it superseded (`unindexed`, which may include one it inserted) out. The
    /// vector index is derived data: a failed upsert (`false`) leaves the memories findable
    /// lexically, a failed delete a vector search filters out anyway, until
    /// `rebuild_vectors`.
    pub(crate) async fn index_after_commit(
        &self,
        npcid: &str,
        vectors: Vec<VectorItem>,
        unindexed: &[String],
    ) -> bool {
        let indexed = vectors.is_empty() || self.ports.vectors.upsert(npcid, vectors).await.is_ok();
        if !unindexed.is_empty() {
            let _ = self.ports.vectors.delete(npcid, unindexed).await;
        }
        indexed
    }
}

/// The plan's vector of `item` as the built-in embedder's vector of its summary alone (what
/// the no-LLM verdict compares words with): only when that embedder made it and the item has
/// no keywords (the plan embeds the summary and its keywords).
fn builtin_summary_vector<'a>(
    embedder: &str,
    item: &NewMemory,
    vector: Option<&'a [f32]>,
) -> Option<&'a [f32]> {
    vector.filter(|_| item.keywords.is_empty() && embedder == embed::NAME)
}

pub(crate) fn vector_item(memory: &Memory, values: Vec<f32>) -> VectorItem {
    VectorItem {
        id: memory.id.clone(),
        collection: memory.collection,
        memory_type: memory.memory_type,
        values,
    }
}

fn plan_insert(
    plan: &mut MemoryPlan,
    touched: &mut IndexMap<Memory>,
    known_vectors: &mut IndexMap<Vec<f32>>,
    item: NewMemory,
    vector: Option<Vec<f32>>,
    now: Timestamp,
) {
    let memory = item.into_memory(now);
    plan.results
        .push(AddMemoryResult::new(&memory, "inserted", None));
    if let Some(v) = vector {
        known_vectors.insert(memory.id.clone(), v.clone());
        plan.vectors.push(vector_item(&memory, v));
    }
    touched.insert(memory.id.clone(), memory);
}

/// Inserts `item` as the new value and marks `old_id` as superseded by it.
fn plan_supersede(
    plan: &mut MemoryPlan,
    touched: &mut IndexMap<Memory>,
    known_vectors: &mut IndexMap<Vec<f32>>,
    item: NewMemory,
    vector: Option<Vec<f32>>,
    old: &Memory,
    now: Timestamp,
) {
    let mut memory = item.into_memory(now);
    // The plan's own version of the old memory if it already touched it.
    let mut old = touched.get(&old.id).cloned().unwrap_or_else(|| old.clone());
    old.superseded_by = Some(memory.id.clone());
    // A new value of a pinned fact stays pinned: the user pinned the subject.
    memory.pinned |= old.pinned;
    // A new value of a sensitive fact is sensitive too: the subject was judged so.
    if old.sensitive && !memory.sensitive {
        memory.sensitive = true;
        memory.sensitive_category = old.sensitive_category;
    }
    plan.results.push(AddMemoryResult::new(
        &memory,
        "superseded",
        Some(old.id.clone()),
    ));
    touched.insert(old.id.clone(), old);
    if let Some(v) = vector {
        // Known, so that a later memory of the plan compared with it does not embed it again.
        known_vectors.insert(memory.id.clone(), v.clone());
        plan.vectors.push(vector_item(&memory, v));
    }
    touched.insert(memory.id.clone(), memory);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::MemoryType;

    #[test]
    fn the_verdict_reuses_only_the_built_in_vector_of_the_summary_alone() {
        let vector = [0.5f32; 4];
        let plain = NewMemory::new("The user likes tea", MemoryType::Preference, "api");
        let with_keywords = NewMemory {
            keywords: vec!["tea".into()],
            ..plain.clone()
        };
        assert_eq!(
            builtin_summary_vector(embed::NAME, &plain, Some(&vector)),
            Some(&vector[..])
        );
        // Embedded with its keywords, or by a model: not the words' vector of the summary.
        assert_eq!(
            builtin_summary_vector(embed::NAME, &with_keywords, Some(&vector)),
            None
        );
        assert_eq!(
            builtin_summary_vector("openai:e5", &plain, Some(&vector)),
            None
        );
        assert_eq!(builtin_summary_vector(embed::NAME, &plain, None), None);
    }
}
