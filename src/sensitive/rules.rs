//! The detector's rules. Four kinds:
//! - **keyword + value**: a trigger ("password", "密码", "身份证号", "my address") followed in
//!   the same clause by a value of the right shape (a secret-looking token, enough digits, an
//!   amount, a house number). Without the value it is talk *about* the thing, not a disclosure;
//! - **numbers that identify**: an 18-digit 身份证号 with a valid check digit and birth date,
//!   an SSN, a Luhn-valid card number, a Chinese mobile number, an international phone number;
//! - **tokens**: API keys and tokens by their well-known prefixes, private key blocks, e-mail;
//! - **terms**: diagnoses, medications, sexual health, orientation. Chinese terms are specific
//!   enough alone; ambiguous English ones ("depression", "cancer", "gay") need a person and a
//!   disclosure in the same sentence ("my mom has cancer", "I'm gay"), so that topics ("the
//!   Great Depression", "a cancer charity run") stay ordinary.
//!
//! Byte offsets index the original text; `lower` is its ASCII lowercase (same offsets).

use super::lexicon::*;
use super::{Category, Finding};
use crate::text::{is_cjk, word_positions};
use std::ops::Range;

/// How far after a trigger (bytes) its value may start.
const VALUE_WINDOW: usize = 60;
/// How far before a trigger (bytes) an amount may stand ("a $20k loan").
const AMOUNT_BEFORE: usize = 30;

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

fn value_after(s: &Scan, at: usize, end: usize, want: Want) -> Option<Range<usize>> {
    let limit = clause_end(s.raw, end).min(floor_char_boundary(s.raw, end + VALUE_WINDOW));
    match want {
        Want::SecretEn => secret_en(s, end, limit),
        Want::SecretEnStrict => secret_en(s, end, limit).filter(|v| {
            s.raw[v.clone()]
                .chars()
                .any(|c| c.is_ascii_digit() || (c.is_ascii_punctuation() && c != '\''))
        }),
        Want::SecretZh => secret_zh(s, end, limit),
        Want::Digits(n) | Want::ToldDigits(n) => s
            .runs
            .iter()
            .find(|r| r.span.start >= end && r.span.start < limit && r.digits.len() >= n)
            .map(|r| r.span.clone())
            .or_else(|| numeral_run(s.raw, end, limit, n.max(5)))
            .filter(|v| !matches!(want, Want::ToldDigits(_)) || a_secret_code(s, at..end, v)),
        Want::IdToken => ascii_tokens(s.raw, end, limit)
            .find(|t| {
                let token = &s.raw[t.clone()];
                token.len() >= 6
                    && token.bytes().any(|b| b.is_ascii_digit())
                    && token
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b == b'-')
            })
            .or_else(|| {
                s.runs
                    .iter()
                    .find(|r| r.span.start >= end && r.span.start < limit && r.digits.len() >= 6)
                    .map(|r| r.span.clone())
            }),
        Want::Amount => {
            let from = floor_char_boundary(s.raw, at.saturating_sub(AMOUNT_BEFORE));
            let from = s.raw[from..at]
                .rfind(CLAUSE_ENDS)
                .map_or(from, |i| from + i + 1);
            amount(s, from, limit)
        }
        Want::Place => place(s, end, limit),
        Want::Handle | Want::SocialHandle => ascii_tokens(s.raw, end, limit).find(|t| {
            is_handle(
                &s.raw.as_bytes()[t.clone()],
                matches!(want, Want::SocialHandle),
            )
        }),
    }
}

/// [`Want::Handle`] (`social` false) or [`Want::SocialHandle`] of one token: a markdown `\\_`
/// counts as `_`, and a profile's link ("twitter.com/name", "t.me/name"; `.` ends a token) is a
/// social handle.
fn is_handle(token: &[u8], social: bool) -> bool {
    let marked = |b: &u8| b.is_ascii_digit() || *b == b'_' || (social && *b == b'#');
    if !social {
        return (token.first() == Some(&b'@') && token.len() >= 3)
            || (token.len() >= 5 && token.iter().any(marked));
    }
    let name = |n: &[u8]| {
        n.iter()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'#' | b'\\'))
    };
    match token {
        [b'c', b'o', b'm', b'/', rest @ ..] | [b'm', b'e', b'/', rest @ ..] => {
            rest.len() >= 2 && name(rest)
        }
        [b'@', rest @ ..] => rest.len() >= 2,
        [first, ..] => {
            first.is_ascii_alphabetic()
                && token.len() >= 5
                && name(token)
                && token.iter().any(marked)
        }
        [] => false,
    }
}

