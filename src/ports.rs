//! The ports: everything the core needs from the outside world, as traits.
//!
//! Implementations: the in-memory store and vector index in [`crate::store`] (tests, the npm
//! package, the browser), D1 and Vectorize in `worker/`. Futures are `?Send` so wasm32
//! implementations can hold JS values.

use crate::conversation::Turn;
use crate::diary::DiaryEntry;
use crate::error::PortError;
use crate::memory::{Collection, Memory, MemoryType};
use crate::npc::Npc;
use crate::pkg::{PkgField, PkgValue};
use crate::relationship::Entity;
use crate::time::Timestamp;
use async_trait::async_trait;
use serde::{Deserialize, Serialize};

pub type PortResult<T> = Result<T, PortError>;

/// One write of a [`WriteBatch`]. Every write is scoped to the batch's NPC.
///
/// Two kinds (see [`Write::moves_version`]): structural writes, which a writer computes from
/// what it read and which move the NPC's `version` (the optimistic guard), and
/// [`Write::Touch`], a commutative in-place increment that leaves the version alone, so
/// reinforcement at turn rate never makes a structural writer retry. Log appends are not
/// writes of a batch at all: [`Store::append_turns`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum Write {
    /// Create the NPC or replace its record (settings, flags, watermark, entity sequence).
    /// The stored `version` is the store's own: the one in the record is ignored.
    PutNpc(Npc),
    /// Delete the NPC and every row of it (PKG, relationships, diary, log, memories, tokens).
    DeleteNpc,
    /// Set one PKG field and its links (both replaced). A new field goes after the existing
    /// ones; an existing one keeps its place (per-field rows: parallel updates of different
    /// fields never collide).
    SetPkgField {
        key: String,
        value: PkgValue,
        /// See [`PkgField::source_turns`].
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        source_turns: Vec<String>,
    },
    PutEntity {
        id: String,
        entity: Entity,
    },
    DeleteEntity {
        id: String,
    },
    /// Insert or replace the daily entry of `entry.date`.
    PutDaily {
        entry: DiaryEntry,
    },
    DeleteDaily {
        date: String,
    },
    SetPrior {
        prior: String,
    },
    /// Store a log entry under its own `seq` (imports and restores; live appends go through
    /// [`Store::append_turns`], which assigns the `seq`). Ignored if an entry with the same
    /// `(session_id, turn_index)` exists.
    PutTurn {
        turn: Turn,
    },
    /// Insert or replace a memory. In a batch with `expect_version`, replacing a memory also
    /// expects its stored `access_count` to be the written one's: a [`Write::Touch`] that
    /// landed after the writer read the memory makes the batch a [`PortError::Conflict`], so
    /// the writer re-reads and no reinforcement is lost. Not after a [`Write::DeleteNpc`] in
    /// the same batch (an import replaces the NPC whole: nothing it writes was read).
    PutMemory {
        memory: Memory,
    },
    DeleteMemory {
        id: String,
    },
    /// Retrieval reinforcement (SPEC §2.2), applied in place to the stored rows, so
    /// concurrent touches commute and none is lost: `access_count += 1`,
    /// `last_accessed_at = max(last_accessed_at, at)`, `importance += (1 - importance) * 0.05`.
    /// Unknown ids are skipped. Does not move the NPC's version.
    Touch {
        ids: Vec<String>,
        at: Timestamp,
    },
    /// Move the dream watermark (only forward).
    SetWatermark {
        seq: u64,
    },
    PutToken {
        token: TokenRecord,
    },
    DeleteToken {
        token_id: String,
    },
}

impl Write {
    /// A [`Write::SetPkgField`] of `field`.
    pub fn set_pkg_field(field: PkgField) -> Write {
        Write::SetPkgField {
            key: field.key,
            value: field.value,
            source_turns: field.source_turns,
        }
    }

    /// Whether committing this write moves the NPC's `version`: every write a writer computes
    /// from what it read does; a touch (commutative) does not, nor does deleting the NPC.
    pub fn moves_version(&self) -> bool {
        !matches!(self, Write::Touch { .. } | Write::DeleteNpc)
    }
}

