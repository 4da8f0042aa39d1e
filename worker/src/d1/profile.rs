//! An NPC's structured profile (PKG, relationships, diary), read as one batch of four
//! statements; [`RequestState`](super::request::RequestState) keeps it for the request.

use super::bind::*;
use super::rows::*;
use hippo::diary::DiaryEntry;
use hippo::pkg::PkgField;
use hippo::ports::PortResult;
use hippo::relationship::Entity;
use serde::Deserialize;
use worker::{D1Database, D1PreparedStatement, D1Result};

/// An NPC's structured profile, as one batch read it.
#[derive(Debug, Clone, Default)]
pub struct Profile {
    pub pkg: Vec<PkgField>,
    pub entities: Vec<(String, Entity)>,
    pub prior: String,
    pub dailies: Vec<DiaryEntry>,
}

#[derive(Deserialize)]
struct Prior {
    diary_prior: String,
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
