//! Conflict resolution under an embedding model's thresholds, through the engine, with the
//! vectors multilingual-e5-small gave (recorded by `hippo-bench pairs --record`; `make
//! bench-e5` checks the same pairs against the live model). e5's cosines crowd into a narrow
//! band (unrelated short memories up to 0.92, distinct memories of one shape up to 0.975,
//! changed values up to 0.986), so these check what its declared thresholds promise:
//! restated facts reinforce, paraphrases reach the LLM, changed values supersede, and no
//! distinct or unrelated memory is ever merged.

mod common;

use async_trait::async_trait;
use common::{run, t};
use hippo::api::{AddMemoriesRequest, NpcUpsert};
use hippo::engine::Ports;
use hippo::error::PortError;
use hippo::ports::*;
use hippo::retrieval::model_embed::model_profile;
use hippo::store::{MemoryStore, MemoryVectorIndex};
use hippo::Hippo;
use serde_json::{json, Value};
use std::cell::Cell;
use std::collections::HashMap;
use std::rc::Rc;

/// The model as recorded: each text's vector, embedded as a document.
struct Recorded {
    vectors: HashMap<String, Vec<f32>>,
    thresholds: SimilarityThresholds,
}

#[async_trait(?Send)]
impl Embedder for Recorded {
    fn name(&self) -> &str {
        "openai:multilingual-e5-small"
    }
    fn dimension(&self) -> usize {
        384
    }
    fn thresholds(&self) -> SimilarityThresholds {
        self.thresholds
    }
    async fn embed(&self, _kind: EmbedKind, texts: &[String]) -> PortResult<Vec<Vec<f32>>> {
        texts
            .iter()
            .map(|t| {
                self.vectors
                    .get(t)
                    .cloned()
                    .ok_or_else(|| PortError::Backend(format!("no recorded vector for {t:?}")))
            })
            .collect()
    }
}

/// An LLM that answers every verdict with DUPLICATE and counts the questions.
#[derive(Default)]
struct SaysDuplicate {
    asked: Cell<usize>,
}

#[async_trait(?Send)]
impl Llm for SaysDuplicate {
    async fn complete(&self, _system: &str, _messages: &[ChatMessage]) -> PortResult<String> {
        self.asked.set(self.asked.get() + 1);
        Ok("DUPLICATE".into())
    }
}

struct Pair {
    relation: String,
    old: String,
    new: String,
}

fn fixture() -> (Vec<Pair>, Rc<Recorded>) {
    let raw = include_str!("data/model_pairs.json");
    let file: Value = serde_json::from_str(raw).expect("fixture is JSON");
    let pairs = file["pairs"]
        .as_array()
        .expect("pairs")
        .iter()
        .map(|p| Pair {
            relation: p["relation"].as_str().unwrap().into(),
            old: p["old"].as_str().unwrap().into(),
            new: p["new"].as_str().unwrap().into(),
        })
        .collect();
    let vectors = file["vectors"]
        .as_object()
        .expect("vectors")
        .iter()
        .map(|(text, v)| {
            let v: Vec<f32> = v
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_f64().unwrap() as f32)
                .collect();
            (text.clone(), v)
        })
        .collect();
    let thresholds = model_profile("multilingual-e5-small").thresholds;
    (
        pairs,
        Rc::new(Recorded {
            vectors,
            thresholds,
        }),
    )
}

fn hippo(embedder: Rc<Recorded>, llm: Option<Rc<dyn Llm>>) -> Hippo {
    Hippo::new(Ports {
        store: Rc::new(MemoryStore::new()),
        vectors: Rc::new(MemoryVectorIndex::new()),
        embedder,
        llm,
        clock: Rc::new(FixedClock::at(t("2026-04-08T10:00:00Z"))),
    })
}

/// Adds `old`, then `new`, to a fresh NPC; the action taken on `new`.
fn add_pair(h: &Hippo, npcid: &str, pair: &Pair) -> String {
    run(h.upsert_npc(npcid, NpcUpsert::default())).unwrap();
    let add = |summary: &str| {
        let req: AddMemoriesRequest =
            serde_json::from_value(json!({"memories": [{"summary": summary, "type": "profile"}]}))
                .unwrap();
        run(h.add_memories(npcid, req)).unwrap()
    };
    let first = add(&pair.old);
    assert_eq!(first.results[0].action, "inserted");
    add(&pair.new).results[0].action.clone()
}

#[test]
fn e5_thresholds_without_an_llm_merge_nothing_distinct() {
    let (pairs, embedder) = fixture();
    let h = hippo(embedder, None);
    let mut seen = HashMap::new();
    for (i, pair) in pairs.iter().enumerate() {
        let action = add_pair(&h, &format!("n{i}"), pair);
        let fine = match pair.relation.as_str() {
            "reworded" => action == "reinforced",
            // e5 cannot tell every paraphrase from a distinct memory of the same shape: the
            // close ones reinforce, the others are kept (the LLM decides when there is one).
            "paraphrase" => action == "reinforced" || action == "inserted",
            "slot" => action == "superseded",
            "distinct" | "unrelated" => action == "inserted",
            other => panic!("unknown relation {other}"),
        };
        assert!(
            fine,
            "{}: {} / {} -> {action}",
            pair.relation, pair.old, pair.new
        );
        *seen.entry(pair.relation.clone()).or_insert(0) += 1;
    }
    for relation in ["reworded", "paraphrase", "slot", "distinct", "unrelated"] {
        assert!(seen.get(relation).copied().unwrap_or(0) >= 8, "{relation}");
    }
}

#[test]
fn e5_thresholds_send_every_paraphrase_to_the_llm_or_reinforce_it() {
    let (pairs, embedder) = fixture();
    let llm = Rc::new(SaysDuplicate::default());
    let h = hippo(embedder, Some(llm.clone()));
    let paraphrases: Vec<&Pair> = pairs
        .iter()
        .filter(|p| p.relation == "paraphrase")
        .collect();
    for (i, pair) in paraphrases.iter().enumerate() {
        let action = add_pair(&h, &format!("p{i}"), pair);
        assert_eq!(action, "reinforced", "{} / {}", pair.old, pair.new);
    }
    assert!(
        llm.asked.get() > 0,
        "the looser paraphrases are the LLM's to judge"
    );
    // Unrelated English memories sit below the band: no LLM call is spent on them.
    let before = llm.asked.get();
    let english_unrelated = pairs
        .iter()
        .filter(|p| p.relation == "unrelated" && p.old.is_ascii());
    for (i, pair) in english_unrelated.enumerate() {
        assert_eq!(add_pair(&h, &format!("u{i}"), pair), "inserted");
    }
    assert_eq!(llm.asked.get(), before);
}
