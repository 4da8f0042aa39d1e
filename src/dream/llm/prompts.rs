//! Prompts for the diary, the prior merge, extraction and the duplicate verdict. Each asks
//! for one JSON object, so [`super::parse`] can validate it.

use crate::conversation::{EntryKind, Role, Turn};
use crate::diary::DiaryEntry;
use crate::dream::text::cut_chars;
use crate::pkg::{PkgValue, MULTI_VALUE_LIMITS};
use crate::ports::ChatMessage;
use crate::relationship::Entity;
use chrono::NaiveDate;

/// A system prompt and the messages that follow it.
#[derive(Debug, Clone, PartialEq)]
pub struct Prompt {
    pub system: String,
    pub messages: Vec<ChatMessage>,
}

impl Prompt {
    fn new(system: String, user: String) -> Self {
        Prompt {
            system,
            messages: vec![ChatMessage {
                role: "user".into(),
                content: user,
            }],
        }
    }
}

/// The most conversation text one prompt carries; older material is left out first.
pub const MAX_TRANSCRIPT_CHARS: usize = 24_000;

/// The turns as `[YYYY-MM-DD HH:MM] role: text` lines, newest kept when over the cap.
pub fn transcript(turns: &[Turn]) -> String {
    let mut lines: Vec<String> = Vec::new();
    let mut total = 0;
    for t in turns.iter().rev() {
        let who = match (t.kind, t.role) {
            (EntryKind::Summary, _) => "session summary",
            (_, Some(Role::User)) => "user",
            _ => "assistant",
        };
        let when = t.ts.datetime().format("%Y-%m-%d %H:%M");
        let line = format!("[{when}] {who}: {}", cut_chars(t.content.trim(), 2_000));
        total += line.chars().count() + 1;
        if total > MAX_TRANSCRIPT_CHARS {
            break;
        }
        lines.push(line);
    }
    lines.reverse();
    lines.join("\n")
}

/// Today's diary entry, written by the character, from all of today's material.
pub fn diary(date: NaiveDate, material: &[Turn], max_chars: usize) -> Prompt {
    let system = format!(
        "You are an AI character writing your private diary entry for {date}, about the user and your \
         day together. Write a short entry in your own first-person voice, calling the user by \
         the name or nickname they use (else \"the user\", TA in Chinese): what you talked about, \
         what mattered about them (plans with their dates, people in their life, things to \
         remember such as allergies, what they like), how they felt and why, and anything you \
         promised them. A diary, not a list of quotes; do not repeat the chat line by line. Write \
         in the language the conversation is mostly in. At most {max_chars} characters. Only \
         facts from the conversation; invent nothing. Answer with one JSON object and nothing \
         else: {{\"diary\": \"...\"}}"
    );
    Prompt::new(
        system,
        format!("Conversation of {date}:\n{}", transcript(material)),
    )
}

/// Merge of diary entries leaving the rolling window into the long-term `prior`.
pub fn prior_merge(prior: &str, overflow: &[DiaryEntry], max_chars: usize) -> Prompt {
    let system = format!(
        "You maintain the long-term diary summary of an AI character. Merge the older diary \
         entries into the existing summary. Keep what stays important about the user (identity, \
         people, preferences, constraints, commitments, significant events with dates); drop \
         small talk. Keep the language of the entries. At most {max_chars} characters. Answer \
         with one JSON object and nothing else: {{\"prior\": \"...\"}}"
    );
    let entries: Vec<String> = overflow
        .iter()
        .map(|e| format!("{}: {}", e.date, e.summary))
        .collect();
    Prompt::new(
        system,
        format!(
            "Existing summary:\n{}\n\nEntries to merge:\n{}",
            if prior.is_empty() { "(empty)" } else { prior },
            entries.join("\n")
        ),
    )
}

