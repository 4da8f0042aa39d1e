//! Retrieval reinforcement (SPEC §2.2), now or after the answer.
//!
//! By default a retrieval commits its [`Write::Touch`] before it returns (native, npm: the
//! write is in memory or appended to a log). A binding that can keep working after it has
//! answered (a Worker's `waitUntil`) gives the engine a [`Deferred`] queue instead: retrievals
//! queue their touches there, and the binding runs [`Deferred::flush`] once the answer is out,
//! so the write's round trip is not in the answer's path. The core stays free of I/O: the
//! queue holds the store port and the writes, the binding decides when they run.
//!
//! A touch that fails, now or deferred, never fails or changes the answer; it loses at most
//! the access counts it carried (a touch is one commutative, atomic batch scoped to its NPC).

use super::Hippo;
use crate::ports::{Store, Write, WriteBatch};
use crate::time::Timestamp;
use std::cell::RefCell;
use std::future::Future;
use std::rc::Rc;

/// One NPC's touch waiting for [`Deferred::flush`].
struct Pending {
    store: Rc<dyn Store>,
    npcid: String,
    batch: WriteBatch,
}

/// Reinforcement writes queued by retrievals, committed when the binding flushes them.
#[derive(Default)]
pub struct Deferred {
    pending: RefCell<Vec<Pending>>,
}

/// The most touches [`Deferred::flush`] commits in one batch.
pub const MAX_MERGED: usize = 32;

/// What a [`Deferred::flush`] did, counted in touches (one per retrieval).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Flushed {
    pub committed: usize,
    pub failed: usize,
}

impl Deferred {
    /// How many touches are waiting.
    pub fn len(&self) -> usize {
        self.pending.borrow().len()
    }

    pub fn is_empty(&self) -> bool {
        self.pending.borrow().is_empty()
    }

    fn push(&self, pending: Pending) {
        self.pending.borrow_mut().push(pending);
    }

    /// Commits what is queued now, one batch per NPC (at most [`MAX_MERGED`] touches each,
    /// every touch its own write, so each count lands), in the order the NPCs were first
    /// queued; a failed batch is counted and the rest still land. A queue that outlives a
    /// request (a Worker isolate's) so turns the touches of concurrent retrievals of one NPC
    /// into one write. The touches of one NPC go through the store that queued the first of
    /// them: a queue serves one deployment. The queue is emptied at once, so the future owns
    /// its writes and can outlive the request (`'static`: a Worker hands it to `waitUntil`).
    pub fn flush(&self) -> impl Future<Output = Flushed> + 'static {
        let pending = std::mem::take(&mut *self.pending.borrow_mut());
        let mut merged: Vec<(Pending, usize)> = Vec::new();
        for p in pending {
            match merged
                .iter_mut()
                .find(|(m, n)| m.npcid == p.npcid && *n < MAX_MERGED)
            {
                Some((m, n)) => {
                    m.batch.writes.extend(p.batch.writes);
                    *n += 1;
                }
                None => merged.push((p, 1)),
            }
        }
        async move {
            let mut done = Flushed::default();
            for (p, n) in merged {
                match p.store.commit(&p.npcid, p.batch).await {
                    Ok(()) => done.committed += n,
                    Err(_) => done.failed += n,
                }
            }
            done
        }
    }
}

impl Hippo {
    /// Queue retrieval touches in `queue` instead of committing them before answering; the
    /// caller must [`Deferred::flush`] it once the answer is sent.
    pub fn with_deferred_reinforcement(mut self, queue: Rc<Deferred>) -> Self {
        self.deferred = Some(queue);
        self
    }

    /// Reinforces `ids` of `npcid` (what a retrieval returned), now or through the queue.
    /// Never fails: a lost touch costs access counts, not the answer.
    pub(super) async fn reinforce(&self, npcid: &str, ids: Vec<String>, at: Timestamp) {
        if ids.is_empty() {
            return;
        }
        let mut batch = WriteBatch::new();
        batch.push(Write::Touch { ids, at });
        match &self.deferred {
            Some(queue) => queue.push(Pending {
                store: self.ports.store.clone(),
                npcid: npcid.to_string(),
                batch,
            }),
            None => {
                let _ = self.ports.store.commit(npcid, batch).await;
            }
        }
    }
}