/// A run of at least `min` Chinese digits (一三八…) in `from..limit`: a number said in words.
fn numeral_run(raw: &str, from: usize, limit: usize, min: usize) -> Option<Range<usize>> {
    const DIGITS: &str = "零〇一二三四五六七八九幺";
    let window = raw.get(from..limit)?;
    let mut start: Option<usize> = None;
    let mut count = 0;
    for (i, c) in window.char_indices().chain([(window.len(), ' ')]) {
        if DIGITS.contains(c) {
            start.get_or_insert(i);
            count += 1;
        } else if let Some(st) = start.take() {
            if count >= min {
                return Some(from + st..from + i);
            }
            count = 0;
        }
    }
    None
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

/// "password is X": the connector within the clause, then a token that names a secret.
fn secret_en(s: &Scan, end: usize, limit: usize) -> Option<Range<usize>> {
    let window = s.lower.get(end..limit)?;
    let connectors = [
        " is ",
        " was ",
        " are ",
        " will be ",
        "'s ",
        "’s ",
        ":",
        "=",
        " - ",
    ];
    let (pos, len) = connectors
        .iter()
        .filter_map(|c| window.find(c).map(|p| (p, c.len())))
        .min()?;
    let mut i = end + pos + len;
    loop {
        i += s.raw[i..].len() - s.raw[i..].trim_start_matches(SPACING).len();
        let word_end = s.raw[i..]
            .find(char::is_whitespace)
            .map_or(s.raw.len(), |j| i + j);
        let word = s.lower[i..word_end].trim_end_matches(|c: char| c.is_ascii_punctuation());
        if in_list(FILLER_WORDS, word) {
            i = word_end;
            continue;
        }
        break;
    }
    let value = quoted_or_token(s.raw, i)?;
    let text = &s.lower[value.clone()];
    let plain = text.trim_matches(|c: char| !c.is_alphanumeric());
    let ordinary_word = plain.bytes().all(|b| b.is_ascii_alphabetic())
        && ["ed", "ing", "ly"].iter().any(|end| plain.ends_with(end));
    if plain.chars().count() < 3
        || ordinary_word
        || in_list(NOT_A_SECRET, plain)
        || s.raw[value.end..].starts_with('?')
    {
        return None;
    }
    Some(value)
}

const OPEN_QUOTES: &[(char, char)] = &[
    ('"', '"'),
    ('\'', '\''),
    ('“', '”'),
    ('‘', '’'),
    ('「', '」'),
    ('『', '』'),
    ('`', '`'),
];

/// A quoted value at `i`, or the token there (up to whitespace, CJK or clause punctuation).
fn quoted_or_token(raw: &str, i: usize) -> Option<Range<usize>> {
    let first = raw.get(i..)?.chars().next()?;
    if let Some((_, close)) = OPEN_QUOTES.iter().find(|(open, _)| *open == first) {
        let start = i + first.len_utf8();
        let len = raw[start..].find(*close)?;
        return (len > 0).then_some(start..start + len);
    }
    let mut end = i;
    for c in raw[i..].chars() {
        if c.is_whitespace() || is_cjk(c) || "，。；！？、）】》".contains(c) {
            break;
        }
        end += c.len_utf8();
    }
    let token = raw[i..end].trim_end_matches(|c: char| ".,;:!?)]}\"'”’".contains(c));
    (!token.is_empty()).then_some(i..i + token.len())
}

/// "密码是X": after 密码 (not 密码箱 …), up to three filler characters, a connector, then a
/// value with Latin letters or digits, or three Chinese numerals, or a quoted value.
fn secret_zh(s: &Scan, end: usize, limit: usize) -> Option<Range<usize>> {
    if s.char_at(end)
        .is_some_and(|c| NOT_A_PASSWORD_AFTER.contains(&c))
    {
        return None;
    }
    let mut i = end;
    let mut filler = 0;
    let bare = s.raw[end..limit].trim_start_matches(SPACING);
    if bare.len() < s.raw[end..limit].len() && bare.starts_with(|c: char| c.is_ascii_alphanumeric())
    {
        // "开机密码 1qaz2wsx": a value right after the word, without 是.
        i = limit - bare.len();
        return zh_value(s, i);
    }
    let after_connector = loop {
        let rest = s.raw.get(i..limit)?;
        if let Some(c) = ZH_CONNECTORS.split('|').find(|c| rest.starts_with(c)) {
            break i + c.len();
        }
        let c = rest.chars().next()?;
        if c == ' ' || (is_cjk(c) && filler < 3 && !"吗呢么".contains(c)) {
            filler += usize::from(c != ' ');
            i += c.len_utf8();
        } else {
            return None;
        }
    };
    let rest = &s.raw[after_connector..];
    let skipped = rest.len() - rest.trim_start_matches(AFTER_ZH_CONNECTOR).len();
    zh_value(s, after_connector + skipped)
}

/// The value of "密码是…" at `i`.
fn zh_value(s: &Scan, i: usize) -> Option<Range<usize>> {
    let rest = &s.raw[i..];
    if ["什么", "多少", "啥", "吗"]
        .iter()
        .any(|q| rest.starts_with(q))
    {
        return None;
    }
    if let Some(first) = rest.chars().next() {
        if OPEN_QUOTES.iter().any(|(open, _)| *open == first) {
            return quoted_or_token(s.raw, i);
        }
    }
    let mut end = i;
    let (mut latin, mut numerals) = (0, 0);
    for c in rest.chars() {
        if c.is_ascii_alphanumeric() || (c.is_ascii_punctuation() && !",;!?".contains(c)) {
            latin += usize::from(c.is_ascii_alphanumeric());
        } else if ZH_NUMERALS.contains(c) || c == '个' {
            numerals += 1;
        } else {
            break;
        }
        end += c.len_utf8();
    }
    let value = s.raw[i..end].trim_end_matches(|c: char| c.is_ascii_punctuation());
    let ok = (latin >= 3 && latin == value.chars().filter(char::is_ascii_alphanumeric).count())
        || (latin == 0 && numerals >= 3);
    (ok && !value.is_empty()).then_some(i..i + value.len())
}

/// A sum of money in `from..limit`: a currency sign and digits, digits and a unit, or (in
/// Chinese) three or more digits, or numerals with 万 / 千 / 元 / 块.
fn amount(s: &Scan, from: usize, limit: usize) -> Option<Range<usize>> {
    const UNITS: &[&str] = &[
        "k", "m", "grand", "dollars", "dollar", "bucks", "usd", "eur", "euros", "euro", "pounds",
        "gbp", "yuan", "rmb", "cny", "万", "千", "元", "块", "w", "美元", "刀",
    ];
    for r in s
        .runs
        .iter()
        .filter(|r| r.span.start >= from && r.span.start < limit)
    {
        let before = s.char_before(r.span.start);
        if before.is_some_and(|c| "$€£¥￥".contains(c)) {
            return Some(r.span.start - before.map_or(0, char::len_utf8)..r.span.end);
        }
        let after = s.lower[r.span.end..].trim_start_matches(' ');
        let unit = UNITS.iter().find(|u| {
            after.starts_with(*u)
                && !after[u.len()..].starts_with(|c: char| c.is_ascii_alphabetic())
        });
        if let Some(u) = unit {
            let end = s.raw.len() - after.len() + u.len();
            return Some(r.span.start..end);
        }
        let chinese_context = s.raw[from..limit].chars().any(is_cjk);
        if chinese_context && r.digits.len() >= 3 && !r.glued {
            return Some(r.span.clone());
        }
    }
    // Chinese numerals with a unit: 五万, 两千块, 六千.
    let window = s.raw.get(from..limit)?;
    let mut start = None;
    let mut last = ' ';
    for (i, c) in window.char_indices().chain([(window.len(), ' ')]) {
        if ZH_NUMERALS.contains(c) {
            start.get_or_insert(i);
        } else if let Some(st) = start.take() {
            if "万千元块".contains(c) {
                return Some(from + st..from + i + c.len_utf8());
            }
            if "千百".contains(last) && window[st..i].chars().count() >= 2 {
                return Some(from + st..from + i);
            }
        }
        last = c;
    }
    None
}

/// A house number in `from..limit`: any digit in English ("I live at 12 …"); in Chinese,
/// digits followed by 号, 栋, 幢, 单元, 弄 or 室 (not 2室1厅, a flat's layout).
fn place(s: &Scan, from: usize, limit: usize) -> Option<Range<usize>> {
    let chinese = s.raw[from..limit].chars().any(is_cjk);
    s.runs
        .iter()
        .filter(|r| r.span.start >= from && r.span.start < limit)
        .find_map(|r| {
            if !chinese {
                return Some(r.span.clone());
            }
            zh_house_number(s, r).map(|(span, _)| span)
        })
}

/// A house number right after digits: the span with its marker, and the marker.
fn zh_house_number(s: &Scan, r: &Run) -> Option<(Range<usize>, &'static str)> {
    let after = &s.raw[r.span.end..];
    let marker = ["号楼", "号", "栋", "幢", "单元", "弄", "室"]
        .into_iter()
        .find(|m| after.starts_with(m))?;
    let rest = &after[marker.len()..];
    if marker == "室" && (rest.starts_with('厅') || r.digits.len() < 3) {
        return None;
    }
    Some((r.span.start..r.span.end + marker.len(), marker))
}

fn identifying_numbers(s: &Scan, out: &mut Vec<Finding>) {
    for r in s.runs.iter().filter(|r| !r.glued) {
        let text = &s.raw[r.span.clone()];
        let digits = r.digits.as_bytes();
        let resident_id = digits.len() == 18 && is_resident_id(&r.digits);
        let card = (13..=19).contains(&digits.len())
            && matches!(digits[0], b'2'..=b'6')
            && luhn(&r.digits)
            && !digits.iter().all(|b| *b == digits[0]);
        // A Chinese mobile number: 1, then 3–9, then nine digits.
        let mobile = digits.len() == 11 && digits[0] == b'1' && matches!(digits[1], b'3'..=b'9');
        let category = if resident_id || is_ssn(text) {
            Some(Category::GovernmentId)
        } else if card {
            Some(Category::Finance)
        } else if mobile || (r.plus && digits.len() >= 8) {
            Some(Category::Contact)
        } else {
            None
        };
        if let Some(category) = category {
            let start = r.span.start - usize::from(r.plus);
            out.push(Finding {
                category,
                span: start..r.span.end,
                value: Some(r.span.clone()),
            });
        }
        // A Chinese house number on its own: 建国路88号, 3单元, 5号楼, 1502室.
        if let Some((house, marker)) = zh_house_number(s, r) {
            let on_a_street = s
                .char_before(r.span.start)
                .is_some_and(|c| ZH_STREET_CHARS.contains(&c));
            let standalone = match marker {
                "号" | "弄" => on_a_street,
                "栋" | "幢" => false,
                _ => true,
            };
            if standalone {
                let start = if on_a_street {
                    r.span.start - s.char_before(r.span.start).map_or(0, char::len_utf8)
                } else {
                    r.span.start
                };
                out.push(Finding {
                    category: Category::PreciseLocation,
                    span: start..house.end,
                    value: Some(house),
                });
            }
        }
    }
}

/// A 18-character 身份证号: a birth date in place and the ISO 7064 MOD 11-2 check character.
pub(super) fn is_resident_id(id: &str) -> bool {
    const WEIGHTS: [u32; 17] = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2];
    const CHECK: &[u8; 11] = b"10X98765432";
    let bytes = id.as_bytes();
    if bytes.len() != 18 || !bytes[..17].iter().all(u8::is_ascii_digit) {
        return false;
    }
    let sum: u32 = bytes[..17]
        .iter()
        .zip(WEIGHTS)
        .map(|(b, w)| u32::from(b - b'0') * w)
        .sum();
    let number = |r: Range<usize>| id[r].parse::<u32>().unwrap_or(0);
    let (year, month, day) = (number(6..10), number(10..12), number(12..14));
    CHECK[(sum % 11) as usize] == bytes[17].to_ascii_uppercase()
        && (1900..=2099).contains(&year)
        && (1..=12).contains(&month)
        && (1..=31).contains(&day)
}