/// What [`Store::append_turns`] did.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Appended {
    /// For each entry given, in order: the `seq` it was stored under, or `None` when an entry
    /// with its `(session_id, turn_index)` was stored already (by this call or an earlier one).
    pub seqs: Vec<Option<u64>>,
    /// The highest `seq` of the NPC's log once the append landed.
    pub last_seq: u64,
}

/// A group of writes to one NPC that all land or none do.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct WriteBatch {
    pub writes: Vec<Write>,
    /// If set, the commit fails with [`PortError::Conflict`] unless the NPC's stored
    /// `version` equals this (optimistic concurrency: read, compute, commit, retry), and
    /// unless every memory it replaces still has the `access_count` written (see
    /// [`Write::PutMemory`]).
    pub expect_version: Option<u64>,
}

impl WriteBatch {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn expecting(version: u64) -> Self {
        WriteBatch {
            writes: Vec::new(),
            expect_version: Some(version),
        }
    }

    pub fn push(&mut self, write: Write) {
        self.writes.push(write);
    }

    pub fn is_empty(&self) -> bool {
        self.writes.is_empty()
    }
}

/// What a token bound to one NPC may do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    /// `POST /memory_retrieval`, and the MCP `recall` tool: ranked memories, never sensitive.
    Retrieval,
    /// The MCP tools that read (recall, get_profile, brief, list_memories).
    Read,
    /// The MCP tools that write (remember, update_memory, forget, dream).
    Write,
}

impl Scope {
    pub const ALL: [Scope; 3] = [Scope::Retrieval, Scope::Read, Scope::Write];

    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Retrieval => "retrieval",
            Scope::Read => "read",
            Scope::Write => "write",
        }
    }

    pub fn parse(name: &str) -> Option<Scope> {
        Self::ALL.into_iter().find(|s| s.as_str() == name.trim())
    }
}

fn retrieval_only() -> Vec<Scope> {
    vec![Scope::Retrieval]
}

/// A token bound to one NPC, as stored: only the SHA-256 of the secret.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TokenRecord {
    pub token_id: String,
    pub npcid: String,
    pub token_hash: String,
    pub created_at: Timestamp,
    pub expires_at: Option<Timestamp>,
    /// Tokens issued before scopes existed are memory_retrieval tokens.
    #[serde(default = "retrieval_only")]
    pub scopes: Vec<Scope>,
}

/// Which memories to list.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MemoryFilter {
    /// `None` = every collection.
    pub collection: Option<Collection>,
    /// Empty = all types.
    pub types: Vec<MemoryType>,
    pub include_superseded: bool,
    /// Only memories that this memory superseded (implies superseded ones are included).
    pub superseded_by: Option<String>,
    /// Only memories updated at or after this instant.
    pub updated_since: Option<Timestamp>,
    /// Paging over the store's stable order (creation order).
    pub offset: usize,
    /// `None` = no limit.
    pub limit: Option<usize>,
}

/// A lexical query: the core's tokens of the query text, and the collections to search.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct LexicalQuery {
    pub terms: Vec<String>,
    pub collections: Vec<Collection>,
    /// Read only the terms in at most this many documents, if the backend can: conflict
    /// resolution asks once per new memory, and a term most memories have ("user", "用户")
    /// would make its cost grow with the store (the in-memory store honours it; a backend
    /// may search all terms).
    pub max_df: Option<usize>,
}

/// BM25 corpus statistics, so the ranker scores every candidate the same way whatever
/// backend produced it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CorpusStats {
    pub docs: usize,
    /// Average document length in tokens.
    pub avg_len: f64,
    /// Document frequency of each query term, in the order asked.
    pub df: Vec<usize>,
}

/// What a retrieval reads of one NPC before it searches the memories: the record and the
/// structured profile, which all become candidates (its memories are searched through
/// [`Store::lexical_search`], [`Store::memories`] and [`Store::memories_by_id`], since
/// which ones depends on the query).
#[derive(Debug, Clone, PartialEq)]
pub struct RetrievalView {
    pub npc: Npc,
    /// As [`Store::pkg`] answers.
    pub pkg: Vec<PkgField>,
    /// As [`Store::entities`] answers.
    pub entities: Vec<(String, Entity)>,
    /// The daily entries, oldest first, as [`Store::diary`] answers.
    pub dailies: Vec<DiaryEntry>,
}

