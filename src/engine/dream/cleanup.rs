//! The cleanup stage: expired `content` and `emotion` records go, with their vectors.

use super::StageError;
use crate::api::CleanupReport;
use crate::engine::Hippo;
use crate::memory::Collection;
use crate::ports::{MemoryFilter, Write, WriteBatch};
use crate::time::Timestamp;

pub(super) async fn run(
    hippo: &Hippo,
    npcid: &str,
    now: Timestamp,
    dry_run: bool,
) -> Result<CleanupReport, StageError> {
    let store = &hippo.ports().store;
    let mut expired: Vec<(Collection, String)> = Vec::new();
    for collection in [Collection::Content, Collection::Emotion] {
        let filter = MemoryFilter {
            collection: Some(collection),
            include_superseded: true,
            ..MemoryFilter::default()
        };
        let records = store
            .memories(npcid, &filter)
            .await
            .map_err(StageError::Store)?;
        expired.extend(
            records
                .into_iter()
                .filter(|m| m.is_expired(now))
                .map(|m| (collection, m.id)),
        );
    }
    let count = |c: Collection| expired.iter().filter(|(k, _)| *k == c).count();
    let report = CleanupReport {
        content_hybrid_deleted: count(Collection::Content),
        emotion_v2_deleted: count(Collection::Emotion),
        dry_run,
    };
    if dry_run || expired.is_empty() {
        return Ok(report);
    }
    // Vectors first: if the index fails, the records stay and the next cleanup retries both
    // (a record without a vector would be a silent leak in the index otherwise).
    let ids: Vec<String> = expired.into_iter().map(|(_, id)| id).collect();
    hippo
        .ports()
        .vectors
        .delete(npcid, &ids)
        .await
        .map_err(StageError::VectorIndex)?;
    let batch = WriteBatch {
        writes: ids
            .iter()
            .map(|id| Write::DeleteMemory { id: id.clone() })
            .collect(),
        expect_version: None,
    };
    // Unguarded (deleting an expired record commutes with every other write).
    hippo
        .try_commit(npcid, batch)
        .await
        .map_err(StageError::Store)?;
    Ok(report)
}
