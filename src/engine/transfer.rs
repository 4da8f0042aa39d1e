//! Export and import of one NPC's whole memory as a versioned JSON document.

use super::conversation::validate_stored_turn;
use super::dream::{DAILY_MAX_CHARS, PRIOR_MAX_CHARS};
use super::new_memory::{fit_keywords, validate_record};
use super::Hippo;
use crate::api::{NpcExport, NpcView, EXPORT_FORMAT, EXPORT_VERSION};
use crate::diary::Diary;
use crate::error::{Error, Result};
use crate::ids::validate_npcid;
use crate::pkg::{self, cut_chars};
use crate::ports::{MemoryFilter, Write, WriteBatch};
use crate::relationship;
use crate::sensitive;
use std::collections::HashSet;

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
        let fields = store.pkg(npcid).await?;
        Ok(NpcExport {
            format: EXPORT_FORMAT.into(),
            version: EXPORT_VERSION,
            npc,
            pkg: pkg::values(&fields),
            pkg_source_turns: pkg::sources(&fields),
            relationship: relationship::view(&entities),
            diary: Diary { prior, dailies },
            turns,
            memories,
        })
    }

    /// Replaces everything of the NPC with the document's contents, in one batch, then
    /// rebuilds its vectors. The path's `npcid` wins over the document's. Every record is
    /// checked by the rules of the route that writes it (400 naming the first one that
    /// fails, nothing written). The NPC's memory_retrieval tokens are kept: a restore must
    /// not cut off the platforms that talk to the character. A write to the NPC that lands
    /// between the import's read and its commit makes it `busy` (503: send it again) rather
    /// than being erased by a silent retry.
    pub async fn import_npc(&self, npcid: &str, mut doc: NpcExport) -> Result<NpcView> {
        validate_npcid(npcid)?;
        validate_export(&mut doc)?;
        // One attempt, the document moved into the batch: a retry would need a copy of it,
        // and a large import would hold two (in wasm, memory taken at an import's peak is
        // never given back). Over an NPC that exists it is guarded by the NPC's version.
        let existing = self.ports.store.npc(npcid).await?;
        let tokens = match existing {
            Some(_) => self.ports.store.tokens(npcid).await?,
            None => Vec::new(),
        };
        let mut batch = match &existing {
            Some(npc) => WriteBatch::expecting(npc.version),
            None => WriteBatch::new(),
        };
        batch.push(Write::DeleteNpc);
        let mut npc = doc.npc;
        npc.npcid = npcid.to_string();
        batch.push(Write::PutNpc(npc));
        let mut sources = doc.pkg_source_turns;
        for (key, value) in doc.pkg {
            let source_turns = sources.swap_remove(&key).unwrap_or_default();
            batch.push(Write::SetPkgField {
                key,
                value,
                source_turns,
            });
        }
        for (id, entity) in doc.relationship {
            batch.push(Write::PutEntity { id, entity });
        }
        batch.push(Write::SetPrior {
            prior: doc.diary.prior,
        });
        for entry in doc.diary.dailies {
            batch.push(Write::PutDaily { entry });
        }
        for turn in doc.turns {
            batch.push(Write::PutTurn { turn });
        }
        for mut memory in doc.memories {
            // The floor of every write: a document may come from a build whose detector
            // missed what this one flags, or from another tool.
            sensitive::apply_floor(
                &memory.summary,
                &mut memory.sensitive,
                &mut memory.sensitive_category,
            );
            batch.push(Write::PutMemory { memory });
        }
        for token in tokens {
            batch.push(Write::PutToken { token });
        }
        self.commit_once(npcid, batch).await?;
        self.rebuild_vectors(npcid).await?;
        let stored = self.require_npc(npcid).await?;
        Ok(super::npcs::npc_view(&stored, false))
    }
}

/// Checks an export document by the write routes' rules (see [`Hippo::import_npc`]);
/// keywords are brought within their limits the way conflict resolution does.
fn validate_export(doc: &mut NpcExport) -> Result<()> {
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
    super::npcs::check_display_name(&doc.npc.display_name)?;
    pkg::validate_stored(&doc.pkg, &doc.pkg_source_turns, "pkg")?;
    relationship::validate_stored(doc.relationship.iter(), "relationship")?;
    if doc.diary.prior.chars().count() > PRIOR_MAX_CHARS {
        return Err(Error::invalid(format!(
            "diary.prior is longer than {PRIOR_MAX_CHARS} characters"
        )));
    }
    let mut dates = HashSet::new();
    for (i, entry) in doc.diary.dailies.iter().enumerate() {
        if crate::time::parse_date(&entry.date).is_none() || !dates.insert(entry.date.as_str()) {
            return Err(Error::invalid(format!(
                "diary.dailies[{i}].date {:?} is not a YYYY-MM-DD date of its own",
                cut_chars(&entry.date, 32)
            )));
        }
        if entry.summary.chars().count() > DAILY_MAX_CHARS {
            return Err(Error::invalid(format!(
                "diary.dailies[{i}].summary is longer than {DAILY_MAX_CHARS} characters"
            )));
        }
    }
    let mut last_seq = 0;
    for (i, turn) in doc.turns.iter().enumerate() {
        // Field names are formatted only when an error names them (`format_args!`).
        validate_stored_turn(turn, format_args!("turns[{i}]"))?;
        if turn.seq <= last_seq {
            return Err(Error::invalid(format!(
                "turns[{i}].seq must be above the one before it"
            )));
        }
        last_seq = turn.seq;
    }
    let mut ids = HashSet::new();
    for (i, memory) in doc.memories.iter_mut().enumerate() {
        memory.keywords = fit_keywords(std::mem::take(&mut memory.keywords));
        validate_record(memory, format_args!("memories[{i}]"))?;
        crate::memory::check_source_turns(
            &memory.source_turns,
            format_args!("memories[{i}].source_turns"),
        )?;
        if !ids.insert(memory.id.clone()) {
            return Err(Error::invalid(format!(
                "memories[{i}].id repeats an earlier id"
            )));
        }
    }
    Ok(())
}