/// The source of truth for everything of every NPC.
#[async_trait(?Send)]
pub trait Store {
    /// The NPC's [`RetrievalView`], read as one state of the NPC; `None` if it does not exist.
    /// A backend with costly round trips reads it in one (and may bring what the memory
    /// searches of the same retrieval read up to date in that read too).
    async fn retrieval_view(&self, npcid: &str) -> PortResult<Option<RetrievalView>>;
    async fn npc(&self, npcid: &str) -> PortResult<Option<Npc>>;
    /// NPCs ordered by npcid, strictly after `after`.
    async fn list_npcs(&self, after: Option<&str>, limit: usize) -> PortResult<Vec<Npc>>;
    /// The PKG fields, with their links, in their stored order (registration flags are on
    /// [`Npc`]).
    async fn pkg(&self, npcid: &str) -> PortResult<Vec<PkgField>>;
    async fn entities(&self, npcid: &str) -> PortResult<Vec<(String, Entity)>>;
    /// `prior` and the dailies, oldest first.
    async fn diary(&self, npcid: &str) -> PortResult<(String, Vec<DiaryEntry>)>;
    /// Log entries with `seq > after_seq`, in `seq` order, at most `limit`.
    async fn turns(&self, npcid: &str, after_seq: u64, limit: usize) -> PortResult<Vec<Turn>>;
    /// The NPC's log entries with these ids, in `seq` order; unknown ids are skipped.
    async fn turns_by_id(&self, npcid: &str, ids: &[String]) -> PortResult<Vec<Turn>>;
    /// Appends log entries to an existing NPC as one atomic write that needs no version:
    /// each entry gets the next `seq` of the log (1, 2, … with no gaps; the `seq` given is
    /// ignored), in order, unless an entry with the same `(session_id, turn_index)` is stored
    /// already (entries without a session never collide). Concurrent appends never conflict
    /// and never interleave within one call; a replay stores nothing twice. Does not move the
    /// NPC's version: nothing a structural writer computes depends on entries past the ones
    /// it read (a new entry's `seq` is above every stored one). Fails if the NPC does not
    /// exist.
    async fn append_turns(&self, npcid: &str, turns: Vec<Turn>) -> PortResult<Appended>;
    /// The highest `seq` in the NPC's log (0 if empty).
    async fn last_seq(&self, npcid: &str) -> PortResult<u64>;
    async fn memories(&self, npcid: &str, filter: &MemoryFilter) -> PortResult<Vec<Memory>>;
    async fn memories_by_id(&self, npcid: &str, ids: &[String]) -> PortResult<Vec<Memory>>;
    /// The live (not superseded) memories among `ids` of one collection and type: conflict
    /// resolution's candidates, read once per new memory. Most of what its look-ups find is
    /// of another type; a backend that checks before copying a record (the in-memory store)
    /// copies only what is kept. The default reads them all and filters.
    async fn live_memories_by_id(
        &self,
        npcid: &str,
        ids: &[String],
        kind: (Collection, MemoryType),
    ) -> PortResult<Vec<Memory>> {
        let mut found = self.memories_by_id(npcid, ids).await?;
        found.retain(|m| is_live_of_kind(m, kind));
        Ok(found)
    }
    /// The live memories of one collection and type whose summary normalises
    /// ([`crate::memory::conflict::normalize_text`]) to `normalized`: a new memory's exact
    /// duplicates, found by its text instead of by similarity. `None` when the backend keeps
    /// no such index (the default): the caller then finds them by similarity. An answer may
    /// hold other memories too (the caller compares texts), never miss a stored one.
    async fn live_memories_with_text(
        &self,
        _npcid: &str,
        _kind: (Collection, MemoryType),
        _normalized: &str,
    ) -> PortResult<Option<Vec<Memory>>> {
        Ok(None)
    }
    /// Live memories whose lexical text matches the query, best first, with a relevance score
    /// (higher is better; scale is the backend's own, the ranker normalises it). Superseded
    /// memories are never returned, though they count in [`Store::term_stats`].
    async fn lexical_search(
        &self,
        npcid: &str,
        query: &LexicalQuery,
        limit: usize,
    ) -> PortResult<Vec<(String, f64)>>;
    /// Corpus statistics for BM25 over the NPC's lexical documents (memories and content
    /// chunks): document count, average length, and the document frequency of each term.
    async fn term_stats(&self, npcid: &str, terms: &[String]) -> PortResult<CorpusStats>;
    /// Applies every write of the batch atomically, after checking its preconditions
    /// ([`WriteBatch::expect_version`]). Increments the NPC's version if any write
    /// [moves it](Write::moves_version): a batch of touches leaves it as it was.
    async fn commit(&self, npcid: &str, batch: WriteBatch) -> PortResult<()>;

