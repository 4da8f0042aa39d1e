//! The diary: a rolling window of daily entries with older ones merged into `prior` (SPEC §1).

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DiaryEntry {
    /// `YYYY-MM-DD`.
    pub date: String,
    pub summary: String,
}

/// The stored diary. `dailies` are kept sorted oldest first; views show them newest first.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Diary {
    pub prior: String,
    pub dailies: Vec<DiaryEntry>,
}
