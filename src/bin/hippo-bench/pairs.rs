//! `hippo-bench pairs --data tests/data/model_pairs.json [--record]`: conflict resolution
//! (SPEC §2.3) under the configured model's thresholds, on memory pairs in Chinese and
//! English: a restated fact must reinforce, a paraphrase must at least reach the band where
//! the LLM is asked, a changed value must supersede, distinct and unrelated memories must
//! both be kept. Exits non-zero when a pair breaks its expectation. `--record` writes the
//! vectors back into the file, for the test that replays them without the model
//! (`tests/model_thresholds.rs`).

use crate::args::Args;
use hippo::memory::conflict::{decide, rule_verdict, Decision, Verdict};
use hippo::memory::{Memory, MemoryType};
use hippo::ports::{EmbedKind, SimilarityThresholds};
use hippo::retrieval::embed::{cosine, same_words};
use hippo::time::Timestamp;
use serde_json::{json, Value};

/// What the engine does with a new memory next to an old one, without an LLM.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Reinforced,
    /// Duplicate or not: in the band, the LLM would be asked (without one, the rules kept
    /// both).
    AskedKept,
    Superseded,
    Inserted,
}

pub fn outcome(old: &str, new: &str, similarity: f32, t: SimilarityThresholds) -> Outcome {
    let existing = Memory::new("old", MemoryType::Profile, old, Timestamp(0));
    match decide(new, &[(&existing, similarity)], t) {
        Decision::Reinforce { .. } => Outcome::Reinforced,
        Decision::Insert => Outcome::Inserted,
        Decision::Ambiguous { .. } => match rule_verdict(new, old, same_words) {
            Verdict::Duplicate => Outcome::Reinforced,
            Verdict::Supersedes => Outcome::Superseded,
            Verdict::Distinct => Outcome::AskedKept,
        },
    }
}

/// Whether `outcome` is right for a pair of `relation`.
pub fn expected(relation: &str, outcome: Outcome) -> bool {
    use Outcome::*;
    match relation {
        "reworded" => outcome == Reinforced,
        "paraphrase" => matches!(outcome, Reinforced | AskedKept),
        "slot" => outcome == Superseded,
        "distinct" | "unrelated" => matches!(outcome, Inserted | AskedKept),
        _ => false,
    }
}

pub fn run(args: &Args) -> Result<(), String> {
    let path = args.value("data").ok_or("pairs needs --data FILE")?;
    let raw = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    let mut file: Value = serde_json::from_str(&raw).map_err(|e| format!("{path}: {e}"))?;
    let model = crate::model::from_env()?.ok_or("pairs needs HIPPO_EMBED=openai")?;
    let pairs: Vec<(String, String, String)> = file["pairs"]
        .as_array()
        .ok_or("no pairs")?
        .iter()
        .map(|p| {
            let s = |k: &str| p[k].as_str().unwrap_or_default().to_string();
            (s("relation"), s("old"), s("new"))
        })
        .collect();
    let mut texts: Vec<String> = Vec::new();
    for (_, old, new) in &pairs {
        for t in [old, new] {
            if !texts.contains(t) {
                texts.push(t.clone());
            }
        }
    }
    let vectors = model.embed(EmbedKind::Document, &texts)?;
    let vector = |t: &str| &vectors[texts.iter().position(|x| x == t).expect("embedded")];
    let thresholds = model.thresholds();
    println!(
        "{}: duplicate {}, ambiguous {}",
        model.name(),
        thresholds.duplicate,
        thresholds.ambiguous
    );
    let mut failures = 0;
    let mut by_relation: Vec<(String, Vec<f32>)> = Vec::new();
    for (relation, old, new) in &pairs {
        let similarity = cosine(vector(old), vector(new));
        let got = outcome(old, new, similarity, thresholds);
        let ok = expected(relation, got);
        failures += usize::from(!ok);
        println!(
            "{} {relation:<10} {similarity:.3} {got:?}: {old} / {new}",
            if ok { "ok  " } else { "FAIL" }
        );
        match by_relation.iter_mut().find(|(r, _)| r == relation) {
            Some((_, v)) => v.push(similarity),
            None => by_relation.push((relation.clone(), vec![similarity])),
        }
    }
    for (relation, sims) in &by_relation {
        let min = sims.iter().copied().fold(f32::INFINITY, f32::min);
        let max = sims.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        println!(
            "{relation:<10} {} pairs, cosine {min:.3} to {max:.3}",
            sims.len()
        );
    }
    if args.flag("record") {
        // Five decimals keep every cosine within 1e-4 of the model's.
        let round = |x: f32| (x as f64 * 1e5).round() / 1e5;
        file["model"] = json!(model.name());
        file["vectors"] = texts
            .iter()
            .zip(&vectors)
            .map(|(t, v)| {
                (
                    t.clone(),
                    json!(v.iter().map(|&x| round(x)).collect::<Vec<_>>()),
                )
            })
            .collect::<serde_json::Map<_, _>>()
            .into();
        let text = serde_json::to_string(&file).map_err(|e| e.to_string())?;
        std::fs::write(path, text + "\n").map_err(|e| format!("{path}: {e}"))?;
        println!("recorded {} vectors in {path}", texts.len());
    }
    if failures > 0 {
        return Err(format!("{failures} pairs broke their expectation"));
    }
    Ok(())
}
