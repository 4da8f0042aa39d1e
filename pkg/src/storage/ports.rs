//! The store and vector-index ports over [`PersistedState`]: reads go straight to the
//! in-memory state; each mutation is applied there and recorded (with its log record when
//! the adapter appends), for the API call's closing save.

use super::log;
use super::state::PersistedState;
use async_trait::async_trait;
use hippo::conversation::Turn;
use hippo::diary::DiaryEntry;
use hippo::memory::{Collection, Memory, MemoryType};
use hippo::npc::Npc;
use hippo::pkg::PkgField;
use hippo::ports::*;
use hippo::relationship::Entity;
use hippo::time::Timestamp;
use std::rc::Rc;

pub struct PersistentStore(pub Rc<PersistedState>);

pub struct PersistentVectors(pub Rc<PersistedState>);

#[async_trait(?Send)]
impl Store for PersistentStore {
    async fn retrieval_view(&self, npcid: &str) -> PortResult<Option<RetrievalView>> {
        self.0.store()?.retrieval_view(npcid).await
    }
    async fn npc(&self, npcid: &str) -> PortResult<Option<Npc>> {
        self.0.store()?.npc(npcid).await
    }
    async fn list_npcs(&self, after: Option<&str>, limit: usize) -> PortResult<Vec<Npc>> {
        self.0.store()?.list_npcs(after, limit).await
    }
    async fn pkg(&self, npcid: &str) -> PortResult<Vec<PkgField>> {
        self.0.store()?.pkg(npcid).await
    }
    async fn entities(&self, npcid: &str) -> PortResult<Vec<(String, Entity)>> {
        self.0.store()?.entities(npcid).await
    }
    async fn diary(&self, npcid: &str) -> PortResult<(String, Vec<DiaryEntry>)> {
        self.0.store()?.diary(npcid).await
    }
    async fn turns(&self, npcid: &str, after_seq: u64, limit: usize) -> PortResult<Vec<Turn>> {
        self.0.store()?.turns(npcid, after_seq, limit).await
    }
    async fn turns_by_id(&self, npcid: &str, ids: &[String]) -> PortResult<Vec<Turn>> {
        self.0.store()?.turns_by_id(npcid, ids).await
    }
    async fn append_turns(&self, npcid: &str, turns: Vec<Turn>) -> PortResult<Appended> {
        // Kept for the record: the entries the store takes are the ones it gives a seq.
        let offered = self.0.logging().then(|| turns.clone());
        let appended = self.0.store()?.append_turns(npcid, turns).await?;
        if appended.seqs.iter().any(Option::is_some) {
            let record = offered.map(|offered| {
                let stored = offered
                    .into_iter()
                    .zip(&appended.seqs)
                    .filter_map(|(mut turn, seq)| {
                        turn.seq = (*seq)?;
                        Some(turn)
                    })
                    .collect();
                log::append_turns(npcid, stored)
            });
            self.0.record(record);
        }
        Ok(appended)
    }
    async fn last_seq(&self, npcid: &str) -> PortResult<u64> {
        self.0.store()?.last_seq(npcid).await
    }
    async fn memories(&self, npcid: &str, filter: &MemoryFilter) -> PortResult<Vec<Memory>> {
        self.0.store()?.memories(npcid, filter).await
    }
    async fn memories_by_id(&self, npcid: &str, ids: &[String]) -> PortResult<Vec<Memory>> {
        self.0.store()?.memories_by_id(npcid, ids).await
    }
    async fn live_memories_by_id(
        &self,
        npcid: &str,
        ids: &[String],
        kind: (Collection, MemoryType),
    ) -> PortResult<Vec<Memory>> {
        self.0.store()?.live_memories_by_id(npcid, ids, kind).await
    }
    async fn live_memories_with_text(
        &self,
        npcid: &str,
        kind: (Collection, MemoryType),
        normalized: &str,
    ) -> PortResult<Option<Vec<Memory>>> {
        self.0
            .store()?
            .live_memories_with_text(npcid, kind, normalized)
            .await
    }
    async fn lexical_search(
        &self,
        npcid: &str,
        query: &LexicalQuery,
        limit: usize,
    ) -> PortResult<Vec<(String, f64)>> {
        self.0.store()?.lexical_search(npcid, query, limit).await
    }
    async fn term_stats(&self, npcid: &str, terms: &[String]) -> PortResult<CorpusStats> {
        self.0.store()?.term_stats(npcid, terms).await
    }
    async fn commit(&self, npcid: &str, batch: WriteBatch) -> PortResult<()> {
        // Decided first: a batch that erases is saved by a snapshot, so it needs no record
        // (an import's would be as large as the store). If the commit fails, the next save
        // is a snapshot all the same, which is harmless.
        if batch.writes.iter().any(erases) {
            self.0.snapshot_next();
        }
        let record = self.0.logging().then(|| log::commit(npcid, &batch));
        self.0.store()?.commit(npcid, batch).await?;
        self.0.record(record);
        Ok(())
    }
    async fn token_by_hash(&self, token_hash: &str) -> PortResult<Option<TokenRecord>> {
        self.0.store()?.token_by_hash(token_hash).await
    }
    async fn tokens(&self, npcid: &str) -> PortResult<Vec<TokenRecord>> {
        self.0.store()?.tokens(npcid).await
    }
    /// Leases coordinate dreams inside this process and are not part of the saved state.
    async fn acquire_lease(
        &self,
        npcid: &str,
        holder: &str,
        now: Timestamp,
        until: Timestamp,
    ) -> PortResult<bool> {
        self.0
            .store()?
            .acquire_lease(npcid, holder, now, until)
            .await
    }
    async fn release_lease(&self, npcid: &str, holder: &str) -> PortResult<()> {
        self.0.store()?.release_lease(npcid, holder).await
    }
    async fn meta(&self, key: &str) -> PortResult<Option<String>> {
        self.0.store()?.meta(key).await
    }
    async fn set_meta(&self, key: &str, value: &str) -> PortResult<()> {
        self.0.store()?.set_meta(key, value).await?;
        self.0
            .record(self.0.logging().then(|| log::meta(key, value)));
        Ok(())
    }
}

