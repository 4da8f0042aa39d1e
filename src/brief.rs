//! The session brief: a compact text for a character's system prompt, packed
//! within a token budget. This module is pure: token counting, the brief's layout and the
//! packing; `engine/brief.rs` gathers the lines from the NPC's state.
//!
//! ## Token count (an approximation, documented in the README)
//! Every CJK character (Han, kana, Hangul, CJK punctuation) counts 1 token; a run of other
//! letters and digits counts one token per 4 characters, rounded up (at least 1); every other
//! visible character (punctuation, symbols) and every line break counts 1; spaces count 0.
//! Common BPE vocabularies (cl100k, o200k, Qwen) give about 0.6–1.1 tokens per Chinese
//! character and about 4 English characters per token, so for the text a brief holds this
//! count is at or above theirs in the typical case; leave headroom when a model's context
//! is tight.

use crate::text::cut_chars;
use crate::text::for_character;
use serde::{Deserialize, Serialize};

/// The parts of a brief, in the order they are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Section {
    /// Who the user is: name and nickname, then the rest of the profile.
    User,
    /// What must be respected: allergies, "never …".
    Constraints,
    /// The people in the user's life.
    People,
    /// What the user asked to keep.
    Pinned,
    /// What the query is about (only with a query).
    Relevant,
    /// The strongest memories.
    Recent,
    /// The last days of the diary.
    Diary,
}

impl Section {
    const ALL: [Section; 7] = [
        Section::User,
        Section::Constraints,
        Section::People,
        Section::Pinned,
        Section::Relevant,
        Section::Recent,
        Section::Diary,
    ];

    fn heading(self, lang: Lang) -> &'static str {
        match (self, lang) {
            (Section::User, Lang::Zh) => "【用户】",
            (Section::Constraints, Lang::Zh) => "【注意】",
            (Section::People, Lang::Zh) => "【身边的人】",
            (Section::Pinned, Lang::Zh) => "【请牢记】",
            (Section::Relevant, Lang::Zh) => "【与话题相关】",
            (Section::Recent, Lang::Zh) => "【近来的记忆】",
            (Section::Diary, Lang::Zh) => "【最近的日记】",
            (Section::User, Lang::En) => "About the user:",
            (Section::Constraints, Lang::En) => "Take care:",
            (Section::People, Lang::En) => "People in their life:",
            (Section::Pinned, Lang::En) => "Asked to remember:",
            (Section::Relevant, Lang::En) => "About this topic:",
            (Section::Recent, Lang::En) => "Recent memories:",
            (Section::Diary, Lang::En) => "Recent diary:",
        }
    }
}

/// The language of the brief's headings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Lang {
    Zh,
    En,
}

impl Lang {
    pub fn parse(name: &str) -> Option<Lang> {
        match name.trim().to_ascii_lowercase().as_str() {
            "zh" | "zh-cn" | "zh-hans" | "zh-tw" | "zh-hant" => Some(Lang::Zh),
            "en" | "en-us" | "en-gb" => Some(Lang::En),
            _ => None,
        }
    }

    /// The language most of `texts` is written in (Chinese when CJK characters outnumber
    /// Latin words; English when there is nothing to judge).
    pub fn of<'a>(texts: impl IntoIterator<Item = &'a str>) -> Lang {
        let (mut cjk, mut latin) = (0usize, 0usize);
        for t in texts {
            cjk += t.chars().filter(|c| is_cjk_token(*c)).count();
            latin += t
                .split(|c: char| !c.is_ascii_alphabetic())
                .filter(|w| !w.is_empty())
                .count();
        }
        if cjk > latin {
            Lang::Zh
        } else {
            Lang::En
        }
    }
}

/// Characters that count one token each: CJK ideographs, kana, Hangul, CJK and fullwidth
/// punctuation.
fn is_cjk_token(c: char) -> bool {
    matches!(c as u32,
        0x2E80..=0x2FFF      // radicals
        | 0x3000..=0x30FF    // CJK punctuation, kana
        | 0x3100..=0x31FF    // bopomofo, kana extensions
        | 0x3400..=0x4DBF    // extension A
        | 0x4E00..=0x9FFF    // unified ideographs
        | 0xAC00..=0xD7AF    // Hangul syllables
        | 0xF900..=0xFAFF    // compatibility ideographs
        | 0xFF00..=0xFFEF    // fullwidth forms
        | 0x20000..=0x2FA1F) // extensions B..
}

/// The approximate token count of `text` (see the module documentation).
pub fn count_tokens(text: &str) -> usize {
    let mut tokens = 0usize;
    let mut run = 0usize;
    for c in text.chars() {
        if c.is_alphanumeric() && !is_cjk_token(c) {
            run += 1;
            continue;
        }
        tokens += run.div_ceil(4);
        run = 0;
        if !c.is_whitespace() || c == '\n' {
            tokens += 1;
        }
    }
    tokens + run.div_ceil(4)
}

/// Longest line of a brief, in characters (a long memory is cut, not dropped).
pub const MAX_LINE_CHARS: usize = 200;

