//! Retrieval time of an NPC with many PKG fields and relationship entities (the "structured candidates" cost):
//! every retrieval ranks each of them, and used to embed each of them again. Times
//! `Hippo::retrieve` on the in-memory ports with the vector cache off (capacity 0: the old
//! behaviour) and on (a first, cold retrieval, then warm ones), at the caps and at the size
//! the issue measured (8,000 fields and 16,000 entities, written to the store directly).
//!
//! ```text
//! hippo-bench structured [--queries N]
//! ```

use crate::args::Args;
use hippo::engine::Ports;
use hippo::pkg::PkgValue;
use hippo::ports::{FixedClock, Store, Write, WriteBatch};
use hippo::relationship::{entity_id, Entity};
use hippo::retrieval::embed::BuiltinEmbedder;
use hippo::retrieval::embed_cache::EmbeddingCache;
use hippo::store::{MemoryStore, MemoryVectorIndex};
use hippo::time::Timestamp;
use hippo::Hippo;
use std::cell::RefCell;
use std::rc::Rc;
use std::time::Instant;

pub fn run(args: &Args) -> Result<(), String> {
    let queries: usize = args
        .value("queries")
        .unwrap_or("20")
        .parse()
        .map_err(|_| "bad --queries")?;
    println!(
        "{:>7} {:>9} {:>14} {:>14} {:>14}",
        "fields", "entities", "no_cache_ms", "cold_ms", "warm_p50_ms"
    );
    for (fields, entities) in [
        (hippo::pkg::MAX_FIELDS, hippo::relationship::MAX_ENTITIES),
        (8_000, 16_000),
    ] {
        let store = Rc::new(MemoryStore::new());
        fill(&store, fields, entities)?;
        let hippo = |capacity: usize| {
            Hippo::new(Ports {
                store: store.clone(),
                vectors: Rc::new(MemoryVectorIndex::new()),
                embedder: Rc::new(BuiltinEmbedder::new()),
                llm: None,
                clock: Rc::new(FixedClock::at(Timestamp(1_775_642_400_000))),
            })
            .with_embedding_cache(Rc::new(RefCell::new(EmbeddingCache::new(capacity))))
        };
        let uncached = hippo(0);
        let no_cache = median((0..queries).map(|i| time(&uncached, i)).collect());
        let cached = hippo(64 * 1024 * 1024);
        let cold = time(&cached, 0);
        let warm = median((1..=queries).map(|i| time(&cached, i)).collect());
        println!("{fields:>7} {entities:>9} {no_cache:>14.1} {cold:>14.1} {warm:>14.1}");
    }
    Ok(())
}

fn fill(store: &MemoryStore, fields: usize, entities: usize) -> Result<(), String> {
    let mut batch = WriteBatch::new();
    batch.push(Write::PutNpc(hippo::npc::Npc::new("s", Timestamp(0))));
    for i in 0..fields {
        batch.push(Write::SetPkgField {
            key: format!("Field {i}"),
            value: PkgValue::Text(format!("value number {i}")),
            source_turns: Vec::new(),
        });
    }
    for i in 0..entities {
        let n = u32::try_from(i + 1).map_err(|e| e.to_string())?;
        batch.push(Write::PutEntity {
            id: entity_id(n),
            entity: Entity {
                name: format!("Person {i}"),
                title: vec!["friend".into()],
                ..Entity::default()
            },
        });
    }
    crate::dream::block_on(store.commit("s", batch)).map_err(|e| e.to_string())
}

/// Milliseconds of one retrieval.
fn time(hippo: &Hippo, i: usize) -> f64 {
    let request =
        serde_json::from_value(serde_json::json!({ "query": format!("who is Person {i}") }))
            .unwrap_or_default();
    let started = Instant::now();
    let _ = crate::dream::block_on(hippo.retrieve("s", request));
    started.elapsed().as_secs_f64() * 1000.0
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs.get(xs.len() / 2).copied().unwrap_or(0.0)
}
