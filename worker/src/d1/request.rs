//! What one request (or cron run) has read of D1 so far: one [`RequestState`], created with the
//! request's ports and passed to its [`D1Store`](super::D1Store) and, when no Vectorize binding
//! exists, its [`D1VectorIndex`](super::D1VectorIndex); it goes when the request ends.
//!
//! Retrieval and the dream read the NPC record more than once (token check, then the
//! operation) and the PKG, entities and diary one after another; each D1 read is a round
//! trip, so what one read fetched serves the later reads of the same request. Any commit
//! through the store forgets it, so an operation that writes and re-reads (the engine's
//! optimistic retries) always sees the database again.
//!
//! Isolate-lifetime caches, which outlive a request and are checked against D1 once per
//! request, are apart: [`memory_cache`](super::memory_cache) and
//! [`vector_cache`](super::vector_cache).

use super::bind::*;
use super::profile::Profile;
use super::rows::*;
use hippo::npc::Npc;
use hippo::ports::PortResult;
use hippo::store::MemoryStore;
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use worker::D1Database;

/// The statement reading the NPC's record ([`NpcRow`]).
pub fn npc_statement(db: &D1Database, npcid: &str) -> PortResult<worker::D1PreparedStatement> {
    let sql = format!("SELECT {NPC_COLUMNS} FROM npcs WHERE npcid = ?1");
    statement(db, &sql, &[text(npcid)])
}

#[derive(Default)]
pub struct RequestState {
    npcs: RefCell<HashMap<String, Option<Npc>>>,
    profiles: RefCell<HashMap<String, Profile>>,
    /// The isolate copies of memories this request brought up to date (`None`: SQL serves
    /// the NPC).
    synced_memories: RefCell<HashMap<String, Option<Rc<MemoryStore>>>>,
    /// `Some` when the D1 vector index serves this request: the store's retrieval read then
    /// also fetches the NPC's vector generation, which the index takes (once) instead of
    /// reading it itself, one round trip fewer per retrieval.
    vector_generations: Option<RefCell<HashMap<String, i64>>>,
}

impl RequestState {
    /// The state of a request whose vectors are in D1 ([`super::D1VectorIndex`]).
    pub fn with_d1_vectors() -> Self {
        RequestState {
            vector_generations: Some(RefCell::default()),
            ..Self::default()
        }
    }

    /// Forgets what was read (after any write). Vector generations stay: each is taken once,
    /// and a vector write never goes through the store.
    pub fn forget(&self) {
        self.npcs.borrow_mut().clear();
        self.profiles.borrow_mut().clear();
        self.synced_memories.borrow_mut().clear();
    }

    pub async fn npc(&self, db: &D1Database, npcid: &str) -> PortResult<Option<Npc>> {
        if let Some(npc) = self.npcs.borrow().get(npcid) {
            return Ok(npc.clone());
        }
        let npc = npc_statement(db, npcid)?
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

    /// The NPC's profile: from this request's reads, or one batch of four reads.
    pub async fn profile<T>(
        &self,
        db: &D1Database,
        npcid: &str,
        pick: impl FnOnce(&Profile) -> T,
    ) -> PortResult<T> {
        if let Some(profile) = self.profiles.borrow().get(npcid) {
            return Ok(pick(profile));
        }
        let results = batch(db, Profile::statements(db, npcid, "")?).await?;
        let profile = Profile::from_results(&results)?;
        let out = pick(&profile);
        self.profiles
            .borrow_mut()
            .insert(npcid.to_string(), profile);
        Ok(out)
    }

    /// The NPC and its profile: from this request's reads, or one batch reading both (the
    /// profile's read of the NPC's row selects the record's columns too).
    pub async fn npc_and_profile(
        &self,
        db: &D1Database,
        npcid: &str,
    ) -> PortResult<(Option<Npc>, Profile)> {
        let known = self.npcs.borrow().get(npcid).cloned();
        if let Some(npc) = known {
            return Ok((npc, self.profile(db, npcid, Profile::clone).await?));
        }
        let results = batch(db, Profile::statements(db, npcid, NPC_COLUMNS)?).await?;
        let profile = Profile::from_results(&results)?;
        let npc = results[0]
            .results::<NpcRow>()
            .map_err(backend)?
            .pop()
            .map(NpcRow::into_npc)
            .transpose()?;
        self.remember(npcid, npc.clone(), profile.clone());
        Ok((npc, profile))
    }

    /// Keeps an NPC record another read fetched (the token lookup reads its NPC).
    pub fn remember_npc(&self, npcid: &str, npc: Option<Npc>) {
        self.npcs.borrow_mut().insert(npcid.to_string(), npc);
    }

    /// Keeps what another read of this request fetched (the memory sync reads both).
    pub fn remember(&self, npcid: &str, npc: Option<Npc>, profile: Profile) {
        self.remember_npc(npcid, npc);
        self.profiles
            .borrow_mut()
            .insert(npcid.to_string(), profile);
    }

    /// The copy of `npcid`'s memories this request synced: `None` if it has not yet,
    /// `Some(None)` if SQL serves the NPC.
    pub fn synced_memories(&self, npcid: &str) -> Option<Option<Rc<MemoryStore>>> {
        self.synced_memories.borrow().get(npcid).cloned()
    }

    pub fn set_synced_memories(&self, npcid: &str, copy: Option<Rc<MemoryStore>>) {
        self.synced_memories
            .borrow_mut()
            .insert(npcid.to_string(), copy);
    }

    /// Whether the store's retrieval read should fetch the vector generation.
    pub fn reads_vector_generations(&self) -> bool {
        self.vector_generations.is_some()
    }

    pub fn put_vector_generation(&self, npcid: &str, generation: i64) {
        if let Some(generations) = &self.vector_generations {
            generations
                .borrow_mut()
                .insert(npcid.to_string(), generation);
        }
    }

    /// The vector generation a read of this request fetched, once.
    pub fn take_vector_generation(&self, npcid: &str) -> Option<i64> {
        self.vector_generations
            .as_ref()
            .and_then(|g| g.borrow_mut().remove(npcid))
    }
}
