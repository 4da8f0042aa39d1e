//! The core tokenizer: one pipeline for indexing, querying and the built-in embedder.
//!
//! Text is NFKC-normalised (full-width letters, digits and punctuation fold to ASCII) and
//! lowercased, then split into runs:
//! - Latin (any alphabetic script without a CJK ideograph): words of letters, digits and inner
//!   apostrophes; English stopwords dropped; possessive `'s` removed; Porter2 stemming
//!   ("reading" → "read", "allergies" → "allergi");
//! - numbers: kept as they are ("2023", "4");
//! - CJK (Han, kana, Hangul): character unigrams (function characters dropped) and every adjacent
//!   bigram, so Chinese matches without a word segmenter ("过敏" matches as one token and as
//!   "过" + "敏").
#![deny(
    clippy::indexing_slicing,
    clippy::string_slice,
    clippy::arithmetic_side_effects
)]

use super::stopwords::{is_chinese_stop_bigram, is_chinese_stop_char, is_english_stopword};
use crate::nfkc::nfkc;
use rust_stemmers::{Algorithm, Stemmer};
use std::borrow::Cow;
use std::sync::OnceLock;

/// True for characters tokenized as CJK n-grams.
pub fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF      // hiragana, katakana
        | 0x3400..=0x4DBF    // CJK extension A
        | 0x4E00..=0x9FFF    // CJK unified ideographs
        | 0xAC00..=0xD7AF    // Hangul syllables
        | 0xF900..=0xFAFF    // compatibility ideographs
        | 0x20000..=0x2FA1F) // extensions B..F, compatibility supplement
}

fn stemmer() -> &'static Stemmer {
    static STEMMER: OnceLock<Stemmer> = OnceLock::new();
    STEMMER.get_or_init(|| Stemmer::create(Algorithm::English))
}

/// Words' terms remembered, at most this many (then forgotten all at once): a word is turned
/// into its term again each time a text is embedded, indexed or searched (a new memory's words
/// several times in one write). The Snowball stemmer cost ~3,000 instructions a word, ~8% of a
/// fill's, and the stopword check, a binary search of string comparisons, ~5% of a fill of
/// long turns once stems were remembered. 14,336 is the most a table of 16,384 buckets holds
/// (7/8): ~0.8 MB of table and two short strings per word, ~1.3 MB in all (at most ~2.4 MB:
/// words of [`TERM_MEMO_WORD_BYTES`] and their terms).
const TERM_MEMO: usize = 14_336;
/// Longer words are worked out each time, not remembered: a long token (a key, a URL, base64)
/// rarely comes again, and the memo's size must not depend on what a user pastes.
const TERM_MEMO_WORD_BYTES: usize = 48;

thread_local! {
    // String keys and values, as a plan's normalised texts (`engine::ingest`): one map type
    // in the wasm, not two. A stopword's value is empty (no term is).
    static TERMS: std::cell::RefCell<foldhash::HashMap<String, String>> =
        std::cell::RefCell::default();
}

/// NFKC + lowercase: the form every other step sees.
pub fn normalize(text: &str) -> String {
    let folded = nfkc(text);
    // One allocation, sized up front: collecting the lowercased characters grew the string
    // two or three times per text (every text is normalised when embedded, indexed and
    // searched). ASCII lowercases in place; CJK has no case, so most of a Chinese text
    // skips the case tables.
    if folded.is_ascii() {
        let mut out = folded.into_owned();
        out.make_ascii_lowercase();
        return out;
    }
    let mut out = String::with_capacity(folded.len());
    for c in folded.chars() {
        if c.is_ascii() {
            out.push(c.to_ascii_lowercase());
        } else if is_cjk(c) {
            out.push(c);
        } else {
            out.extend(c.to_lowercase());
        }
    }
    out
}