/// `AAA-GG-SSSS` with a possible area (not 000, 666 or 9xx), group and serial.
fn is_ssn(text: &str) -> bool {
    let parts: Vec<&str> = text.split('-').collect();
    matches!(parts.as_slice(), [a, g, s] if a.len() == 3 && g.len() == 2 && s.len() == 4
        && *a != "000" && *a != "666" && !a.starts_with('9') && *g != "00" && *s != "0000")
}

pub(super) fn luhn(digits: &str) -> bool {
    let mut sum = 0;
    for (i, b) in digits.bytes().rev().enumerate() {
        if !b.is_ascii_digit() {
            return false;
        }
        let mut d = u32::from(b - b'0');
        if i % 2 == 1 {
            d *= 2;
            if d > 9 {
                d -= 9;
            }
        }
        sum += d;
    }
    sum % 10 == 0
}

/// API keys by prefix, private key blocks, e-mail addresses.
fn tokens(s: &Scan, out: &mut Vec<Finding>) {
    if let Some(at) = s.raw.find("-----BEGIN") {
        if s.raw[at..].contains("PRIVATE KEY") {
            let end = s.raw[at..].find("-----END").map_or(s.raw.len(), |e| at + e);
            out.push(Finding {
                category: Category::Credentials,
                span: at..end,
                value: Some(at..end),
            });
        }
    }
    // The shortest key is a prefix and ten more characters.
    for t in ascii_tokens(s.raw, 0, s.raw.len()).filter(|t| t.len() >= 14) {
        let token = &s.raw[t.clone()];
        let key = TOKEN_PREFIXES.iter().any(|(prefix, rest)| {
            token.starts_with(prefix)
                && token[prefix.len()..]
                    .bytes()
                    .filter(|b| b.is_ascii_alphanumeric() || *b == b'_' || *b == b'-')
                    .count()
                    >= *rest
        });
        if key {
            out.push(Finding {
                category: Category::Credentials,
                span: t.clone(),
                value: Some(t),
            });
        }
    }
    for (at, _) in s.raw.match_indices('@') {
        if let Some(email) = email_around(s.raw, at) {
            out.push(Finding {
                category: Category::Contact,
                span: email.clone(),
                value: Some(email),
            });
        }
    }
}

