//! The in-memory store and vector index: the reference implementations of the ports.
//!
//! Used by the core's tests, the benchmarks, the npm package and the browser (which persist
//! [`MemoryStore::snapshot`] after every commit). Commits validate first and then apply
//! writes that cannot fail, so a batch lands whole or not at all.

use super::texts::{text_key, TextIndex};
use super::Sink;
use crate::conversation::Turn;
use crate::diary::DiaryEntry;
use crate::error::PortError;
use crate::memory::{Collection, Memory, MemoryType};
use crate::npc::Npc;
use crate::pkg::{PkgField, PkgSources, PkgValue};
use crate::ports::*;
use crate::relationship::Entity;
use crate::retrieval::lexical::LexicalIndex;
use crate::time::Timestamp;
use async_trait::async_trait;
use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;

/// Everything of one NPC.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct NpcData {
    npc: Option<Npc>,
    pkg: IndexMap<String, PkgValue>,
    /// Links of the PKG fields that have any (key → turn ids); absent from older snapshots.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pkg_sources: PkgSources,
    entities: BTreeMap<String, Entity>,
    prior: String,
    /// date → summary; BTreeMap keeps them oldest first.
    dailies: BTreeMap<String, String>,
    turns: Vec<Turn>,
    /// In creation order (the stable order of listings). Hashed with foldhash, not SipHash:
    /// conflict resolution reads records by id for every new memory.
    memories: IndexMap<String, Memory, foldhash::fast::RandomState>,
    #[serde(skip)]
    lease: Option<(String, Timestamp)>,
    /// Derived from `memories`; rebuilt on restore.
    #[serde(skip)]
    lexical: LexicalIndex,
    /// What listings filter on, one row per memory in `memories`' order; derived, rebuilt on
    /// restore.
    #[serde(skip)]
    listed: Vec<Listed>,
    /// Positions of the memories by normalised text and kind (conflict resolution's exact
    /// duplicates); derived, built on the first look-up and kept up to date after it.
    #[serde(skip)]
    texts: Option<TextIndex>,
}

/// The fields a listing filters on first, kept beside the records: a time-bound retrieval
/// lists three collections, and reading 16 bytes a memory instead of touching every record
/// was most of its extra time at 100k memories.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Listed {
    collection: Collection,
    updated_at: Timestamp,
}

impl Listed {
    fn of(m: &Memory) -> Self {
        Listed {
            collection: m.collection,
            updated_at: m.updated_at,
        }
    }
}

/// What conflict resolution compares memories within: collection and type.
fn kind(m: &Memory) -> (Collection, MemoryType) {
    (m.collection, m.memory_type)
}

impl NpcData {
    /// Whether the log holds an entry of `turn`'s session at its index (entries without a
    /// session never collide).
    fn has_session_entry(&self, turn: &Turn) -> bool {
        turn.session_id.is_some()
            && turn.turn_index.is_some()
            && self
                .turns
                .iter()
                .any(|t| t.session_id == turn.session_id && t.turn_index == turn.turn_index)
    }
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct State {
    npcs: BTreeMap<String, NpcData>,
    /// token_hash → record.
    tokens: BTreeMap<String, TokenRecord>,
    meta: BTreeMap<String, String>,
}

/// The snapshot header: magic bytes, then the format version (u32, little endian).
const SNAPSHOT_MAGIC: &[u8; 8] = b"HIPPOST\0";
pub const SNAPSHOT_VERSION: u32 = 1;

#[derive(Debug, Default)]
pub struct MemoryStore {
    state: RefCell<State>,
    /// Increments on every successful commit or setting write: persistence layers save when
    /// it moves.
    generation: Cell<u64>,
}

impl MemoryStore {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn generation(&self) -> u64 {
        self.generation.get()
    }

    /// How many memories `npcid` has (0 for an unknown NPC), without listing them.
    pub fn memory_count(&self, npcid: &str) -> usize {
        self.state
            .borrow()
            .npcs
            .get(npcid)
            .map_or(0, |data| data.memories.len())
    }

    /// The whole store as bytes: an 8-byte magic, a u32 format version, then JSON.
    pub fn snapshot(&self) -> Result<Vec<u8>, PortError> {
        let mut out = Vec::new();
        self.snapshot_to(&mut out)?;
        Ok(out)
    }

