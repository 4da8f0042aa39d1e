//! Wire shapes: the JSON bodies of the HTTP routes (SPEC §3) and the npm API (SPEC §4).
//! Defined once here; the Worker and the npm package serialize exactly these.
#![deny(
    clippy::indexing_slicing,
    clippy::string_slice,
    clippy::arithmetic_side_effects
)]

use crate::conversation::Turn;
use crate::diary::DiaryEntry;
pub use crate::memory::MemoryPatch;
use crate::memory::{Memory, MemoryInput};
use crate::npc::NpcSettings;
use crate::pkg::{Pkg, PkgSources, PkgUpdate};
use crate::relationship::{Entity, EntityOp};
use crate::sensitive::Category;
use crate::time::Timestamp;
use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

pub(crate) mod access;
mod lenient;
mod operation;
pub mod protocol;
#[cfg(feature = "contract")]
mod schema;
pub use access::{visible_to_tokens, Caller};
pub use operation::{param, parse_body, OpKind, Operation, RawRequest, Reply};

/// Page size bounds of `GET /api/conversation`.
pub const LOG_PAGE_DEFAULT: usize = 100;
pub const LOG_PAGE_MAX: usize = 1_000;
/// Page size bounds of `GET /api/npc`.
pub const NPC_PAGE_DEFAULT: usize = 50;
pub const NPC_PAGE_MAX: usize = 500;
/// NPCs re-embedded per `POST /api/admin/reembed` call (a Worker's CPU and subrequest limits).
pub const REEMBED_NPCS_PER_PAGE: usize = 20;

/// Query of `GET /api/memories/{npcid}`. The Worker reads it from the query string (see
/// [`Operation::parse`]); the npm package reads it with serde, which refuses a key it does not know.
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ListMemoriesQuery {
    /// Types to keep; empty = all. Unknown names are ignored.
    #[serde(default)]
    pub types: Vec<String>,
    /// `memory` (default), `content`, `emotion` or `all`.
    #[serde(default)]
    pub collection: Option<String>,
    #[serde(default)]
    pub include_superseded: bool,
    #[serde(default)]
    pub offset: usize,
    /// Default 50, at most 500.
    #[serde(default)]
    pub limit: Option<usize>,
}

/// `{"status": "ok"}` plus nothing else.
#[cfg_attr(feature = "contract", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Ok {
    #[cfg_attr(feature = "contract", schemars(extend("const" = "ok")))]
    pub status: String,
}

impl Ok {
    pub fn new() -> Self {
        Ok {
            status: "ok".into(),
        }
    }
}

impl Default for Ok {
    fn default() -> Self {
        Self::new()
    }
}

/// The body of an `/api` error (SPEC §3.3); the HTTP status says which.
#[cfg_attr(feature = "contract", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ApiError {
    #[cfg_attr(feature = "contract", schemars(extend("const" = "error")))]
    pub status: String,
    pub message: String,
}

impl ApiError {
    pub fn new(message: impl Into<String>) -> Self {
        ApiError {
            status: "error".into(),
            message: message.into(),
        }
    }
}

/// The body of a memory_retrieval error (SPEC §3.4).
#[cfg_attr(feature = "contract", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RetrievalError {
    pub error: RetrievalErrorDetail,
}

#[cfg_attr(feature = "contract", derive(schemars::JsonSchema), schemars(inline))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RetrievalErrorDetail {
    #[cfg_attr(
        feature = "contract",
        schemars(extend("enum" = [
            "invalid_request",
            "unauthorized",
            "request_too_large",
            "internal_error",
            "not_configured"
        ]))
    )]
    pub code: String,
    pub message: String,
}

// ---- NPC (SPEC §3.3) ----

/// `PUT /api/npc/{npcid}`. The initial `pkg` goes through the PKG merge rules.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NpcUpsert {
    #[serde(default)]
    pub display_name: Option<String>,
    #[serde(default)]
    pub pkg: Option<IndexMap<String, serde_json::Value>>,
    #[serde(default)]
    pub voice_registered: Option<bool>,
    #[serde(default)]
    pub face_registered: Option<bool>,
    #[serde(default)]
    pub settings: Option<NpcSettings>,
}