fn email_around(raw: &str, at: usize) -> Option<Range<usize>> {
    let local = |b: u8| b.is_ascii_alphanumeric() || b"._%+-".contains(&b);
    let domain = |b: u8| b.is_ascii_alphanumeric() || b".-".contains(&b);
    let bytes = raw.as_bytes();
    let mut start = at;
    while start > 0 && local(bytes[start - 1]) {
        start -= 1;
    }
    let mut end = at + 1;
    while end < bytes.len() && domain(bytes[end]) {
        end += 1;
    }
    let host = raw[at + 1..end].trim_end_matches('.');
    let end = at + 1 + host.len();
    let tld = host.rsplit('.').next().unwrap_or("");
    (start < at
        && host.contains('.')
        && tld.len() >= 2
        && tld.bytes().all(|b| b.is_ascii_alphabetic()))
    .then_some(start..end)
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

/// Whether a bare "code" and the digits found after it are a secret: said with a connector
/// right before the digits ("the code is 0412", "the code for my phone is 0412", "code:
/// 4821"), not a kind of code that is public ("zip code is 98101", "status code 200", "hex
/// code of #545B70", "goods code: 8700000000"), nor a name in source text (`status_code ==
/// 200`, `"code": 200`). On LongMemEval_S turns every bare "code" the detector flagged was one
/// of those, a product's name ("WASD Code 104") or a year after a title.
fn a_secret_code(s: &Scan, code: Range<usize>, value: &Range<usize>) -> bool {
    let bytes = s.raw.as_bytes();
    let glued = |b: Option<&u8>| b.is_some_and(|b| matches!(b, b'_' | b'.' | b'"' | b'\'' | b'`'));
    if glued(code.start.checked_sub(1).and_then(|i| bytes.get(i))) || glued(bytes.get(code.end)) {
        return false;
    }
    if preceding_words(&s.lower, code.start, 1)
        .first()
        .is_some_and(|w| in_list(PUBLIC_CODE_KINDS, w))
    {
        return false;
    }
    // What is between, less the spaces and quotes (any non-ASCII byte: “0412”) before the value.
    let mut between = &s.lower.as_bytes()[code.end..value.start.max(code.end)];
    while let [rest @ .., last] = between {
        match last.is_ascii_whitespace() || matches!(last, b'"' | b'\'') || !last.is_ascii() {
            true => between = rest,
            false => break,
        }
    }
    [&b" is"[..], b" was", b":"]
        .iter()
        .any(|c| between.ends_with(c))
        || (between.ends_with(b"=") && !between.ends_with(b"=="))
}

/// Whether the sentence of an English health or sexuality term is about someone: a person word in it
/// ("my", "she", "mom", "you"), a first word whose subject went unsaid ("Started chemo last
/// week", "Tested positive in May"), or Chinese in it (its person words are not listed here).
/// A sentence about nobody discloses nobody's health: "Chemotherapy can cause nausea", "Some
/// STIs can lead to birth defects", `std(data)`, "books on gender identity and race". On
/// LongMemEval_S turns such sentences (an assistant's explanations, pasted articles and code)
/// were 47% of the health findings.
/// A disclosure phrase ("diagnosed with") and terms of other languages count anywhere.
fn about_someone(s: &Scan, term: &Range<usize>) -> bool {
    let word = &s.lower[term.clone()];
    if !word.is_ascii() || in_list(HEALTH_DISCLOSURE_PHRASES, word) {
        return true;
    }
    let sentence = &s.lower[sentence_around(&s.lower, term.start)];
    let before = preceding_words(&s.lower, term.start, usize::MAX);
    let first = before.last().copied().unwrap_or_default();
    in_list(UNSAID_SUBJECT_STARTS, first)
        || has_any(sentence, PERSON_WORDS)
        || sentence.chars().any(is_cjk)
}

/// Whether "therapist" at `at` is one a client sees for the mind: not a massage, yoga or
/// physical therapist (a body's, like a dentist), and not someone's job ("I'm a therapist",
/// "my sister is a therapist"). Both were among the health findings on LongMemEval_S turns.
fn a_mental_health_therapist(s: &Scan, at: usize) -> bool {
    match preceding_words(&s.lower, at, 3).as_slice() {
        [kind, ..] if in_list(BODY_THERAPISTS, kind) => false,
        ["a" | "an", "as", "such", ..] => true,
        ["a" | "an", job, ..] => !in_list(IS_A_JOB, job),
        _ => true,
    }
}

/// "my depression", "my anxiety and PTSD" (a possessive two words back, four after "and" or
/// "or"), or a person and a disclosure verb in the sentence ("my mom has cancer").
fn health_disclosure(s: &Scan, term: &Range<usize>) -> bool {
    let before = preceding_words(&s.lower, term.start, 4);
    let reach = match before.first() {
        Some(&("and" | "or")) => 4,
        _ => 2,
    };
    if before.iter().take(reach).any(|w| in_list(POSSESSIVES, w)) {
        return true;
    }
    let sentence = &s.lower[sentence_around(&s.lower, term.start)];
    has_any(sentence, PERSON_WORDS) && has_any(sentence, DISCLOSURE_WORDS)
}

/// Whether `sentence` has any of the `|`-separated `words` as a whole word.
fn has_any(sentence: &str, words: &str) -> bool {
    words
        .split('|')
        .any(|w| word_positions(sentence, w).next().is_some())
}

/// "221B Baker Street": a house number, one to four capitalized words, a street word.
fn street_addresses(s: &Scan, out: &mut Vec<Finding>) {
    // Words are runs of ASCII letters, digits and apostrophes, so bytes will do: a byte of a
    // non-ASCII character ends a word as the character does (decoding characters here was
    // most of the detector's cost on long texts with a number). Only a word that starts with
    // a digit starts an address, so the scan goes from digit to digit and reads the words
    // after a house number only (listing every word of a long text was a fifth of the
    // detector's time on conversation turns).
    let bytes = s.raw.as_bytes();
    let mut at = 0;
    while let Some(d) = bytes[at..].iter().position(u8::is_ascii_digit) {
        let start = at + d;
        let w = start..word_end(bytes, start);
        at = w.end;
        let inside_word = start > 0 && is_word_byte(bytes[start - 1]);
        let digits = bytes[w.clone()]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
        if inside_word || !(1..=5).contains(&digits) || w.len() > digits + 1 {
            continue;
        }
        let mut next = w.end;
        for k in 1..=5 {
            let Some(candidate) = next_word(bytes, next).filter(|c| spaced(bytes, next..c.start))
            else {
                break;
            };
            next = candidate.end;
            match street_word(&s.raw[candidate.clone()], k) {
                StreetWord::Suffix => {
                    out.push(address(w.start..candidate.end));
                    break;
                }
                StreetWord::Name => {}
                StreetWord::Other => break,
            }
        }
    }
}

/// What the `k`-th word after a house number is to the address (`k` from 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum StreetWord {
    /// A capitalised street word after at least one other: the address ends here.
    Suffix,
    /// Part of the street's name: capitalised, or an ordinal ("57th").
    Name,
    /// Anything else: no address.
    Other,
}

