//! Retrieval latency at 1k / 10k / 100k memories of one NPC, per call, with no best-of-N:
//!
//! - **engine**: what a caller waits for, `Hippo::retrieve` over the in-memory store and vector
//!   index (the npm package's path): store reads, lexical top 100, the vector index's nearest
//!   neighbours over every memory, the PKG / relationship / diary candidates, ranking, and the
//!   reinforcement write of what is returned.
//! - **native** (the core path alone, the baseline the engine is compared with in the same
//!   run): tokenize, embed, lexical top 100, corpus statistics, build candidates, rank.
//! - **vector scan**: the vector index's query alone.
//!
//! The three are timed one after the other for each query, so a busy machine slows all of
//! them alike; every figure is one call. The NPC is the one `make bench-npm` imports
//! (`corpus::document`). Heap figures come from the counting allocator.
//!
//! Last line with `--json`: `{"native": {"1000": {"p50_ms", "p95_ms", …}, …},
//! "engine": {"1000": {"min_ms", "p50_ms", "p95_ms", "p99_ms", …}, …}}`.

use crate::alloc::live_bytes;
use crate::args::Args;
use crate::corpus;
use crate::dream::block_on;
use hippo::api::RetrievalRequest;
use hippo::engine::Ports;
use hippo::memory::Collection;
use hippo::ports::{FixedClock, VectorFilter, VectorIndex};
use hippo::retrieval::embed::BuiltinEmbedder;
use hippo::retrieval::lexical::LexicalIndex;
use hippo::retrieval::rank::query_terms;
use hippo::retrieval::rank::{
    rank, Candidate, CandidateKind, RankRequest, LEXICAL_CANDIDATES, VECTOR_CANDIDATES,
};
use hippo::store::{MemoryStore, MemoryVectorIndex};
use hippo::time::phrase::parse_time_range;
use hippo::time::Timestamp;
use hippo::Hippo;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::rc::Rc;
use std::time::Instant;

pub fn run(args: &Args) -> Result<(), String> {
    let sizes = args.numbers("sizes", "1000,10000,100000")?;
    let queries = args.number("queries", 500)?;
    let (mut native, mut engine) = (serde_json::Map::new(), serde_json::Map::new());
    println!(
        "{:>7} | {:>33} | {:>33} | {:>17} | {:>9} {:>10} {:>6}",
        "size",
        "engine min/p50/p95/p99 ms",
        "native min/p50/p95/p99 ms",
        "scan p50/p95 ms",
        "import_ms",
        "B/memory",
        "load"
    );
    for &size in &sizes {
        let (core, full) = measure(size, queries);
        let four = |r: &Value| {
            format!(
                "{} / {} / {} / {}",
                r["min_ms"], r["p50_ms"], r["p95_ms"], r["p99_ms"]
            )
        };
        println!(
            "{:>7} | {:>33} | {:>33} | {:>17} | {:>9} {:>10} {:>6}",
            size,
            four(&full),
            four(&core),
            format!(
                "{} / {}",
                core["vector_scan_p50_ms"], core["vector_scan_p95_ms"]
            ),
            full["import_ms"],
            full["heap_bytes_per_memory"],
            full["load_avg"]
        );
        native.insert(size.to_string(), core);
        engine.insert(size.to_string(), full);
    }
    if args.flag("json") {
        println!("{}", json!({ "native": native, "engine": engine }));
    }
    Ok(())
}

/// The machine's 1-minute load average (how busy the shared cores were).
fn load_average() -> f64 {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse().ok())
        .unwrap_or(-1.0)
}

/// Times one closure call in milliseconds.
fn timed<T>(f: impl FnOnce() -> T) -> (T, f64) {
    let start = Instant::now();
    let out = f();
    (out, start.elapsed().as_secs_f64() * 1000.0)
}

