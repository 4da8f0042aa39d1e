//! The records a dream keeps of the consumed log: one `content` chunk per entry (hybrid
//! search over the conversation) and one `emotion` snippet per strongly felt user turn.
//! Their ids derive from the NPC and the entry's `seq`, so a retried dream replaces them.

use crate::conversation::{EntryKind, Role, Turn};
use crate::dream::emotion;
use crate::dream::extract::{MAX_SNIPPET_CHARS, SOURCE};
use crate::dream::text::cut_chars;
use crate::ids::sha256_hex;
use crate::memory::{Collection, EmotionTag, Memory, MemoryType};
use crate::npc::NpcSettings;
use crate::time::Timestamp;

/// Longest content chunk, in characters.
pub const MAX_CHUNK_CHARS: usize = 2_000;
/// The `source` of content chunks.
pub const CONTENT_SOURCE: &str = "conversation";

fn record_id(prefix: &str, npcid: &str, seq: u64) -> String {
    format!(
        "{prefix}_{}",
        &sha256_hex(&format!("{npcid}\u{0}{seq}"))[..16]
    )
}

fn record(
    id: String,
    summary: String,
    collection: Collection,
    source: &str,
    ts: Timestamp,
    ttl_days: u32,
    now: Timestamp,
) -> Memory {
    Memory {
        id,
        memory_type: MemoryType::History,
        summary,
        keywords: Vec::new(),
        confidence: 1.0,
        importance: 0.3,
        source: source.to_string(),
        created_at: now,
        updated_at: now,
        last_accessed_at: now,
        access_count: 0,
        encounter_count: 1,
        event_time: Some(ts),
        expires_at: Some(ts.plus_days(ttl_days as i64)),
        sensitive: false,
        superseded_by: None,
        collection,
        emotion: None,
    }
}

/// The `content` chunk and, for a felt user turn, the `emotion` snippet of each entry.
pub(super) fn for_turns(
    npcid: &str,
    turns: &[Turn],
    settings: &NpcSettings,
    now: Timestamp,
) -> Vec<Memory> {
    let mut out = Vec::new();
    for t in turns {
        let speaker = match (t.kind, t.role) {
            (EntryKind::Summary, _) => "Summary",
            (_, Some(Role::User)) => "User",
            _ => "Assistant",
        };
        let text = t.content.trim();
        if text.is_empty() {
            continue;
        }
        let chunk = format!("{speaker}: {}", cut_chars(text, MAX_CHUNK_CHARS));
        out.push(record(
            record_id("cnt", npcid, t.seq),
            chunk,
            Collection::Content,
            CONTENT_SOURCE,
            t.ts,
            settings.content_ttl_days,
            now,
        ));
        if t.role != Some(Role::User) {
            continue;
        }
        if let Some((label, intensity)) = emotion::detect(text) {
            let mut snippet = record(
                record_id("emo", npcid, t.seq),
                cut_chars(text, MAX_SNIPPET_CHARS).to_string(),
                Collection::Emotion,
                SOURCE,
                t.ts,
                settings.emotion_ttl_days,
                now,
            );
            snippet.importance = intensity;
            snippet.keywords = vec![label.clone()];
            snippet.emotion = Some(EmotionTag { label, intensity });
            out.push(snippet);
        }
    }
    out
}
