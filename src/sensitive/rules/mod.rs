//! The detector's rules, one file per kind:
//! - **keyword + value** (`values.rs`): a trigger ("password", "密码", "身份证号", "my address")
//!   followed in the same clause by a value of the right shape (a secret-looking token, enough
//!   digits, an amount, a house number). Without the value it is talk *about* the thing, not a
//!   disclosure;
//! - **numbers that identify** (`numbers.rs`): an 18-digit 身份证号 with a valid check digit and
//!   birth date, an SSN, a Luhn-valid card number, a Chinese mobile number, an international
//!   phone number;
//! - **tokens** (`tokens.rs`): API keys and tokens by their well-known prefixes, private key
//!   blocks, e-mail;
//! - **terms** (`terms.rs`, and the lists in `../lexicon.rs`): diagnoses, medications, sexual
//!   health, orientation. Chinese terms are specific enough alone; ambiguous English ones
//!   ("depression", "cancer", "gay") need a person and a disclosure in the same sentence ("my
//!   mom has cancer", "I'm gay"), so that topics ("the Great Depression", "a cancer charity
//!   run") stay ordinary;
//! - **places** (`places.rs`): street addresses and map coordinates, found from a text's digits.
//!
//! This file scans a text once ([`all`]) and says what each matched word means
//! ([`pattern_finding`]). Byte offsets index the original text; `lower` is its ASCII lowercase
//! (same offsets).

mod numbers;
mod places;
mod terms;
#[cfg(test)]
mod tests;
mod tokens;
mod values;

use super::lexicon::*;
use super::{Category, Finding};
use crate::text::{is_cjk, word_positions};
use numbers::*;
#[cfg(test)]
pub(super) use numbers::{is_resident_id, luhn};
use places::*;
use std::ops::Range;
use terms::*;
use tokens::*;
use values::*;

pub(super) fn key_category(key: &str) -> Option<Category> {
    matchers()
        .keys
        .find_all(&key.to_ascii_lowercase())
        .into_iter()
        .find_map(|(_, _, tag)| match tag {
            Tag::Strong(category) => Some(category),
            _ => None,
        })
}

/// The text with its ASCII lowercase form (same byte offsets) and its digit runs.
struct Scan<'a> {
    raw: &'a str,
    lower: String,
    runs: Vec<Run>,
}

/// A maximal run of ASCII digits, with single spaces or dashes between groups.
#[derive(Debug)]
struct Run {
    span: Range<usize>,
    /// The digits alone (a final `X` of a 身份证号 included).
    digits: String,
    /// A Latin letter or digit touches the run, or a `.` (a decimal, a version).
    glued: bool,
    /// `+` right before the run (an international phone number).
    plus: bool,
}

impl<'a> Scan<'a> {
    fn new(raw: &'a str) -> Self {
        Scan {
            raw,
            lower: raw.to_ascii_lowercase(),
            runs: digit_runs(raw),
        }
    }

    fn char_at(&self, i: usize) -> Option<char> {
        self.raw.get(i..)?.chars().next()
    }

    fn char_before(&self, i: usize) -> Option<char> {
        self.raw.get(..i)?.chars().next_back()
    }
}

fn digit_runs(raw: &str) -> Vec<Run> {
    let bytes = raw.as_bytes();
    let mut runs = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if !bytes[i].is_ascii_digit() {
            i += 1;
            continue;
        }
        let start = i;
        let mut digits = String::new();
        let mut end = i;
        while end < bytes.len() {
            if bytes[end].is_ascii_digit() {
                digits.push(bytes[end] as char);
                end += 1;
            } else if matches!(bytes[end], b' ' | b'-')
                && bytes.get(end + 1).is_some_and(u8::is_ascii_digit)
                && end > start
                && bytes[end - 1].is_ascii_digit()
            {
                end += 1;
            } else {
                break;
            }
        }
        if digits.len() == 17 && matches!(bytes.get(end), Some(b'X' | b'x')) {
            digits.push('X');
            end += 1;
        }
        let before = start.checked_sub(1).and_then(|j| bytes.get(j));
        let after = bytes.get(end);
        // A full stop after the run ends a sentence; a dot before a digit makes a decimal.
        let decimal_after =
            after == Some(&b'.') && bytes.get(end + 1).is_some_and(u8::is_ascii_digit);
        runs.push(Run {
            span: start..end,
            digits,
            glued: before.is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'.')
                || after.is_some_and(u8::is_ascii_alphanumeric)
                || decimal_after,
            plus: before == Some(&b'+'),
        });
        i = end;
    }
    runs
}

pub(super) fn all(text: &str) -> Vec<Finding> {
    let s = Scan::new(text);
    let mut out = Vec::new();
    for (at, word, tag) in matchers().text.find_all(&s.lower) {
        if let Some(finding) = pattern_finding(&s, at, word, tag) {
            out.push(finding);
        }
    }
    tokens(&s, &mut out);
    if !s.runs.is_empty() {
        identifying_numbers(&s, &mut out);
        street_addresses(&s, &mut out);
        coordinates(&s, &mut out);
    }
    out
}

/// Punctuation that ends a clause before an amount.
const CLAUSE_ENDS: &[char] = &['，', '。', ',', '；', ';', '！', '？', '!', '?', '\n'];
/// Spaces and colons between a trigger and its value.
const SPACING: &[char] = &[' ', '\t', ':', '：'];
/// What may follow 是 / 改成 before the value: "密码改成了…", "密码就是…".
const AFTER_ZH_CONNECTOR: &[char] = &[' ', '了', '就', '都', '：', ':'];

