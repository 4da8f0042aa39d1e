//! Retrieval latency of the core path at 1k / 10k / 100k memories of one NPC: tokenize the
//! query, embed it, lexical candidates, corpus statistics, build candidates, rank. The vector
//! index is a port (Vectorize in production), so its nearest-neighbour query is timed apart,
//! as a brute-force scan of an in-memory index (what the npm package's memory store does).
//!
//! Each query is timed [`REPEATS`] times and the fastest run kept (see there).
//!
//! Last line with `--json`: `{"native": {"1000": {"p50_ms", "p95_ms", …}, …}}`.

use crate::alloc::live_bytes;
use crate::args::Args;
use crate::corpus::{self, Rng};
use hippo::memory::MemoryType;
use hippo::retrieval::embed::{dot, BuiltinEmbedder};
use hippo::retrieval::lexical::LexicalIndex;
use hippo::retrieval::rank::query_terms;
use hippo::retrieval::rank::{rank, Candidate, CandidateKind, RankRequest, LEXICAL_CANDIDATES};
use hippo::time::phrase::parse_time_range;
use hippo::time::Timestamp;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::time::Instant;

/// Each query runs this many times and the fastest run counts: on a shared machine the slower
/// runs measure other processes' scheduling, not this code.
const REPEATS: usize = 3;

pub fn run(args: &Args) -> Result<(), String> {
    let sizes: Vec<usize> = args
        .value("sizes")
        .unwrap_or("1000,10000,100000")
        .split(',')
        .map(|s| s.trim().parse().map_err(|_| format!("bad size {s:?}")))
        .collect::<Result<_, _>>()?;
    let queries: usize = args
        .value("queries")
        .unwrap_or("300")
        .parse()
        .map_err(|_| "bad --queries")?;
    let mut native = serde_json::Map::new();
    println!(
        "{:>7} {:>8} {:>8} {:>9} {:>9} {:>10} {:>10} {:>11}",
        "size", "p50_ms", "p95_ms", "build_ms", "heap_MB", "embed_ms", "scan_p50", "scan_p95"
    );
    for &size in &sizes {
        let row = measure(size, queries);
        println!(
            "{:>7} {:>8} {:>8} {:>9} {:>9} {:>10} {:>10} {:>11}",
            size,
            row["p50_ms"],
            row["p95_ms"],
            row["index_build_ms"],
            row["index_heap_mb"],
            row["embed_build_ms"],
            row["vector_scan_p50_ms"],
            row["vector_scan_p95_ms"]
        );
        native.insert(size.to_string(), row);
    }
    if args.flag("json") {
        println!("{}", json!({ "native": native }));
    }
    Ok(())
}

struct Record {
    summary: String,
    keywords: Vec<String>,
    memory_type: MemoryType,
    updated_at: Timestamp,
}

fn measure(size: usize, queries: usize) -> Value {
    let now = Timestamp::parse("2026-04-08T12:00:00Z").expect("valid");
    let mut rng = Rng::new(0x5eed + size as u64);
    let records: Vec<Record> = (0..size)
        .map(|i| {
            let (summary, keywords) = corpus::memory(&mut rng);
            Record {
                summary,
                keywords,
                memory_type: MemoryType::ALL[i % MemoryType::ALL.len()],
                updated_at: now.plus_days(-((rng.below(400)) as i64)),
            }
        })
        .collect();
    let ids: Vec<String> = (0..size).map(|i| format!("m{i:06}")).collect();
    let by_id: HashMap<&str, usize> = ids
        .iter()
        .enumerate()
        .map(|(i, id)| (id.as_str(), i))
        .collect();

    let heap_before = live_bytes();
    let start = Instant::now();
    let mut index = LexicalIndex::new();
    for (id, r) in ids.iter().zip(&records) {
        index.add(id, &r.summary, &r.keywords);
    }
    let index_build = start.elapsed();
    let index_heap = live_bytes().saturating_sub(heap_before);

    let embedder = BuiltinEmbedder::new();
    let start = Instant::now();
    let vectors: Vec<Vec<f32>> = records
        .iter()
        .map(|r| embedder.embed_text(&r.summary))
        .collect();
    let embed_build = start.elapsed();

    let mut times = Vec::with_capacity(queries);
    let mut scans = Vec::with_capacity(queries);
    let mut returned = 0usize;
    for _ in 0..queries {
        let text = corpus::query(&mut rng);
        let mut fastest = f64::INFINITY;
        for _ in 0..REPEATS {
            let start = Instant::now();
            let terms = query_terms(&text, &Default::default());
            // The engine sends this vector to the vector index (timed apart below).
            std::hint::black_box(embedder.embed_text(&text));
            let hits = index.search(&terms, LEXICAL_CANDIDATES);
            let stats = index.stats(&terms);
            let candidates = hits
                .iter()
                .map(|(id, _)| {
                    let r = &records[by_id[id.as_str()]];
                    let mut c = Candidate::new(
                        id.clone(),
                        CandidateKind::Memory,
                        r.memory_type,
                        r.summary.clone(),
                        r.updated_at,
                    );
                    c.keywords = r.keywords.clone();
                    c.strength = 0.5;
                    c
                })
                .collect();
            let req = RankRequest {
                query: text.clone(),
                types: Vec::new(),
                time_range: parse_time_range(&text, now.date()),
                max_results: 5,
                debug: false,
                now,
                names: Default::default(),
                min_vector_similarity: hippo::retrieval::embed::THRESHOLDS.relevant,
            };
            returned += rank(&req, candidates, &stats).len();
            fastest = fastest.min(start.elapsed().as_secs_f64() * 1000.0);
        }
        times.push(fastest);

        let query_vector = embedder.embed_text(&text);
        let start = Instant::now();
        let mut best: Vec<(usize, f32)> = vectors
            .iter()
            .enumerate()
            .map(|(i, v)| (i, dot(&query_vector, v)))
            .collect();
        let k = hippo::retrieval::rank::VECTOR_CANDIDATES.min(best.len());
        if k > 0 {
            best.select_nth_unstable_by(k - 1, |a, b| b.1.total_cmp(&a.1));
        }
        std::hint::black_box(&best);
        scans.push(start.elapsed().as_secs_f64() * 1000.0);
    }
    let round = |v: f64| (v * 1000.0).round() / 1000.0;
    json!({
        "p50_ms": round(percentile(&mut times, 0.50)),
        "p95_ms": round(percentile(&mut times, 0.95)),
        "index_build_ms": round(index_build.as_secs_f64() * 1000.0),
        "index_heap_mb": round(index_heap as f64 / 1_048_576.0),
        "embed_build_ms": round(embed_build.as_secs_f64() * 1000.0),
        "vector_scan_p50_ms": round(percentile(&mut scans, 0.50)),
        "vector_scan_p95_ms": round(percentile(&mut scans, 0.95)),
        "mean_results": round(returned as f64 / (REPEATS * queries.max(1)) as f64),
    })
}

fn percentile(values: &mut [f64], p: f64) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    values.sort_by(f64::total_cmp);
    let rank = ((values.len() as f64 - 1.0) * p).round() as usize;
    values[rank]
}