    async fn token_by_hash(&self, token_hash: &str) -> PortResult<Option<TokenRecord>>;
    async fn tokens(&self, npcid: &str) -> PortResult<Vec<TokenRecord>>;

    /// Takes the NPC's dream lease if it is free or expired (`until` is when it lapses).
    /// Returns false if someone else holds it.
    async fn acquire_lease(
        &self,
        npcid: &str,
        holder: &str,
        now: Timestamp,
        until: Timestamp,
    ) -> PortResult<bool>;
    async fn release_lease(&self, npcid: &str, holder: &str) -> PortResult<()>;

    /// Global key/value settings (e.g. the embedder's name and dimension).
    async fn meta(&self, key: &str) -> PortResult<Option<String>>;
    async fn set_meta(&self, key: &str, value: &str) -> PortResult<()>;
}

/// One vector with what filtering needs.
#[derive(Debug, Clone, PartialEq)]
pub struct VectorItem {
    pub id: String,
    pub collection: Collection,
    pub memory_type: MemoryType,
    pub values: Vec<f32>,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct VectorFilter {
    /// Empty = every collection.
    pub collections: Vec<Collection>,
    /// Empty = every type.
    pub types: Vec<MemoryType>,
    /// Conflict resolution's look-up (once per new memory): the index may answer from the
    /// part of its vectors near the query, finding near-duplicates but not promising the
    /// exact `top_k` (the in-memory index partitions a large NPC's vectors of one collection
    /// and type into cells); a backend may ignore it and answer exactly.
    pub near: bool,
    /// The lowest cosine the caller keeps (conflict resolution: the embedder's ambiguous
    /// band): the index may leave out hits below it, and need not rank what it leaves out.
    /// `None`: every hit counts.
    pub floor: Option<f32>,
}

/// Whether `m` is live and of `kind` (collection, type): what [`Store::live_memories_by_id`]
/// keeps.
pub fn is_live_of_kind(m: &Memory, (collection, memory_type): (Collection, MemoryType)) -> bool {
    m.collection == collection && m.memory_type == memory_type && m.superseded_by.is_none()
}

/// A nearest-neighbour index, partitioned by NPC (a namespace per NPC).
#[async_trait(?Send)]
pub trait VectorIndex {
    async fn upsert(&self, npcid: &str, items: Vec<VectorItem>) -> PortResult<()>;
    /// Up to `top_k` ids with cosine similarity, best first.
    async fn query(
        &self,
        npcid: &str,
        vector: &[f32],
        top_k: usize,
        filter: &VectorFilter,
    ) -> PortResult<Vec<(String, f32)>>;
    /// [`VectorIndex::query`] for each of `vectors` with one filter: one answer each, in
    /// order. An index may share work among them (the in-memory index reads each probed cell
    /// of a near look-up once for every look-up that probes it); the default asks one at a
    /// time.
    async fn query_each(
        &self,
        npcid: &str,
        vectors: &[&[f32]],
        top_k: usize,
        filter: &VectorFilter,
    ) -> PortResult<Vec<Vec<(String, f32)>>> {
        let mut answers = Vec::with_capacity(vectors.len());
        for vector in vectors {
            answers.push(self.query(npcid, vector, top_k, filter).await?);
        }
        Ok(answers)
    }
    /// The cosine of `vector` with each of `ids`' stored vectors, for those this index can
    /// read back (any order; ids it holds no vector for are left out). Conflict resolution
    /// asks it for candidates the lexical index found, instead of embedding their texts
    /// again. An index that cannot read vectors by id answers nothing (the default).
    async fn similarities(
        &self,
        _npcid: &str,
        _vector: &[f32],
        _ids: &[String],
    ) -> PortResult<Vec<(String, f32)>> {
        Ok(Vec::new())
    }
    async fn delete(&self, npcid: &str, ids: &[String]) -> PortResult<()>;
    async fn delete_npc(&self, npcid: &str) -> PortResult<()>;
    /// The most a cosine this index answers may differ from the f32 cosine of the query with
    /// the vector upserted, for vectors of `dim` dimensions; `None` when unknown (an outside
    /// service, the default). Conflict resolution trusts a score this far from a threshold to
    /// be on the same side of it as the exact cosine.
    fn score_error(&self, _dim: usize) -> Option<f32> {
        None
    }
}

/// Declared by each embedder: the bands conflict resolution and retrieval read its cosines with.
pub use crate::memory::conflict::SimilarityThresholds;

/// What a text is embedded as. Many models embed a search query differently from the texts
/// it should find (multilingual-e5 wants `query: ` / `passage: ` prefixes); others (bge-m3,
/// OpenAI's) ignore the difference.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EmbedKind {
    /// A retrieval query.
    Query,
    /// A stored text: a memory, a conversation chunk, a PKG field.
    Document,
}