/// `(native, engine)` rows for one size.
fn measure(size: usize, queries: usize) -> (Value, Value) {
    let now = Timestamp::parse(corpus::NOW).expect("valid");
    let (document, query_texts) = corpus::document(size, queries);

    // The core path's own index over the same memories.
    let heap_before = live_bytes();
    let (index, index_build) = timed(|| {
        let mut index = LexicalIndex::new();
        for m in &document.memories {
            index.add(&m.id, &m.summary, &m.keywords);
        }
        index
    });
    let index_heap = live_bytes().saturating_sub(heap_before);
    let memories = document.memories.clone();
    let by_id: HashMap<&str, usize> = memories
        .iter()
        .enumerate()
        .map(|(i, m)| (m.id.as_str(), i))
        .collect();
    let embedder = BuiltinEmbedder::new();

    // The engine, holding the NPC the way the npm package does.
    let store = Rc::new(MemoryStore::new());
    let vectors = Rc::new(MemoryVectorIndex::new());
    let hippo = Hippo::new(Ports {
        store: store.clone(),
        vectors: vectors.clone(),
        embedder: Rc::new(BuiltinEmbedder::new()),
        llm: None,
        clock: Rc::new(FixedClock::at(now)),
    });
    let heap_before = live_bytes();
    let (imported, import_ms) = timed(|| block_on(hippo.import_npc(corpus::NPCID, document)));
    imported.expect("import");
    let engine_heap = live_bytes().saturating_sub(heap_before);
    let load_start = load_average();

    let (mut engine_ms, mut core_ms, mut scan_ms) = (Vec::new(), Vec::new(), Vec::new());
    let mut returned = 0usize;
    for text in &query_texts {
        let request = RetrievalRequest {
            query: text.clone(),
            ..Default::default()
        };
        let (found, ms) = timed(|| block_on(hippo.retrieve(corpus::NPCID, request)));
        returned += found.expect("retrieve").memories.len();
        engine_ms.push(ms);

        let ((), ms) = timed(|| {
            let terms = query_terms(text, &Default::default());
            // The engine sends this vector to the vector index (timed apart below).
            std::hint::black_box(embedder.embed_text(text));
            let hits = index.search(&terms, LEXICAL_CANDIDATES);
            let stats = index.stats(&terms);
            let candidates = hits
                .iter()
                .map(|(id, _)| {
                    let m = &memories[by_id[id.as_str()]];
                    let mut c = Candidate::new(
                        id.clone(),
                        CandidateKind::Memory,
                        m.memory_type,
                        m.summary.clone(),
                        m.updated_at,
                    );
                    c.keywords = m.keywords.clone();
                    c.strength = 0.5;
                    c
                })
                .collect();
            let req = RankRequest {
                query: text.clone(),
                types: Vec::new(),
                time_range: parse_time_range(text, now.date()),
                max_results: 5,
                debug: false,
                now,
                names: Default::default(),
                min_vector_similarity: hippo::retrieval::embed::THRESHOLDS.relevant,
            };
            std::hint::black_box(rank(&req, candidates, &stats));
        });
        core_ms.push(ms);

        let query_vector = embedder.embed_text(text);
        let filter = VectorFilter {
            collections: vec![Collection::Memory, Collection::Content],
            types: Vec::new(),
            near: false,
            floor: None,
        };
        let (hits, ms) = timed(|| {
            block_on(vectors.query(corpus::NPCID, &query_vector, VECTOR_CANDIDATES, &filter))
        });
        std::hint::black_box(hits.expect("query"));
        scan_ms.push(ms);
    }
    let load_end = load_average();
    let round = |v: f64| (v * 1000.0).round() / 1000.0;
    let spread = |times: &mut Vec<f64>| {
        times.sort_by(f64::total_cmp);
        let at = |p: f64| round(percentile(times, p));
        json!({ "min_ms": at(0.0), "p50_ms": at(0.50), "p95_ms": at(0.95), "p99_ms": at(0.99) })
    };
    let mut core = spread(&mut core_ms);
    let scans = spread(&mut scan_ms);
    core["index_build_ms"] = json!(round(index_build));
    core["index_heap_mb"] = json!(round(index_heap as f64 / 1_048_576.0));
    core["vector_scan_p50_ms"] = scans["p50_ms"].clone();
    core["vector_scan_p95_ms"] = scans["p95_ms"].clone();
    core["vector_scan_p99_ms"] = scans["p99_ms"].clone();
    let mut full = spread(&mut engine_ms);
    full["import_ms"] = json!(round(import_ms));
    full["heap_mb"] = json!(round(engine_heap as f64 / 1_048_576.0));
    full["heap_bytes_per_memory"] = json!(engine_heap / size.max(1));
    full["mean_results"] = json!(round(returned as f64 / queries.max(1) as f64));
    full["load_avg"] = json!(format!("{load_start:.1}-{load_end:.1}"));
    (core, full)
}

/// The value at rank `p` of sorted `values` (nearest rank).
pub(crate) fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}
