//! Rows as D1 returns them, and their conversion to the core's types.
//!
//! Columns are typed in the schema, so integers arrive as JS numbers and JSON columns as
//! strings. A row that does not convert is a backend error, never a panic.

use hippo::conversation::{EntryKind, Role, Turn};
use hippo::error::PortError;
use hippo::memory::{Collection, EmotionTag, Memory, MemoryType};
use hippo::npc::{Npc, NpcSettings};
use hippo::pkg::PkgField;
use hippo::ports::{Scope, TokenRecord};
use hippo::relationship::Entity;
use hippo::sensitive::Category;
use hippo::time::Timestamp;
use serde::de::DeserializeOwned;
use serde::Deserialize;

/// The column list every NPC read selects, in [`NpcRow`]'s shape.
pub const NPC_COLUMNS: &str = "npcid, display_name, created_at, voice_registered, \
     face_registered, settings, next_entity_seq, watermark, version";

/// Every memory read selects one JSON object per row, in [`MemoryRow`]'s shape, then the two
/// REAL columns: three values cross from JS into wasm per row instead of twenty (memory reads
/// are the bulk of retrieval's reads). The REALs stay outside the JSON because SQLite writes
/// JSON numbers with 15 significant digits, which would not round-trip.
pub const MEMORY_JSON: &str = "json_object('id', id, 'collection', collection, 'type', type, \
     'summary', summary, 'keywords', json(keywords), 'source', source, \
     'created_at', created_at, \
     'updated_at', updated_at, 'last_accessed_at', last_accessed_at, \
     'access_count', access_count, 'encounter_count', encounter_count, \
     'event_time', event_time, 'expires_at', expires_at, 'sensitive', sensitive, \
     'sensitive_category', sensitive_category, 'pinned', pinned, 'superseded_by', superseded_by, 'emotion', json(emotion), 'context', context, \
     'source_turns', json(source_turns)) AS j, \
     confidence, importance";

pub const TURN_COLUMNS: &str = "seq, id, session_id, turn_index, kind, role, content, ts, emotion";

pub const TOKEN_COLUMNS: &str = "token_id, npcid, token_hash, created_at, expires_at, scopes";

fn bad(what: &str, detail: impl std::fmt::Display) -> PortError {
    PortError::Backend(format!("unreadable {what} row: {detail}"))
}

fn parse_json<T: DeserializeOwned>(what: &str, text: &str) -> Result<T, PortError> {
    hippo::json::parse(text).map_err(|e| bad(what, e))
}

#[derive(Debug, Deserialize)]
pub struct NpcRow {
    npcid: String,
    display_name: String,
    created_at: i64,
    voice_registered: i64,
    face_registered: i64,
    settings: String,
    next_entity_seq: i64,
    watermark: i64,
    version: i64,
}

impl NpcRow {
    pub fn into_npc(self) -> Result<Npc, PortError> {
        let settings: NpcSettings = parse_json("npc", &self.settings)?;
        Ok(Npc {
            npcid: self.npcid,
            display_name: self.display_name,
            created_at: Timestamp(self.created_at),
            voice_registered: self.voice_registered != 0,
            face_registered: self.face_registered != 0,
            settings,
            next_entity_seq: self.next_entity_seq.max(0) as u32,
            watermark: self.watermark.max(0) as u64,
            version: self.version.max(0) as u64,
        })
    }
}

#[derive(Debug, Deserialize)]
pub struct PkgRow {
    pub key: String,
    value: String,
    source_turns: String,
}

impl PkgRow {
    pub fn into_field(self) -> Result<PkgField, PortError> {
        Ok(PkgField {
            key: self.key,
            value: parse_json("pkg", &self.value)?,
            source_turns: parse_json("pkg", &self.source_turns)?,
        })
    }
}

#[derive(Debug, Deserialize)]
pub struct EntityRow {
    id: String,
    name: String,
    alias: String,
    title: String,
    remark: String,
    source_turns: String,
}

impl EntityRow {
    pub fn into_entity(self) -> Result<(String, Entity), PortError> {
        Ok((
            self.id,
            Entity {
                name: self.name,
                alias: parse_json("entity", &self.alias)?,
                title: parse_json("entity", &self.title)?,
                remark: self.remark,
                source_turns: parse_json("entity", &self.source_turns)?,
            },
        ))
    }
}

#[derive(Debug, Deserialize)]
pub struct TurnRow {
    seq: i64,
    id: String,
    session_id: Option<String>,
    turn_index: Option<i64>,
    kind: String,
    role: Option<String>,
    content: String,
    ts: i64,
    emotion: Option<String>,
}