/// A run of the normalized text, as the tokenizer splits it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Segment<'a> {
    /// A Latin word or a number, lowercased, apostrophes kept.
    Word(&'a str),
    /// A maximal run of CJK characters.
    Cjk(&'a str),
}

/// Splits normalized text into words and CJK runs; everything else separates.
pub fn segments(normalized: &str) -> Vec<Segment<'_>> {
    let mut out = Vec::new();
    let mut start: Option<(usize, bool)> = None; // (byte offset, is_cjk)
    let bytes_len = normalized.len();
    let mut iter = normalized.char_indices().peekable();
    while let Some((i, c)) = iter.next() {
        let kind = if is_cjk(c) {
            Some(true)
        } else if c.is_alphanumeric() {
            Some(false)
        } else if is_apostrophe(c) && matches!(start, Some((_, false))) {
            // Inner apostrophe ("don't", "caroline's"): part of the word if a letter follows.
            let next_is_letter = iter
                .peek()
                .is_some_and(|&(_, n)| n.is_alphanumeric() && !is_cjk(n));
            next_is_letter.then_some(false)
        } else {
            None
        };
        match (start, kind) {
            (Some((_, cur)), Some(k)) if cur == k => {}
            (Some((s, cur)), k) => {
                out.push(segment(normalized.get(s..i).unwrap_or_default(), cur));
                start = k.map(|k| (i, k));
            }
            (None, k) => start = k.map(|k| (i, k)),
        }
    }
    if let Some((s, cur)) = start {
        out.push(segment(
            normalized.get(s..bytes_len).unwrap_or_default(),
            cur,
        ));
    }
    out
}

fn segment(text: &str, cjk: bool) -> Segment<'_> {
    if cjk {
        Segment::Cjk(text)
    } else {
        Segment::Word(text)
    }
}

fn is_apostrophe(c: char) -> bool {
    c == '\'' || c == '\u{2019}'
}

/// The index term of one Latin word, or `None` for a stopword.
pub fn word_term(word: &str) -> Option<String> {
    if word.len() > TERM_MEMO_WORD_BYTES {
        return term_of(word);
    }
    TERMS.with_borrow_mut(|memo| {
        if let Some(known) = memo.get(word) {
            return (!known.is_empty()).then(|| known.clone());
        }
        if memo.len() >= TERM_MEMO {
            memo.clear();
        }
        let term = term_of(word);
        // An empty stem would read back as a stopword: not remembered (none is known).
        if term.as_deref() != Some("") {
            memo.insert(word.to_string(), term.clone().unwrap_or_default());
        }
        term
    })
}

/// [`word_term`], worked out.
fn term_of(word: &str) -> Option<String> {
    let word: Cow<str> = if word.contains('\u{2019}') {
        Cow::Owned(word.replace('\u{2019}', "'"))
    } else {
        Cow::Borrowed(word)
    };
    if is_english_stopword(&word) {
        return None;
    }
    let base = word.strip_suffix("'s").unwrap_or(&word);
    let base: Cow<str> = if base.contains('\'') {
        Cow::Owned(base.replace('\'', ""))
    } else {
        Cow::Borrowed(base)
    };
    if base.is_empty() {
        return None;
    }
    if base.bytes().all(|b| b.is_ascii_digit()) {
        return Some(base.into_owned());
    }
    Some(stemmer().stem(&base).into_owned())
}

/// Appends the unigrams and bigrams of a CJK run, in reading order.
pub fn cjk_terms(run: &str, out: &mut Vec<String>) {
    cjk_term_slices(run, |term, _| out.push(term.to_string()));
}

/// The unigrams and bigrams of a CJK run, in reading order, as slices of it, each with
/// whether it is a unigram: function characters alone, pairs of them and stop bigrams are
/// left out.
pub fn cjk_term_slices(run: &str, mut term: impl FnMut(&str, bool)) {
    let mut chars = run.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let end = i.saturating_add(c.len_utf8());
        if !is_chinese_stop_char(c) {
            term(run.get(i..end).unwrap_or_default(), true);
        }
        if let Some(&(_, next)) = chars.peek() {
            let both_function_chars = is_chinese_stop_char(c) && is_chinese_stop_char(next);
            if !both_function_chars && !is_chinese_stop_bigram(c, next) {
                let pair_end = end.saturating_add(next.len_utf8());
                term(run.get(i..pair_end).unwrap_or_default(), false);
            }
        }
    }
}

/// All index terms of `text`, in order, with repeats.
pub fn tokenize(text: &str) -> Vec<String> {
    let normalized = normalize(text);
    let mut out = Vec::new();
    for seg in segments(&normalized) {
        match seg {
            Segment::Word(w) => out.extend(word_term(w)),
            Segment::Cjk(run) => cjk_terms(run, &mut out),
        }
    }
    out
}

/// Texts tokenized as a query that are about to be indexed as documents, at most this many
/// (then forgotten all at once).
const TO_INDEX_HELD: usize = 128;