    /// [`MemoryStore::snapshot`] written to `out` a memory at a time: the same bytes, but no
    /// piece larger than one NPC without its memories (at 100k memories the whole JSON is
    /// ~100 MB, and wasm memory never shrinks back).
    pub fn snapshot_to(&self, out: &mut dyn Sink) -> Result<(), PortError> {
        out.put(SNAPSHOT_MAGIC);
        out.put(&SNAPSHOT_VERSION.to_le_bytes());
        // The NPCs are taken out while the rest is written, then put back whole.
        let mut state = self.state.borrow_mut();
        let mut npcs = std::mem::take(&mut state.npcs);
        let written = write_state(&state, &mut npcs, out);
        state.npcs = npcs;
        written.map_err(|e| PortError::Backend(format!("cannot encode the store: {e}")))
    }

    /// A store from [`MemoryStore::snapshot`] bytes of this or an earlier format version.
    pub fn restore(bytes: &[u8]) -> Result<Self, PortError> {
        let bad = |why: &str| PortError::Backend(format!("not a Hippo store snapshot: {why}"));
        let (Some(magic), Some(version), Some(json)) =
            (bytes.get(..8), bytes.get(8..12), bytes.get(12..))
        else {
            return Err(bad("wrong header"));
        };
        if magic != SNAPSHOT_MAGIC {
            return Err(bad("wrong header"));
        }
        let version = version.first_chunk().map_or(0, |b| u32::from_le_bytes(*b));
        if version == 0 || version > SNAPSHOT_VERSION {
            return Err(bad(&format!(
                "format version {version} (this build reads up to {SNAPSHOT_VERSION})"
            )));
        }
        let mut state: State = serde_json::from_slice(json).map_err(|e| bad(&e.to_string()))?;
        for data in state.npcs.values_mut() {
            for m in data.memories.values() {
                data.lexical
                    .add_with_context(&m.id, &m.summary, &m.keywords, &m.context);
                data.lexical.set_hidden(&m.id, m.superseded_by.is_some());
                data.listed.push(Listed::of(m));
            }
        }
        Ok(MemoryStore {
            state: RefCell::new(state),
            generation: Cell::new(0),
        })
    }

    /// The snapshot as serde writes it in one piece ([`MemoryStore::snapshot_to`]'s reference).
    #[cfg(feature = "testing")]
    pub fn derived_snapshot(&self) -> Vec<u8> {
        let mut out = SNAPSHOT_MAGIC.to_vec();
        out.extend_from_slice(&SNAPSHOT_VERSION.to_le_bytes());
        let mut state = self.state.borrow().clone();
        state.npcs.retain(|_, d| d.npc.is_some());
        out.extend(serde_json::to_vec(&state).unwrap_or_default());
        out
    }

    fn bump(&self) {
        self.generation.set(self.generation.get() + 1);
    }

