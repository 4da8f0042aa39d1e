//! Reads of an NPC's record and its structured profile (PKG, relationships, diary), with a
//! read-ahead that lives as long as one request's store.
//!
//! Retrieval and the dream read the PKG, the entities and the diary one after another, and the
//! NPC record more than once (token check, then the operation). Each D1 read is a round trip,
//! so the first profile read fetches all three in one batch, and the NPC record is kept: later
//! reads in the same request are served from memory. Any commit through the store forgets
//! everything, so an operation that writes and re-reads (the engine's optimistic retries)
//! always sees the database again.

use super::bind::*;
use super::rows::*;
use hippo::diary::DiaryEntry;
use hippo::npc::Npc;
use hippo::pkg::PkgField;
use hippo::ports::PortResult;
use hippo::relationship::Entity;
use serde::Deserialize;
use std::cell::RefCell;
use std::collections::HashMap;
use worker::{D1Database, D1PreparedStatement, D1Result};

/// An NPC's structured profile, as one batch read it.
#[derive(Debug, Clone, Default)]
pub struct Profile {
    pub pkg: Vec<PkgField>,
    pub entities: Vec<(String, Entity)>,
    pub prior: String,
    pub dailies: Vec<DiaryEntry>,
}

#[derive(Default)]
pub struct ReadAhead {
    npcs: RefCell<HashMap<String, Option<Npc>>>,
    profiles: RefCell<HashMap<String, Profile>>,
}

#[derive(Deserialize)]
struct Prior {
    diary_prior: String,
}

impl ReadAhead {
    /// Forgets everything read so far (after any write).
    pub fn forget(&self) {
        self.npcs.borrow_mut().clear();
        self.profiles.borrow_mut().clear();
    }

    pub async fn npc(&self, db: &D1Database, npcid: &str) -> PortResult<Option<Npc>> {
        if let Some(npc) = self.npcs.borrow().get(npcid) {
            return Ok(npc.clone());
        }
        let sql = format!("SELECT {NPC_COLUMNS} FROM npcs WHERE npcid = ?1");
        let npc = statement(db, &sql, &[text(npcid)])?
            .first::<NpcRow>(None)
            .await
            .map_err(backend)?
            .map(NpcRow::into_npc)
            .transpose()?;
        self.npcs
            .borrow_mut()
            .insert(npcid.to_string(), npc.clone());
        Ok(npc)
    }

    /// The NPC's profile: from this request's read-ahead, or one batch of four reads.
    pub async fn profile<T>(
        &self,
        db: &D1Database,
        npcid: &str,
        pick: impl FnOnce(&Profile) -> T,
    ) -> PortResult<T> {
        if let Some(profile) = self.profiles.borrow().get(npcid) {
            return Ok(pick(profile));
        }
        let results = db
            .batch(Profile::statements(db, npcid)?)
            .await
            .map_err(backend)?;
        if let Some(err) = results.iter().find_map(|r| r.error()) {
            return Err(classify(&err));
        }
        let profile = Profile::from_results(&results)?;
        let out = pick(&profile);
        self.profiles
            .borrow_mut()
            .insert(npcid.to_string(), profile);
        Ok(out)
    }

    /// Keeps what another read of this request fetched (the memory sync reads both).
    pub fn remember(&self, npcid: &str, npc: Option<Npc>, profile: Profile) {
        self.npcs.borrow_mut().insert(npcid.to_string(), npc);
        self.profiles
            .borrow_mut()
            .insert(npcid.to_string(), profile);
    }
}

impl Profile {
    /// The four reads of a profile, for a batch.
    pub fn statements(db: &D1Database, npcid: &str) -> PortResult<Vec<D1PreparedStatement>> {
        let id = [text(npcid)];
        Ok(vec![
            statement(
                db,
                "SELECT key, value, source_turns FROM pkg_fields WHERE npcid = ?1 \
                 ORDER BY position, key",
                &id,
            )?,
            statement(
                db,
                "SELECT id, name, alias, title, remark, source_turns FROM entities \
                 WHERE npcid = ?1 ORDER BY num, id",
                &id,
            )?,
            statement(db, "SELECT diary_prior FROM npcs WHERE npcid = ?1", &id)?,
            statement(
                db,
                "SELECT date, summary FROM diary_dailies WHERE npcid = ?1 ORDER BY date",
                &id,
            )?,
        ])
    }

    /// The profile from the results of [`Profile::statements`], in order.
    pub fn from_results(results: &[D1Result]) -> PortResult<Profile> {
        Ok(Profile {
            pkg: results[0]
                .results::<PkgRow>()
                .map_err(backend)?
                .into_iter()
                .map(PkgRow::into_field)
                .collect::<PortResult<_>>()?,
            entities: results[1]
                .results::<EntityRow>()
                .map_err(backend)?
                .into_iter()
                .map(EntityRow::into_entity)
                .collect::<PortResult<_>>()?,
            prior: results[2]
                .results::<Prior>()
                .map_err(backend)?
                .pop()
                .map(|p| p.diary_prior)
                .unwrap_or_default(),
            dailies: results[3].results::<DiaryEntry>().map_err(backend)?,
        })
    }
}
