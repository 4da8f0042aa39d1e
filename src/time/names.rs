//! The words of time that both grammars read ([`super::when`] for what a sentence dates,
//! [`super::phrase`] for a query's period): English month and weekday names, Chinese
//! numerals.
#![deny(
    clippy::indexing_slicing,
    clippy::string_slice,
    clippy::arithmetic_side_effects
)]

use chrono::Weekday;

pub(crate) const WEEKDAYS: [(&str, Weekday); 7] = [
    ("monday", Weekday::Mon),
    ("tuesday", Weekday::Tue),
    ("wednesday", Weekday::Wed),
    ("thursday", Weekday::Thu),
    ("friday", Weekday::Fri),
    ("saturday", Weekday::Sat),
    ("sunday", Weekday::Sun),
];

/// A weekday by its English name or three-letter abbreviation ("saturday", "sat").
pub(crate) fn weekday_named(word: &str) -> Option<Weekday> {
    WEEKDAYS
        .iter()
        .find(|(name, _)| *name == word || (word.len() == 3 && name.starts_with(word)))
        .map(|&(_, day)| day)
}

pub(crate) const MONTHS: [&str; 12] = [
    "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
];

/// A month by its English name or abbreviation ("march", "sept", "oct").
pub(crate) fn month_of(word: &str) -> Option<u32> {
    if word.len() < 3 || word == "mayor" {
        return None;
    }
    MONTHS
        .iter()
        .zip(1..)
        .find(|(m, _)| word.starts_with(**m) && (word.len() == 3 || full_month(word)))
        .map(|(_, n)| n)
}

pub(crate) fn full_month(word: &str) -> bool {
    [
        "january",
        "february",
        "march",
        "april",
        "may",
        "june",
        "july",
        "august",
        "september",
        "sept",
        "october",
        "november",
        "december",
    ]
    .contains(&word)
}

pub(crate) fn zh_digit(c: char) -> Option<u32> {
    (0..)
        .zip("零一二三四五六七八九".chars())
        .find(|(_, d)| *d == c)
        .map(|(n, _)| n)
        .or(match c {
            '两' => Some(2),
            '〇' => Some(0),
            _ => c.to_digit(10),
        })
}

/// A number below 10,000 written in Arabic digits or Chinese numerals, at the start of `s`:
/// the value and the bytes it used. A longer run of digits is no number (and never
/// overflows: "12345678901号" is not a day).
pub(crate) fn zh_number(s: &str) -> Option<(u32, usize)> {
    let mut value: Option<u32> = None;
    let mut tens_seen = false;
    let mut used: usize = 0;
    for c in s.chars() {
        if c == '十' {
            value = Some(value.unwrap_or(1).checked_mul(10)?);
            tens_seen = true;
        } else if let Some(d) = zh_digit(c) {
            value = Some(match value {
                Some(v) if tens_seen => v.checked_add(d)?,
                Some(v) => v.checked_mul(10)?.checked_add(d)?,
                None => d,
            });
        } else {
            break;
        }
        used = used.saturating_add(c.len_utf8());
    }
    value.filter(|v| *v < 10_000).map(|v| (v, used))
}
