//! The one read that brings an isolate's copy of an NPC's memories up to date
//! ([`memory_cache`](super::memory_cache)): the NPC, its incarnation, memory revision and
//! memory count, the memory rows and tombstones stamped after the copy's revision, and the
//! NPC's profile (which retrieval reads next), all in one batch, so they describe one state of
//! the NPC. The NPC's row is read once: the profile's first statement selects the record, the
//! head and the diary's prior together.

use super::bind::*;
use super::memory_cache::{Delta, Position};
use super::profile::Profile;
use super::rows::*;
use super::vectors::{generation_statement, Generation};
use super::Db;
use hippo::ports::PortResult;
use serde::Deserialize;
use worker::{D1PreparedStatement, D1Result};

#[derive(Deserialize)]
struct Head {
    incarnation: String,
    memory_rev: i64,
    /// Only a full read counts.
    memory_count: Option<i64>,
}

#[derive(Deserialize)]
struct Tombstone {
    id: String,
}

/// What one sync read returned.
pub struct SyncRead {
    /// `None` when the NPC does not exist.
    pub delta: Option<Delta>,
    pub profile: Profile,
    /// The D1 vector index's generation of the NPC, when asked for.
    pub vector_generation: Option<i64>,
}

/// The delta since `since` (everything when `None`), the profile, and if asked the vector
/// generation.
/// `capacity`: rows come only if the NPC has at most this many memories (a copy of a bigger
/// one would not be kept, and reading it all on every request would cost more than SQL).
pub async fn read(
    db: &Db,
    npcid: &str,
    since: Option<&Position>,
    capacity: usize,
    with_vector_generation: bool,
) -> PortResult<SyncRead> {
    let results = batch(
        db,
        statements(db, npcid, since, capacity, with_vector_generation)?,
    )
    .await?;
    parse(&results)
}

/// The statements of [`read`], for a batch that reads more (the token lookup's).
pub fn statements(
    db: &Db,
    npcid: &str,
    since: Option<&Position>,
    capacity: usize,
    with_vector_generation: bool,
) -> PortResult<Vec<D1PreparedStatement>> {
    let id = text(npcid);
    // A full read needs no tombstones: nothing to delete from an empty copy.
    let tombstones_since = since.map_or(i64::MAX, |p| p.rev);
    // Counting an NPC's memories walks its whole index range (~0.4 ms of D1's CPU at 10k
    // memories, and the guard counted again): only a full read counts, to read no rows of
    // an NPC too big to copy. A delta's rows are distinct memories of the NPC, so more rows
    // than `capacity` already say "too big"; the copy counts itself after the delta.
    let (count, rows_where, rows_params) = match since {
        None => (
            "(SELECT COUNT(*) FROM memories WHERE npcid = ?1)",
            "(SELECT COUNT(*) FROM memories WHERE npcid = ?1) <= ?2 ORDER BY rid",
            vec![id.clone(), uint(capacity as u64)],
        ),
        Some(since) => (
            "NULL",
            "rev > ?2 ORDER BY rid LIMIT ?3",
            vec![id.clone(), int(since.rev), uint(capacity as u64 + 1)],
        ),
    };
    // The profile reads the NPC's row first: the record and the head ride on that read.
    let mut statements = Profile::statements(
        db,
        npcid,
        &format!("{NPC_COLUMNS}, incarnation, memory_rev, {count} AS memory_count"),
    )?;
    statements.push(statement(
        db,
        &format!("SELECT {MEMORY_JSON} FROM memories WHERE npcid = ?1 AND {rows_where}"),
        &rows_params,
    )?);
    statements.push(statement(
        db,
        "SELECT id FROM memory_tombstones WHERE npcid = ?1 AND rev > ?2",
        &[id, int(tombstones_since)],
    )?);
    if with_vector_generation {
        statements.push(generation_statement(db, npcid)?);
    }
    Ok(statements)
}

/// What the results of [`statements`] say, in their order.
pub fn parse(results: &[D1Result]) -> PortResult<SyncRead> {
    if results.len() < 6 {
        return Err(hippo::error::PortError::Backend(
            "the sync read answered fewer results than statements".into(),
        ));
    }
    let profile = Profile::from_results(&results[..4])?;
    let vector_generation = match results.get(6) {
        Some(result) => result
            .results::<Generation>()
            .map_err(backend)?
            .pop()
            .map(|g| g.gen),
        None => None,
    };
    let Some(npc) = results[0].results::<NpcRow>().map_err(backend)?.pop() else {
        return Ok(SyncRead {
            delta: None,
            profile,
            vector_generation,
        });
    };
    let npc = npc.into_npc()?;
    let head = results[0]
        .results::<Head>()
        .map_err(backend)?
        .pop()
        .ok_or_else(|| hippo::error::PortError::Backend("NPC row vanished in a batch".into()))?;
    let rows = results[4]
        .results::<MemoryJsonRow>()
        .map_err(backend)?
        .into_iter()
        .map(MemoryRow::from_json)
        .collect::<PortResult<Vec<_>>>()?;
    let tombstones = results[5]
        .results::<Tombstone>()
        .map_err(backend)?
        .into_iter()
        .map(|t| t.id)
        .collect();
    let position = Position {
        incarnation: head.incarnation,
        rev: head.memory_rev,
    };
    Ok(SyncRead {
        delta: Some(Delta {
            npc,
            position,
            count: head.memory_count.map(|c| c.max(0) as usize),
            rows,
            tombstones,
        }),
        profile,
        vector_generation,
    })
}
