//! The dream of one NPC (SPEC §2.5): Scan → Diary → Extraction → Cleanup, over the ports,
//! applying the rules of `crate::dream` (and the LLM through `crate::llm` when configured).
//!
//! - **Scan** reads the log after the NPC's watermark (at most [`SCAN_LIMIT`] entries; the
//!   rest waits for the next dream). Nothing new: the report says `skipped`.
//! - **Diary** ([`diary`]) writes today's entry and rolls the window, in one batch.
//! - **Extraction** ([`extraction`]) applies entity ops, PKG updates and memories (through
//!   conflict resolution), stores the consumed turns as `content` chunks and the felt ones
//!   as `emotion` snippets, and moves the watermark, in one batch.
//! - **Cleanup** ([`cleanup`]) deletes expired `content` and `emotion` records and vectors.
//!
//! A stage that fails writes nothing, its message goes into `error`, and the stages after it
//! still run. The watermark moves (inside the extraction batch) only when the diary and the
//! extraction both consumed the scanned material, so a failed dream is retried in full by
//! the next one; content and emotion records have ids derived from the log entry, so a retry
//! replaces them instead of adding copies. A lease keeps two dreams of one NPC apart. A dry
//! run computes every stage, takes no lease and writes nothing.

mod cleanup;
mod diary;
mod extraction;

pub use diary::{diary_record_id, DIARY_CONFIDENCE, DIARY_RECORD_PREFIX};
pub use diary::{DAILY_MAX_CHARS, PRIOR_MAX_CHARS};

use crate::api::DreamReport;
use crate::conversation::Turn;
use crate::engine::embedding_text;
use crate::engine::CommitError;
use crate::engine::Hippo;
use crate::error::{Error, PortError, Result};
use crate::ids::new_id;
use crate::npc::Npc;
use crate::ports::{EmbedKind, VectorItem};
use chrono::NaiveDate;

/// Most log entries one dream consumes.
pub const SCAN_LIMIT: usize = 1_000;
/// How long a dream's lease lasts if its holder never releases it.
pub const LEASE_MS: i64 = 15 * 60 * 1_000;

/// What the scan found.
pub(crate) struct Scan {
    pub npc: Npc,
    /// Log entries after the watermark, in `seq` order.
    pub new: Vec<Turn>,
    pub today: NaiveDate,
}

impl Scan {
    /// The `seq` the watermark moves to once everything scanned is consumed.
    pub fn last_seq(&self) -> u64 {
        self.new.last().map_or(self.npc.watermark, |t| t.seq)
    }
}

/// Runs the dream of `npcid`. `Error::Busy` when another dream of the NPC holds the lease;
/// stage failures are reported in the report's `error`, not as an `Err`.
pub async fn run_dream(hippo: &Hippo, npcid: &str, dry_run: bool) -> Result<DreamReport> {
    let ports = hippo.ports();
    if dry_run {
        return dream(hippo, npcid, true).await;
    }
    let holder = new_id("dream");
    let now = ports.clock.now().clamped();
    let until = now.plus_ms(LEASE_MS);
    if !ports
        .store
        .acquire_lease(npcid, &holder, now, until)
        .await?
    {
        return Err(Error::Busy(format!(
            "a dream of NPC {npcid} is already running"
        )));
    }
    let outcome = dream(hippo, npcid, false).await;
    // An unreleased lease lapses on its own; a failed release must not hide the report.
    let _ = ports.store.release_lease(npcid, &holder).await;
    outcome
}

async fn dream(hippo: &Hippo, npcid: &str, dry_run: bool) -> Result<DreamReport> {
    let ports = hippo.ports();
    let npc = ports
        .store
        .npc(npcid)
        .await?
        .ok_or_else(|| Error::not_found(format!("NPC {npcid} does not exist")))?;
    let new = ports.store.turns(npcid, npc.watermark, SCAN_LIMIT).await?;
    if new.is_empty() {
        return Ok(DreamReport {
            skipped: true,
            ..DreamReport::default()
        });
    }
    let now = ports.clock.now().clamped();
    let scan = Scan {
        npc,
        new,
        today: now.date(),
    };
    let mut errors: Vec<String> = Vec::new();
    let diary = match diary::run(hippo, npcid, &scan, dry_run).await {
        Ok(report) => Some(report),
        Err(e) => {
            errors.push(format!("diary: {e}"));
            None
        }
    };
    let extractions = match extraction::run(hippo, npcid, &scan, diary.is_some(), dry_run).await {
        Ok(report) => Some(report),
        Err(e) => {
            errors.push(format!("extraction: {e}"));
            None
        }
    };
    let cleanup = match cleanup::run(hippo, npcid, now, dry_run).await {
        Ok(report) => Some(report),
        Err(e) => {
            errors.push(format!("cleanup: {e}"));
            None
        }
    };
    Ok(DreamReport {
        skipped: false,
        diary,
        extractions,
        cleanup,
        error: (!errors.is_empty()).then(|| errors.join("; ")),
    })
}

/// Why a stage wrote nothing; its message goes into the report's `error`, after the
/// stage's name.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub(crate) enum StageError {
    #[error("store: {0}")]
    Store(PortError),
    #[error("vector index: {0}")]
    VectorIndex(PortError),
    #[error("LLM failed: {0}")]
    Llm(PortError),
    /// The LLM's answer failed validation (nothing of it is written).
    #[error("LLM output rejected: {0}")]
    LlmRejected(String),
    /// A rule refused what the extraction found (`what`: entity ops, PKG updates, memories).
    #[error("{what}: {error}")]
    Rule { what: &'static str, error: Error },
    #[error("the NPC was deleted while dreaming")]
    NpcDeleted,
    #[error("the diary changed while dreaming")]
    DiaryChanged,
    #[error("too many concurrent writes to the NPC; the next dream retries")]
    Contended,
}

impl From<CommitError> for StageError {
    fn from(e: CommitError) -> Self {
        match e {
            CommitError::Store(e) => StageError::Store(e),
            CommitError::Contended { .. } => StageError::Contended,
        }
    }
}

impl StageError {
    /// A rule's refusal, named by what it refused.
    fn rule(what: &'static str) -> impl Fn(Error) -> StageError {
        move |error| StageError::Rule { what, error }
    }
}

/// Vectors of the records a dream keeps (content, emotion, diary days); none if the embedder fails (the records are
/// still found lexically, and `rebuild_vectors` restores them).
pub(super) async fn embed_records(
    hippo: &Hippo,
    records: &[crate::memory::Memory],
) -> Vec<VectorItem> {
    if records.is_empty() {
        return Vec::new();
    }
    let texts: Vec<String> = records
        .iter()
        .map(|m| embedding_text(&m.summary, &m.keywords))
        .collect();
    match hippo
        .ports()
        .embedder
        .embed(EmbedKind::Document, &texts)
        .await
    {
        Ok(vectors) => records
            .iter()
            .zip(vectors)
            .map(|(m, values)| VectorItem {
                id: m.id.clone(),
                collection: m.collection,
                memory_type: m.memory_type,
                values,
            })
            .collect(),
        Err(_) => Vec::new(),
    }
}