thread_local! {
    /// [`tokenize_query_to_index`]'s texts and terms, until [`tokenize_to_index`] takes them.
    /// A list, not a map (a map of its own type is kilobytes of the package's wasm): a look-up
    /// compares lengths first, and there are a call's memories at most.
    static TO_INDEX: std::cell::RefCell<Vec<(String, Vec<String>)>> =
        std::cell::RefCell::default();
}

/// [`tokenize_query`] of a text that will be indexed as a document next (a new memory's
/// summary is its own conflict look-up's query, then a document of the lexical index when its
/// write commits): its terms are kept for [`tokenize_to_index`], so the text is tokenized once,
/// not twice (the second time was a tenth of a fill of long memories).
pub fn tokenize_query_to_index(text: &str) -> Vec<String> {
    let terms = tokenize(text);
    TO_INDEX.with_borrow_mut(|held| {
        if held.len() >= TO_INDEX_HELD {
            held.clear();
        }
        held.push((text.to_string(), terms.clone()));
    });
    first_occurrences(terms)
}

/// [`tokenize`] for a document: the terms [`tokenize_query_to_index`] kept for this text, or
/// tokenized now.
pub fn tokenize_to_index(text: &str) -> Vec<String> {
    let held = TO_INDEX.with_borrow_mut(|held| {
        let at = held.iter().position(|(held, _)| held == text)?;
        Some(held.swap_remove(at).1)
    });
    held.unwrap_or_else(|| tokenize(text))
}

/// The terms of a query: [`tokenize`], first occurrence of each kept.
pub fn tokenize_query(text: &str) -> Vec<String> {
    first_occurrences(tokenize(text))
}

