//! Small text tools the built-in engines share: language, sentences, clauses, list items and
//! the first-to-third-person rewrite of what the user said.

mod person;
pub mod segment;

pub use person::{capitalize_first, third_person};

/// A word list of the core's (`src/**/*.txt`): compiled into the Worker and native builds
/// (feature `lexicons`, a default), while the npm package ships it beside its wasm, which has
/// a size budget, and hands it over once, at load. Until then the list is empty.
pub struct WordList {
    compiled: Option<&'static str>,
    given: std::sync::OnceLock<String>,
}

/// The [`WordList`] of a file under `src/`: its text compiled in with feature `lexicons`.
macro_rules! word_list {
    ($path:literal) => {{
        #[cfg(feature = "lexicons")]
        let compiled = Some(include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/src/",
            $path
        )));
        #[cfg(not(feature = "lexicons"))]
        let compiled = None;
        $crate::text::WordList::new(compiled)
    }};
}
pub(crate) use word_list;

impl WordList {
    pub const fn new(compiled: Option<&'static str>) -> Self {
        WordList {
            compiled,
            given: std::sync::OnceLock::new(),
        }
    }

    /// Hands the list over where it is not compiled in; only the first call counts.
    pub fn set(&self, text: &str) {
        let _ = self.given.set(text.to_owned());
    }

    pub fn text(&'static self) -> &'static str {
        self.compiled
            .or_else(|| self.given.get().map(String::as_str))
            .unwrap_or_default()
    }
}

/// A CJK ideograph (the blocks Chinese text lives in).
pub fn is_cjk(c: char) -> bool {
    matches!(c as u32, 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF | 0x20000..=0x2A6DF)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lang {
    Zh,
    En,
}

/// Chinese when ideographs are at least a third of the letters (an English word costs more
/// letters than a Chinese one, so "我喜欢Python" is Chinese).
pub fn lang_of(text: &str) -> Lang {
    let cjk = text.chars().filter(|c| is_cjk(*c)).count();
    let latin = text.chars().filter(|c| c.is_ascii_alphabetic()).count();
    if cjk > 0 && cjk * 3 >= latin {
        Lang::Zh
    } else {
        Lang::En
    }
}

/// The language most of `texts` is written in (by characters).
pub fn dominant_lang<'a>(texts: impl IntoIterator<Item = &'a str>) -> Lang {
    let (mut zh, mut en) = (0usize, 0usize);
    for t in texts {
        match lang_of(t) {
            Lang::Zh => zh += t.chars().count(),
            Lang::En => en += t.chars().count(),
        }
    }
    if zh >= en && zh > 0 {
        Lang::Zh
    } else {
        Lang::En
    }
}

const ABBREVIATIONS: [&str; 8] = ["mr", "mrs", "ms", "dr", "st", "prof", "vs", "etc"];

/// Splits text into sentences, keeping each terminator. A `.` ends a sentence only before
/// whitespace or the end, and not after a short title such as "Dr".
pub fn sentences(text: &str) -> Vec<&str> {
    sentence_spans(text).into_iter().map(|r| &text[r]).collect()
}

/// The byte ranges of [`sentences`] in `text` (trimmed, in order).
pub fn sentence_spans(text: &str) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    let mut start = 0;
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    for (i, &(pos, c)) in chars.iter().enumerate() {
        let next = chars.get(i + 1).map(|(_, c)| *c);
        let ends = match c {
            '。' | '！' | '？' | '!' | '?' | '；' | ';' | '\n' | '…' => {
                !matches!(next, Some('!' | '?' | '！' | '？' | '…'))
            }
            '.' => {
                let before = &text[start..pos];
                let word = before
                    .rsplit(|c: char| !c.is_ascii_alphabetic())
                    .next()
                    .unwrap_or("")
                    .to_ascii_lowercase();
                next.is_none_or(char::is_whitespace) && !ABBREVIATIONS.contains(&word.as_str())
            }
            _ => false,
        };
        if ends {
            let end = pos + c.len_utf8();
            push_trimmed(&mut out, text, start..end);
            start = end;
        }
    }
    push_trimmed(&mut out, text, start..text.len());
    out
}