/// What one line of the brief was drawn from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BriefItem {
    /// A memory id, `pkg:{field}`, `rel:{entity id}` or `diary:{date}` (the ids of the
    /// search route).
    pub id: String,
    /// `memory`, `pkg`, `relationship`, `diary` or `conversation`.
    pub kind: String,
    pub section: Section,
}

/// A line the brief may hold.
#[derive(Debug, Clone, PartialEq)]
pub struct BriefLine {
    pub item: BriefItem,
    pub text: String,
}

impl BriefLine {
    /// A line of `text` as the character reads it: what memory_retrieval strips (bidi
    /// overrides, control characters) stripped, on one line, cut to [`MAX_LINE_CHARS`].
    pub fn new(section: Section, kind: &str, id: impl Into<String>, text: &str) -> Self {
        let one_line: String = for_character(text)
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        BriefLine {
            item: BriefItem {
                id: id.into(),
                kind: kind.to_string(),
                section,
            },
            text: cut_chars(&one_line, MAX_LINE_CHARS).to_string(),
        }
    }
}

/// The brief's text for `lines`: each non-empty section, in [`Section`] order, as its heading
/// and then one `- ` line per item in the order given.
pub fn render(lines: &[&BriefLine], lang: Lang) -> String {
    let mut out = String::new();
    for section in Section::ALL {
        let mut items = lines
            .iter()
            .filter(|l| l.item.section == section)
            .peekable();
        if items.peek().is_none() {
            continue;
        }
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(section.heading(lang));
        for line in items {
            out.push_str("\n- ");
            out.push_str(&line.text);
        }
    }
    out
}

/// A packed brief: its text, its token count and the lines it holds.
#[derive(Debug, Clone, PartialEq)]
pub struct Packed {
    pub text: String,
    pub tokens: usize,
    pub items: Vec<BriefItem>,
}

/// Packs `candidates`, most important first, within `max_tokens`: each line joins when the
/// whole rendered brief still fits, else it is skipped and the next (perhaps shorter) one is
/// tried. Repeated ids and empty lines are skipped. The count is taken on the rendered text,
/// so the budget holds for exactly what is returned.
pub fn pack(candidates: &[BriefLine], lang: Lang, max_tokens: usize) -> Packed {
    let mut chosen: Vec<&BriefLine> = Vec::new();
    let mut text = String::new();
    let mut tokens = 0;
    for line in candidates {
        if line.text.trim().is_empty() || chosen.iter().any(|c| c.item.id == line.item.id) {
            continue;
        }
        chosen.push(line);
        let trial = render(&chosen, lang);
        let trial_tokens = count_tokens(&trial);
        if trial_tokens <= max_tokens {
            text = trial;
            tokens = trial_tokens;
        } else {
            chosen.pop();
        }
    }
    // Items in the order the text shows them.
    let items = Section::ALL
        .iter()
        .flat_map(|s| chosen.iter().filter(move |l| l.item.section == *s))
        .map(|l| l.item.clone())
        .collect();
    Packed {
        text,
        tokens,
        items,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_cjk_per_character_and_latin_per_four_letters() {
        assert_eq!(count_tokens(""), 0);
        assert_eq!(count_tokens("我对花生过敏"), 6);
        assert_eq!(count_tokens("花生。"), 3);
        // "allergic" 2, "to" 1, "peanuts" 2, "." 1
        assert_eq!(count_tokens("allergic to peanuts."), 6);
        assert_eq!(count_tokens("a\nb"), 3);
        assert_eq!(count_tokens("小明likes茶"), 5);
    }

    #[test]
    fn packing_keeps_priority_order_and_the_budget() {
        let lines = vec![
            BriefLine::new(Section::User, "pkg", "pkg:Name", "Name: Ming"),
            BriefLine::new(Section::Pinned, "memory", "m1", "Allergic to peanuts"),
            BriefLine::new(Section::Recent, "memory", "m2", &"long ".repeat(100)),
            BriefLine::new(Section::Recent, "memory", "m3", "Likes tea"),
        ];
        let all = pack(&lines, Lang::En, 1000);
        assert_eq!(all.items.len(), 4);
        assert_eq!(all.tokens, count_tokens(&all.text));
        assert!(all.text.starts_with("About the user:\n- Name: Ming\n"));
        let without_long = [&lines[0], &lines[1], &lines[3]];
        let budget = count_tokens(&render(&without_long, Lang::En));
        let small = pack(&lines, Lang::En, budget);
        let ids: Vec<&str> = small.items.iter().map(|i| i.id.as_str()).collect();
        // The long line does not fit; the shorter one after it does.
        assert_eq!(ids, ["pkg:Name", "m1", "m3"]);
        assert_eq!(small.tokens, budget);
        let ids: Vec<String> = pack(&lines, Lang::En, budget - 1)
            .items
            .into_iter()
            .map(|i| i.id)
            .collect();
        assert_eq!(ids, ["pkg:Name", "m1"]);
        assert_eq!(pack(&lines, Lang::En, 2).text, "");
    }
}