fn street_word(word: &str, k: usize) -> StreetWord {
    let capitalised = word.starts_with(|c: char| c.is_ascii_uppercase());
    if k > 1 && capitalised && in_list(STREET_SUFFIXES, &word.to_ascii_lowercase()) {
        return StreetWord::Suffix;
    }
    let ordinal = word.len() > 2
        && word[..word.len() - 2].bytes().all(|b| b.is_ascii_digit())
        && ["st", "nd", "rd", "th"].contains(&&word[word.len() - 2..]);
    match capitalised || ordinal {
        true => StreetWord::Name,
        false => StreetWord::Other,
    }
}

fn address(span: Range<usize>) -> Finding {
    Finding {
        category: Category::PreciseLocation,
        span: span.clone(),
        value: Some(span),
    }
}

/// Whether the bytes between two words of an address are spaces only: "42 Elm Street", not a
/// numbered list's "1. **Lodge Food Court**" or "Method 3: Google Drive" (most of what the
/// detector called an address in a sample of real conversation turns).
fn spaced(bytes: &[u8], gap: Range<usize>) -> bool {
    !gap.is_empty() && bytes[gap].iter().all(|b| matches!(b, b' ' | b'\t'))
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

/// The value of `-?d+.d+` (the shape [`coordinates`] found), close enough for its range
/// checks: std's float parser was 5 KB of the package's wasm for this one use.
fn decimal_value(text: &str) -> f64 {
    let (negative, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let (mut value, mut scale, mut fraction) = (0.0, 1.0, false);
    for b in digits.bytes() {
        if b == b'.' {
            fraction = true;
        } else if fraction {
            scale /= 10.0;
            value += f64::from(b - b'0') * scale;
        } else {
            value = value * 10.0 + f64::from(b - b'0');
        }
    }
    if negative {
        -value
    } else {
        value
    }
}

/// "39.9042, 116.4074": a latitude and a longitude with four or more decimals, side by side and
/// on their own. A longer list of such decimals ("0.0088, 0.0177, 0.0265, …", a pasted array)
/// is data, not a place: it was most of what the detector flagged in a sample of real
/// conversation turns.
fn coordinates(s: &Scan, out: &mut Vec<Finding>) {
    coordinate_pairs(s, &decimals(s), out);
}

/// Every `-?d{1,3}.d{4,}` of the text not glued to a letter or digit before it, with its value.
/// A decimal's whole part is a whole run of digits, a `-` right before it its sign: the scan
/// goes from run to run (a loop over every byte was a fifth of the detector's time on
/// conversation turns with a number).
fn decimals(s: &Scan) -> Vec<(Range<usize>, f64)> {
    let bytes = s.raw.as_bytes();
    let run_end = |from: usize| {
        let rest = &bytes[from..];
        from + rest
            .iter()
            .position(|b| !b.is_ascii_digit())
            .unwrap_or(rest.len())
    };
    let mut decimals: Vec<(Range<usize>, f64)> = Vec::new();
    let mut at = 0;
    while let Some(d) = bytes[at..].iter().position(u8::is_ascii_digit) {
        let int_start = at + d;
        let j = run_end(int_start);
        at = j;
        let start = int_start - usize::from(int_start > 0 && bytes[int_start - 1] == b'-');
        if (1..=3).contains(&(j - int_start)) && bytes.get(j) == Some(&b'.') {
            let k = run_end(j + 1);
            let boundary = start == 0 || !bytes[start - 1].is_ascii_alphanumeric();
            if k - (j + 1) >= 4 && boundary {
                decimals.push((start..k, decimal_value(&s.raw[start..k])));
                at = k;
            }
        }
    }
    decimals
}

/// The pairs of `decimals` that read as a latitude and a longitude: next to each other (at
/// most three commas or spaces between), in range, and with no other decimal next to either.
fn coordinate_pairs(s: &Scan, decimals: &[(Range<usize>, f64)], out: &mut Vec<Finding>) {
    let side_by_side = |a: &Range<usize>, b: &Range<usize>| {
        let between = &s.raw[a.end..b.start];
        between.len() <= 3 && between.chars().all(|c| c == ',' || c == ' ' || c == '，')
    };
    for (i, pair) in decimals.windows(2).enumerate() {
        let [(a, lat), (b, lon)] = pair else { continue };
        let listed_before = i > 0 && side_by_side(&decimals[i - 1].0, a);
        let listed_after = decimals.get(i + 2).is_some_and(|(c, _)| side_by_side(b, c));
        if side_by_side(a, b)
            && !listed_before
            && !listed_after
            && lat.abs() <= 90.0
            && lon.abs() <= 180.0
        {
            out.push(Finding {
                category: Category::PreciseLocation,
                span: a.start..b.end,
                value: Some(a.start..b.end),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What [`street_addresses`] finds, by listing every word first (as it did before it went
    /// from digit to digit); the same rule for each word ([`street_word`]).
    fn street_addresses_by_words(s: &Scan, out: &mut Vec<Finding>) {
        // Words are runs of ASCII letters, digits and apostrophes, so bytes will do: a byte of a
        // non-ASCII character ends a word as the character does (decoding characters here was
        // most of the detector's cost on long texts with a number).
        let words: Vec<Range<usize>> = {
            let mut v = Vec::new();
            let mut start = None;
            let bytes = s.raw.as_bytes().iter().copied();
            for (i, b) in bytes.chain([b' ']).enumerate() {
                match (b.is_ascii_alphanumeric() || b == b'\'', start) {
                    (true, None) => start = Some(i),
                    (false, Some(st)) => {
                        v.push(st..i);
                        start = None;
                    }
                    _ => {}
                }
            }
            v
        };
        for (i, w) in words.iter().enumerate() {
            let number = &s.raw[w.clone()];
            let digits = number.bytes().take_while(u8::is_ascii_digit).count();
            if !(1..=5).contains(&digits) || number.len() > digits + 1 {
                continue;
            }
            for (k, candidate) in words.iter().enumerate().skip(i + 1).take(5) {
                if !spaced(s.raw.as_bytes(), words[k - 1].end..candidate.start) {
                    break;
                }
                match street_word(&s.raw[candidate.clone()], k - i) {
                    StreetWord::Suffix => {
                        out.push(address(w.start..candidate.end));
                        break;
                    }
                    StreetWord::Name => {}
                    StreetWord::Other => break,
                }
            }
        }
    }

    /// What [`decimals`] found before it went from run to run: a loop over every byte.
    fn decimals_by_bytes(s: &Scan) -> Vec<(Range<usize>, f64)> {
        let bytes = s.raw.as_bytes();
        let mut decimals: Vec<(Range<usize>, f64)> = Vec::new();
        let mut i = 0;
        while i < bytes.len() {
            let start = i;
            let mut j = i + usize::from(bytes[i] == b'-');
            let int_start = j;
            while j < bytes.len() && bytes[j].is_ascii_digit() {
                j += 1;
            }
            let int_len = j - int_start;
            if (1..=3).contains(&int_len) && bytes.get(j) == Some(&b'.') {
                let frac_start = j + 1;
                let mut k = frac_start;
                while k < bytes.len() && bytes[k].is_ascii_digit() {
                    k += 1;
                }
                let boundary = start == 0 || !bytes[start - 1].is_ascii_alphanumeric();
                if k - frac_start >= 4 && boundary {
                    decimals.push((start..k, decimal_value(&s.raw[start..k])));
                    i = k;
                    continue;
                }
            }
            i = j.max(i + 1);
        }
        decimals
    }

    /// Texts built from pieces of addresses, decimals and what sits around them, from a
    /// fixed-seed generator: the fast scans find what the word-by-word and byte-by-byte
    /// definitions above find, span for span.
    #[test]
    fn addresses_and_decimals_are_found_as_by_their_definitions() {
        const PIECES: &[&str] = &[
            "12",
            "221B",
            "7",
            "123456",
            "1600",
            "-",
            "--",
            ".",
            ",",
            "，",
            " ",
            "  ",
            "'",
            "Baker",
            "Street",
            "street",
            "Avenue",
            "Rd",
            "Elm",
            "1st",
            "42nd",
            "3rd",
            "Xth",
            "abc",
            "x9",
            "9x",
            "é",
            "北京",
            "住在",
            "39.9042",
            "-116.4074",
            "3.14159",
            "0.0001",
            "12.34",
            "999.99999",
            "1.2345.6789",
            "\n",
            "O'Neil",
            "39.9042, ",
            "12 Elm ",
            "Street ",
            "-33.8688,116.4074",
        ];
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = |n: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % n as u64) as usize
        };
        let mut texts: Vec<String> = vec![String::new(), "1".into(), "-1.2345".into()];
        for _ in 0..20_000 {
            let len = 1 + next(12);
            texts.push((0..len).map(|_| PIECES[next(PIECES.len())]).collect());
        }
        let (mut addresses, mut found_decimals) = (0, 0);
        for text in &texts {
            let scan = Scan::new(text);
            let (mut fast, mut defined) = (Vec::new(), Vec::new());
            street_addresses(&scan, &mut fast);
            street_addresses_by_words(&scan, &mut defined);
            assert_eq!(fast, defined, "{text:?}");
            addresses += fast.len();
            let fast = decimals(&scan);
            assert_eq!(fast, decimals_by_bytes(&scan), "{text:?}");
            found_decimals += fast.len();
        }
        // The texts hold both, often.
        assert!(
            addresses > 50 && found_decimals > 300,
            "{addresses} / {found_decimals}"
        );
    }

    #[test]
    fn a_street_word_ends_an_address_only_after_a_name() {
        // "12 Street" names no street; "12 Elm Street" and "300 East 57th Street" do.
        assert_eq!(street_word("Street", 1), StreetWord::Name);
        assert_eq!(street_word("Street", 2), StreetWord::Suffix);
        assert_eq!(street_word("57th", 2), StreetWord::Name);
        assert_eq!(street_word("street", 2), StreetWord::Other);
        assert_eq!(street_word("the", 1), StreetWord::Other);
    }

    #[test]
    fn decimal_values_match_the_float_parser() {
        for text in [
            "39.9042",
            "-33.8688",
            "116.4074",
            "-180.00000",
            "90.0000",
            "90.00001",
            "0.0001",
            "999.99999999",
            "1.23456789012345678",
        ] {
            let want: f64 = text.parse().expect("a decimal");
            let got = decimal_value(text);
            assert!((got - want).abs() < 1e-9, "{text}: {got} vs {want}");
            assert_eq!(got.abs() <= 90.0, want.abs() <= 90.0, "{text}");
        }
    }
}
