//! NPC administration and the seed's PKG, relationship and diary routes.

use super::Hippo;
use crate::api::*;
use crate::diary::{newest_first, Diary};
use crate::error::{Error, Result};
use crate::ids::validate_npcid;
use crate::npc::Npc;
use crate::pkg::{self, PkgField, PkgUpdate};
use crate::ports::{Write, WriteBatch};
use crate::relationship::{self, EntityWrite, Relationships};

fn pkg_not_found(npcid: &str) -> String {
    format!("NPC {npcid} does not exist or has no PKG")
}

pub(crate) fn npc_view(npc: &Npc, created: bool) -> NpcView {
    NpcView {
        npcid: npc.npcid.clone(),
        display_name: npc.display_name.clone(),
        created_at: npc.created_at,
        voice_registered: npc.voice_registered,
        face_registered: npc.face_registered,
        settings: npc.settings.clone(),
        created,
    }
}

/// The longest display name accepted.
pub const MAX_DISPLAY_NAME_CHARS: usize = 200;

/// `display_name`: at most [`MAX_DISPLAY_NAME_CHARS`] characters (the NPC route and import).
pub(crate) fn check_display_name(name: &str) -> Result<()> {
    if name.chars().count() > MAX_DISPLAY_NAME_CHARS {
        return Err(Error::invalid(format!(
            "display_name is longer than {MAX_DISPLAY_NAME_CHARS} characters"
        )));
    }
    Ok(())
}

impl Hippo {
    /// Creates the NPC or updates it. Only the fields given change; the initial `pkg` goes
    /// through the PKG merge rules (§2.1); registration flags change only here.
    pub async fn upsert_npc(&self, npcid: &str, req: NpcUpsert) -> Result<NpcView> {
        validate_npcid(npcid)?;
        if let Some(name) = &req.display_name {
            check_display_name(name)?;
        }
        if let Some(settings) = &req.settings {
            settings.validate()?;
        }
        let updates: Vec<PkgUpdate> = req
            .pkg
            .iter()
            .flatten()
            .map(|(key, value)| PkgUpdate {
                key: key.clone(),
                value: value.clone(),
            })
            .collect();
        let (npc, created) = self
            .retry_commit(npcid, async || -> Result<_> {
                let existing = self.ports.store.npc(npcid).await?;
                let created = existing.is_none();
                let mut npc = existing
                    .clone()
                    .unwrap_or_else(|| Npc::new(npcid, self.now()));
                if let Some(name) = &req.display_name {
                    npc.display_name = name.clone();
                }
                if let Some(v) = req.voice_registered {
                    npc.voice_registered = v;
                }
                if let Some(v) = req.face_registered {
                    npc.face_registered = v;
                }
                if let Some(s) = &req.settings {
                    npc.settings = s.clone();
                }
                let mut batch = match &existing {
                    Some(n) => WriteBatch::expecting(n.version),
                    None => WriteBatch::new(),
                };
                batch.push(Write::PutNpc(npc.clone()));
                if !updates.is_empty() {
                    let current = if created {
                        Vec::new()
                    } else {
                        self.ports.store.pkg(npcid).await?
                    };
                    batch.writes.extend(pkg_writes(&current, &updates)?.0);
                }
                // A create races only with another create of the same id: the later PutNpc wins
                // and both callers see a consistent record.
                Ok((batch, (npc, created)))
            })
            .await?;
        Ok(npc_view(&npc, created))
    }

    pub async fn get_npc(&self, npcid: &str) -> Result<NpcView> {
        Ok(npc_view(&self.require_npc(npcid).await?, false))
    }

    /// NPCs in id order; `after` is the last id of the previous page.
    pub async fn list_npcs(&self, after: Option<&str>, limit: usize) -> Result<NpcList> {
        let limit = limit.clamp(1, crate::api::NPC_PAGE_MAX);
        let page = self.ports.store.list_npcs(after, limit + 1).await?;
        let more = page.len() > limit;
        let npcs: Vec<NpcView> = page
            .iter()
            .take(limit)
            .map(|n| npc_view(n, false))
            .collect();
        let next = more.then(|| npcs.last().map(|n| n.npcid.clone())).flatten();
        Ok(NpcList { npcs, next })
    }

    /// Deletes the NPC and everything of it: rows, tokens (one batch), then its vectors.
    pub async fn delete_npc(&self, npcid: &str) -> Result<()> {
        self.require_npc(npcid).await?;
        let mut batch = WriteBatch::new();
        batch.push(Write::DeleteNpc);
        self.ports.store.commit(npcid, batch).await?;
        // The rows are gone and the tokens with them; vectors are derived data, and a failure
        // here leaves only unreachable vectors that `rebuild_vectors` or a retry removes.
        self.ports.vectors.delete_npc(npcid).await?;
        Ok(())
    }