fn push_trimmed(out: &mut Vec<std::ops::Range<usize>>, text: &str, r: std::ops::Range<usize>) {
    let s = &text[r.clone()];
    let lead = s.len() - s.trim_start().len();
    let trimmed = s.trim();
    if trimmed.chars().any(char::is_alphanumeric) {
        out.push(r.start + lead..r.start + lead + trimmed.len());
    }
}

/// Punctuation that always ends a clause.
const CLAUSE_PUNCT: [char; 16] = [
    '，', ',', '。', '.', '！', '!', '？', '?', '；', ';', '：', ':', '\n', '（', '(', '~',
];

/// The start of `rest` up to the first clause punctuation (unless it is in `keep`) or the
/// first of `stops`; trimmed.
pub fn clause<'a>(rest: &'a str, stops: &[&str], keep: &[char]) -> &'a str {
    let lower = rest.to_ascii_lowercase();
    let mut end = rest
        .char_indices()
        .find(|(_, c)| CLAUSE_PUNCT.contains(c) && !keep.contains(c))
        .map_or(rest.len(), |(i, _)| i);
    for stop in stops {
        if let Some(i) = find_word(&lower, stop) {
            end = end.min(i);
        }
    }
    rest[..end].trim()
}

/// Byte offset of `needle` in `hay` (both lowercase); ASCII needles must sit on word
/// boundaries, so "like" is not found in "likely".
pub fn find_word(hay: &str, needle: &str) -> Option<usize> {
    word_positions(hay, needle).next()
}

/// Every byte offset of `needle` in `hay` on the word boundaries of [`find_word`], in order.
pub fn word_positions<'a>(hay: &'a str, needle: &'a str) -> impl Iterator<Item = usize> + 'a {
    let mut from = 0;
    std::iter::from_fn(move || {
        while let Some(i) = hay.get(from..)?.find(needle).map(|i| i + from) {
            from = i + needle.chars().next().map_or(1, char::len_utf8);
            if is_word_at(hay, i, needle) {
                return Some(i);
            }
        }
        None
    })
}

/// Whether `needle`, found in `hay` at byte `i`, stands on word boundaries there: an ASCII
/// needle that starts (ends) with a letter or digit must not have one (or an apostrophe)
/// right before (after) it. Non-ASCII needles always do.
pub fn is_word_at(hay: &str, i: usize, needle: &str) -> bool {
    if !needle.is_ascii() {
        return true;
    }
    let end = i + needle.len();
    let before_ok = !needle.starts_with(|c: char| c.is_ascii_alphanumeric())
        || !hay[..i].ends_with(|c: char| c.is_ascii_alphanumeric() || c == '\'');
    let after_ok = !needle.ends_with(|c: char| c.is_ascii_alphanumeric())
        || !hay[end..].starts_with(|c: char| c.is_ascii_alphanumeric());
    before_ok && after_ok
}

/// The first trigger found in `lower` (lowercased sentence): `(start, end)` of the match.
pub fn find_any(lower: &str, triggers: &[&str]) -> Option<(usize, usize)> {
    triggers
        .iter()
        .filter_map(|t| find_word(lower, t).map(|i| (i, i + t.len())))
        .min_by_key(|(i, end)| (*i, usize::MAX - end))
}

/// Splits a captured list ("游泳和画画", "hiking, chess and jazz") into items.
pub fn list_items(text: &str) -> Vec<String> {
    let mut parts = vec![text.to_string()];
    for sep in [
        "、", "，", ",", "和", "跟", "以及", "还有", " and ", " or ", " & ", "/", "或者",
    ] {
        parts = parts
            .iter()
            .flat_map(|p| p.split(sep).map(str::to_string).collect::<Vec<_>>())
            .collect();
    }
    parts
        .into_iter()
        .map(|p| p.trim().to_string())
        .filter(|p| !p.is_empty())
        .collect()
}

