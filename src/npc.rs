//! The NPC record: identity, settings, registration flags and bookkeeping the rules need.

use crate::time::Timestamp;
use serde::{Deserialize, Serialize};

/// Per-NPC settings (SPEC §1). Unknown keys are rejected so typos do not pass silently.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct NpcSettings {
    /// How many daily diary entries stay in the rolling window.
    pub diary_window: u32,
    /// Days a `content` record (a conversation turn kept verbatim) lives; 0, the default,
    /// keeps it as long as the NPC (docs/LIFECYCLE.md: the verbatim conversation is the
    /// ground truth retrieval falls back on).
    pub content_ttl_days: u32,
    /// Days an `emotion` snippet lives.
    pub emotion_ttl_days: u32,
}

impl Default for NpcSettings {
    fn default() -> Self {
        NpcSettings {
            diary_window: 7,
            content_ttl_days: 0,
            emotion_ttl_days: 14,
        }
    }
}

impl NpcSettings {
    pub const MAX_DIARY_WINDOW: u32 = 365;
    pub const MAX_TTL_DAYS: u32 = 3650;

    pub fn validate(&self) -> crate::Result<()> {
        if !(1..=Self::MAX_DIARY_WINDOW).contains(&self.diary_window) {
            return Err(crate::Error::invalid(format!(
                "settings.diary_window must be between 1 and {}",
                Self::MAX_DIARY_WINDOW
            )));
        }
        for (name, v, least) in [
            ("content_ttl_days", self.content_ttl_days, 0),
            ("emotion_ttl_days", self.emotion_ttl_days, 1),
        ] {
            if !(least..=Self::MAX_TTL_DAYS).contains(&v) {
                return Err(crate::Error::invalid(format!(
                    "settings.{name} must be between {least} and {}{}",
                    Self::MAX_TTL_DAYS,
                    if least == 0 {
                        " (0: never expires)"
                    } else {
                        ""
                    }
                )));
            }
        }
        Ok(())
    }
}

/// An NPC as stored. `version` increases with every committed write batch of this NPC and
/// is what optimistic concurrency checks against (see [`crate::ports::WriteBatch`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Npc {
    pub npcid: String,
    pub display_name: String,
    pub created_at: Timestamp,
    pub voice_registered: bool,
    pub face_registered: bool,
    pub settings: NpcSettings,
    /// The next relationship entity number (`entity_NNN`); never reused after a delete.
    pub next_entity_seq: u32,
    /// The last conversation-log sequence number the last dream consumed.
    pub watermark: u64,
    /// Incremented by the store on every commit; not part of any wire shape.
    #[serde(default)]
    pub version: u64,
}

impl Npc {
    pub fn new(npcid: &str, now: Timestamp) -> Self {
        Npc {
            npcid: npcid.to_string(),
            display_name: String::new(),
            created_at: now,
            voice_registered: false,
            face_registered: false,
            settings: NpcSettings::default(),
            next_entity_seq: 1,
            watermark: 0,
            version: 0,
        }
    }
}
