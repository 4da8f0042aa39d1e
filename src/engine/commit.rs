//! Committing a batch under the NPC's version guard, and the read → compute → commit loop
//! every structural write runs (optimistic concurrency; `docs/ARCHITECTURE.md`, "Which writes
//! the version guards").

use super::Hippo;
use crate::error::{Error, PortError};
use crate::ports::WriteBatch;

/// How many times a read → compute → commit cycle runs when other writers of the same NPC
/// commit in between, before the write gives up (`Error::Busy`, HTTP 409; a dream stage
/// reports it and the next dream retries). Each conflict means another write landed, so the
/// loop runs out only under sustained contention on one NPC: with 16, sixteen clients
/// updating one NPC's PKG in a closed loop saw 2 × 409 in 2,736 updates (docs/BENCHMARKS.md).
/// The dream's stages used 8 until they shared this loop.
pub(crate) const COMMIT_ATTEMPTS: usize = 16;

/// Why [`Hippo::retry_commit`] gave up.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum CommitError {
    /// The store failed (not a conflict).
    Store(PortError),
    /// Every attempt met a conflict.
    Contended { npcid: String },
}

impl From<CommitError> for Error {
    fn from(e: CommitError) -> Self {
        match e {
            CommitError::Store(e) => Error::Port(e),
            CommitError::Contended { npcid } => Error::Busy(format!(
                "too many concurrent writes to NPC {npcid}; try again"
            )),
        }
    }
}