/// Strips words that frame an item rather than name it: leading articles and "a lot of",
/// trailing "a lot", sentence particles.
pub fn tidy_item(item: &str) -> String {
    let mut s = item
        .trim()
        .trim_matches(|c: char| "\"'“”‘’「」".contains(c));
    for lead in [
        "a lot of ",
        "lots of ",
        "the ",
        "a ",
        "an ",
        "some ",
        "to ",
        "doing ",
        "going ",
    ] {
        if s.len() > lead.len()
            && s.get(..lead.len())
                .is_some_and(|h| h.eq_ignore_ascii_case(lead))
        {
            s = &s[lead.len()..];
        }
    }
    let mut s = s.trim().to_string();
    for tail in [
        " a lot",
        " very much",
        " so much",
        " too",
        " as well",
        " a little",
        " lately",
        " now",
        " anymore",
        " though",
        " really",
        " at all",
        "了",
        "啊",
        "呀",
        "哦",
        "呢",
        "吧",
        "嘛",
        "啦",
        "也",
        "哈",
        "的",
    ] {
        while s.len() > tail.len() && s.to_ascii_lowercase().ends_with(tail) {
            s.truncate(s.len() - tail.len());
            s = s.trim_end().to_string();
        }
    }
    s
}

/// `text` cut to at most `max` characters, on a char boundary.
pub fn cut_chars(text: &str, max: usize) -> &str {
    match text.char_indices().nth(max) {
        Some((i, _)) => &text[..i],
        None => text,
    }
}

/// Text as memory_retrieval hands it to a live character: without the explicit bidi
/// formatting characters (embeddings, overrides, isolates: U+202A-U+202E, U+2066-U+2069),
/// which can make text read differently from what it says ("Trojan Source"), and without
/// control characters other than newline and tab. Stored text keeps them (exports and the
/// admin search show it as written); the implicit marks (LRM, RLM, ALM) stay, they reorder
/// nothing on their own.
pub fn for_character(text: &str) -> String {
    text.chars()
        .filter(|&c| {
            !matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
                && (!c.is_control() || c == '\n' || c == '\t')
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_sentences_in_both_languages() {
        assert_eq!(
            sentences("我喜欢猫。你呢？Dr. Li said hi. It costs 3.5 dollars!"),
            vec![
                "我喜欢猫。",
                "你呢？",
                "Dr. Li said hi.",
                "It costs 3.5 dollars!"
            ]
        );
        assert_eq!(sentences("真的吗？！好"), vec!["真的吗？！", "好"]);
    }

    #[test]
    fn language_by_share_of_ideographs() {
        assert_eq!(lang_of("我喜欢Python"), Lang::Zh);
        assert_eq!(lang_of("I love 火锅 so much"), Lang::En);
    }

    #[test]
    fn clauses_stop_at_punctuation_and_conjunctions() {
        assert_eq!(
            clause("hiking because it is calm", &["because"], &[]),
            "hiking"
        );
        assert_eq!(clause("游泳，因为凉快", &[], &[]), "游泳");
        assert_eq!(clause("a, b and c. Then", &[], &[',']), "a, b and c");
    }

    #[test]
    fn words_match_on_boundaries_only() {
        assert_eq!(find_word("i likely go", "like"), None);
        assert_eq!(find_word("i like it", "like"), Some(2));
        assert_eq!(find_word("我喜欢", "喜欢"), Some(3));
    }

    #[test]
    fn lists_split_on_both_languages_separators() {
        assert_eq!(list_items("游泳、画画和跑步"), vec!["游泳", "画画", "跑步"]);
        assert_eq!(
            list_items("hiking, chess and jazz"),
            vec!["hiking", "chess", "jazz"]
        );
        assert_eq!(tidy_item("the piano a lot"), "piano");
    }
}