/// Where the clause holding byte `from` ends: at sentence or clause punctuation (a `.` only
/// before a space or the end, so "3.5" and "p@ss.w0rd" stay whole).
fn clause_end(raw: &str, from: usize) -> usize {
    let rest = raw.get(from..).unwrap_or("");
    let mut chars = rest.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let next = chars.peek().map(|(_, c)| *c);
        let ends = match c {
            '，' | '。' | '；' | '！' | '？' | '!' | '?' | ';' | '\n' | ',' => true,
            '.' => next.is_none_or(char::is_whitespace),
            _ => false,
        };
        if ends {
            return from + i;
        }
    }
    raw.len()
}

/// The sentence around byte `at`.
fn sentence_around(raw: &str, at: usize) -> Range<usize> {
    let is_end = |c: char| matches!(c, '.' | '!' | '?' | '。' | '！' | '？' | '\n' | ';' | '；');
    let start = raw[..at]
        .char_indices()
        .rev()
        .find(|(_, c)| is_end(*c))
        .map_or(0, |(i, c)| i + c.len_utf8());
    let end = raw[at..]
        .char_indices()
        .find(|(_, c)| is_end(*c))
        .map_or(raw.len(), |(i, _)| at + i);
    start..end
}

fn floor_char_boundary(s: &str, mut i: usize) -> usize {
    i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// What a matched pattern means here: a finding, or nothing (a trigger without its value, a
/// term outside the context it needs).
fn pattern_finding(s: &Scan, at: usize, word: &str, tag: Tag) -> Option<Finding> {
    let end = at + word.len();
    let term = |category| {
        Some(Finding {
            category,
            span: at..end,
            value: None,
        })
    };
    match tag {
        Tag::Keyword(i) => {
            let rule = &KEYWORD_RULES[i];
            let value = value_after(s, at, end, rule.want)?;
            Some(Finding {
                category: rule.category,
                span: at.min(value.start)..end.max(value.end),
                value: Some(value),
            })
        }
        Tag::Strong(category @ (Category::Health | Category::Sexuality)) => {
            about_someone(s, &(at..end)).then(|| term(category))?
        }
        Tag::Strong(category) => term(category),
        Tag::PersonalHealth => {
            let compound = s.raw[end..].starts_with('-');
            let other = word == "therapist" && !a_mental_health_therapist(s, at);
            (!compound && !other && health_disclosure(s, &(at..end)))
                .then(|| term(Category::Health))?
        }
        Tag::Orientation => {
            let compound = s.raw[end..].starts_with('-');
            let led = preceding_words(&s.lower, at, 3)
                .iter()
                .any(|w| in_list(ORIENTATION_LEADS, w));
            (led && !compound).then(|| term(Category::Sexuality))?
        }
        Tag::ZhOrientationShort => {
            let classmate = s
                .char_at(end)
                .is_some_and(|c| ZH_ORIENTATION_NOT_AFTER.contains(&c));
            (!classmate).then(|| term(Category::Sexuality))?
        }
        Tag::Miscarriage => {
            let before = &s.raw[floor_char_boundary(s.raw, at.saturating_sub(6))..at];
            let of_a_plan = ZH_PLANS.split('|').any(|p| before.ends_with(p));
            (!of_a_plan).then(|| term(Category::Health))?
        }
        Tag::StrongCased => (in_list(STRONG_CASED_TERMS, &s.raw[at..end])
            && about_someone(s, &(at..end)))
        .then(|| term(Category::Health))?,
        Tag::PersonalHealthCased => (in_list(PERSONAL_HEALTH_CASED, &s.raw[at..end])
            && health_disclosure(s, &(at..end)))
        .then(|| term(Category::Health))?,
    }
}

/// ASCII tokens (no whitespace, no CJK, no quotes or brackets) starting in `from..limit`.
fn ascii_tokens(raw: &str, from: usize, limit: usize) -> impl Iterator<Item = Range<usize>> + '_ {
    // A `match`, not a slice's `contains`: this runs for every byte of every new memory.
    let is_part = |b: u8| {
        b.is_ascii_graphic()
            && !matches!(
                b,
                b'"' | b'\''
                    | b'<'
                    | b'>'
                    | b'('
                    | b')'
                    | b'['
                    | b']'
                    | b'{'
                    | b'}'
                    | b','
                    | b';'
                    | b'`'
                    | b'.'
            )
    };
    let bytes = raw.as_bytes();
    let mut i = from;
    std::iter::from_fn(move || {
        while i < limit {
            if is_part(bytes[i]) {
                let start = i;
                while i < bytes.len() && is_part(bytes[i]) {
                    i += 1;
                }
                return Some(start..i);
            }
            i += 1;
        }
        None
    })
}

/// Up to `n` words right before byte `at`, nearest first, within the sentence.
fn preceding_words(lower: &str, at: usize, n: usize) -> Vec<&str> {
    let sentence_start = sentence_around(lower, at).start;
    lower[sentence_start..at]
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '\'' || c == '’'))
        .filter(|w| !w.is_empty())
        .rev()
        .take(n)
        .collect()
}

/// A byte of a word for [`street_addresses`]: an ASCII letter or digit, or an apostrophe.
fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'\''
}

/// Where the word going on at byte `from` ends.
fn word_end(bytes: &[u8], from: usize) -> usize {
    let rest = &bytes[from..];
    from + rest
        .iter()
        .position(|b| !is_word_byte(*b))
        .unwrap_or(rest.len())
}

/// The first word starting at or after byte `from`.
fn next_word(bytes: &[u8], from: usize) -> Option<Range<usize>> {
    let start = from + bytes[from..].iter().position(|b| is_word_byte(*b))?;
    Some(start..word_end(bytes, start))
}
