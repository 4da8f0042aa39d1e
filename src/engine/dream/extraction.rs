//! The extraction stage: entity ops, PKG updates and typed memories from the new material
//! (the LLM when configured, else the built-in extractor), plus the content and emotion
//! records of the consumed log, and the watermark, in one batch.

use super::{embed_records, Scan, StageError};
use crate::api::{ExtractedMemoryReport, ExtractionReport};
use crate::dream::extract::{extract, Extraction, SOURCE};
use crate::dream::provenance::Provenance;
use crate::dream::records;
use crate::engine::npcs::entity_batch;
use crate::engine::{Hippo, NewMemory};
use crate::llm;
use crate::pkg;
use crate::ports::{Write, WriteBatch};
use crate::relationship::{self, EntityOp, Relationships};

pub(super) async fn run(
    hippo: &Hippo,
    npcid: &str,
    scan: &Scan,
    move_watermark: bool,
    dry_run: bool,
) -> Result<ExtractionReport, StageError> {
    let ports = hippo.ports();
    let found = extraction(hippo, npcid, scan).await?;
    let provenance = Provenance::new(&scan.new);
    let pkg_links: Vec<Vec<String>> = found
        .pkg_updates
        .iter()
        .map(|u| provenance.naming(&value_text(&u.value), &u.key))
        .collect();
    let records = records::for_turns(npcid, &scan.new, &scan.npc.settings);
    let record_vectors = embed_records(hippo, &records).await;

    let (report, vectors, unindexed) = hippo
        .retry_commit(npcid, async || -> Result<_, StageError> {
            let npc = ports
                .store
                .npc(npcid)
                .await
                .map_err(StageError::Store)?
                .ok_or(StageError::NpcDeleted)?;

            let entities: Relationships = crate::relationship::from_rows(
                ports
                    .store
                    .entities(npcid)
                    .await
                    .map_err(StageError::Store)?,
            );
            let entity_links: Vec<Vec<String>> = found
                .entity_ops
                .iter()
                .map(|op| entity_op_links(op, &entities, &provenance))
                .collect();
            let outcome = relationship::apply_linked_ops(
                &entities,
                npc.next_entity_seq,
                &found.entity_ops,
                &entity_links,
                false,
            )
            .map_err(StageError::rule("entity ops"))?;
            let rel_changes = !outcome.writes.is_empty();
            let mut batch = entity_batch(&npc, &outcome);

            let current = ports.store.pkg(npcid).await.map_err(StageError::Store)?;
            let pkg_writes = if found.pkg_updates.is_empty() {
                Vec::new()
            } else {
                let merge = pkg::merge_updates(&pkg::values(&current), &found.pkg_updates)
                    .map_err(StageError::rule("PKG updates"))?;
                pkg::field_writes(&current, &merge, &found.pkg_updates, &pkg_links)
            };
            let pkg_changed = !pkg_writes.is_empty();
            batch
                .writes
                .extend(pkg_writes.into_iter().map(Write::set_pkg_field));

            let items: Vec<NewMemory> = found
                .memories
                .iter()
                .map(|m| new_memory(m, &provenance))
                .collect();
            let plan = hippo
                .plan_memories(npcid, items)
                .await
                .map_err(StageError::rule("memories"))?;
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
            // A dry run commits nothing (an empty batch is no commit).
            let batch = if dry_run { WriteBatch::new() } else { batch };
            Ok((batch, (report, plan.vectors, plan.unindexed)))
        })
        .await?;
    if !dry_run {
        let mut vectors = vectors;
        vectors.extend(record_vectors);
        hippo.index_after_commit(npcid, vectors, &unindexed).await;
    }
    Ok(report)
}

/// What the new material says: from the LLM when one is configured (an answer that fails
/// validation is an error, never a write), else from the built-in extractor.
async fn extraction(hippo: &Hippo, npcid: &str, scan: &Scan) -> Result<Extraction, StageError> {
    let Some(model) = &hippo.ports().llm else {
        return Ok(extract(&scan.new, scan.today));
    };
    let store = &hippo.ports().store;
    let pkg = store.pkg(npcid).await.map_err(StageError::Store)?;
    let entities = store.entities(npcid).await.map_err(StageError::Store)?;
    let known: Vec<String> = entities.iter().map(|(id, _)| id.clone()).collect();
    let prompt = llm::prompts::extraction(&scan.new, &pkg, &entities, scan.today);
    let answer = model
        .complete(&prompt.system, &prompt.messages)
        .await
        .map_err(StageError::Llm)?;
    llm::parse::parse_extraction(&answer, &known).map_err(StageError::LlmRejected)
}

fn new_memory(m: &crate::dream::ExtractedMemory, provenance: &Provenance) -> NewMemory {
    let mut item = NewMemory::new(m.summary.clone(), m.memory_type, SOURCE);
    let said = format!("{} {}", m.summary, m.keywords.join(" "));
    item.source_turns = provenance.of(&said);
    item.keywords = m.keywords.clone();
    item.importance = m.importance;
    item.confidence = m.confidence;
    item.event_time = m.event_time;
    item.sensitive = m.sensitive;
    item.sensitive_category = m.sensitive_category;
    item.pinned = m.pinned;
    item
}

/// The words of a PKG update's value (a string, a number, or an array of those).
fn value_text(value: &serde_json::Value) -> String {
    match value {
        serde_json::Value::Array(items) => {
            items.iter().map(value_text).collect::<Vec<_>>().join(" ")
        }
        serde_json::Value::String(text) => text.clone(),
        serde_json::Value::Number(n) => n.to_string(),
        _ => String::new(),
    }
}

/// The turns an entity op came from: a turn naming the person (the op's name and aliases,
/// or the known entity's name when the op names it by id), their titles and remark breaking
/// ties. A delete links nothing.
fn entity_op_links(op: &EntityOp, known: &Relationships, provenance: &Provenance) -> Vec<String> {
    if op.op == relationship::OpKind::Delete {
        return Vec::new();
    }
    let name = op
        .name
        .clone()
        .or_else(|| {
            op.id
                .as_ref()
                .and_then(|id| known.get(id))
                .map(|e| e.name.clone())
        })
        .unwrap_or_default();
    let mut subject = vec![name];
    subject.extend(op.alias.iter().flatten().cloned());
    let mut detail: Vec<String> = op.title.iter().flatten().cloned().collect();
    detail.extend(op.remark.clone());
    provenance.naming(&subject.join(" "), &detail.join(" "))
}
