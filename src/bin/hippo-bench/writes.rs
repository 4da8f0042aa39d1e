//! `hippo-bench writes`: what adding memories costs as the store grows. Each new memory goes
//! through conflict resolution (SPEC §2.3) against the NPC's memories, so this is where a
//! write that scans the store would show.
//!
//! For each size N (the corpus of `hippo-bench latency`): the NPC is imported with its first
//! N − 100 × calls memories, then the rest arrive through `add_memories`, 100 per call, each
//! call timed (per-call cost at N; `--calls 0`: none). With `--fill`, a fresh NPC also
//! receives all N memories 100 per call from empty (the total), beside one `import_npc` of the
//! same N (the floor).
//!
//! `--data FILE` (a LoCoMo-shaped file, as `hippo-bench near` reads it): the memories are what
//! its turns say, one type, in order, each cut to a memory's limit, instead of the generated
//! corpus (whose memories repeat a few hundred templates): conflict resolution over real text.
//!
//! `--corpus FILE` (one size): writes the NPC of that size where the package's benchmarks read
//! it (`{now, npcid, document, queries: []}`, as `make bench-npm` writes its corpus) and
//! measures nothing: `make bench-npm-writes-lme` fills the package with real turns from it.
//!
//! Last line with `--json`: `{"writes": {"N": {"call_p50_ms"?, "call_max_ms"?, "import_ms",
//! "fill_ms"?, "fill_actions"?: {"inserted", "reinforced", "superseded"}}}}`: the actions tell
//! whether two builds' look-ups found the same conflicts.

use crate::args::Args;
use crate::corpus;
use crate::dream::block_on;
use hippo::api::{AddMemoriesRequest, NpcExport};
use hippo::engine::Ports;
use hippo::memory::{Memory, MAX_SUMMARY_CHARS};
use hippo::ports::FixedClock;
use hippo::retrieval::embed::BuiltinEmbedder;
use hippo::store::{MemoryStore, MemoryVectorIndex};
use hippo::time::Timestamp;
use hippo::Hippo;
use serde_json::json;
use std::rc::Rc;
use std::time::Instant;

const PER_CALL: usize = 100;

fn engine() -> Hippo {
    Hippo::new(Ports {
        store: Rc::new(MemoryStore::new()),
        vectors: Rc::new(MemoryVectorIndex::new()),
        embedder: Rc::new(BuiltinEmbedder::new()),
        llm: None,
        clock: Rc::new(FixedClock::at(
            Timestamp::parse(corpus::NOW).expect("valid"),
        )),
    })
}

/// How many new memories conflict resolution inserted, reinforced and superseded: the same
/// counts for two builds mean their look-ups found the same conflicts.
#[derive(Default)]
struct Actions {
    inserted: usize,
    reinforced: usize,
    superseded: usize,
}

fn add_all(
    hippo: &Hippo,
    memories: &[Memory],
    times: &mut Vec<f64>,
    actions: &mut Actions,
) -> Result<(), String> {
    for chunk in memories.chunks(PER_CALL) {
        let request = AddMemoriesRequest {
            memories: chunk
                .iter()
                .map(|m| corpus::input(m.summary.clone(), m.keywords.clone(), m.memory_type))
                .collect(),
        };
        let start = Instant::now();
        let added =
            block_on(hippo.add_memories(corpus::NPCID, request)).map_err(|e| e.to_string())?;
        times.push(start.elapsed().as_secs_f64() * 1000.0);
        for result in added.results {
            match result.action.as_str() {
                "inserted" => actions.inserted += 1,
                "reinforced" => actions.reinforced += 1,
                _ => actions.superseded += 1,
            }
        }
    }
    Ok(())
}