/// Entity ops, PKG updates and typed memories from new conversation, in one JSON document.
pub fn extraction(
    turns: &[Turn],
    pkg: &[(String, PkgValue)],
    entities: &[(String, Entity)],
    today: NaiveDate,
) -> Prompt {
    let lists: Vec<String> = MULTI_VALUE_LIMITS
        .iter()
        .map(|(k, n)| format!("\"{k}\" (list, at most {n})"))
        .collect();
    let system = format!(
        "You extract long-term memory for an AI character from a conversation with its user. \
         Today is {today}. Only what the USER states about themselves and their world counts; \
         the assistant's lines are context. Never invent or guess. Answer with one JSON object \
         and nothing else:\n\
         {{\"entity_ops\": [{{\"op\": \"add\"|\"update\"|\"delete\", \"id\": \"entity_NNN (update/delete of a known entity only)\", \
         \"name\": \"...\", \"alias\": [\"...\"], \"title\": [\"relation to the user, e.g. sister\"], \"remark\": \"...\"}}],\n \
         \"pkg_updates\": [{{\"key\": \"field\", \"value\": \"text\" or [\"items\"]}}],\n \
         \"memories\": [{{\"summary\": \"one short third-person sentence in the user's language, e.g. 'The user is allergic to peanuts' / '用户对花生过敏'\", \
         \"type\": \"preference|style|profile|history|project|constraint|relationship|other\", \"keywords\": [\"...\"], \
         \"importance\": 0.0-1.0, \"confidence\": 0.0-1.0, \"event_time\": \"YYYY-MM-DD or RFC 3339, or null\"}}]}}\n\
         PKG fields: \"Name\" (text), {}; other fields are free text. People go both into entity_ops \
         (with their relation as title) and into \"Important Friends\" or \"Other Important People\". \
         Importance: explicit requests to remember 0.95; constraints such as allergies 0.85; \
         strongly felt events 0.8; deadlines and appointments 0.75; identity 0.7; relations 0.65; \
         preferences and style 0.6; decisions 0.5; anything else 0.3. Confidence is how sure the \
         user's words make the fact (0.9 plain statement, 0.6 hedged). Resolve relative dates \
         against the date of the line. Empty lists when there is nothing.",
        lists.join(", ")
    );
    let known_pkg: Vec<String> = pkg
        .iter()
        .map(|(k, v)| format!("{k}: {}", serde_json::to_string(v).unwrap_or_default()))
        .collect();
    let known_entities: Vec<String> = entities
        .iter()
        .map(|(id, e)| format!("{id}: {}", serde_json::to_string(e).unwrap_or_default()))
        .collect();
    let user = format!(
        "Known PKG:\n{}\n\nKnown entities:\n{}\n\nNew conversation:\n{}",
        if known_pkg.is_empty() {
            "(none)".into()
        } else {
            known_pkg.join("\n")
        },
        if known_entities.is_empty() {
            "(none)".into()
        } else {
            known_entities.join("\n")
        },
        transcript(turns)
    );
    Prompt::new(system, user)
}

/// Is a new fact the same as, a replacement of, or distinct from a stored memory?
pub fn verdict(existing: &str, new: &str) -> Prompt {
    let system = "You compare two memories an AI character holds about its user. Answer \
                  DUPLICATE if they state the same fact, SUPERSEDES if the new one replaces the \
                  old (same subject, changed value, e.g. a new favourite or a moved appointment), \
                  DISTINCT otherwise. Answer with one JSON object and nothing else: \
                  {\"verdict\": \"DUPLICATE\"|\"SUPERSEDES\"|\"DISTINCT\"}"
        .to_string();
    Prompt::new(system, format!("Old memory: {existing}\nNew memory: {new}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dream::extract::tests::user;

    #[test]
    fn transcript_keeps_the_newest_lines_under_the_cap() {
        let turns: Vec<Turn> = (0..100)
            .map(|i| user(&format!("{i} {}", "x".repeat(500))))
            .collect();
        let t = transcript(&turns);
        assert!(t.chars().count() <= MAX_TRANSCRIPT_CHARS);
        assert!(t.contains("user: 99 "));
        assert!(!t.contains("user: 0 "));
    }

    #[test]
    fn extraction_prompt_names_the_fields_and_known_entities() {
        let entities = vec![(
            "entity_001".to_string(),
            Entity {
                name: "Anna".into(),
                ..Entity::default()
            },
        )];
        let p = extraction(
            &[user("my sister Anna")],
            &[],
            &entities,
            NaiveDate::from_ymd_opt(2026, 4, 9).unwrap(),
        );
        for needle in [
            "\"Important Appointments\" (list, at most 10)",
            "\"Nickname\" (list, at most 5)",
            "2026-04-09",
        ] {
            assert!(p.system.contains(needle), "{needle}");
        }
        assert!(p.messages[0].content.contains("entity_001"));
        assert!(p.messages[0].content.contains("my sister Anna"));
    }
}