    pub async fn get_pkg(&self, npcid: &str) -> Result<PkgView> {
        let npc = self.require_npc_with(npcid, pkg_not_found).await?;
        let fields = self.ports.store.pkg(npcid).await?;
        Ok(PkgView {
            npcid: npcid.to_string(),
            pkg: pkg::pkg_view(
                pkg::values(&fields),
                npc.voice_registered,
                npc.face_registered,
            ),
            source_turns: pkg::sources(&fields),
        })
    }

    /// Merge-updates PKG fields (§2.1). Parallel updates never lose each other: each is
    /// computed from the version it read and retried if another landed first.
    pub async fn update_pkg(
        &self,
        npcid: &str,
        req: PkgUpdateRequest,
    ) -> Result<PkgUpdateResponse> {
        validate_npcid(npcid)?;
        if req.updates.is_empty() {
            return Err(Error::invalid("updates cannot be empty"));
        }
        let updated_fields = self
            .retry_commit(npcid, async || -> Result<_> {
                let npc = self.require_npc_with(npcid, pkg_not_found).await?;
                let current = self.ports.store.pkg(npcid).await?;
                let mut batch = WriteBatch::expecting(npc.version);
                let (writes, updated_fields) = pkg_writes(&current, &req.updates)?;
                batch.writes.extend(writes);
                Ok((batch, updated_fields))
            })
            .await?;
        Ok(PkgUpdateResponse {
            status: "ok".into(),
            updated_fields,
        })
    }

    pub(crate) async fn relationships(&self, npcid: &str) -> Result<Relationships> {
        Ok(crate::relationship::from_rows(
            self.ports.store.entities(npcid).await?,
        ))
    }

    pub async fn get_relationships(&self, npcid: &str) -> Result<RelationshipView> {
        self.require_npc(npcid).await?;
        let entities = self.relationships(npcid).await?;
        let view = relationship::view(&entities);
        Ok(RelationshipView {
            npcid: npcid.to_string(),
            count: view.len(),
            relationship: view,
        })
    }

    /// Explicit entity operations: an update or delete that matches nothing is a 404.
    pub async fn apply_entity_ops(
        &self,
        npcid: &str,
        req: EntityOpsRequest,
    ) -> Result<EntityOpsResponse> {
        validate_npcid(npcid)?;
        if req.ops.is_empty() {
            return Err(Error::invalid("ops cannot be empty"));
        }
        let outcome = self
            .retry_commit(npcid, async || -> Result<_> {
                let npc = self.require_npc(npcid).await?;
                let current = self.relationships(npcid).await?;
                let outcome =
                    relationship::apply_ops(&current, npc.next_entity_seq, &req.ops, true)?;
                Ok((entity_batch(&npc, &outcome), outcome))
            })
            .await?;
        Ok(EntityOpsResponse {
            status: "ok".into(),
            results: outcome
                .results
                .iter()
                .map(|(op, id)| EntityOpResult {
                    op: serde_json::to_value(op)
                        .ok()
                        .and_then(|v| v.as_str().map(str::to_string))
                        .unwrap_or_default(),
                    id: id.clone(),
                })
                .collect(),
            count: outcome.entities.len(),
        })
    }

    pub async fn get_diary(&self, npcid: &str) -> Result<DiaryView> {
        self.require_npc(npcid).await?;
        let (prior, dailies) = self.ports.store.diary(npcid).await?;
        let dailies = newest_first(&Diary {
            prior: prior.clone(),
            dailies,
        });
        Ok(DiaryView {
            npcid: npcid.to_string(),
            prior,
            count: dailies.len(),
            dailies,
        })
    }
}

/// The writes of an API merge of `updates` into the stored fields: what §2.1 changes, the
/// links kept as [`pkg::field_writes`] says (an API value was stated by no turn), and the
/// keys applied (`updated_fields`). A merge over the field cap is a 400.
fn pkg_writes(current: &[PkgField], updates: &[PkgUpdate]) -> Result<(Vec<Write>, Vec<String>)> {
    let merge = pkg::merge_updates(&pkg::values(current), updates)?;
    merge.refuse_over_cap()?;
    let writes = pkg::field_writes(current, &merge, updates, &[])
        .into_iter()
        .map(Write::set_pkg_field)
        .collect();
    Ok((writes, merge.updated_fields))
}

/// The writes of an entity-ops outcome, guarded by the NPC version it was computed from.
pub(crate) fn entity_batch(npc: &Npc, outcome: &relationship::EntityOpsOutcome) -> WriteBatch {
    let mut batch = WriteBatch::expecting(npc.version);
    for w in &outcome.writes {
        batch.push(match w {
            EntityWrite::Put { id, entity } => Write::PutEntity {
                id: id.clone(),
                entity: entity.clone(),
            },
            EntityWrite::Delete { id } => Write::DeleteEntity { id: id.clone() },
        });
    }
    if outcome.next_entity_seq != npc.next_entity_seq {
        let mut next = npc.clone();
        next.next_entity_seq = outcome.next_entity_seq;
        batch.push(Write::PutNpc(next));
    }
    batch
}