/// The NPC of size `size`: the generated corpus, or with `--data` its memories replaced by the
/// file's turns (at most `size` of them).
fn document(args: &Args, size: usize) -> Result<NpcExport, String> {
    let (mut document, _) = corpus::document(size, 0);
    if args.value("data").is_some() {
        let template = document
            .memories
            .first()
            .cloned()
            .ok_or("an empty corpus")?;
        document.memories = crate::near::texts(args, size)?
            .into_iter()
            .enumerate()
            .map(|(i, (text, memory_type))| Memory {
                id: format!("mem_turn{i:06}"),
                summary: text.chars().take(MAX_SUMMARY_CHARS).collect(),
                memory_type,
                keywords: Vec::new(),
                ..template.clone()
            })
            .collect();
    }
    Ok(document)
}

fn import(hippo: &Hippo, document: &NpcExport) -> Result<f64, String> {
    let start = Instant::now();
    block_on(hippo.import_npc(corpus::NPCID, document.clone())).map_err(|e| e.to_string())?;
    Ok(start.elapsed().as_secs_f64() * 1000.0)
}

pub fn run(args: &Args) -> Result<(), String> {
    let sizes = args.numbers("sizes", "1000,10000,100000")?;
    if let Some(path) = args.value("corpus") {
        let &[size] = sizes.as_slice() else {
            return Err("--corpus writes one size: give --sizes N".into());
        };
        let body = json!({
            "now": corpus::NOW,
            "npcid": corpus::NPCID,
            "document": document(args, size)?,
            "queries": [],
        });
        return std::fs::write(path, body.to_string()).map_err(|e| format!("{path}: {e}"));
    }
    let calls = args.number("calls", 5)?;
    let round = |v: f64| (v * 10.0).round() / 10.0;
    let mut rows = serde_json::Map::new();
    println!(
        "{:>7} | {:>27} | {:>10} | {:>10} {:>7}",
        "size", "ms per call of 100: min/p50/max", "import ms", "fill ms", "ratio"
    );
    for &size in &sizes {
        let document = document(args, size)?;
        let size = document.memories.len();
        let held = (PER_CALL * calls).min(size);
        let mut head = document.clone();
        let tail = head.memories.split_off(size - held);
        let hippo = engine();
        import(&hippo, &head)?;
        let mut times = Vec::new();
        add_all(&hippo, &tail, &mut times, &mut Actions::default())?;
        drop(hippo);
        times.sort_by(f64::total_cmp);
        let import_ms = import(&engine(), &document)?;
        let mut row = json!({ "import_ms": round(import_ms) });
        // `--calls 0`: no call on the imported store (a profile of the fill alone).
        if let (Some(min), Some(max)) = (times.first(), times.last()) {
            row["call_min_ms"] = json!(round(*min));
            row["call_p50_ms"] = json!(round(times[times.len() / 2]));
            row["call_max_ms"] = json!(round(*max));
        }
        let mut fill = String::from("-");
        let mut ratio = String::from("-");
        if args.flag("fill") {
            let hippo = engine();
            block_on(hippo.import_npc(
                corpus::NPCID,
                NpcExport {
                    memories: Vec::new(),
                    ..document.clone()
                },
            ))
            .map_err(|e| e.to_string())?;
            let start = Instant::now();
            let mut actions = Actions::default();
            add_all(&hippo, &document.memories, &mut Vec::new(), &mut actions)?;
            let fill_ms = start.elapsed().as_secs_f64() * 1000.0;
            row["fill_ms"] = json!(round(fill_ms));
            row["fill_actions"] = json!({
                "inserted": actions.inserted,
                "reinforced": actions.reinforced,
                "superseded": actions.superseded,
            });
            fill = format!("{:.0}", fill_ms);
            ratio = format!("{:.2}", fill_ms / import_ms);
        }
        println!(
            "{:>7} | {:>27} | {:>10.0} | {:>10} {:>7}",
            size,
            match row.get("call_min_ms") {
                Some(min) => format!("{min} / {} / {}", row["call_p50_ms"], row["call_max_ms"]),
                None => "-".into(),
            },
            import_ms,
            fill,
            ratio
        );
        rows.insert(size.to_string(), row);
    }
    if args.flag("json") {
        println!("{}", json!({ "writes": rows }));
    }
    Ok(())
}
