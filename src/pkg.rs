//! The Personal Knowledge Graph and its merge-update rules (SPEC §2.1, seed "Update Rules").

use crate::error::{Error, Result};
use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

/// A PKG field's value: a string, a list of strings, or a boolean (registration flags only).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum PkgValue {
    Flag(bool),
    List(Vec<String>),
    Text(String),
}

/// The PKG: field name → value, in the order fields were first set.
pub type Pkg = IndexMap<String, PkgValue>;

/// One item of `PUT /api/pkg/{npcid}`: `{"key", "value"}`; value is a string or an array.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PkgUpdate {
    pub key: String,
    pub value: serde_json::Value,
}

/// The result of merging updates into a PKG: the fields to write and the keys applied.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PkgMerge {
    /// New values of the fields that changed or were applied, in request order.
    pub changes: Vec<(String, PkgValue)>,
    /// `updated_fields`: keys applied, in request order, without repeats.
    pub updated_fields: Vec<String>,
}

/// Registration flags: part of the PKG view, changed only through the NPC admin route.
pub const PROTECTED_FIELDS: [&str; 2] = ["voice_registered", "face_registered"];

/// Multi-value fields and their item limits.
pub const MULTI_VALUE_LIMITS: [(&str, usize); 9] = [
    ("Nickname", 5),
    ("Important Friends", 10),
    ("Other Important People", 10),
    ("Important Appointments", 10),
    ("Favorite Books", 10),
    ("Favorite Movies", 10),
    ("Favorite Sports", 10),
    ("Hobbies", 10),
    ("Entertainment and Leisure", 10),
];

/// Regular (single-value) strings are cut to this many Unicode scalar values.
pub const MAX_TEXT_CHARS: usize = 1024;

/// The item limit of a multi-value field, or `None` for a regular field.
pub fn item_limit(key: &str) -> Option<usize> {
    MULTI_VALUE_LIMITS
        .iter()
        .find(|(k, _)| *k == key)
        .map(|(_, n)| *n)
}

#[doc(hidden)]
pub fn _placeholder(_: &Pkg, _: &[PkgUpdate]) -> Result<PkgMerge> {
    Err(Error::Internal("unimplemented".into()))
}
