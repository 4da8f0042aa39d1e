//! A batch against the in-memory state: [`validate`] checks all of it first (the version
//! guard, the NPC's existence), then [`apply`] makes each write, which cannot fail, so a batch
//! lands whole or not at all.

use super::{kind, Listed, NpcData, State};
use crate::error::PortError;
use crate::memory::strength::boosted_importance;
use crate::order::remove_where;
use crate::ports::*;
use crate::store::texts::memory_key;

pub(super) fn validate(state: &State, npcid: &str, batch: &WriteBatch) -> PortResult<()> {
    let current = state.npcs.get(npcid).and_then(|d| d.npc.as_ref());
    if let Some(expected) = batch.expect_version {
        let actual = current.map(|n| n.version);
        if actual != Some(expected) {
            return Err(PortError::Conflict(format!(
                "NPC {npcid} is at version {actual:?}, expected {expected}"
            )));
        }
    }
    // A guarded batch replaces memories as it read them: a touch since then is a conflict.
    // Not after a DeleteNpc in the batch (an import): what follows it replaces nothing read.
    if batch.expect_version.is_some() {
        let stored = state.npcs.get(npcid).map(|d| &d.memories);
        for w in batch
            .writes
            .iter()
            .take_while(|w| !matches!(w, Write::DeleteNpc))
        {
            if let Write::PutMemory { memory } = w {
                let old = stored.and_then(|m| m.get(&memory.id));
                if old.is_some_and(|old| old.access_count != memory.access_count) {
                    return Err(PortError::Conflict(format!(
                        "memory {} was reinforced since it was read",
                        memory.id
                    )));
                }
            }
        }
    }
    // Writes other than PutNpc/DeleteNpc need the NPC to exist (before or within the batch).
    let mut exists = current.is_some();
    for w in &batch.writes {
        match w {
            Write::PutNpc(_) => exists = true,
            Write::DeleteNpc => exists = false,
            Write::PutToken { token } if token.npcid != npcid => {
                return Err(PortError::Backend("token of another NPC".into()))
            }
            _ if !exists => return Err(PortError::Backend(format!("NPC {npcid} does not exist"))),
            _ => {}
        }
    }
    Ok(())
}

/// One write of a validated batch: it cannot fail.
pub(super) fn apply(state: &mut State, npcid: &str, write: Write) {
    if let Write::DeleteNpc = write {
        // Emptied, not removed: an NPC without `npc` does not exist (reads, listings, the
        // snapshot skip it), and `BTreeMap::remove` of this large value was ~KB of the npm
        // wasm. The id goes when the store is next opened.
        if let Some(data) = state.npcs.get_mut(npcid) {
            *data = NpcData::default();
        }
        remove_where(&mut state.tokens, |_, t| t.npcid == npcid);
        return;
    }
    if let Write::PutToken { token } = write {
        state.tokens.insert(token.token_hash.clone(), token);
        return;
    }
    if let Write::DeleteToken { token_id } = &write {
        remove_where(&mut state.tokens, |_, t| {
            t.npcid == npcid && &t.token_id == token_id
        });
        return;
    }
    let data = state.npcs.entry(npcid.to_string()).or_default();
    match write {
        Write::PutNpc(mut npc) => {
            npc.version = data.npc.as_ref().map_or(0, |n| n.version);
            npc.npcid = npcid.to_string();
            data.npc = Some(npc);
        }
        Write::SetPkgField {
            key,
            value,
            source_turns,
        } => {
            if source_turns.is_empty() {
                data.pkg_sources.shift_remove(&key);
            } else {
                data.pkg_sources.insert(key.clone(), source_turns);
            }
            data.pkg.insert(key, value);
        }
        Write::PutEntity { id, entity } => {
            data.entities.insert(id, entity);
        }
        Write::DeleteEntity { id } => {
            remove_where(&mut data.entities, |key, _| *key == id);
        }
        Write::PutDaily { entry } => {
            data.dailies.insert(entry.date, entry.summary);
        }
        Write::DeleteDaily { date } => {
            remove_where(&mut data.dailies, |day, _| *day == date);
        }
        Write::SetPrior { prior } => data.prior = prior,
        Write::PutTurn { turn } => {
            if !data.has_session_entry(&turn) {
                let at = data.turns.partition_point(|t| t.seq <= turn.seq);
                data.turns.insert(at, turn);
            }
        }
        Write::PutMemory { memory } => {
            // Most rewrites change counters, not text (reinforcement, supersede, a Worker
            // copy catching up): re-indexing would re-tokenize and walk long posting lists.
            let old = data.memories.get(&memory.id);
            let same_text = old.is_some_and(|old| {
                old.summary == memory.summary
                    && old.keywords == memory.keywords
                    && old.context == memory.context
            });
            let was_hidden = old.is_some_and(|old| old.superseded_by.is_some());
            if !same_text {
                data.lexical.add_with_context(
                    &memory.id,
                    &memory.summary,
                    &memory.keywords,
                    &memory.context,
                );
            }
            // Superseded, it is never a candidate: a routine's many past days would crowd
            // the live memories out of a search's top. (Re-indexing shows a document.)
            let hidden = memory.superseded_by.is_some();
            if hidden || was_hidden {
                data.lexical.set_hidden(&memory.id, hidden);
            }
            let listed = Listed::of(&memory);
            // A rewrite with the same text and kind keeps its key.
            let rekey = data
                .texts
                .is_some()
                .then(|| match data.memories.get(&memory.id) {
                    Some(old) if old.summary == memory.summary && kind(old) == kind(&memory) => {
                        None
                    }
                    old => Some((old.map(memory_key), memory_key(&memory))),
                });
            let (at, _) = data.memories.insert_full(memory.id.clone(), memory);
            match data.listed.get_mut(at) {
                Some(row) => *row = listed,
                None => data.listed.push(listed),
            }
            if let (Some(texts), Some(Some((old, new)))) = (data.texts.as_mut(), rekey) {
                if let Some(old) = old {
                    texts.remove(old, at);
                }
                texts.add(new, at);
            }
        }
        Write::DeleteMemory { id } => {
            data.lexical.remove(&id);
            if let Some((at, _, old)) = data.memories.shift_remove_full(&id) {
                data.listed.remove(at);
                if let Some(texts) = data.texts.as_mut() {
                    texts.shifted_out(memory_key(&old), at);
                }
            }
        }
        Write::Touch { ids, at } => {
            for id in ids {
                if let Some(m) = data.memories.get_mut(&id) {
                    m.access_count = m.access_count.saturating_add(1);
                    m.last_accessed_at = m.last_accessed_at.max(at);
                    m.importance = boosted_importance(m.importance);
                }
            }
        }
        Write::SetWatermark { seq } => {
            if let Some(npc) = data.npc.as_mut() {
                npc.watermark = npc.watermark.max(seq);
            }
        }
        // Applied above: they are not rows of the NPC's data.
        Write::DeleteNpc | Write::PutToken { .. } | Write::DeleteToken { .. } => {}
    }
}
