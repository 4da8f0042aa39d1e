//! The records a dream keeps of the consumed log: one `content` chunk per entry (hybrid
//! search over the conversation) and one `emotion` snippet per strongly felt user turn.
//! Their ids derive from the NPC and the entry's `seq`, so a retried dream replaces them.
//!
//! Both are quotes, kept without the sentences the sensitivity detector flags (and their
//! echoes, see [`crate::sensitive::material`]): a turn that was only a secret leaves no
//! record. A quote is what someone said, not a verified fact: its `source` is
//! [`QUOTE_SOURCE`] and its `confidence` [`QUOTE_CONFIDENCE`].

use crate::conversation::{EntryKind, Role, Turn};
use crate::dream::emotion;
use crate::dream::extract::MAX_SNIPPET_CHARS;
use crate::ids::sha256_hex;
use crate::memory::{Collection, EmotionTag, Memory, MemoryType};
use crate::npc::NpcSettings;
use crate::sensitive::material::keep_safe_sentences;
use crate::text::cut_chars;

/// Longest content chunk, in characters.
pub const MAX_CHUNK_CHARS: usize = crate::memory::MAX_SUMMARY_CHARS;
/// The `source` of content chunks and emotion snippets: a verbatim quote of the conversation.
pub const QUOTE_SOURCE: &str = "conversation_quote";
/// The `confidence` of a quote: Hippo knows the words were said, not that they are true.
pub const QUOTE_CONFIDENCE: f64 = 0.5;

/// The id of the `content` record of the NPC's log entry `seq`.
pub fn content_record_id(npcid: &str, seq: u64) -> String {
    record_id("cnt", npcid, seq)
}

fn record_id(prefix: &str, npcid: &str, seq: u64) -> String {
    format!(
        "{prefix}_{}",
        &sha256_hex(&format!("{npcid}\u{0}{seq}"))[..16]
    )
}

/// A record of what was said at `ts`: dated by the turn, not by the dream that stored it (a
/// quote from March is from March). `ttl_days` 0 never expires.
fn record(
    id: String,
    summary: String,
    collection: Collection,
    source: &str,
    turn: &Turn,
    ttl_days: u32,
) -> Memory {
    let ts = turn.ts;
    Memory {
        confidence: QUOTE_CONFIDENCE,
        importance: 0.3,
        source: source.to_string(),
        event_time: Some(ts),
        expires_at: (ttl_days > 0).then(|| ts.plus_days(i64::from(ttl_days))),
        collection,
        source_turns: vec![turn.id.clone()].into(),
        ..Memory::new(id, MemoryType::History, summary, ts)
    }
}

fn speaker(t: &Turn) -> &'static str {
    match (t.kind, t.role) {
        (EntryKind::Summary, _) => "Summary",
        (_, Some(Role::User)) => "User",
        _ => "Assistant",
    }
}

/// "Speaker: text" of the safe part of a log entry, at most [`MAX_CHUNK_CHARS`] in all (a
/// record's summary limit, which an import checks); `None` when nothing of it is safe to keep.
fn chunk_text(t: &Turn, safe: &str) -> Option<String> {
    (!safe.is_empty()).then(|| {
        let text = format!("{}: {}", speaker(t), safe);
        cut_chars(&text, MAX_CHUNK_CHARS).to_string()
    })
}

/// The turns before and after `i` in the same session: a chunk's `context`, which the
/// lexical index matches at a lower weight (a reply like "sounds great" is found by what it
/// answered).
fn neighbours(turns: &[Turn], safe: &[String], i: usize) -> String {
    let same_session =
        |j: usize| turns[j].kind == EntryKind::Turn && turns[j].session_id == turns[i].session_id;
    let mut parts = Vec::new();
    if i > 0 && same_session(i - 1) {
        parts.extend(chunk_text(&turns[i - 1], &safe[i - 1]));
    }
    if i + 1 < turns.len() && same_session(i + 1) {
        parts.extend(chunk_text(&turns[i + 1], &safe[i + 1]));
    }
    parts.join("\n")
}

/// The `content` chunk and, for a felt user turn, the `emotion` snippet of each entry.
pub(crate) fn for_turns(npcid: &str, turns: &[Turn], settings: &NpcSettings) -> Vec<Memory> {
    let mut out = Vec::new();
    let contents: Vec<&str> = turns.iter().map(|t| t.content.trim()).collect();
    let safe = keep_safe_sentences(&contents);
    for (i, t) in turns.iter().enumerate() {
        let Some(summary) = chunk_text(t, &safe[i]) else {
            continue;
        };
        let text = safe[i].as_str();
        let mut chunk = record(
            content_record_id(npcid, t.seq),
            summary,
            Collection::Content,
            QUOTE_SOURCE,
            t,
            settings.content_ttl_days,
        );
        if t.kind == EntryKind::Turn {
            chunk.context = neighbours(turns, &safe, i);
        }
        out.push(chunk);
        if t.role != Some(Role::User) {
            continue;
        }
        if let Some((label, intensity)) = emotion::detect(text) {
            let mut snippet = record(
                record_id("emo", npcid, t.seq),
                cut_chars(text, MAX_SNIPPET_CHARS).to_string(),
                Collection::Emotion,
                QUOTE_SOURCE,
                t,
                settings.emotion_ttl_days,
            );
            snippet.importance = intensity;
            snippet.keywords = vec![label.clone()];
            snippet.emotion = Some(EmotionTag { label, intensity });
            out.push(snippet);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::Timestamp;

    fn turn(seq: u64, session: &str, role: Role, content: &str) -> Turn {
        Turn {
            id: format!("t{seq}"),
            seq,
            session_id: Some(session.into()),
            turn_index: Some(seq as u32),
            kind: EntryKind::Turn,
            role: Some(role),
            content: content.into(),
            ts: Timestamp(0),
            emotion: None,
        }
    }

    #[test]
    fn chunks_carry_their_session_neighbours_as_context() {
        let turns = [
            turn(
                1,
                "a",
                Role::Assistant,
                "Shall we visit the aquarium on Sunday?",
            ),
            turn(2, "a", Role::User, "Sounds great"),
            turn(3, "b", Role::User, "New topic"),
        ];
        let chunks: Vec<Memory> = for_turns("n", &turns, &NpcSettings::default())
            .into_iter()
            .filter(|m| m.collection == Collection::Content)
            .collect();
        assert_eq!(chunks[1].summary, "User: Sounds great");
        assert_eq!(
            chunks[1].context,
            "Assistant: Shall we visit the aquarium on Sunday?"
        );
        assert_eq!(chunks[0].context, "User: Sounds great");
        assert_eq!(chunks[2].context, "", "another session is not context");
    }
}