impl TurnRow {
    pub fn into_turn(self) -> Result<Turn, PortError> {
        let kind = match self.kind.as_str() {
            "turn" => EntryKind::Turn,
            "summary" => EntryKind::Summary,
            other => return Err(bad("turn", format!("kind {other:?}"))),
        };
        let role = match self.role.as_deref() {
            None => None,
            Some("user") => Some(Role::User),
            Some("assistant") => Some(Role::Assistant),
            Some(other) => return Err(bad("turn", format!("role {other:?}"))),
        };
        Ok(Turn {
            id: self.id,
            seq: self.seq.max(0) as u64,
            session_id: self.session_id,
            turn_index: self.turn_index.map(|i| i.max(0) as u32),
            kind,
            role,
            content: self.content,
            ts: Timestamp(self.ts),
            emotion: self.emotion,
        })
    }
}

pub fn kind_name(kind: EntryKind) -> &'static str {
    match kind {
        EntryKind::Turn => "turn",
        EntryKind::Summary => "summary",
    }
}

pub fn role_name(role: Role) -> &'static str {
    match role {
        Role::User => "user",
        Role::Assistant => "assistant",
    }
}

pub fn collection_from_name(name: &str) -> Option<Collection> {
    Collection::parse(name)
}

/// A row as [`MEMORY_JSON`] selects it.
#[derive(Debug, Deserialize)]
pub struct MemoryJsonRow {
    j: String,
    confidence: f64,
    importance: f64,
}

#[derive(Debug, Deserialize)]
pub struct MemoryRow {
    pub id: String,
    collection: String,
    #[serde(rename = "type")]
    memory_type: String,
    summary: String,
    keywords: Vec<String>,
    #[serde(default)]
    confidence: f64,
    #[serde(default)]
    importance: f64,
    source: String,
    created_at: i64,
    updated_at: i64,
    last_accessed_at: i64,
    access_count: i64,
    encounter_count: i64,
    event_time: Option<i64>,
    expires_at: Option<i64>,
    sensitive: i64,
    #[serde(default)]
    sensitive_category: Option<Category>,
    #[serde(default)]
    pinned: i64,
    superseded_by: Option<String>,
    emotion: Option<EmotionTag>,
    context: String,
    #[serde(default)]
    source_turns: Vec<String>,
}

impl MemoryRow {
    /// A row of [`MEMORY_JSON`].
    pub fn from_json(row: MemoryJsonRow) -> Result<Memory, PortError> {
        let mut memory = parse_json::<MemoryRow>("memory", &row.j)?;
        memory.confidence = row.confidence;
        memory.importance = row.importance;
        memory.into_memory()
    }

    pub fn into_memory(self) -> Result<Memory, PortError> {
        let collection = collection_from_name(&self.collection)
            .ok_or_else(|| bad("memory", format!("collection {:?}", self.collection)))?;
        let memory_type = MemoryType::parse(&self.memory_type)
            .ok_or_else(|| bad("memory", format!("type {:?}", self.memory_type)))?;
        Ok(Memory {
            id: self.id,
            memory_type,
            summary: self.summary,
            keywords: self.keywords,
            confidence: self.confidence,
            importance: self.importance,
            source: self.source,
            created_at: Timestamp(self.created_at),
            updated_at: Timestamp(self.updated_at),
            last_accessed_at: Timestamp(self.last_accessed_at),
            access_count: self.access_count.clamp(0, u32::MAX as i64) as u32,
            encounter_count: self.encounter_count.clamp(0, u32::MAX as i64) as u32,
            event_time: self.event_time.map(Timestamp),
            expires_at: self.expires_at.map(Timestamp),
            sensitive: self.sensitive != 0,
            sensitive_category: self.sensitive_category,
            pinned: self.pinned != 0,
            superseded_by: self.superseded_by,
            collection,
            emotion: self.emotion,
            context: self.context,
            source_turns: self.source_turns.into(),
        })
    }
}

#[derive(Debug, Deserialize)]
pub struct TokenRow {
    token_id: String,
    npcid: String,
    token_hash: String,
    created_at: i64,
    expires_at: Option<i64>,
    scopes: String,
}

impl TokenRow {
    pub fn into_record(self) -> TokenRecord {
        TokenRecord {
            token_id: self.token_id,
            npcid: self.npcid,
            token_hash: self.token_hash,
            created_at: Timestamp(self.created_at),
            expires_at: self.expires_at.map(Timestamp),
            // Unknown names (a newer writer's) grant nothing.
            scopes: self.scopes.split(',').filter_map(Scope::parse).collect(),
        }
    }
}