/// `GET /api/npc/{npcid}` and the answer of `PUT`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NpcView {
    pub npcid: String,
    pub display_name: String,
    pub created_at: Timestamp,
    pub voice_registered: bool,
    pub face_registered: bool,
    pub settings: NpcSettings,
    /// True when this call created the NPC.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub created: bool,
}

/// `GET /api/npc?after=&limit=`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NpcList {
    pub npcs: Vec<NpcView>,
    /// Pass as `after` for the next page; absent on the last page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next: Option<String>,
}

// ---- PKG (seed) ----

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PkgView {
    pub npcid: String,
    pub pkg: Pkg,
    /// Field → the ids of the turns a dream drew its current value from (docs/LIFECYCLE.md,
    /// "Source links"); fields without links are absent, and so is an empty map.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub source_turns: PkgSources,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PkgUpdateRequest {
    pub updates: Vec<PkgUpdate>,
}

#[cfg_attr(feature = "contract", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PkgUpdateResponse {
    #[cfg_attr(feature = "contract", schemars(extend("const" = "ok")))]
    pub status: String,
    pub updated_fields: Vec<String>,
}

// ---- Relationships (seed) ----

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RelationshipView {
    pub npcid: String,
    /// Keys in entity-number order.
    pub relationship: IndexMap<String, Entity>,
    pub count: usize,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EntityOpsRequest {
    pub ops: Vec<EntityOp>,
}

/// What each op did: `{op, id}` in request order.
#[cfg_attr(feature = "contract", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EntityOpResult {
    pub op: String,
    pub id: String,
}

#[cfg_attr(feature = "contract", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EntityOpsResponse {
    #[cfg_attr(feature = "contract", schemars(extend("const" = "ok")))]
    pub status: String,
    pub results: Vec<EntityOpResult>,
    pub count: usize,
}

// ---- Diary (seed) ----

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DiaryView {
    pub npcid: String,
    pub prior: String,
    /// Newest first.
    pub dailies: Vec<DiaryEntry>,
    pub count: usize,
}

// ---- Re-embedding ----

/// `POST /api/admin/reembed?after=`: one page of NPCs re-embedded with the configured embedder.
#[cfg_attr(feature = "contract", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReembedResponse {
    #[cfg_attr(feature = "contract", schemars(extend("const" = "ok")))]
    pub status: String,
    /// `name:dimension` of the embedder now recorded.
    pub embedder: String,
    /// NPCs re-embedded by this call.
    pub npcs: usize,
    /// Vectors written by this call.
    pub vectors: usize,
    /// Pass as `after` to continue; null when done.
    pub next: Option<String>,
}

/// The npm package's `reembed()`: every NPC re-embedded, the pages summed.
#[cfg_attr(feature = "contract", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReembedReport {
    #[cfg_attr(feature = "contract", schemars(extend("const" = "ok")))]
    pub status: String,
    /// `name:dimension` of the embedder now recorded.
    pub embedder: String,
    /// How many vectors were written.
    pub vectors: usize,
}

// ---- Dream (seed) ----

#[cfg_attr(feature = "contract", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DreamResponse {
    #[cfg_attr(feature = "contract", schemars(extend("const" = "ok")))]
    pub status: String,
    pub report: DreamReport,
}

#[cfg_attr(feature = "contract", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct DreamReport {
    pub skipped: bool,
    pub diary: Option<DiaryReport>,
    pub extractions: Option<ExtractionReport>,
    pub cleanup: Option<CleanupReport>,
    /// The stages' errors, joined by `; `.
    pub error: Option<String>,
}

#[cfg_attr(feature = "contract", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DiaryReport {
    pub date: String,
    pub diary_text: String,
    pub prior_merged: bool,
    pub overflow_count: usize,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub dry_run: bool,
}

