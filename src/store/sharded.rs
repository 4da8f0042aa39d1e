//! A store and a vector index over several backends, one per shard: each NPC's calls go to
//! the shard [`ShardMap::shard_of`] names, so everything of an NPC stays in one database and
//! each commit stays one atomic write there. What is not of one NPC: listing merges every
//! shard's page; a token is looked up in every shard (it does not name its NPC); the
//! deployment-wide settings (meta) live in shard 0, the default database.

use super::shard::ShardMap;
use crate::conversation::Turn;
use crate::diary::DiaryEntry;
use crate::error::PortError;
use crate::memory::{Collection, Memory, MemoryType};
use crate::npc::Npc;
use crate::pkg::PkgField;
use crate::ports::*;
use crate::relationship::Entity;
use crate::time::Timestamp;
use async_trait::async_trait;
use futures_util::future::join_all;
use std::rc::Rc;

fn check_sizes(map: &ShardMap, backends: usize) -> Result<(), PortError> {
    if map.len() == backends && backends > 0 {
        return Ok(());
    }
    Err(PortError::Backend(format!(
        "{} shards named but {backends} backends given",
        map.len()
    )))
}

pub struct ShardedStore {
    map: ShardMap,
    shards: Vec<Rc<dyn Store>>,
}

impl ShardedStore {
    /// `shards[i]` serves the NPCs `map` routes to `i`.
    pub fn new(map: ShardMap, shards: Vec<Rc<dyn Store>>) -> Result<ShardedStore, PortError> {
        check_sizes(&map, shards.len())?;
        Ok(ShardedStore { map, shards })
    }

    fn of(&self, npcid: &str) -> &dyn Store {
        &*self.shards[self.map.shard_of(npcid)]
    }

    fn settings(&self) -> &dyn Store {
        &*self.shards[0]
    }

    /// The first `limit` NPCs after `after` that `shard` holds and is routed: copies routed
    /// elsewhere are skipped, reading on past them (a page of copies alone would otherwise
    /// hide the shard's next NPCs behind another shard's later ones).
    async fn routed_page(
        &self,
        shard: usize,
        after: Option<&str>,
        limit: usize,
    ) -> PortResult<Vec<Npc>> {
        let mut routed = Vec::new();
        let mut cursor = after.map(str::to_string);
        loop {
            let page = self.shards[shard]
                .list_npcs(cursor.as_deref(), limit)
                .await?;
            let more = page.len() == limit && limit > 0;
            cursor = page.last().map(|n| n.npcid.clone());
            routed.extend(
                page.into_iter()
                    .filter(|n| self.map.shard_of(&n.npcid) == shard),
            );
            if !more || routed.len() >= limit {
                return Ok(routed);
            }
        }
    }
}