impl EmbedKind {
    /// `"query"` or `"document"` (the name JS callbacks receive).
    pub fn as_str(self) -> &'static str {
        match self {
            EmbedKind::Query => "query",
            EmbedKind::Document => "document",
        }
    }
}

#[async_trait(?Send)]
pub trait Embedder {
    /// A stable name, recorded in the database on first use.
    fn name(&self) -> &str;
    fn dimension(&self) -> usize;
    fn thresholds(&self) -> SimilarityThresholds;
    /// Whether the vectors carry meaning beyond the words (a trained model), so ranking
    /// gives them the weight of [`crate::retrieval::rank::WEIGHTS_MODEL_EMBEDDINGS`]. The
    /// built-in embedder's features restate the lexical ones and answer false.
    fn semantic(&self) -> bool {
        true
    }
    /// One unit-length vector per text, each embedded as `kind`.
    async fn embed(&self, kind: EmbedKind, texts: &[String]) -> PortResult<Vec<Vec<f32>>>;
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatMessage {
    pub role: String,
    pub content: String,
}

/// A chat-completion LLM: system prompt + messages in, text out.
#[async_trait(?Send)]
pub trait Llm {
    async fn complete(&self, system: &str, messages: &[ChatMessage]) -> PortResult<String>;
}

#[derive(Debug, Clone, PartialEq)]
pub struct HttpRequest {
    pub url: String,
    pub headers: Vec<(String, String)>,
    pub body: String,
    pub timeout_ms: u32,
}

#[derive(Debug, Clone, PartialEq)]
pub struct HttpResponse {
    pub status: u16,
    pub body: String,
}

/// Outbound HTTP POST (the Worker's `fetch`; a JS callback in the npm package).
#[async_trait(?Send)]
pub trait HttpClient {
    async fn post(&self, request: HttpRequest) -> PortResult<HttpResponse>;
}

pub trait Clock {
    fn now(&self) -> Timestamp;
}

/// A clock fixed at one instant (tests, benchmarks); settable.
#[derive(Debug, Default)]
pub struct FixedClock(pub std::cell::Cell<i64>);

impl FixedClock {
    pub fn at(t: Timestamp) -> Self {
        FixedClock(std::cell::Cell::new(t.ms()))
    }

    pub fn set(&self, t: Timestamp) {
        self.0.set(t.ms());
    }

    pub fn advance_hours(&self, hours: f64) {
        self.0
            .set(self.0.get() + (hours * crate::time::MS_PER_HOUR as f64) as i64);
    }
}

impl Clock for FixedClock {
    fn now(&self) -> Timestamp {
        Timestamp(self.0.get())
    }
}