    fn read<T>(&self, npcid: &str, f: impl FnOnce(&NpcData) -> T) -> Option<T> {
        let state = self.state.borrow();
        state.npcs.get(npcid).filter(|d| d.npc.is_some()).map(f)
    }
}

/// How the derived JSON of a `State` starts.
const NPCS_OPEN: &[u8] = b"{\"npcs\":{";

/// The JSON serde derives for a `State` holding `npcs`, written a piece at a time: each NPC's
/// own fields, then its memories one by one (its last field). The NPC's derived shape is cut
/// at its empty `memories` map, so a field added to it is written too; a field added to
/// `State` must be added here (the backend tests compare the result with the derived JSON).
fn write_state(
    rest: &State,
    npcs: &mut BTreeMap<String, NpcData>,
    out: &mut dyn Sink,
) -> serde_json::Result<()> {
    let mut buffer = Vec::new();
    out.put(NPCS_OPEN);
    let mut first = true;
    // A deleted NPC is an emptied entry: nothing of it is written.
    for (npcid, data) in npcs.iter_mut().filter(|(_, d)| d.npc.is_some()) {
        if !std::mem::take(&mut first) {
            out.put(b",");
        }
        put_json(out, &mut buffer, npcid)?;
        out.put(b":");
        // Without its memories the NPC's JSON ends `"memories":{}}`: they go in those braces.
        let memories = std::mem::take(&mut data.memories);
        buffer.clear();
        let shell = serde_json::to_writer(&mut buffer, &*data);
        data.memories = memories;
        shell?;
        let open = buffer
            .strip_suffix(b"{}}")
            .ok_or_else(|| <serde_json::Error as serde::ser::Error>::custom("unexpected shape"))?;
        out.put(open);
        out.put(b"{");
        for (m, (id, memory)) in data.memories.iter().enumerate() {
            if m > 0 {
                out.put(b",");
            }
            put_json(out, &mut buffer, id)?;
            out.put(b":");
            put_json(out, &mut buffer, memory)?;
        }
        out.put(b"}}");
    }
    out.put(b"},\"tokens\":");
    put_json(out, &mut buffer, &rest.tokens)?;
    out.put(b",\"meta\":");
    put_json(out, &mut buffer, &rest.meta)?;
    out.put(b"}");
    Ok(())
}

/// The JSON of a piece, in the one buffer `out` reuses for every piece.
fn put_json<T: Serialize + ?Sized>(
    out: &mut dyn Sink,
    buffer: &mut Vec<u8>,
    value: &T,
) -> serde_json::Result<()> {
    buffer.clear();
    serde_json::to_writer(&mut *buffer, value)?;
    out.put(buffer);
    Ok(())
}

mod commit;
use commit::{apply, validate};

impl NpcData {
    /// The first `limit` hits in `collections` (all when empty).
    fn in_collections(
        &self,
        hits: Vec<(String, f64)>,
        collections: &[Collection],
        limit: usize,
    ) -> Vec<(String, f64)> {
        hits.into_iter()
            .filter(|(id, _)| {
                collections.is_empty()
                    || self
                        .memories
                        .get(id)
                        .is_some_and(|m| collections.contains(&m.collection))
            })
            .take(limit)
            .collect()
    }

    fn pkg_fields(&self) -> Vec<PkgField> {
        self.pkg
            .iter()
            .map(|(k, v)| PkgField {
                key: k.clone(),
                value: v.clone(),
                source_turns: self.pkg_sources.get(k).cloned().unwrap_or_default(),
            })
            .collect()
    }

    fn entity_list(&self) -> Vec<(String, Entity)> {
        self.entities
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()
    }

    fn daily_entries(&self) -> Vec<DiaryEntry> {
        self.dailies
            .iter()
            .map(|(date, summary)| DiaryEntry {
                date: date.clone(),
                summary: summary.clone(),
            })
            .collect()
    }
}

#[async_trait(?Send)]
impl Store for MemoryStore {
    async fn retrieval_view(&self, npcid: &str) -> PortResult<Option<RetrievalView>> {
        Ok(self
            .read(npcid, |d| {
                d.npc.clone().map(|npc| RetrievalView {
                    npc,
                    pkg: d.pkg_fields(),
                    entities: d.entity_list(),
                    dailies: d.daily_entries(),
                })
            })
            .flatten())
    }

    async fn npc(&self, npcid: &str) -> PortResult<Option<Npc>> {
        Ok(self.read(npcid, |d| d.npc.clone()).flatten())
    }

    async fn list_npcs(&self, after: Option<&str>, limit: usize) -> PortResult<Vec<Npc>> {
        let state = self.state.borrow();
        Ok(state
            .npcs
            .iter()
            .filter(|(id, _)| after.is_none_or(|a| id.as_str() > a))
            .filter_map(|(_, d)| d.npc.clone())
            .take(limit)
            .collect())
    }

    async fn pkg(&self, npcid: &str) -> PortResult<Vec<PkgField>> {
        Ok(self.read(npcid, NpcData::pkg_fields).unwrap_or_default())
    }

    async fn entities(&self, npcid: &str) -> PortResult<Vec<(String, Entity)>> {
        Ok(self.read(npcid, NpcData::entity_list).unwrap_or_default())
    }

    async fn diary(&self, npcid: &str) -> PortResult<(String, Vec<DiaryEntry>)> {
        Ok(self
            .read(npcid, |d| (d.prior.clone(), d.daily_entries()))
            .unwrap_or_default())
    }

    async fn turns(&self, npcid: &str, after_seq: u64, limit: usize) -> PortResult<Vec<Turn>> {
        Ok(self
            .read(npcid, |d| {
                let start = d.turns.partition_point(|t| t.seq <= after_seq);
                d.turns.iter().skip(start).take(limit).cloned().collect()
            })
            .unwrap_or_default())
    }