fn first_occurrences(terms: Vec<String>) -> Vec<String> {
    // Which are first occurrences, found over borrowed terms (no copy of each term).
    let first: Vec<bool> = {
        let mut seen = foldhash::HashSet::with_capacity_and_hasher(terms.len(), Default::default());
        terms.iter().map(|t| seen.insert(t.as_str())).collect()
    };
    terms
        .into_iter()
        .zip(first)
        .filter_map(|(term, first)| first.then_some(term))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_text_queried_then_indexed_has_the_terms_of_tokenize() {
        let texts: Vec<String> = (0..TO_INDEX_HELD + 3)
            .map(|i| format!("Books, books and more books {i}: 我喜欢读书{i}"))
            .collect();
        for text in &texts {
            assert_eq!(tokenize_query_to_index(text), tokenize_query(text));
        }
        // Taken once (every occurrence kept, not the query's first ones), then tokenized anew;
        // the ones forgotten at the bound are tokenized anew too.
        for text in texts.iter().rev().chain(&texts) {
            assert_eq!(tokenize_to_index(text), tokenize(text));
        }
        assert!(TO_INDEX.with_borrow(|held| held.is_empty()));
        assert_eq!(
            tokenize_to_index("never queried"),
            tokenize("never queried")
        );
    }

    #[test]
    fn remembered_terms_are_the_worked_out_ones_past_the_memo_bound() {
        let suffixes = [
            "", "s", "ing", "ed", "ation", "ness", "ly", "ies", "ful", "'s",
        ];
        let stems = [
            "walk", "happi", "connect", "run", "nation", "hope", "argu", "gener",
        ];
        // Stopwords (an empty value in the memo) and numbers among the stemmed words.
        let other = ["the", "don\u{2019}t", "i'd", "42", "'s", "it's", "o'neil's"];
        let words: Vec<String> = (0..TERM_MEMO * 5 / 4 + 500)
            .map(|i| match i % 11 {
                10 => other[(i / 11) % other.len()].to_string(),
                _ => {
                    let (a, b) = (stems[i % stems.len()], suffixes[(i / 8) % suffixes.len()]);
                    // Letters spelling `i / 80` in base 26: distinct, short words.
                    let mut n = i / 80;
                    let mut middle = String::new();
                    while n > 0 {
                        middle.push(char::from(b'a' + (n % 26) as u8));
                        n /= 26;
                    }
                    format!("{a}{middle}{b}")
                }
            })
            .collect();
        assert!(words.iter().all(|w| w.len() <= TERM_MEMO_WORD_BYTES));
        assert_eq!(term_of("the"), None);
        assert_eq!(term_of("don\u{2019}t"), None);
        assert_eq!(term_of("walking"), Some("walk".to_string()));
        // Twice over: the second round reads the memo, which was cleared once in between.
        TERMS.with_borrow_mut(|memo| memo.clear());
        let mut cleared = false;
        for _ in 0..2 {
            for word in &words {
                let held = TERMS.with_borrow(|memo| memo.len());
                assert_eq!(word_term(word), term_of(word), "{word}");
                cleared |= TERMS.with_borrow(|memo| memo.len()) < held;
            }
        }
        assert!(cleared, "the memo never reached its bound");
        assert!(TERMS.with_borrow(|memo| memo.len()) <= TERM_MEMO);
        // A long word is worked out, not remembered.
        let long = "x".repeat(TERM_MEMO_WORD_BYTES) + "ing";
        TERMS.with_borrow_mut(|memo| memo.clear());
        assert_eq!(word_term(&long), term_of(&long));
        assert!(TERMS.with_borrow(|memo| memo.is_empty()));
    }

    #[test]
    fn normalize_lowercases_each_character_of_the_nfkc_text() {
        // Characters whose lowercase is longer or context-free where `str::to_lowercase`
        // would not be (final sigma), full-width forms, and both paths (ASCII, other).
        let texts = [
            "",
            "Plain ASCII, Mixed CASE 42!",
            "İstanbul ΣΟΦΙΑ ὈΔΥΣΣΕΎΣ",
            "ＡＢＣ１２３ Ｈｅｌｌｏ",
            "用户喜欢 Green Tea，ＯＫ？",
            "Straße ǅemal Ⅻ ﬁ",
            "ＡＢＣ用户ｘ한국어カタカナ𠀀Ａ",
        ];
        // Every character normalize passes through as CJK has no case.
        for c in ('\0'..=char::MAX).filter(|&c| is_cjk(c)) {
            assert!(c.to_lowercase().eq([c]), "{c}");
        }
        for text in texts {
            let reference: String = nfkc(text).chars().flat_map(char::to_lowercase).collect();
            assert_eq!(normalize(text), reference, "{text}");
        }
    }

    #[test]
    fn english_words_are_lowercased_stemmed_and_stopped() {
        assert_eq!(
            tokenize("What do I like to READ? Reading books!"),
            ["like", "read", "read", "book"]
        );
        assert_eq!(tokenize("Caroline's allergies"), ["carolin", "allergi"]);
        assert_eq!(
            tokenize("I'm sure it's fine, don't worry"),
            ["sure", "fine", "worri"]
        );
    }

    #[test]
    fn numbers_are_kept() {
        assert_eq!(
            tokenize("Born in 1990, room 42b"),
            ["born", "1990", "room", "42b"]
        );
    }

    #[test]
    fn chinese_is_unigrams_and_bigrams_without_function_characters() {
        assert_eq!(
            tokenize("我对花生过敏"),
            ["我对", "对", "对花", "花", "花生", "生", "生过", "过敏", "敏"]
        );
        // 过 (a particle) and 的 are dropped as unigrams; the bigrams around it stay.
        let terms = tokenize("我的猫");
        assert!(!terms.contains(&"的".to_string()));
        assert!(terms.contains(&"猫".to_string()));
        assert!(terms.contains(&"的猫".to_string()));
    }

    #[test]
    fn mixed_scripts_and_full_width_forms() {
        let terms = tokenize("我喜欢Ｐｙｔｈｏｎ３和Rust");
        assert!(terms.contains(&"python3".to_string()));
        assert!(terms.contains(&"rust".to_string()));
        assert!(terms.contains(&"喜欢".to_string()));
        // Full-width digits fold to ASCII.
        assert_eq!(tokenize("２０２６年"), ["2026", "年"]);
    }

    #[test]
    fn query_terms_are_deduplicated_in_order() {
        assert_eq!(tokenize_query("books, books and more BOOKS"), ["book"]);
        assert_eq!(tokenize_query("喜欢喜欢"), ["喜", "喜欢", "欢", "欢喜"]);
    }

    #[test]
    fn curly_apostrophes_behave_like_straight_ones() {
        assert_eq!(
            tokenize("Caroline\u{2019}s dog"),
            tokenize("Caroline's dog")
        );
        assert!(tokenize("don\u{2019}t").is_empty());
    }

    #[test]
    fn empty_and_punctuation_only_text_has_no_terms() {
        assert!(tokenize("").is_empty());
        assert!(tokenize("?!。，…  ").is_empty());
    }
}