#[cfg_attr(feature = "contract", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExtractionReport {
    pub entity_ops_count: usize,
    pub pkg_updates_count: usize,
    #[cfg_attr(
        feature = "contract",
        schemars(schema_with = "crate::api::schema::entity_ops")
    )]
    pub entity_ops: Vec<EntityOp>,
    #[cfg_attr(
        feature = "contract",
        schemars(schema_with = "crate::api::schema::pkg_updates")
    )]
    pub pkg_updates: Vec<PkgUpdate>,
    pub rel_written: bool,
    pub pkg_written: bool,
    /// Hippo's addition: typed memories the dream extracted, and what conflict resolution
    /// did with each (`inserted`, `reinforced`, `superseded`).
    #[serde(default)]
    pub memories: Vec<ExtractedMemoryReport>,
    #[serde(default)]
    pub memories_written: bool,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub dry_run: bool,
}

#[cfg_attr(feature = "contract", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExtractedMemoryReport {
    pub summary: String,
    #[serde(rename = "type")]
    #[cfg_attr(
        feature = "contract",
        schemars(schema_with = "crate::api::schema::memory_type")
    )]
    pub memory_type: String,
    pub importance: f64,
    pub confidence: f64,
    /// What conflict resolution did: `inserted`, `reinforced` or `superseded`.
    pub action: String,
    /// The stored memory is sensitive (the extractor's or the LLM's mark, the detector's
    /// floor, or a sensitive duplicate).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub sensitive: bool,
    /// Why it is sensitive (docs/SECURITY.md, "Sensitivity model").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(
        feature = "contract",
        schemars(schema_with = "crate::api::schema::sensitive_category")
    )]
    pub sensitive_category: Option<Category>,
    /// Stored pinned: the user asked in that turn to remember it ("记住这件事").
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub pinned: bool,
}

#[cfg_attr(feature = "contract", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CleanupReport {
    pub content_hybrid_deleted: usize,
    pub emotion_v2_deleted: usize,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub dry_run: bool,
}

// ---- Conversation (SPEC §3.3) ----

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConversationAppend {
    #[serde(default)]
    pub session_id: Option<String>,
    #[serde(default)]
    pub turns: Vec<TurnInput>,
    #[serde(default)]
    pub summary: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TurnInput {
    pub role: String,
    pub content: String,
    #[serde(default)]
    pub ts: Option<Timestamp>,
    /// Position of the turn in its session. Defaults to its position in this request, so
    /// re-sending a whole session is idempotent; send it when appending turn by turn.
    #[serde(default)]
    pub index: Option<u32>,
    #[serde(default)]
    pub emotion: Option<String>,
}

#[cfg_attr(feature = "contract", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConversationAppendResponse {
    #[cfg_attr(feature = "contract", schemars(extend("const" = "ok")))]
    pub status: String,
    pub appended: usize,
    /// Turns already present (same session and index): not stored twice.
    pub duplicates: usize,
    pub last_seq: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConversationView {
    pub npcid: String,
    pub turns: Vec<Turn>,
    pub watermark: u64,
}

// ---- Memories (SPEC §3.3) ----

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AddMemoriesRequest {
    pub memories: Vec<MemoryInput>,
}

#[cfg_attr(feature = "contract", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AddMemoriesResponse {
    #[cfg_attr(feature = "contract", schemars(extend("const" = "ok")))]
    pub status: String,
    /// One per input, in order: the id and what conflict resolution did.
    pub results: Vec<AddMemoryResult>,
    /// Set when the memories are durable but not in the vector index (the embedding service
    /// or the index failed): they are found lexically until the NPC's vectors are rebuilt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warning: Option<String>,
}

#[cfg_attr(feature = "contract", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AddMemoryResult {
    pub id: String,
    /// `inserted` | `reinforced` | `superseded` (the new one replaced `supersedes`).
    #[cfg_attr(
        feature = "contract",
        schemars(extend("enum" = ["inserted", "reinforced", "superseded"]))
    )]
    pub action: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub supersedes: Option<String>,
    /// Set when the stored memory is sensitive (asked for, detected, or inherited from the
    /// memory it duplicates or replaces): memory_retrieval never returns it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub sensitive: bool,
    /// Why it is sensitive (docs/SECURITY.md, "Sensitivity model").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(
        feature = "contract",
        schemars(schema_with = "crate::api::schema::sensitive_category")
    )]
    pub sensitive_category: Option<Category>,
}