#[async_trait(?Send)]
impl VectorIndex for PersistentVectors {
    async fn upsert(&self, npcid: &str, items: Vec<VectorItem>) -> PortResult<()> {
        let record = self.0.logging().then(|| log::upsert(npcid, &items));
        self.0.vectors()?.upsert(npcid, items).await?;
        self.0.record(record);
        Ok(())
    }
    async fn query(
        &self,
        npcid: &str,
        vector: &[f32],
        top_k: usize,
        filter: &VectorFilter,
    ) -> PortResult<Vec<(String, f32)>> {
        self.0.vectors()?.query(npcid, vector, top_k, filter).await
    }
    async fn query_each(
        &self,
        npcid: &str,
        vectors: &[&[f32]],
        top_k: usize,
        filter: &VectorFilter,
    ) -> PortResult<Vec<Vec<(String, f32)>>> {
        self.0
            .vectors()?
            .query_each(npcid, vectors, top_k, filter)
            .await
    }
    async fn similarities(
        &self,
        npcid: &str,
        vector: &[f32],
        ids: &[String],
    ) -> PortResult<Vec<(String, f32)>> {
        self.0.vectors()?.similarities(npcid, vector, ids).await
    }
    async fn delete(&self, npcid: &str, ids: &[String]) -> PortResult<()> {
        self.0.vectors()?.delete(npcid, ids).await?;
        self.0
            .record(self.0.logging().then(|| log::delete(npcid, ids)));
        Ok(())
    }
    async fn delete_npc(&self, npcid: &str) -> PortResult<()> {
        self.0.vectors()?.delete_npc(npcid).await?;
        self.0
            .record(self.0.logging().then(|| log::delete_npc(npcid)));
        Ok(())
    }
    fn score_error(&self, dim: usize) -> Option<f32> {
        Some(hippo::store::vectors::rescored_error(dim))
    }
}

/// A write that deletes what a user said or was told. The call that makes it saves a new
/// snapshot instead of appending, so the deleted text leaves the stored bytes (it would
/// otherwise stay in an earlier log record until the next snapshot).
fn erases(write: &Write) -> bool {
    matches!(
        write,
        Write::DeleteNpc
            | Write::DeleteMemory { .. }
            | Write::DeleteEntity { .. }
            | Write::DeleteDaily { .. }
            | Write::DeleteToken { .. }
    )
}
