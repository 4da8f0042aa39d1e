//! [`Hippo::execute`]: an [`Operation`] (one parsed request of any route) run by the engine
//! method it names, answered as the route's [`Reply`]; and [`Hippo::execute_as`], the same
//! for a [`Caller`], with the access rule of `api::access` (what a token may run and see).

use crate::api::access::{flagged, report_for_tokens};
use crate::api::*;
use crate::error::{Error, Result};
use crate::sensitive;
use crate::Hippo;

impl Hippo {
    /// Runs a parsed request: the one entry the HTTP binding (and the whole-request fuzz
    /// target) call.
    pub async fn execute(&self, op: Operation) -> Result<Reply> {
        Ok(match op {
            Operation::ListNpcs { after, limit } => {
                Reply::Npcs(self.list_npcs(after.as_deref(), limit).await?)
            }
            Operation::GetNpc { npcid } => Reply::Npc(self.get_npc(&npcid).await?),
            Operation::PutNpc { npcid, request } => {
                Reply::Npc(self.upsert_npc(&npcid, request).await?)
            }
            Operation::DeleteNpc { npcid } => {
                self.delete_npc(&npcid).await?;
                Reply::Ok(Ok::new())
            }
            Operation::GetPkg { npcid } => Reply::Pkg(self.get_pkg(&npcid).await?),
            Operation::PutPkg { npcid, request } => {
                Reply::PkgUpdated(self.update_pkg(&npcid, request).await?)
            }
            Operation::GetRelationship { npcid } => {
                Reply::Relationship(self.get_relationships(&npcid).await?)
            }
            Operation::PostRelationship { npcid, request } => {
                Reply::EntityOps(self.apply_entity_ops(&npcid, request).await?)
            }
            Operation::GetDiary { npcid } => Reply::Diary(self.get_diary(&npcid).await?),
            Operation::Dream { npcid, dry_run } => Reply::Dream(DreamResponse {
                status: "ok".into(),
                report: self.dream(&npcid, dry_run).await?,
            }),
            Operation::AppendConversation { npcid, request } => {
                Reply::Appended(self.append_conversation(&npcid, request).await?)
            }
            Operation::GetConversation {
                npcid,
                since,
                limit,
            } => Reply::Conversation(self.get_conversation(&npcid, since, limit).await?),
            Operation::AddMemories { npcid, request } => {
                Reply::MemoriesAdded(self.add_memories(&npcid, request).await?)
            }
            Operation::ListMemories { npcid, query } => {
                Reply::Memories(self.list_memories(&npcid, query).await?)
            }
            Operation::UpdateMemory { npcid, id, patch } => {
                Reply::MemoryUpdated(self.update_memory(&npcid, &id, patch).await?)
            }
            Operation::DeleteMemory { npcid, id } => {
                self.delete_memory(&npcid, &id).await?;
                Reply::Ok(Ok::new())
            }
            Operation::ForgetMemories { npcid } => Reply::Forgot(Forgot {
                status: "ok".into(),
                deleted: self.forget_all_memories(&npcid).await?,
            }),
            Operation::SearchMemories { npcid, request } => {
                Reply::Search(self.search(&npcid, request).await?)
            }
            Operation::Brief { npcid, request } => Reply::Brief(self.brief(&npcid, request).await?),
            Operation::IssueToken { npcid, request } => {
                Reply::Token(self.issue_token(&npcid, request).await?)
            }
            Operation::RevokeToken { npcid, token_id } => {
                self.revoke_token(&npcid, &token_id).await?;
                Reply::Ok(Ok::new())
            }
            Operation::ExportNpc { npcid } => {
                Reply::Export(Box::new(self.export_npc(&npcid).await?))
            }
            Operation::ImportNpc { npcid, document } => {
                Reply::Npc(self.import_npc(&npcid, *document).await?)
            }
            Operation::RebuildVectors { npcid } => Reply::Rebuilt(RebuildResponse {
                status: "ok".into(),
                vectors: self.rebuild_vectors(&npcid).await?,
            }),
            Operation::Retrieve { npcid, request } => {
                Reply::Retrieval(self.retrieve_parsed(&npcid, request).await?)
            }
        })
    }

    /// Runs `op` for `caller`: [`Caller::authorize`], then [`Hippo::execute`], with the
    /// token's view of sensitive items (see the module documentation).
    pub async fn execute_as(&self, caller: &Caller, op: Operation) -> Result<Reply> {
        caller.authorize(&op)?;
        if caller.is_admin() {
            return self.execute(op).await;
        }
        match &op {
            Operation::UpdateMemory { npcid, id, patch } => {
                self.require_visible(npcid, id).await?;
                if patch.sensitive == Some(false) {
                    return Err(Error::Unauthorized(
                        "only the admin may clear a memory's sensitive mark".into(),
                    ));
                }
            }
            Operation::DeleteMemory { npcid, id } => self.require_visible(npcid, id).await?,
            _ => {}
        }
        let mut reply = self.execute(op).await?;
        match &mut reply {
            Reply::Pkg(view) => view
                .pkg
                .retain(|key, value| sensitive::key_category(key).is_none() && !flagged(value)),
            Reply::Relationship(view) => {
                view.relationship.retain(|_, entity| !flagged(entity));
                view.count = view.relationship.len();
            }
            Reply::Memories(list) => {
                list.memories.retain(|m| visible_to_tokens(&m.memory));
                list.count = list.memories.len();
            }
            Reply::Dream(response) => report_for_tokens(&mut response.report),
            _ => {}
        }
        Ok(reply)
    }

    /// 404 for a memory a token may not see, as for one that does not exist.
    async fn require_visible(&self, npcid: &str, id: &str) -> Result<()> {
        let found = self
            .ports()
            .store
            .memories_by_id(npcid, &[id.to_string()])
            .await?;
        match found.first() {
            Some(m) if visible_to_tokens(m) => Ok(()),
            _ => Err(Error::not_found(format!("memory {id} does not exist"))),
        }
    }
}