    async fn turns_by_id(&self, npcid: &str, ids: &[String]) -> PortResult<Vec<Turn>> {
        let wanted: std::collections::HashSet<&str> = ids.iter().map(String::as_str).collect();
        Ok(self
            .read(npcid, |d| {
                d.turns
                    .iter()
                    .filter(|t| wanted.contains(t.id.as_str()))
                    .cloned()
                    .collect()
            })
            .unwrap_or_default())
    }

    async fn append_turns(&self, npcid: &str, turns: Vec<Turn>) -> PortResult<Appended> {
        let mut state = self.state.borrow_mut();
        let Some(data) = state.npcs.get_mut(npcid).filter(|d| d.npc.is_some()) else {
            return Err(PortError::Backend(format!("NPC {npcid} does not exist")));
        };
        let mut last_seq = data.turns.last().map_or(0, |t| t.seq);
        let mut seqs = Vec::with_capacity(turns.len());
        for mut turn in turns {
            if data.has_session_entry(&turn) {
                seqs.push(None);
                continue;
            }
            last_seq += 1;
            turn.seq = last_seq;
            data.turns.push(turn);
            seqs.push(Some(last_seq));
        }
        drop(state);
        if seqs.iter().any(Option::is_some) {
            self.bump();
        }
        Ok(Appended { seqs, last_seq })
    }

    async fn last_seq(&self, npcid: &str) -> PortResult<u64> {
        Ok(self
            .read(npcid, |d| d.turns.last().map_or(0, |t| t.seq))
            .unwrap_or(0))
    }

    async fn memories(&self, npcid: &str, filter: &MemoryFilter) -> PortResult<Vec<Memory>> {
        Ok(self
            .read(npcid, |d| {
                d.listed
                    .iter()
                    .zip(d.memories.values())
                    .filter(|(listed, _)| {
                        filter.collection.is_none_or(|c| listed.collection == c)
                            && filter.updated_since.is_none_or(|t| listed.updated_at >= t)
                    })
                    .map(|(_, m)| m)
                    .filter(|m| filter.types.is_empty() || filter.types.contains(&m.memory_type))
                    .filter(|m| match &filter.superseded_by {
                        Some(newer) => m.superseded_by.as_ref() == Some(newer),
                        None => filter.include_superseded || m.superseded_by.is_none(),
                    })
                    .skip(filter.offset)
                    .take(filter.limit.unwrap_or(usize::MAX))
                    .cloned()
                    .collect()
            })
            .unwrap_or_default())
    }

    async fn memories_by_id(&self, npcid: &str, ids: &[String]) -> PortResult<Vec<Memory>> {
        Ok(self
            .read(npcid, |d| {
                ids.iter()
                    .filter_map(|id| d.memories.get(id).cloned())
                    .collect()
            })
            .unwrap_or_default())
    }

    async fn live_memories_by_id(
        &self,
        npcid: &str,
        ids: &[String],
        kind: (Collection, MemoryType),
    ) -> PortResult<Vec<Memory>> {
        Ok(self
            .read(npcid, |d| {
                ids.iter()
                    .filter_map(|id| d.memories.get(id))
                    .filter(|m| is_live_of_kind(m, kind))
                    .cloned()
                    .collect()
            })
            .unwrap_or_default())
    }

    /// From the NPC's text index, built on the first call (one normalisation per memory).
    async fn live_memories_with_text(
        &self,
        npcid: &str,
        kind: (Collection, MemoryType),
        normalized: &str,
    ) -> PortResult<Option<Vec<Memory>>> {
        let mut state = self.state.borrow_mut();
        let Some(data) = state.npcs.get_mut(npcid).filter(|d| d.npc.is_some()) else {
            return Ok(Some(Vec::new()));
        };
        let texts = data
            .texts
            .get_or_insert_with(|| TextIndex::of(data.memories.values()));
        let mut found = Vec::new();
        for at in texts.positions(text_key(kind, normalized)) {
            if let Some((_, m)) = data.memories.get_index(at) {
                if is_live_of_kind(m, kind) {
                    found.push(m.clone());
                }
            }
        }
        Ok(Some(found))
    }