#[async_trait(?Send)]
impl Store for ShardedStore {
    async fn retrieval_view(&self, npcid: &str) -> PortResult<Option<RetrievalView>> {
        self.of(npcid).retrieval_view(npcid).await
    }
    async fn npc(&self, npcid: &str) -> PortResult<Option<Npc>> {
        self.of(npcid).npc(npcid).await
    }
    /// Each shard's first `limit` NPCs after `after`, merged by npcid: the first `limit` of the
    /// union is among them. An NPC is listed only from the shard it is routed to (a copy a
    /// migration has not yet removed is not a second NPC).
    async fn list_npcs(&self, after: Option<&str>, limit: usize) -> PortResult<Vec<Npc>> {
        let pages = (0..self.shards.len()).map(|shard| self.routed_page(shard, after, limit));
        let mut all = Vec::new();
        for page in join_all(pages).await {
            all.extend(page?);
        }
        all.sort_by(|a, b| a.npcid.cmp(&b.npcid));
        all.truncate(limit);
        Ok(all)
    }
    async fn pkg(&self, npcid: &str) -> PortResult<Vec<PkgField>> {
        self.of(npcid).pkg(npcid).await
    }
    async fn entities(&self, npcid: &str) -> PortResult<Vec<(String, Entity)>> {
        self.of(npcid).entities(npcid).await
    }
    async fn diary(&self, npcid: &str) -> PortResult<(String, Vec<DiaryEntry>)> {
        self.of(npcid).diary(npcid).await
    }
    async fn turns(&self, npcid: &str, after_seq: u64, limit: usize) -> PortResult<Vec<Turn>> {
        self.of(npcid).turns(npcid, after_seq, limit).await
    }
    async fn turns_by_id(&self, npcid: &str, ids: &[String]) -> PortResult<Vec<Turn>> {
        self.of(npcid).turns_by_id(npcid, ids).await
    }
    async fn append_turns(&self, npcid: &str, turns: Vec<Turn>) -> PortResult<Appended> {
        self.of(npcid).append_turns(npcid, turns).await
    }
    async fn last_seq(&self, npcid: &str) -> PortResult<u64> {
        self.of(npcid).last_seq(npcid).await
    }
    async fn memories(&self, npcid: &str, filter: &MemoryFilter) -> PortResult<Vec<Memory>> {
        self.of(npcid).memories(npcid, filter).await
    }
    async fn memories_by_id(&self, npcid: &str, ids: &[String]) -> PortResult<Vec<Memory>> {
        self.of(npcid).memories_by_id(npcid, ids).await
    }
    async fn live_memories_by_id(
        &self,
        npcid: &str,
        ids: &[String],
        kind: (Collection, MemoryType),
    ) -> PortResult<Vec<Memory>> {
        self.of(npcid).live_memories_by_id(npcid, ids, kind).await
    }
    async fn live_memories_with_text(
        &self,
        npcid: &str,
        kind: (Collection, MemoryType),
        normalized: &str,
    ) -> PortResult<Option<Vec<Memory>>> {
        self.of(npcid)
            .live_memories_with_text(npcid, kind, normalized)
            .await
    }
    async fn lexical_search(
        &self,
        npcid: &str,
        query: &LexicalQuery,
        limit: usize,
    ) -> PortResult<Vec<(String, f64)>> {
        self.of(npcid).lexical_search(npcid, query, limit).await
    }
    async fn term_stats(&self, npcid: &str, terms: &[String]) -> PortResult<CorpusStats> {
        self.of(npcid).term_stats(npcid, terms).await
    }
    async fn commit(&self, npcid: &str, batch: WriteBatch) -> PortResult<()> {
        self.of(npcid).commit(npcid, batch).await
    }
    /// Asked of every shard at once: one round trip of latency, one read per shard. A token
    /// counts only from its NPC's shard, like a listing.
    async fn token_by_hash(&self, token_hash: &str) -> PortResult<Option<TokenRecord>> {
        let found = join_all(self.shards.iter().map(|s| s.token_by_hash(token_hash))).await;
        let mut token = None;
        for (shard, record) in found.into_iter().enumerate() {
            if let Some(record) = record? {
                if self.map.shard_of(&record.npcid) == shard {
                    token = Some(record);
                }
            }
        }
        Ok(token)
    }
    async fn tokens(&self, npcid: &str) -> PortResult<Vec<TokenRecord>> {
        self.of(npcid).tokens(npcid).await
    }
    async fn acquire_lease(
        &self,
        npcid: &str,
        holder: &str,
        now: Timestamp,
        until: Timestamp,
    ) -> PortResult<bool> {
        self.of(npcid)
            .acquire_lease(npcid, holder, now, until)
            .await
    }
    async fn release_lease(&self, npcid: &str, holder: &str) -> PortResult<()> {
        self.of(npcid).release_lease(npcid, holder).await
    }
    async fn meta(&self, key: &str) -> PortResult<Option<String>> {
        self.settings().meta(key).await
    }
    async fn set_meta(&self, key: &str, value: &str) -> PortResult<()> {
        self.settings().set_meta(key, value).await
    }
}

/// The vector index of each shard (the D1-backed index lives in the shard's database).
pub struct ShardedVectorIndex {
    map: ShardMap,
    shards: Vec<Rc<dyn VectorIndex>>,
}

impl ShardedVectorIndex {
    pub fn new(
        map: ShardMap,
        shards: Vec<Rc<dyn VectorIndex>>,
    ) -> Result<ShardedVectorIndex, PortError> {
        check_sizes(&map, shards.len())?;
        Ok(ShardedVectorIndex { map, shards })
    }

    fn of(&self, npcid: &str) -> &dyn VectorIndex {
        &*self.shards[self.map.shard_of(npcid)]
    }
}

#[async_trait(?Send)]
impl VectorIndex for ShardedVectorIndex {
    async fn upsert(&self, npcid: &str, items: Vec<VectorItem>) -> PortResult<()> {
        self.of(npcid).upsert(npcid, items).await
    }
    async fn query(
        &self,
        npcid: &str,
        vector: &[f32],
        top_k: usize,
        filter: &VectorFilter,
    ) -> PortResult<Vec<(String, f32)>> {
        self.of(npcid).query(npcid, vector, top_k, filter).await
    }
    async fn query_each(
        &self,
        npcid: &str,
        vectors: &[&[f32]],
        top_k: usize,
        filter: &VectorFilter,
    ) -> PortResult<Vec<Vec<(String, f32)>>> {
        self.of(npcid)
            .query_each(npcid, vectors, top_k, filter)
            .await
    }
    async fn similarities(
        &self,
        npcid: &str,
        vector: &[f32],
        ids: &[String],
    ) -> PortResult<Vec<(String, f32)>> {
        self.of(npcid).similarities(npcid, vector, ids).await
    }
    async fn delete(&self, npcid: &str, ids: &[String]) -> PortResult<()> {
        self.of(npcid).delete(npcid, ids).await
    }
    async fn delete_npc(&self, npcid: &str) -> PortResult<()> {
        self.of(npcid).delete_npc(npcid).await
    }
    /// The largest of the shards' (an NPC's scores come from its shard).
    fn score_error(&self, dim: usize) -> Option<f32> {
        let mut largest = 0f32;
        for shard in &self.shards {
            largest = largest.max(shard.score_error(dim)?);
        }
        Some(largest)
    }
}
