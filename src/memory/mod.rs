//! Long-term memories: the record (SPEC §1), strength and decay (§2.2), conflict resolution (§2.3).

use crate::sensitive::Category;
use crate::time::Timestamp;
use serde::{Deserialize, Serialize};

/// Limits every stored memory keeps: the write routes refuse what is over them, the dream and
/// import cut to them (`engine::new_memory`).
pub const MAX_SUMMARY_CHARS: usize = 2_000;
pub const MAX_KEYWORDS: usize = 32;
pub const MAX_KEYWORD_CHARS: usize = 64;
pub const MAX_SOURCE_CHARS: usize = 64;
/// A record's `context` (a conversation chunk's neighbouring turns) at most.
pub const MAX_CONTEXT_CHARS: usize = 2 * MAX_SUMMARY_CHARS + 1;

/// The memory_retrieval `memory_types` enum.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MemoryType {
    Preference,
    Style,
    Profile,
    History,
    Project,
    Constraint,
    Relationship,
    Other,
}

impl MemoryType {
    pub const ALL: [MemoryType; 8] = [
        MemoryType::Preference,
        MemoryType::Style,
        MemoryType::Profile,
        MemoryType::History,
        MemoryType::Project,
        MemoryType::Constraint,
        MemoryType::Relationship,
        MemoryType::Other,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            MemoryType::Preference => "preference",
            MemoryType::Style => "style",
            MemoryType::Profile => "profile",
            MemoryType::History => "history",
            MemoryType::Project => "project",
            MemoryType::Constraint => "constraint",
            MemoryType::Relationship => "relationship",
            MemoryType::Other => "other",
        }
    }

    /// Parses a type name; unknown names are `None` (callers ignore them, SPEC §2.4).
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL
            .into_iter()
            .find(|t| t.as_str().eq_ignore_ascii_case(name.trim()))
    }
}

/// Which internal collection a record belongs to (SPEC §1 "Vector collections").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Collection {
    /// Typed long-term memories: what retrieval is about.
    #[default]
    Memory,
    /// Conversation turns kept verbatim, dated by the turn; kept as long as the NPC unless
    /// the NPC's `content_ttl_days` says otherwise (docs/LIFECYCLE.md).
    Content,
    /// Emotionally salient snippets with label and intensity; expire (default 14 days).
    Emotion,
    /// One record per diary day, kept after the day leaves the diary's rolling window, so the
    /// whole diary stays searchable.
    Diary,
}

impl Collection {
    pub const ALL: [Collection; 4] = [
        Collection::Memory,
        Collection::Content,
        Collection::Emotion,
        Collection::Diary,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Collection::Memory => "memory",
            Collection::Content => "content",
            Collection::Emotion => "emotion",
            Collection::Diary => "diary",
        }
    }

    pub fn parse(name: &str) -> Option<Collection> {
        Self::ALL.into_iter().find(|c| c.as_str() == name)
    }
}

/// An emotion label and its intensity (0..1), for `emotion` snippets.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EmotionTag {
    pub label: String,
    pub intensity: f64,
}

/// A stored memory (SPEC §1). Strength is never stored: it is computed at read time.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Memory {
    pub id: String,
    #[serde(rename = "type")]
    pub memory_type: MemoryType,
    pub summary: String,
    #[serde(default)]
    pub keywords: Vec<String>,
    /// Trust: how sure we are that this is true (0..1). Never a relevance score.
    pub confidence: f64,
    /// 0..1; the base of strength.
    pub importance: f64,
    pub source: String,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    pub last_accessed_at: Timestamp,
    #[serde(default)]
    pub access_count: u32,
    #[serde(default = "one")]
    pub encounter_count: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub event_time: Option<Timestamp>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<Timestamp>,
    /// Never returned by memory_retrieval (docs/SECURITY.md, "Sensitivity model").
    #[serde(default)]
    pub sensitive: bool,
    /// Why it is sensitive; absent when it is not, or when it was marked without a reason.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sensitive_category: Option<Category>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub superseded_by: Option<String>,
    /// Pinned by the user: never decays (see [`strength::strength`]) and always has a place
    /// in the session brief.
    #[serde(default)]
    pub pinned: bool,
    #[serde(default)]
    pub collection: Collection,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub emotion: Option<EmotionTag>,
    /// Text around the record that is not the record itself (a conversation chunk's
    /// neighbouring turns): matched lexically at a lower weight, never returned.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub context: String,
    /// Ids of the conversation turns this record came from (a chunk: its turn; an extracted
    /// memory: the turns that stated it; a diary day: that day's turns), at most
    /// [`MAX_SOURCE_TURNS`]. Lets retrieval return a fact with the words it came from, and
    /// drop a quote when the fact drawn from it is already in the answer.
    #[serde(default, skip_serializing_if = "TurnIds::is_empty")]
    pub source_turns: TurnIds,
}

/// Most source turn ids one record keeps (a diary day of a long conversation keeps the first).
pub const MAX_SOURCE_TURNS: usize = 64;