impl AddMemoryResult {
    /// What happened to `memory` (the stored version).
    pub fn new(memory: &Memory, action: &str, supersedes: Option<String>) -> Self {
        AddMemoryResult {
            id: memory.id.clone(),
            action: action.to_string(),
            supersedes,
            sensitive: memory.sensitive,
            sensitive_category: memory.sensitive_category,
        }
    }
}

/// The answer of `PATCH /api/memories/{npcid}/{id}`: the memory as now stored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UpdateMemoryResponse {
    pub status: String,
    pub memory: MemoryView,
    /// Set when the new text is stored but its vector is not (see [`AddMemoriesResponse`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warning: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MemoryList {
    pub npcid: String,
    pub memories: Vec<MemoryView>,
    pub count: usize,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_offset: Option<usize>,
}

/// A stored memory plus its computed strength and tier.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MemoryView {
    #[serde(flatten)]
    pub memory: Memory,
    pub strength: f64,
    pub tier: String,
}

/// `POST /api/memories/{npcid}/search`. Its fields are read by memory_retrieval's rules
/// (`lenient`); unknown fields are ignored.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct SearchRequest {
    #[serde(default, deserialize_with = "lenient::query")]
    pub query: String,
    #[serde(default, deserialize_with = "lenient::names")]
    pub memory_types: Option<Vec<String>>,
    /// Default 10, clamped to 1..=50.
    #[serde(default, deserialize_with = "lenient::count")]
    pub max_results: Option<i64>,
    #[serde(default, deserialize_with = "lenient::text")]
    pub time_hint: Option<String>,
    #[serde(default)]
    pub include_sensitive: bool,
    /// Archive-tier memories are only returned when asked for (SPEC §2.2).
    #[serde(default)]
    pub include_archived: bool,
    #[serde(default)]
    pub debug: bool,
    /// Add to each item the conversation turns it came from ([`SearchHit::sources`]).
    #[serde(default)]
    pub include_sources: bool,
}

#[cfg_attr(feature = "contract", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SearchResponse {
    pub memories: Vec<SearchHit>,
}

#[cfg_attr(feature = "contract", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SearchHit {
    pub id: String,
    pub summary: String,
    #[serde(rename = "type")]
    #[cfg_attr(
        feature = "contract",
        schemars(schema_with = "crate::api::schema::memory_type")
    )]
    pub memory_type: String,
    pub confidence: f64,
    #[cfg_attr(feature = "contract", schemars(with = "Timestamp"))]
    pub updated_at: String,
    pub source: String,
    pub score: f64,
    /// The item is sensitive (a stored mark or what the detector flags); only returned with
    /// `include_sensitive`, never by memory_retrieval.
    #[serde(default)]
    pub sensitive: bool,
    /// Why it is sensitive (docs/SECURITY.md, "Sensitivity model").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(
        feature = "contract",
        schemars(schema_with = "crate::api::schema::sensitive_category")
    )]
    pub sensitive_category: Option<Category>,
    /// With `debug`: each signal's contribution to the score.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signals: Option<IndexMap<String, f64>>,
    /// Only with `include_sources`: the item's first 5 source turns still kept, as the dream
    /// kept them (docs/LIFECYCLE.md, "Source links"; no sensitive sentence, and without
    /// `include_sensitive` no quote marked or detected sensitive); empty when none is kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sources: Option<Vec<SourceTurn>>,
}

/// A turn an item came from: what was said, as the dream kept it (without the sentences the
/// sensitivity detector flags), who said it and when.
#[cfg_attr(feature = "contract", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SourceTurn {
    pub turn_id: String,
    /// `user`, `assistant`, or `summary` (a session summary).
    #[cfg_attr(
        feature = "contract",
        schemars(extend("enum" = ["user", "assistant", "summary"]))
    )]
    pub role: String,
    /// When the turn was said.
    pub ts: Timestamp,
    /// The turn's words as kept: without the sentences the sensitivity detector flags, at
    /// most 500 characters.
    pub text: String,
}

