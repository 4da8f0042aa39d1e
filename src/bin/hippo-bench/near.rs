//! `hippo-bench near`: how much of the exact answer conflict resolution's near look-up finds.
//!
//! Conflict resolution asks the vector index, once per new memory, for the stored memories of
//! the same type nearest to it (`VectorFilter::near`, floored at the embedder's ambiguous
//! band): the in-memory index answers from a few cells of a partition
//! (`src/store/partition.rs`), not from every row. This replays a store filling up through the
//! product's ports (the built-in embedder, `MemoryVectorIndex`): every memory is embedded as a
//! fill embeds it and upserted; every `--every`-th one first asks both the near look-up and
//! the exact query (the same filter, `near: false`), and the near one is scored against the
//! exact one. Beside it, the other half of what conflict resolution compares: the lexical
//! index's best ([`CONFLICT_CANDIDATES`] over terms in at most [`CONFLICT_MAX_DF`] memories,
//! of the same type, scored by the index's vectors as conflict resolution scores them, kept
//! from the floor up), alone and joined with the near look-up's (the union is what decide
//! picks from).
//!
//! ```text
//! hippo-bench near [--size N] [--every K] [--data FILE] [--json]
//! ```
//! Without `--data`: the first N memories of the writes benchmark's corpus (its types as they
//! are). With `--data` (a LoCoMo-shaped file: LoCoMo, `target/external/*.json`): what every turn
//! says, as `hippo-bench locomo` reads it, one type, in order. Last line with `--json`: `{"near": {"rows", "queries",
//! "with_hits", "recall", "top1", "lexical_recall", "lexical_top1", "union_recall",
//! "union_top1", "near_ms_p50", "exact_ms_p50"}}`, where `recall` is the share of the exact
//! hits the near look-up returned and `top1` the share of queries whose best exact hit it
//! returned first (`lexical_*`: the lexical leg's; `union_*`: both legs').

use crate::args::Args;
use crate::corpus;
use crate::dream::block_on;
use crate::latency;
use crate::locomo;
use hippo::engine::{embedding_text, CONFLICT_CANDIDATES, CONFLICT_MAX_DF};
use hippo::memory::{Collection, MemoryType};
use hippo::ports::{EmbedKind, Embedder, VectorFilter, VectorIndex, VectorItem};
use hippo::retrieval::embed::BuiltinEmbedder;
use hippo::retrieval::lexical::LexicalIndex;
use hippo::retrieval::tokenize::tokenize_query_to_index;
use hippo::store::MemoryVectorIndex;
use serde_json::{json, Value};
use std::time::Instant;

const NPCID: &str = "near-bench";
/// Conflict resolution's look-ups each return this many.
const TOP_K: usize = CONFLICT_CANDIDATES;

/// The texts to store, with their types, in the order they arrive.
pub fn texts(args: &Args, size: usize) -> Result<Vec<(String, MemoryType)>, String> {
    let Some(path) = args.value("data") else {
        let (document, _) = corpus::document(size, 0);
        return Ok(document
            .memories
            .iter()
            .map(|m| (embedding_text(&m.summary, &m.keywords), m.memory_type))
            .collect());
    };
    let raw = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    let data: Value = serde_json::from_str(&raw).map_err(|e| format!("{path}: {e}"))?;
    let mut out = Vec::new();
    for sample in data.as_array().into_iter().flatten() {
        // The turns as `hippo-bench locomo` reads them: sessions in order, what was said
        // without the speaker label.
        for item in locomo::load(sample)?.items {
            if !item.content.trim().is_empty() {
                out.push((item.content, MemoryType::Profile));
            }
        }
    }
    out.truncate(size);
    Ok(out)
}

/// How much of `exact` (best first) `found` holds, and whether its best is `exact`'s.
fn scored(exact: &[(String, f32)], mut found: Vec<(String, f32)>) -> (usize, bool) {
    found.sort_by(|a, b| b.1.total_cmp(&a.1));
    let held = exact
        .iter()
        .filter(|(id, _)| found.iter().any(|(f, _)| f == id))
        .count();
    (
        held,
        found.first().map(|(id, _)| id) == exact.first().map(|(id, _)| id),
    )
}

fn p50(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    latency::percentile(&values, 0.5)
}

