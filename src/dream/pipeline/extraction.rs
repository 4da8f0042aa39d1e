//! The extraction stage: entity ops, PKG updates and typed memories from the new material
//! (the LLM when configured, else the built-in extractor), plus the content and emotion
//! records of the consumed log, and the watermark, in one batch.

use super::{commit, embed_records, port, records, Scan, MAX_ATTEMPTS};
use crate::api::{ExtractedMemoryReport, ExtractionReport};
use crate::conversation::Turn;
use crate::dream::extract::{extract, Extraction, SOURCE};
use crate::dream::{llm, provenance};
use crate::engine::{Hippo, NewMemory};
use crate::pkg::{self, Pkg};
use crate::ports::{Write, WriteBatch};
use crate::relationship::{self, EntityWrite, Relationships};

pub(super) async fn run(
    hippo: &Hippo,
    npcid: &str,
    scan: &Scan,
    move_watermark: bool,
    dry_run: bool,
) -> Result<ExtractionReport, String> {
    let ports = hippo.ports();
    let found = extraction(hippo, npcid, scan).await?;
    let records = records::for_turns(npcid, &scan.new, &scan.npc.settings);
    let record_vectors = embed_records(hippo, &records).await;

    for _ in 0..MAX_ATTEMPTS {
        let npc = ports
            .store
            .npc(npcid)
            .await
            .map_err(port("store"))?
            .ok_or("the NPC was deleted while dreaming")?;
        let mut batch = WriteBatch::expecting(npc.version);

        let entities: Relationships = ports
            .store
            .entities(npcid)
            .await
            .map_err(port("store"))?
            .into_iter()
            .collect();
        let outcome =
            relationship::apply_ops(&entities, npc.next_entity_seq, &found.entity_ops, false)
                .map_err(|e| format!("entity ops: {e}"))?;
        let rel_changes = !outcome.writes.is_empty();
        for w in outcome.writes {
            batch.push(match w {
                EntityWrite::Put { id, entity } => Write::PutEntity { id, entity },
                EntityWrite::Delete { id } => Write::DeleteEntity { id },
            });
        }
        if outcome.next_entity_seq != npc.next_entity_seq {
            batch.push(Write::PutNpc(crate::npc::Npc {
                next_entity_seq: outcome.next_entity_seq,
                ..npc.clone()
            }));
        }

        let current: Pkg = ports
            .store
            .pkg(npcid)
            .await
            .map_err(port("store"))?
            .into_iter()
            .collect();
        let pkg_changes = if found.pkg_updates.is_empty() {
            Vec::new()
        } else {
            pkg::merge_updates(&current, &found.pkg_updates)
                .map_err(|e| format!("PKG updates: {e}"))?
                .changes
        };
        let pkg_changed = !pkg_changes.is_empty();
        batch.writes.extend(
            pkg_changes
                .into_iter()
                .map(|(key, value)| Write::SetPkgField { key, value }),
        );

        let items: Vec<NewMemory> = found
            .memories
            .iter()
            .map(|m| new_memory(m, &scan.new))
            .collect();
        let plan = hippo
            .plan_memories(npcid, items)
            .await
            .map_err(|e| format!("memories: {e}"))?;
        let memories_changed = !plan.writes.is_empty();
        batch.writes.extend(plan.writes);
        batch.writes.extend(
            records
                .iter()
                .cloned()
                .map(|memory| Write::PutMemory { memory }),
        );
        if move_watermark {
            batch.push(Write::SetWatermark {
                seq: scan.last_seq(),
            });
        }

        let report = ExtractionReport {
            entity_ops_count: found.entity_ops.len(),
            pkg_updates_count: found.pkg_updates.len(),
            entity_ops: found.entity_ops.clone(),
            pkg_updates: found.pkg_updates.clone(),
            rel_written: rel_changes && !dry_run,
            pkg_written: pkg_changed && !dry_run,
            memories: found
                .memories
                .iter()
                .zip(&plan.results)
                .map(|(m, r)| ExtractedMemoryReport {
                    summary: m.summary.clone(),
                    memory_type: m.memory_type.as_str().to_string(),
                    importance: m.importance,
                    confidence: m.confidence,
                    action: r.action.clone(),
                    sensitive: r.sensitive,
                    sensitive_category: r.sensitive_category,
                    pinned: m.pinned,
                })
                .collect(),
            memories_written: memories_changed && !dry_run,
            dry_run,
        };
        if dry_run {
            return Ok(report);
        }
        if commit(hippo, npcid, batch).await? {
            let mut vectors = plan.vectors;
            vectors.extend(record_vectors);
            hippo.upsert_vectors(npcid, vectors).await;
            return Ok(report);
        }
    }
    Err("too many concurrent writes to the NPC; the next dream retries".into())
}

/// What the new material says: from the LLM when one is configured (an answer that fails
/// validation is an error, never a write), else from the built-in extractor.
async fn extraction(hippo: &Hippo, npcid: &str, scan: &Scan) -> Result<Extraction, String> {
    let Some(model) = &hippo.ports().llm else {
        return Ok(extract(&scan.new, scan.today));
    };
    let store = &hippo.ports().store;
    let pkg = store.pkg(npcid).await.map_err(port("store"))?;
    let entities = store.entities(npcid).await.map_err(port("store"))?;
    let known: Vec<String> = entities.iter().map(|(id, _)| id.clone()).collect();
    let prompt = llm::prompts::extraction(&scan.new, &pkg, &entities, scan.today);
    let answer = model
        .complete(&prompt.system, &prompt.messages)
        .await
        .map_err(port("LLM failed"))?;
    llm::parse::parse_extraction(&answer, &known).map_err(|e| format!("LLM output rejected: {e}"))
}

fn new_memory(m: &crate::dream::ExtractedMemory, turns: &[Turn]) -> NewMemory {
    let mut item = NewMemory::new(m.summary.clone(), m.memory_type, SOURCE);
    let said = format!("{} {}", m.summary, m.keywords.join(" "));
    item.source_turns = provenance::source_turns(&said, turns);
    item.keywords = m.keywords.clone();
    item.importance = m.importance;
    item.confidence = m.confidence;
    item.event_time = m.event_time;
    item.sensitive = m.sensitive;
    item.sensitive_category = m.sensitive_category;
    item.pinned = m.pinned;
    item
}
