//! Relationship entities (`entity_001`, …) and the add / update / delete operations (SPEC §1).

use serde::{Deserialize, Serialize};

/// A person in the user's life, as the seed's `relationship.{id}` shape.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Entity {
    pub name: String,
    #[serde(default)]
    pub alias: Vec<String>,
    #[serde(default)]
    pub title: Vec<String>,
    #[serde(default)]
    pub remark: String,
}

/// The NPC's entities keyed by id. Iteration is by entity number (see [`entity_number`]).
pub type Relationships = std::collections::BTreeMap<String, Entity>;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OpKind {
    Add,
    Update,
    Delete,
}

/// One entity operation, as in `POST /api/relationship/{npcid}` and the dream report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EntityOp {
    pub op: OpKind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alias: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remark: Option<String>,
}

/// `entity_NNN` for sequence number `n` (at least three digits).
pub fn entity_id(n: u32) -> String {
    format!("entity_{n:03}")
}

/// The number of an `entity_NNN` id, if it is one.
pub fn entity_number(id: &str) -> Option<u32> {
    id.strip_prefix("entity_")?.parse().ok()
}