    async fn lexical_search(
        &self,
        npcid: &str,
        query: &LexicalQuery,
        limit: usize,
    ) -> PortResult<Vec<(String, f64)>> {
        Ok(self
            .read(npcid, |d| {
                // Over-fetch, then keep the asked collections.
                let hits = d.lexical.search_rare(
                    &query.terms,
                    limit.saturating_mul(2).max(limit),
                    query.max_df.unwrap_or(usize::MAX),
                );
                d.in_collections(hits, &query.collections, limit)
            })
            .unwrap_or_default())
    }

    async fn term_stats(&self, npcid: &str, terms: &[String]) -> PortResult<CorpusStats> {
        Ok(self
            .read(npcid, |d| d.lexical.stats(terms))
            .unwrap_or_else(|| CorpusStats {
                docs: 0,
                avg_len: 0.0,
                df: vec![0; terms.len()],
            }))
    }

    async fn commit(&self, npcid: &str, batch: WriteBatch) -> PortResult<()> {
        let mut state = self.state.borrow_mut();
        validate(&state, npcid, &batch)?;
        let moves_version = batch.writes.iter().any(Write::moves_version);
        for write in batch.writes {
            apply(&mut state, npcid, write);
        }
        if moves_version {
            if let Some(npc) = state.npcs.get_mut(npcid).and_then(|d| d.npc.as_mut()) {
                npc.version += 1;
            }
        }
        drop(state);
        self.bump();
        Ok(())
    }

    async fn token_by_hash(&self, token_hash: &str) -> PortResult<Option<TokenRecord>> {
        Ok(self.state.borrow().tokens.get(token_hash).cloned())
    }

    async fn tokens(&self, npcid: &str) -> PortResult<Vec<TokenRecord>> {
        Ok(self
            .state
            .borrow()
            .tokens
            .values()
            .filter(|t| t.npcid == npcid)
            .cloned()
            .collect())
    }

    async fn acquire_lease(
        &self,
        npcid: &str,
        holder: &str,
        now: Timestamp,
        until: Timestamp,
    ) -> PortResult<bool> {
        let mut state = self.state.borrow_mut();
        let Some(data) = state.npcs.get_mut(npcid).filter(|d| d.npc.is_some()) else {
            return Ok(false);
        };
        match &data.lease {
            Some((h, lapses)) if h != holder && *lapses > now => Ok(false),
            _ => {
                data.lease = Some((holder.to_string(), until));
                Ok(true)
            }
        }
    }

    async fn release_lease(&self, npcid: &str, holder: &str) -> PortResult<()> {
        let mut state = self.state.borrow_mut();
        if let Some(data) = state.npcs.get_mut(npcid) {
            if data.lease.as_ref().is_some_and(|(h, _)| h == holder) {
                data.lease = None;
            }
        }
        Ok(())
    }

    async fn meta(&self, key: &str) -> PortResult<Option<String>> {
        Ok(self.state.borrow().meta.get(key).cloned())
    }

