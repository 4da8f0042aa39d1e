//! The fake provider's built-in character `01` (灵绯): what `POST /memory_retrieval/fake`
//! serves, seeded on first use and ranked by the same code as every other NPC.
//!
//! It lives under a reserved npcid so no real NPC is ever exposed without a token. The data is
//! `lingfei.json`, compiled in; the seed is an import of one export document with fixed ids,
//! so seeding twice (or two first requests at once) writes the same rows.

use hippo::api::protocol::ParsedRetrieval;
use hippo::api::{NpcExport, RetrievalResponse, EXPORT_FORMAT, EXPORT_VERSION};
use hippo::diary::Diary;
use hippo::error::Error;
use hippo::memory::{Memory, MemoryType};
use hippo::npc::Npc;
use hippo::pkg::{Pkg, PkgValue};
use hippo::time::Timestamp;
use hippo::Hippo;
use serde::Deserialize;
use std::cell::Cell;

/// Where character 01 lives in the store.
pub const DEMO_NPCID: &str = "__demo_01";
/// Bump when `lingfei.json` changes: the next request re-seeds.
const DATA_VERSION: &str = "1";
const SEEDED_KEY: &str = "demo.01.version";

const DATA: &str = include_str!("lingfei.json");

#[derive(Deserialize)]
struct DemoData {
    display_name: String,
    pkg: Pkg,
    memories: Vec<DemoMemory>,
}

#[derive(Deserialize)]
struct DemoMemory {
    days_ago: i64,
    #[serde(rename = "type")]
    memory_type: MemoryType,
    summary: String,
    keywords: Vec<String>,
    confidence: f64,
    importance: f64,
    source: String,
    #[serde(default)]
    event_days_ago: Option<i64>,
}

/// The export document of character 01, with times relative to `now`.
#[allow(
    clippy::expect_used,
    reason = "compiled-in data, read by the test below: no request can change it"
)]
pub fn document(now: Timestamp) -> NpcExport {
    let data: DemoData = serde_json::from_str(DATA).expect("lingfei.json matches DemoData");
    let created = now.plus_days(-90);
    let mut npc = Npc::new(DEMO_NPCID, created);
    npc.display_name = data.display_name;
    let memories = data
        .memories
        .into_iter()
        .enumerate()
        .map(|(i, m)| {
            let at = now.plus_days(-m.days_ago);
            Memory {
                keywords: m.keywords,
                confidence: m.confidence,
                importance: m.importance,
                source: m.source,
                event_time: m.event_days_ago.map(|d| now.plus_days(-d)),
                ..Memory::new(format!("demo01_{i:02}"), m.memory_type, m.summary, at)
            }
        })
        .collect();
    let mut pkg = data.pkg;
    pkg.retain(|_, v| !matches!(v, PkgValue::Flag(_)));
    NpcExport {
        format: EXPORT_FORMAT.to_string(),
        version: EXPORT_VERSION,
        npc,
        pkg,
        pkg_source_turns: Default::default(),
        relationship: Default::default(),
        diary: Diary::default(),
        turns: Vec::new(),
        memories,
    }
}

thread_local! {
    /// This isolate has seen character 01 in place (saves two reads per request).
    static SEEDED: Cell<bool> = const { Cell::new(false) };
}

/// Serves a fake-provider request, read-only (the route is public: an anonymous caller must
/// not be able to cause writes, so what it returns is not reinforced). Seeds character 01 if
/// this database lacks it (once per data version), and again if it vanished since (an admin
/// may delete `__demo_01` like any NPC).
pub async fn retrieve(hippo: &Hippo, request: ParsedRetrieval) -> Result<RetrievalResponse, Error> {
    if !SEEDED.with(Cell::get) {
        ensure_seeded(hippo).await?;
    }
    match hippo.retrieve_read_only(DEMO_NPCID, request.clone()).await {
        Err(Error::NotFound(_)) => {
            SEEDED.with(|s| s.set(false));
            ensure_seeded(hippo).await?;
            hippo.retrieve_read_only(DEMO_NPCID, request).await
        }
        other => other,
    }
}

/// Seeds character 01 unless this data version is already there.
pub async fn ensure_seeded(hippo: &Hippo) -> Result<(), Error> {
    let store = hippo.ports().store.clone();
    let seeded = store.meta(SEEDED_KEY).await?;
    if seeded.as_deref() != Some(DATA_VERSION) || store.npc(DEMO_NPCID).await?.is_none() {
        let now = hippo.ports().clock.now();
        hippo.import_npc(DEMO_NPCID, document(now)).await?;
        store.set_meta(SEEDED_KEY, DATA_VERSION).await?;
    }
    SEEDED.with(|s| s.set(true));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn demo_holds_the_three_seed_facts_and_more() {
        let doc = document(Timestamp::parse("2026-04-09").unwrap());
        let all: String = doc.memories.iter().map(|m| m.summary.as_str()).collect();
        for fact in ["阿澈", "月亮醒了", "先给结论，再补充两三条理由"] {
            assert!(all.contains(fact), "missing {fact}");
        }
        assert!(doc.memories.len() >= 15);
        assert!(doc
            .memories
            .iter()
            .all(|m| !m.sensitive && m.superseded_by.is_none()));
        let mut ids: Vec<&str> = doc.memories.iter().map(|m| m.id.as_str()).collect();
        ids.dedup();
        assert_eq!(ids.len(), doc.memories.len());
        assert_eq!(doc.npc.display_name, "灵绯");
        assert!(hippo::ids::validate_npcid(DEMO_NPCID).is_ok());
    }
}