pub fn run(args: &Args) -> Result<(), String> {
    let size = args.number("size", 30_000)?;
    let every = args.number("every", 10)?.max(1);
    let texts = texts(args, size)?;
    let embedder = BuiltinEmbedder::new();
    let floor = embedder.thresholds().ambiguous;
    let index = MemoryVectorIndex::new();
    let (mut queries, mut with_hits, mut exact_hits, mut found, mut top1) = (0, 0, 0, 0, 0);
    let (mut near_ms, mut exact_ms) = (Vec::new(), Vec::new());
    // The lexical leg: the index conflict resolution asks, and each stored row's type.
    let mut lexical = LexicalIndex::new();
    let mut types: Vec<MemoryType> = Vec::new();
    let (mut lexical_found, mut lexical_top1, mut union_found, mut union_top1) = (0, 0, 0, 0);
    for (i, (text, memory_type)) in texts.iter().enumerate() {
        let vector = block_on(embedder.embed(EmbedKind::Document, std::slice::from_ref(text)))
            .map_err(|e| e.to_string())?
            .pop()
            .ok_or("no vector")?;
        if i % every == 0 {
            let filter = |near| VectorFilter {
                collections: vec![Collection::Memory],
                types: vec![*memory_type],
                near,
                floor: Some(floor),
            };
            let start = Instant::now();
            let near = block_on(index.query(NPCID, &vector, TOP_K, &filter(true)))
                .map_err(|e| e.to_string())?;
            near_ms.push(start.elapsed().as_secs_f64() * 1000.0);
            let start = Instant::now();
            let exact = block_on(index.query(NPCID, &vector, TOP_K, &filter(false)))
                .map_err(|e| e.to_string())?;
            exact_ms.push(start.elapsed().as_secs_f64() * 1000.0);
            queries += 1;
            let terms = tokenize_query_to_index(text);
            let type_of = |id: &str| {
                let at: usize = id.strip_prefix('m')?.parse().ok()?;
                types.get(at).copied()
            };
            // Scored as conflict resolution scores them: by the index's stored vectors.
            let finds: Vec<String> = lexical
                .search_rare(&terms, TOP_K, CONFLICT_MAX_DF)
                .into_iter()
                .map(|(id, _)| id)
                .filter(|id| type_of(id) == Some(*memory_type))
                .collect();
            let lexical_hits: Vec<(String, f32)> =
                block_on(index.similarities(NPCID, &vector, &finds))
                    .map_err(|e| e.to_string())?
                    .into_iter()
                    .filter(|(_, s)| *s >= floor)
                    .collect();
            if !exact.is_empty() {
                with_hits += 1;
                exact_hits += exact.len();
                let mut union = near.clone();
                for hit in &lexical_hits {
                    if !union.iter().any(|(id, _)| *id == hit.0) {
                        union.push(hit.clone());
                    }
                }
                let (held, first) = scored(&exact, near);
                found += held;
                top1 += usize::from(first);
                let (held, first) = scored(&exact, lexical_hits);
                lexical_found += held;
                lexical_top1 += usize::from(first);
                let (held, first) = scored(&exact, union);
                union_found += held;
                union_top1 += usize::from(first);
            }
        }
        let item = VectorItem {
            id: format!("m{i}"),
            collection: Collection::Memory,
            memory_type: *memory_type,
            values: vector,
        };
        lexical.add(&item.id, text, &[]);
        types.push(*memory_type);
        block_on(index.upsert(NPCID, vec![item])).map_err(|e| e.to_string())?;
    }
    let share = |n: usize, of: usize| if of == 0 { 1.0 } else { n as f64 / of as f64 };
    let round = |v: f64| (v * 10_000.0).round() / 10_000.0;
    let summary = json!({
        "rows": texts.len(),
        "queries": queries,
        "with_hits": with_hits,
        "recall": round(share(found, exact_hits)),
        "top1": round(share(top1, with_hits)),
        "lexical_recall": round(share(lexical_found, exact_hits)),
        "lexical_top1": round(share(lexical_top1, with_hits)),
        "union_recall": round(share(union_found, exact_hits)),
        "union_top1": round(share(union_top1, with_hits)),
        "near_ms_p50": round(p50(near_ms)),
        "exact_ms_p50": round(p50(exact_ms)),
    });
    println!(
        "{} rows, {} look-ups ({} with an exact hit above the floor {floor}): recall {:.4}, \
         best first {:.4}; lexical leg {:.4}, {:.4}; both legs {:.4}, {:.4}; p50 near {:.3} ms, \
         exact {:.3} ms",
        summary["rows"],
        summary["queries"],
        summary["with_hits"],
        summary["recall"].as_f64().unwrap_or(0.0),
        summary["top1"].as_f64().unwrap_or(0.0),
        summary["lexical_recall"].as_f64().unwrap_or(0.0),
        summary["lexical_top1"].as_f64().unwrap_or(0.0),
        summary["union_recall"].as_f64().unwrap_or(0.0),
        summary["union_top1"].as_f64().unwrap_or(0.0),
        summary["near_ms_p50"].as_f64().unwrap_or(0.0),
        summary["exact_ms_p50"].as_f64().unwrap_or(0.0),
    );
    if args.flag("json") {
        println!("{}", json!({ "near": summary }));
    }
    Ok(())
}
