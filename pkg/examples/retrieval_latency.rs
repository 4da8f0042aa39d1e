//! Native half of the npm retrieval benchmark (`tests/npm/bench/retrieval-latency.mjs` is the
//! wasm half): the retrieval latency corpus of `hippo-bench latency` (same generator, seeds and
//! draw order, so the same memories and queries), written to `target/bench/npm/` as an
//! export document plus queries, and timed through the same engine path the package runs —
//! `Hippo::retrieve` over the in-memory store and vector index — natively.
//!
//! ```text
//! cargo run --release -p hippo-wasm --features bench --example retrieval_latency -- \
//!     [--sizes 1000,10000] [--queries 500] [--slowest N] [--only TEXT]
//! ```
//! As in `hippo-bench latency`, each query is one call, timed whole (min / p50 / p95 / p99).

// The generator lives in the benchmark binary; sharing its file keeps one corpus definition.
#[path = "../../src/bin/hippo-bench/corpus.rs"]
#[allow(dead_code)]
#[rustfmt::skip] // formatted with its own crate
mod corpus;

use futures::executor::block_on;
use hippo::api::{NpcExport, RetrievalRequest};
use hippo::engine::Ports;
use hippo::ports::FixedClock;
use hippo::retrieval::embed::BuiltinEmbedder;
use hippo::store::{MemoryStore, MemoryVectorIndex};
use hippo::time::Timestamp;
use hippo::Hippo;
use serde_json::{json, Value};
use std::path::PathBuf;
use std::rc::Rc;
use std::time::Instant;

use corpus::{NOW, NPCID};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let value = |name: &str, default: &str| -> String {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1).cloned())
            .unwrap_or_else(|| default.to_string())
    };
    let sizes: Vec<usize> = value("--sizes", "1000,10000")
        .split(',')
        .map(|s| s.trim().parse().expect("--sizes: numbers"))
        .collect();
    let queries: usize = value("--queries", "500")
        .parse()
        .expect("--queries: a number");
    // Where the tail is: the slowest questions of each size, with their times.
    let slowest: usize = value("--slowest", "0")
        .parse()
        .expect("--slowest: a number");
    // Only the questions containing this text (to profile one shape of question).
    let only = value("--only", "");
    let out = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/bench/npm");
    std::fs::create_dir_all(&out).expect("target/bench/npm");

    let mut native = serde_json::Map::new();
    for &size in &sizes {
        let (document, mut query_texts) = corpus::document(size, queries);
        query_texts.retain(|q| q.contains(&only));
        let file = out.join(format!("corpus-{size}.json"));
        let body =
            json!({ "now": NOW, "npcid": NPCID, "document": &document, "queries": &query_texts });
        std::fs::write(&file, body.to_string()).expect("write the corpus");
        let (row, answers) = measure(document, &query_texts, slowest);
        let file = out.join(format!("native-answers-{size}.json"));
        std::fs::write(&file, json!(answers).to_string()).expect("write the answers");
        println!("native {size:>7}: {row}");
        native.insert(size.to_string(), row);
    }
    let summary = json!({ "native": native });
    std::fs::write(out.join("native.json"), summary.to_string()).expect("write native.json");
    println!("{summary}");
}

/// Imports the document, then times `retrieve` for each query (as the package does).
/// Returns the timings and, per query, the ids retrieved (to compare with wasm's).
fn measure(document: NpcExport, queries: &[String], slowest: usize) -> (Value, Vec<Vec<String>>) {
    let hippo = Hippo::new(Ports {
        store: Rc::new(MemoryStore::new()),
        vectors: Rc::new(MemoryVectorIndex::new()),
        embedder: Rc::new(BuiltinEmbedder::new()),
        llm: None,
        clock: Rc::new(FixedClock::at(Timestamp::parse(NOW).expect("valid"))),
    });
    let start = Instant::now();
    block_on(hippo.import_npc(NPCID, document)).expect("import");
    let import_ms = start.elapsed().as_secs_f64() * 1000.0;
    let mut times = Vec::with_capacity(queries.len());
    let mut answers = Vec::with_capacity(queries.len());
    for query in queries {
        let request = RetrievalRequest {
            query: query.clone(),
            ..Default::default()
        };
        // One call per query, timed whole: no best-of-N (the wasm half does the same).
        let start = Instant::now();
        let found = block_on(hippo.retrieve(NPCID, request)).expect("retrieve");
        times.push(start.elapsed().as_secs_f64() * 1000.0);
        answers.push(found.memories.into_iter().map(|m| m.id).collect::<Vec<_>>());
    }
    let returned: usize = answers.iter().map(Vec::len).sum();
    let mut by_time: Vec<(f64, &String)> = times.iter().copied().zip(queries).collect();
    by_time.sort_by(|a, b| b.0.total_cmp(&a.0));
    for (ms, query) in by_time.iter().take(slowest) {
        println!("  {ms:8.3} ms  {query}");
    }
    times.sort_by(f64::total_cmp);
    let at = |p: f64| times[((times.len() as f64 - 1.0) * p).round() as usize];
    let round = |v: f64| (v * 1000.0).round() / 1000.0;
    let row = json!({
        "min_ms": round(at(0.0)),
        "p50_ms": round(at(0.50)),
        "p95_ms": round(at(0.95)),
        "p99_ms": round(at(0.99)),
        "import_ms": round(import_ms),
        "mean_results": round(returned as f64 / queries.len().max(1) as f64),
    });
    (row, answers)
}