impl Hippo {
    /// Commits a batch computed from a read at `batch.expect_version`. `Ok(false)` means
    /// someone else committed first: read again and recompute, right away. (A jittered pause
    /// between attempts was measured and made one-NPC contention worse in a single isolate:
    /// 32 × 409 in 1,055 updates instead of none; see docs/BENCHMARKS.md.) An empty batch
    /// commits nothing and succeeds.
    pub(crate) async fn try_commit(
        &self,
        npcid: &str,
        batch: WriteBatch,
    ) -> Result<bool, PortError> {
        if batch.is_empty() {
            return Ok(true);
        }
        match self.ports.store.commit(npcid, batch).await {
            Ok(()) => Ok(true),
            Err(PortError::Conflict(_)) => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// Commits a batch in one attempt: someone else committing first since its read is
    /// [`CommitError::Contended`] (`busy`, for the caller to send again).
    pub(crate) async fn commit_once(
        &self,
        npcid: &str,
        batch: WriteBatch,
    ) -> Result<(), CommitError> {
        match self.try_commit(npcid, batch).await {
            Ok(true) => Ok(()),
            Ok(false) => Err(CommitError::Contended {
                npcid: npcid.to_string(),
            }),
            Err(e) => Err(CommitError::Store(e)),
        }
    }

    /// The read → compute → commit loop: `attempt` reads what it needs (with the NPC's
    /// `version`), computes the batch and what the caller answers once it is durable; the
    /// batch is committed, and on a conflict `attempt` runs again on fresh reads, at most
    /// [`COMMIT_ATTEMPTS`] times. An error of `attempt` ends the loop as it is. Work that must
    /// follow the commit (vectors, re-reads) belongs to the caller, after this returns.
    ///
    /// `attempt` is an async closure so that it may borrow the caller's state; its future
    /// need not be `Send` (the ports are `?Send` on wasm).
    pub(crate) async fn retry_commit<T, E>(
        &self,
        npcid: &str,
        mut attempt: impl AsyncFnMut() -> Result<(WriteBatch, T), E>,
    ) -> Result<T, E>
    where
        E: From<CommitError>,
    {
        for _ in 0..COMMIT_ATTEMPTS {
            let (batch, answer) = attempt().await?;
            match self.try_commit(npcid, batch).await {
                Ok(true) => return Ok(answer),
                Ok(false) => {}
                Err(e) => return Err(CommitError::Store(e).into()),
            }
        }
        Err(CommitError::Contended {
            npcid: npcid.to_string(),
        }
        .into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::NpcUpsert;
    use crate::engine::Ports;
    use crate::ports::{FixedClock, Write};
    use crate::retrieval::embed::BuiltinEmbedder;
    use crate::store::{MemoryStore, MemoryVectorIndex};
    use crate::time::Timestamp;
    use futures::executor::block_on;
    use std::rc::Rc;

    fn hippo_with_npc(npcid: &str) -> Hippo {
        let hippo = Hippo::new(Ports {
            store: Rc::new(MemoryStore::new()),
            vectors: Rc::new(MemoryVectorIndex::new()),
            embedder: Rc::new(BuiltinEmbedder::new()),
            llm: None,
            clock: Rc::new(FixedClock::at(Timestamp(0))),
        });
        block_on(hippo.upsert_npc(npcid, NpcUpsert::default())).unwrap();
        hippo
    }

    /// A watermark write guarded by the NPC's version plus `ahead`: with `ahead > 0` the
    /// guard fails, as when another writer committed after the read.
    async fn guarded_write(hippo: &Hippo, npcid: &str, ahead: u64) -> WriteBatch {
        let npc = hippo.ports.store.npc(npcid).await.unwrap().unwrap();
        let mut batch = WriteBatch::expecting(npc.version + ahead);
        batch.push(Write::SetWatermark { seq: 7 });
        batch
    }

    #[test]
    fn a_conflict_recomputes_from_a_fresh_read_until_the_commit_lands() {
        let hippo = hippo_with_npc("n1");
        let mut attempts = 0;
        let answer = block_on(hippo.retry_commit("n1", async || -> Result<_, Error> {
            attempts += 1;
            // The first two attempts lose the race.
            let ahead = if attempts < 3 { 1 } else { 0 };
            Ok((guarded_write(&hippo, "n1", ahead).await, attempts))
        }))
        .unwrap();
        assert_eq!((answer, attempts), (3, 3));
        let npc = block_on(hippo.ports.store.npc("n1")).unwrap().unwrap();
        assert_eq!(npc.watermark, 7);
    }

    #[test]
    fn endless_conflicts_give_up_after_the_attempt_limit_as_busy() {
        let hippo = hippo_with_npc("n1");
        let mut attempts = 0;
        let outcome = block_on(hippo.retry_commit(
            "n1",
            async || -> Result<(WriteBatch, ()), Error> {
                attempts += 1;
                Ok((guarded_write(&hippo, "n1", 1).await, ()))
            },
        ));
        assert_eq!(attempts, COMMIT_ATTEMPTS);
        let err = outcome.unwrap_err();
        assert_eq!(err.code(), "conflict");
        assert_eq!(
            err.to_string(),
            "too many concurrent writes to NPC n1; try again"
        );
        let npc = block_on(hippo.ports.store.npc("n1")).unwrap().unwrap();
        assert_eq!(npc.watermark, 0);
    }

    #[test]
    fn an_error_of_the_compute_step_ends_the_loop_without_a_commit() {
        let hippo = hippo_with_npc("n1");
        let mut attempts = 0;
        let outcome = block_on(hippo.retry_commit(
            "n1",
            async || -> Result<(WriteBatch, ()), Error> {
                attempts += 1;
                Err(Error::invalid("refused"))
            },
        ));
        assert_eq!(attempts, 1);
        assert_eq!(outcome, Err(Error::invalid("refused")));
    }

    #[test]
    fn an_empty_batch_answers_without_touching_the_store() {
        let hippo = hippo_with_npc("n1");
        let before = block_on(hippo.ports.store.npc("n1")).unwrap().unwrap();
        let answer = block_on(hippo.retry_commit("n1", async || -> Result<_, Error> {
            Ok((WriteBatch::new(), "dry run"))
        }));
        assert_eq!(answer, Ok("dry run"));
        let after = block_on(hippo.ports.store.npc("n1")).unwrap().unwrap();
        assert_eq!(after.version, before.version);
    }
}