/// A record's source turn ids, shared between the copies of the record: a retrieval copies
/// its ~150 candidates out of the store and drops them again, and a diary day links to up to
/// [`MAX_SOURCE_TURNS`] turns (docs/BENCHMARKS.md, "Retrieve latency at 10k records").
/// Reads as a slice of ids; on the wire, an array of them.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(from = "Vec<String>", into = "Vec<String>")]
pub struct TurnIds(std::sync::Arc<[String]>);

impl TurnIds {
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// These ids and `more`, without repeats, up to [`MAX_SOURCE_TURNS`].
    pub fn merged(&self, more: &[String]) -> TurnIds {
        let mut ids = self.0.to_vec();
        merge_source_turns(&mut ids, more);
        TurnIds::from(ids)
    }
}

impl std::ops::Deref for TurnIds {
    type Target = [String];

    fn deref(&self) -> &[String] {
        &self.0
    }
}

impl From<Vec<String>> for TurnIds {
    fn from(ids: Vec<String>) -> Self {
        TurnIds(ids.into())
    }
}

impl From<TurnIds> for Vec<String> {
    fn from(ids: TurnIds) -> Self {
        ids.0.to_vec()
    }
}

/// Adds `more` to `ids`, without repeats, up to [`MAX_SOURCE_TURNS`].
pub fn merge_source_turns(ids: &mut Vec<String>, more: &[String]) {
    for id in more {
        if ids.len() >= MAX_SOURCE_TURNS {
            break;
        }
        if !ids.contains(id) {
            ids.push(id.clone());
        }
    }
}

/// Checks stored links (an import): at most [`MAX_SOURCE_TURNS`] ids, each one a turn id
/// could be (1-64 characters of A-Z a-z 0-9 _ . : -), none twice.
pub fn check_source_turns(
    ids: &[String],
    what: impl std::fmt::Display,
) -> crate::error::Result<()> {
    let bad = |why: &str| Err(crate::error::Error::invalid(format!("{what} {why}")));
    if ids.len() > MAX_SOURCE_TURNS {
        return bad(&format!("holds more than {MAX_SOURCE_TURNS} turn ids"));
    }
    if !ids.iter().all(|id| crate::ids::is_path_safe_id(id)) {
        return bad("must hold turn ids of 1-64 characters of A-Z a-z 0-9 _ . : -");
    }
    // At most 64: pairwise, without a set type of its own in the wasm builds.
    let repeats = ids
        .iter()
        .enumerate()
        .any(|(i, id)| ids.iter().take(i).any(|earlier| earlier == id));
    if repeats {
        return bad("repeats a turn id");
    }
    Ok(())
}

fn one() -> u32 {
    1
}

/// A memory as callers submit it (`POST /api/memories/{npcid}`, `addMemories`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MemoryInput {
    pub summary: String,
    #[serde(rename = "type")]
    pub memory_type: String,
    #[serde(default)]
    pub keywords: Vec<String>,
    #[serde(default)]
    pub confidence: Option<f64>,
    #[serde(default)]
    pub importance: Option<f64>,
    #[serde(default)]
    pub source: Option<String>,
    #[serde(default)]
    pub event_time: Option<Timestamp>,
    #[serde(default)]
    pub expires_at: Option<Timestamp>,
    #[serde(default)]
    pub sensitive: bool,
    /// One of the sensitivity categories; implies `sensitive`.
    #[serde(default)]
    pub sensitive_category: Option<String>,
    /// Pin it (see [`Memory::pinned`]).
    #[serde(default)]
    pub pinned: bool,
}

/// `PATCH /api/memories/{npcid}/{id}`: the fields to change (absent ones stay), validated as
/// `POST /api/memories` validates them. Unknown fields are refused.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MemoryPatch {
    #[serde(default)]
    pub summary: Option<String>,
    #[serde(default, rename = "type")]
    pub memory_type: Option<String>,
    #[serde(default)]
    pub keywords: Option<Vec<String>>,
    #[serde(default)]
    pub importance: Option<f64>,
    #[serde(default)]
    pub sensitive: Option<bool>,
    /// One of the sensitivity categories; implies `sensitive: true`.
    #[serde(default)]
    pub sensitive_category: Option<String>,
    /// Pin (`true`) or unpin (`false`) the memory.
    #[serde(default)]
    pub pinned: Option<bool>,
}

impl Memory {
    /// A fresh, live memory at `at`: importance 0.5, confidence 0.8, never accessed, one
    /// encounter, in the `memory` collection. Set the rest with struct-update syntax.
    pub fn new(
        id: impl Into<String>,
        memory_type: MemoryType,
        summary: impl Into<String>,
        at: Timestamp,
    ) -> Self {
        Memory {
            id: id.into(),
            memory_type,
            summary: summary.into(),
            keywords: Vec::new(),
            confidence: 0.8,
            importance: 0.5,
            source: String::new(),
            created_at: at,
            updated_at: at,
            last_accessed_at: at,
            access_count: 0,
            encounter_count: 1,
            event_time: None,
            expires_at: None,
            sensitive: false,
            sensitive_category: None,
            superseded_by: None,
            pinned: false,
            collection: Collection::Memory,
            emotion: None,
            context: String::new(),
            source_turns: TurnIds::default(),
        }
    }

    pub fn is_expired(&self, now: Timestamp) -> bool {
        self.expires_at.is_some_and(|t| t <= now)
    }
}

pub mod conflict;
pub mod strength;