/// `POST /memory_retrieval` (SPEC §3.4) as sent, read leniently (`lenient`); unknown fields
/// are ignored. Its validated form, what the engine runs, is
/// [`crate::api::protocol::ParsedRetrieval`].
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct RetrievalRequest {
    /// For logs only (the token decides the scope, never the body).
    #[serde(default, deserialize_with = "lenient::text")]
    pub live_id: Option<String>,
    #[serde(default, deserialize_with = "lenient::query")]
    pub query: String,
    /// Logged, never ranked.
    #[serde(default, deserialize_with = "lenient::text")]
    pub reason: Option<String>,
    #[serde(default, deserialize_with = "lenient::names")]
    pub memory_types: Option<Vec<String>>,
    #[serde(default, deserialize_with = "lenient::text")]
    pub time_hint: Option<String>,
    /// Default 5, clamped to 1..=10.
    #[serde(default, deserialize_with = "lenient::count")]
    pub max_results: Option<i64>,
}

#[cfg_attr(feature = "contract", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RetrievalResponse {
    pub memories: Vec<RetrievedMemory>,
}

#[cfg_attr(feature = "contract", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RetrievedMemory {
    pub id: String,
    #[cfg_attr(feature = "contract", schemars(length(max = 500)))]
    pub summary: String,
    #[serde(rename = "type")]
    #[cfg_attr(
        feature = "contract",
        schemars(schema_with = "crate::api::schema::memory_type")
    )]
    pub memory_type: String,
    #[cfg_attr(feature = "contract", schemars(range(min = 0.0, max = 1.0)))]
    pub confidence: f64,
    #[cfg_attr(feature = "contract", schemars(with = "Timestamp"))]
    pub updated_at: String,
    pub source: String,
}

/// `POST /api/npc/{npcid}/vectors/rebuild`.
#[cfg_attr(feature = "contract", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RebuildResponse {
    #[cfg_attr(feature = "contract", schemars(extend("const" = "ok")))]
    pub status: String,
    /// How many vectors were written.
    pub vectors: usize,
}

// ---- Session brief ----

/// `POST /api/npc/{npcid}/brief`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BriefRequest {
    /// The token budget (see `brief::count_tokens`); default 500, 1..=32768.
    #[serde(default)]
    pub max_tokens: Option<u64>,
    /// What the session is about: adds the memories relevant to it.
    #[serde(default)]
    pub query: Option<String>,
    /// `zh` or `en` for the headings; default: the language most of the material is in.
    #[serde(default)]
    pub lang: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BriefResponse {
    pub npcid: String,
    pub lang: crate::brief::Lang,
    /// The brief, for a system prompt; never holds anything sensitive.
    pub text: String,
    /// Its approximate token count, at most `max_tokens`.
    pub tokens: usize,
    pub max_tokens: usize,
    /// What each line was drawn from, in the order of the text.
    pub items: Vec<crate::brief::BriefItem>,
}

/// `DELETE /api/memories/{npcid}?confirm={npcid}` (MCP `forget` with `all`).
#[cfg_attr(feature = "contract", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Forgot {
    #[cfg_attr(feature = "contract", schemars(extend("const" = "ok")))]
    pub status: String,
    /// How many memories were deleted.
    pub deleted: usize,
}

// ---- Tokens (SPEC §3.3) ----

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TokenRequest {
    #[serde(default)]
    pub ttl_seconds: Option<u64>,
    /// `retrieval` (memory_retrieval; the default), `read` and `write` (the MCP tools).
    #[serde(default)]
    pub scopes: Option<Vec<String>>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TokenIssued {
    pub token_id: String,
    /// The secret. Shown once; only its hash is stored.
    pub token: String,
    pub expires_at: Option<Timestamp>,
    pub scopes: Vec<crate::ports::Scope>,
}

// ---- Export / import (SPEC §3.3) ----

pub const EXPORT_FORMAT: &str = "hippo.npc";
pub const EXPORT_VERSION: u32 = 1;

/// The whole memory of one NPC, as one versioned document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NpcExport {
    pub format: String,
    pub version: u32,
    pub npc: crate::npc::Npc,
    pub pkg: Pkg,
    /// The PKG fields' links (see [`PkgView::source_turns`]); absent when none has any, and
    /// in documents of builds before the links.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub pkg_source_turns: PkgSources,
    pub relationship: IndexMap<String, Entity>,
    pub diary: crate::diary::Diary,
    pub turns: Vec<Turn>,
    pub memories: Vec<Memory>,
}
