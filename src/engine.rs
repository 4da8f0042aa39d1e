//! [`Hippo`]: the operations every binding exposes (HTTP routes, npm methods), over the ports.
//!
//! Each method takes the same request object as its HTTP route and returns the same response
//! object. The rules themselves live in their modules; this file only reads, applies a rule,
//! and commits the resulting writes as one batch.

use crate::api::*;
use crate::error::Result;
use crate::ports::{Clock, Embedder, Llm, Store, VectorIndex};
use std::rc::Rc;

/// The outside world, as the core sees it.
#[derive(Clone)]
pub struct Ports {
    pub store: Rc<dyn Store>,
    pub vectors: Rc<dyn VectorIndex>,
    pub embedder: Rc<dyn Embedder>,
    /// `None`: the built-in extractor and summarizer serve.
    pub llm: Option<Rc<dyn Llm>>,
    pub clock: Rc<dyn Clock>,
}

/// Query of `GET /api/memories/{npcid}`.
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize, serde::Deserialize)]
pub struct ListMemoriesQuery {
    /// Comma-separated or repeated types; empty = all.
    #[serde(default)]
    pub types: Vec<String>,
    /// `memory` (default), `content`, `emotion` or `all`.
    #[serde(default)]
    pub collection: Option<String>,
    #[serde(default)]
    pub include_superseded: bool,
    #[serde(default)]
    pub offset: usize,
    #[serde(default)]
    pub limit: Option<usize>,
}

pub struct Hippo {
    ports: Ports,
}

#[allow(unused_variables)]
impl Hippo {
    pub fn new(ports: Ports) -> Self {
        Hippo { ports }
    }

    pub fn ports(&self) -> &Ports {
        &self.ports
    }

    pub async fn upsert_npc(&self, npcid: &str, req: NpcUpsert) -> Result<NpcView> {
        todo!()
    }
    pub async fn get_npc(&self, npcid: &str) -> Result<NpcView> {
        todo!()
    }
    pub async fn list_npcs(&self, after: Option<&str>, limit: usize) -> Result<NpcList> {
        todo!()
    }
    pub async fn delete_npc(&self, npcid: &str) -> Result<()> {
        todo!()
    }
    pub async fn get_pkg(&self, npcid: &str) -> Result<PkgView> {
        todo!()
    }
    pub async fn update_pkg(
        &self,
        npcid: &str,
        req: PkgUpdateRequest,
    ) -> Result<PkgUpdateResponse> {
        todo!()
    }
    pub async fn get_relationships(&self, npcid: &str) -> Result<RelationshipView> {
        todo!()
    }
    pub async fn apply_entity_ops(
        &self,
        npcid: &str,
        req: EntityOpsRequest,
    ) -> Result<EntityOpsResponse> {
        todo!()
    }
    pub async fn get_diary(&self, npcid: &str) -> Result<DiaryView> {
        todo!()
    }
    pub async fn append_conversation(
        &self,
        npcid: &str,
        req: ConversationAppend,
    ) -> Result<ConversationAppendResponse> {
        todo!()
    }
    pub async fn get_conversation(
        &self,
        npcid: &str,
        since: u64,
        limit: usize,
    ) -> Result<ConversationView> {
        todo!()
    }
    pub async fn add_memories(
        &self,
        npcid: &str,
        req: AddMemoriesRequest,
    ) -> Result<AddMemoriesResponse> {
        todo!()
    }
    pub async fn list_memories(&self, npcid: &str, query: ListMemoriesQuery) -> Result<MemoryList> {
        todo!()
    }
    pub async fn delete_memory(&self, npcid: &str, id: &str) -> Result<()> {
        todo!()
    }
    pub async fn search(&self, npcid: &str, req: SearchRequest) -> Result<SearchResponse> {
        todo!()
    }
    pub async fn retrieve(&self, npcid: &str, req: RetrievalRequest) -> Result<RetrievalResponse> {
        todo!()
    }
    pub async fn dream(&self, npcid: &str, dry_run: bool) -> Result<DreamReport> {
        todo!()
    }
    pub async fn export_npc(&self, npcid: &str) -> Result<NpcExport> {
        todo!()
    }
    pub async fn import_npc(&self, npcid: &str, doc: NpcExport) -> Result<NpcView> {
        todo!()
    }
    pub async fn issue_token(&self, npcid: &str, req: TokenRequest) -> Result<TokenIssued> {
        todo!()
    }
    pub async fn revoke_token(&self, npcid: &str, token_id: &str) -> Result<()> {
        todo!()
    }
    /// The NPC a memory_retrieval token is bound to; revoked, expired or unknown → 401.
    pub async fn resolve_token(&self, token: &str) -> Result<String> {
        todo!()
    }
    /// Re-embeds every memory of the NPC into the vector index (D1 is the source of truth).
    pub async fn rebuild_vectors(&self, npcid: &str) -> Result<usize> {
        todo!()
    }
}
