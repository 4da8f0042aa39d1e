//! What the live character reads for a verbatim item (docs/LIFECYCLE.md, "What the
//! character reads"). The memory_retrieval protocol asks for short natural-language
//! sentences, not chat logs: a conversation turn is rendered as the sentence(s) of it that
//! matched the query, attributed and dated in the query's language —
//! "3月2日，用户说：我妹妹叫林可，在杭州读大学。" / "On March 2, the user said: …" — and a
//! diary day is introduced by its date.

use super::query::Speaker;
use super::rank::{Candidate, CandidateKind};
use super::tokenize::{is_cjk, tokenize, tokenize_query};
use crate::text::sentences;
use crate::time::Timestamp;
use chrono::Datelike;
use std::collections::HashSet;

/// Longest quote read to the character, in characters (a matched sentence and, when it is
/// short, the one after it).
pub const MAX_QUOTE_CHARS: usize = 240;
/// A best sentence shorter than this (in characters; Chinese is denser) brings the next along.
const SHORT_SENTENCE_CHARS: usize = 24;
const SHORT_SENTENCE_CJK_CHARS: usize = 8;

const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

/// How to voice verbatim items for one answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Voice {
    chinese: bool,
    character: String,
    this_year: i32,
    terms: HashSet<String>,
}

impl Voice {
    /// For a `query` (its language and words), the character's `display_name`, at `now`.
    pub fn new(query: &str, display_name: &str, now: Timestamp) -> Self {
        Voice {
            chinese: query.chars().any(is_cjk),
            character: display_name.trim().to_string(),
            this_year: now.date().year(),
            terms: tokenize_query(query).into_iter().collect(),
        }
    }

    /// The text the character reads for `c`; `None` for items read as they are.
    pub fn render(&self, c: &Candidate) -> Option<String> {
        let when = c.event_time.unwrap_or(c.updated_at);
        match c.kind {
            CandidateKind::Conversation => {
                let quote = self.matched_sentences(&c.summary);
                Some(if self.chinese {
                    format!("{}，{}说：{quote}", self.date(when), self.who(c.speaker))
                } else {
                    format!(
                        "On {}, {} said: \"{quote}\"",
                        self.date(when),
                        self.who(c.speaker)
                    )
                })
            }
            CandidateKind::Diary => Some(if self.chinese {
                format!("{}的日记：{}", self.date(when), c.summary)
            } else {
                format!("Diary, {}: {}", self.date(when), c.summary)
            }),
            _ => None,
        }
    }

    fn date(&self, t: Timestamp) -> String {
        let d = t.date();
        let month = d.month0() as usize;
        match (self.chinese, d.year() == self.this_year) {
            (true, true) => format!("{}月{}日", d.month(), d.day()),
            (true, false) => format!("{}年{}月{}日", d.year(), d.month(), d.day()),
            (false, true) => format!("{} {}", MONTHS[month % 12], d.day()),
            (false, false) => format!("{} {}, {}", MONTHS[month % 12], d.day(), d.year()),
        }
    }

    fn who(&self, speaker: Option<Speaker>) -> String {
        match (speaker, self.chinese) {
            (Some(Speaker::User), true) => "用户".into(),
            (Some(Speaker::User), false) => "the user".into(),
            (_, true) if !self.character.is_empty() => self.character.clone(),
            (_, true) => "我".into(),
            (_, false) if !self.character.is_empty() => self.character.clone(),
            (_, false) => "I".into(),
        }
    }

    /// The sentence of `text` sharing most query terms (the first on a tie), and the next
    /// one when it is short; the first sentence when none shares a term (a match by meaning).
    fn matched_sentences(&self, text: &str) -> String {
        let parts = sentences(text);
        if parts.is_empty() {
            return cut(text);
        }
        let shared = |s: &str| {
            tokenize(s)
                .into_iter()
                .collect::<HashSet<_>>()
                .intersection(&self.terms)
                .count()
        };
        let mut best = 0;
        let mut best_count = 0;
        for (i, s) in parts.iter().enumerate() {
            let n = shared(s);
            if n > best_count {
                best = i;
                best_count = n;
            }
        }
        let mut quote = parts[best].to_string();
        let cjk = quote.chars().any(is_cjk);
        let short = if cjk {
            SHORT_SENTENCE_CJK_CHARS
        } else {
            SHORT_SENTENCE_CHARS
        };
        if quote.chars().count() < short {
            if let Some(next) = parts.get(best + 1) {
                if !cjk {
                    quote.push(' ');
                }
                quote.push_str(next);
            }
        }
        cut(&quote)
    }
}

fn cut(text: &str) -> String {
    if text.chars().count() <= MAX_QUOTE_CHARS {
        return text.to_string();
    }
    let mut out: String = text.chars().take(MAX_QUOTE_CHARS - 1).collect();
    out.push('…');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::MemoryType;

    fn turn(text: &str, speaker: Speaker, at: &str) -> Candidate {
        let t = Timestamp::parse(at).unwrap();
        let mut c = Candidate::new(
            "c",
            CandidateKind::Conversation,
            MemoryType::History,
            text,
            t,
        );
        c.speaker = Some(speaker);
        c.event_time = Some(t);
        c
    }

    fn now() -> Timestamp {
        Timestamp::parse("2026-06-01T00:00:00Z").unwrap()
    }

    #[test]
    fn a_turn_is_the_matched_sentence_attributed_and_dated_in_the_query_language() {
        let c = turn(
            "今天好累。我妹妹叫林可，在杭州读大学。她下周回来。",
            Speaker::User,
            "2026-03-02T10:00:00Z",
        );
        let zh = Voice::new("用户的妹妹叫什么？", "灵绯", now());
        assert_eq!(
            zh.render(&c).unwrap(),
            "3月2日，用户说：我妹妹叫林可，在杭州读大学。"
        );
        let en = Voice::new("what is my sister called", "Ling", now());
        assert!(en
            .render(&c)
            .unwrap()
            .starts_with("On March 2, the user said: \""));
    }

    #[test]
    fn the_character_speaks_by_name_and_other_years_are_named() {
        let c = turn(
            "I think the blue one suits you. Let's go to the lake on Sunday!",
            Speaker::Character,
            "2025-08-09T10:00:00Z",
        );
        let v = Voice::new("when do we go to the lake", "Melanie", now());
        assert_eq!(
            v.render(&c).unwrap(),
            "On August 9, 2025, Melanie said: \"Let's go to the lake on Sunday!\""
        );
        let unnamed = Voice::new("lake", "", now());
        assert!(unnamed.render(&c).unwrap().contains(", I said: "));
    }

    #[test]
    fn a_short_matched_sentence_brings_the_next_and_long_ones_are_cut() {
        let c = turn(
            "Guess what? I got a puppy. His name is Max.",
            Speaker::User,
            "2026-05-01T10:00:00Z",
        );
        let v = Voice::new("puppy", "", now());
        assert_eq!(
            v.render(&c).unwrap(),
            "On May 1, the user said: \"I got a puppy. His name is Max.\""
        );
        let long = turn(&"word ".repeat(200), Speaker::User, "2026-05-01T10:00:00Z");
        let quote = v.render(&long).unwrap();
        assert!(quote.chars().count() < MAX_QUOTE_CHARS + 40 && quote.ends_with("…\""));
    }

    #[test]
    fn facts_are_read_as_they_are() {
        let c = Candidate::new("m", CandidateKind::Memory, MemoryType::Profile, "x", now());
        assert_eq!(Voice::new("x", "", now()).render(&c), None);
    }
}
