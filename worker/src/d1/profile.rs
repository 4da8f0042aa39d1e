//! An NPC's structured profile (PKG, relationships, diary), read as one batch of four
//! statements; [`RequestState`](super::request::RequestState) keeps it for the request.
//! The first statement reads the NPC's own row (the diary's prior lives there), so a batch
//! that also needs other columns of that row selects them in the same statement.

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
    /// The four reads of a profile, for a batch: first the NPC's row, selecting the diary's
    /// prior after `row_columns` (a column list, or empty), then the PKG, entities and
    /// dailies. A batch that needs the NPC's row reads it here, one statement fewer.
    pub fn statements(
        db: &D1Database,
        npcid: &str,
        row_columns: &str,
    ) -> PortResult<Vec<D1PreparedStatement>> {
        let id = [text(npcid)];
        let separator = if row_columns.is_empty() { "" } else { ", " };
        let row = format!("SELECT {row_columns}{separator}diary_prior FROM npcs WHERE npcid = ?1");
        Ok(vec![
            statement(db, &row, &id)?,
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
            statement(
                db,
                "SELECT date, summary FROM diary_dailies WHERE npcid = ?1 ORDER BY date",
                &id,
            )?,
        ])
    }

    /// The profile from the results of [`Profile::statements`], in order.
    pub fn from_results(results: &[D1Result]) -> PortResult<Profile> {
        if results.len() < 4 {
            return Err(hippo::error::PortError::Backend(
                "the profile read answered fewer results than statements".into(),
            ));
        }
        Ok(Profile {
            prior: results[0]
                .results::<Prior>()
                .map_err(backend)?
                .pop()
                .map(|p| p.diary_prior)
                .unwrap_or_default(),
            pkg: results[1]
                .results::<PkgRow>()
                .map_err(backend)?
                .into_iter()
                .map(PkgRow::into_field)
                .collect::<PortResult<_>>()?,
            entities: results[2]
                .results::<EntityRow>()
                .map_err(backend)?
                .into_iter()
                .map(EntityRow::into_entity)
                .collect::<PortResult<_>>()?,
            dailies: results[3].results::<DiaryEntry>().map_err(backend)?,
        })
    }
}
