//! Export and import of one NPC's whole memory as a versioned JSON document.

use super::Hippo;
use crate::api::{NpcExport, NpcView, EXPORT_FORMAT, EXPORT_VERSION};
use crate::diary::{Diary, DiaryEntry};
use crate::error::{Error, Result};
use crate::ids::validate_npcid;
use crate::ports::{MemoryFilter, Write, WriteBatch};
use crate::relationship;

impl Hippo {
    pub async fn export_npc(&self, npcid: &str) -> Result<NpcExport> {
        let npc = self.require_npc(npcid).await?;
        let store = &self.ports.store;
        let (prior, dailies) = store.diary(npcid).await?;
        let entities = self.relationships(npcid).await?;
        let mut turns = Vec::new();
        loop {
            let after = turns
                .last()
                .map_or(0, |t: &crate::conversation::Turn| t.seq);
            let page = store.turns(npcid, after, 1000).await?;
            if page.is_empty() {
                break;
            }
            turns.extend(page);
        }
        let memories = store
            .memories(
                npcid,
                &MemoryFilter {
                    include_superseded: true,
                    ..Default::default()
                },
            )
            .await?;
        let mut npc = npc;
        npc.version = 0;
        Ok(NpcExport {
            format: EXPORT_FORMAT.into(),
            version: EXPORT_VERSION,
            npc,
            pkg: store.pkg(npcid).await?.into_iter().collect(),
            relationship: relationship::view(&entities),
            diary: Diary { prior, dailies },
            turns,
            memories,
        })
    }

    /// Replaces everything of the NPC with the document's contents, in one batch, then
    /// rebuilds its vectors. The path's `npcid` wins over the document's.
    pub async fn import_npc(&self, npcid: &str, doc: NpcExport) -> Result<NpcView> {
        validate_npcid(npcid)?;
        if doc.format != EXPORT_FORMAT {
            return Err(Error::invalid(format!("format must be {EXPORT_FORMAT:?}")));
        }
        if doc.version == 0 || doc.version > EXPORT_VERSION {
            return Err(Error::invalid(format!(
                "export version {} is not supported (this build reads up to {EXPORT_VERSION})",
                doc.version
            )));
        }
        doc.npc.settings.validate()?;
        let mut npc = doc.npc.clone();
        npc.npcid = npcid.to_string();
        let mut batch = WriteBatch::new();
        batch.push(Write::DeleteNpc);
        batch.push(Write::PutNpc(npc.clone()));
        for (key, value) in doc.pkg {
            batch.push(Write::SetPkgField { key, value });
        }
        for (id, entity) in doc.relationship {
            batch.push(Write::PutEntity { id, entity });
        }
        batch.push(Write::SetPrior {
            prior: doc.diary.prior,
        });
        for entry in doc.diary.dailies {
            crate::time::parse_date(&entry.date).ok_or_else(|| {
                Error::invalid(format!("diary date {:?} is not YYYY-MM-DD", entry.date))
            })?;
            batch.push(Write::PutDaily {
                entry: DiaryEntry {
                    date: entry.date,
                    summary: entry.summary,
                },
            });
        }
        for turn in doc.turns {
            batch.push(Write::PutTurn { turn });
        }
        for memory in doc.memories {
            batch.push(Write::PutMemory { memory });
        }
        self.ports.store.commit(npcid, batch).await?;
        self.rebuild_vectors(npcid).await?;
        let stored = self.require_npc(npcid).await?;
        Ok(super::npcs::npc_view(&stored, false))
    }
}