    async fn set_meta(&self, key: &str, value: &str) -> PortResult<()> {
        self.state
            .borrow_mut()
            .meta
            .insert(key.to_string(), value.to_string());
        self.bump();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::MemoryType;

    /// The listing's side rows stay in step with the records through inserts, rewrites that
    /// change what is listed, and deletions; listings answer as a filter over the records.
    #[test]
    fn listings_read_the_side_rows_and_answer_as_the_records_do() {
        let store = MemoryStore::new();
        let run = |batch: WriteBatch| futures::executor::block_on(store.commit("n", batch));
        let mut batch = WriteBatch::new();
        batch.push(Write::PutNpc(Npc::new("n", Timestamp(0))));
        run(batch).unwrap();
        let types = [
            MemoryType::Profile,
            MemoryType::History,
            MemoryType::Preference,
        ];
        let collections = [Collection::Memory, Collection::Content, Collection::Diary];
        let memory = |i: usize, round: usize| Memory {
            collection: collections[(i + round) % 3],
            superseded_by: (i % 5 == round % 5).then(|| format!("m{}", (i + 1) % 40)),
            updated_at: Timestamp(((i * 7 + round * 3) % 23) as i64),
            ..Memory::new(
                format!("m{i}"),
                types[i % 3],
                format!("memory {i}"),
                Timestamp(0),
            )
        };
        for round in 0..3 {
            let mut batch = WriteBatch::new();
            for i in (0..40).filter(|i| i % (round + 1) == 0) {
                batch.push(Write::PutMemory {
                    memory: memory(i, round),
                });
            }
            for i in (round..40).step_by(9) {
                batch.push(Write::DeleteMemory {
                    id: format!("m{i}"),
                });
            }
            run(batch).unwrap();
            let state = store.state.borrow();
            let data = &state.npcs["n"];
            let rows: Vec<Listed> = data.memories.values().map(Listed::of).collect();
            assert_eq!(data.listed, rows, "round {round}");
        }
        let all: Vec<Memory> = store
            .read("n", |d| d.memories.values().cloned().collect())
            .unwrap();
        let filters = (0..48).map(|k| MemoryFilter {
            collection: (k % 4 < 3).then(|| collections[k % 4 % 3]),
            types: if k % 3 == 0 {
                vec![]
            } else {
                vec![types[k % 3]]
            },
            include_superseded: k % 2 == 0,
            superseded_by: (k % 7 == 0).then(|| format!("m{}", k % 40)),
            updated_since: (k % 5 != 0).then_some(Timestamp((k % 17) as i64)),
            offset: k % 3,
            limit: (k % 4 != 0).then_some(k % 6 + 1),
        });
        for filter in filters {
            let expected: Vec<&str> = all
                .iter()
                .filter(|m| filter.collection.is_none_or(|c| m.collection == c))
                .filter(|m| filter.types.is_empty() || filter.types.contains(&m.memory_type))
                .filter(|m| match &filter.superseded_by {
                    Some(newer) => m.superseded_by.as_ref() == Some(newer),
                    None => filter.include_superseded || m.superseded_by.is_none(),
                })
                .filter(|m| filter.updated_since.is_none_or(|t| m.updated_at >= t))
                .skip(filter.offset)
                .take(filter.limit.unwrap_or(usize::MAX))
                .map(|m| m.id.as_str())
                .collect();
            let listed = futures::executor::block_on(store.memories("n", &filter)).unwrap();
            let listed: Vec<&str> = listed.iter().map(|m| m.id.as_str()).collect();
            assert_eq!(listed, expected, "{filter:?}");
        }
    }

    /// A deleted NPC is emptied in place: nothing of it is read, listed or written to a
    /// snapshot (the one a restore reads, and the serde-derived one), and it can be created
    /// again from nothing.
    #[test]
    fn a_deleted_npc_is_gone_from_reads_listings_and_snapshots() {
        let store = MemoryStore::new();
        let run = |npcid: &str, write: Write| {
            let mut batch = WriteBatch::new();
            batch.push(write);
            futures::executor::block_on(store.commit(npcid, batch)).unwrap();
        };
        for npcid in ["gone", "kept"] {
            run(npcid, Write::PutNpc(Npc::new(npcid, Timestamp(0))));
            let memory = Memory::new(
                format!("{npcid}-m"),
                MemoryType::Profile,
                format!("secret of {npcid}"),
                Timestamp(0),
            );
            run(npcid, Write::PutMemory { memory });
        }
        run("gone", Write::DeleteNpc);
        let listed = |store: &MemoryStore| {
            let npcs = futures::executor::block_on(store.list_npcs(None, 10)).unwrap();
            npcs.into_iter().map(|n| n.npcid).collect::<Vec<_>>()
        };
        assert_eq!(listed(&store), ["kept"]);
        assert_eq!(store.memory_count("gone"), 0);
        assert!(store.read("gone", |_| ()).is_none());
        for snapshot in [store.snapshot().unwrap(), store.derived_snapshot()] {
            let text = String::from_utf8_lossy(&snapshot);
            assert!(!text.contains("gone"), "{text}");
            assert!(text.contains("secret of kept"));
        }
        assert_eq!(store.snapshot().unwrap(), store.derived_snapshot());
        let restored = MemoryStore::restore(&store.snapshot().unwrap()).unwrap();
        assert_eq!(listed(&restored), ["kept"]);
        run("gone", Write::PutNpc(Npc::new("gone", Timestamp(1))));
        assert_eq!(listed(&store), ["gone", "kept"]);
        assert_eq!(store.memory_count("gone"), 0);
    }
}
