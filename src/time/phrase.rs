//! Time expressions in `time_hint` and in queries, as an inclusive date range (SPEC §2.4).
//!
//! Understood, in Chinese and English (relative forms are relative to `today`):
//! - days: 今天/今日/today, 昨天/昨日/yesterday, 前天/the day before yesterday, 大前天, 明天/tomorrow,
//!   N天前 / N days ago (widened by a day either side from 3 days on: people round);
//! - weeks (Monday to Sunday): 这周/本周/这个星期/this week (to today), 上周/上星期/上礼拜/last week,
//!   下周/next week, N周前 / N weeks ago (the 7 days around that day), past week / 这几天 (7 days);
//! - weekdays: last Saturday (the latest Saturday before today); a couple of / a few days or
//!   weeks ago count 2 and 3;
//! - weekends: 这周末/this weekend, 下周末/next weekend, 上周末/last weekend; ahead: 后天, 大后天,
//!   下个月/next month, 明年/next year (the dream reads plans with the same lexicon, through
//!   [`time_mentions`], looking further ahead);
//! - months: 这个月/本月/this month, 上个月/上月/last month, N个月前 / N months ago (that month),
//!   4月 / 4月份 / in April / April 2023 / in April 2023 / in April last year (of next year);
//! - years: 今年/this year, 去年/last year, 前年, N年前 / N years ago, 2023年; a month or day
//!   of one of them: 去年三月, 去年12月5号;
//! - 最近/近来/recently/lately/these days: the last 14 days;
//! - dates: 2026-04-08, 2026/4/8, 2026年4月8日, 4月8日/4月8号, May 8, May 8th, 8 May, the 8th of
//!   May, May 8, 2023. Without a year, the latest occurrence at most four weeks ahead of `today`
//!   (so "May 8" said in January means last May, and "2月2日" said on 10 January means this one).
//!
//! Chinese numerals (一 … 十二, 两) and English number words (one … twelve, a/an before a unit)
//! count as numbers. Several expressions in one text give the smallest range covering them all.
//! Counts beyond ten thousand years ([`MAX_DAYS_AGO`] and the like) are not read as times, and
//! every date is computed with checked arithmetic ([`crate::time::calendar`]): no text panics.
#![deny(clippy::arithmetic_side_effects, clippy::indexing_slicing)]

use crate::time::calendar::{self, minus_days, plus_days};
use crate::time::names::{self, weekday_named, zh_number};
use crate::time::Timestamp;
use chrono::{Datelike, NaiveDate};

/// The largest counts of "N days/weeks/months/years ago" read as a time: ten thousand years
/// back. A larger count is not a time expression (its words stay plain query text), so every
/// date computed from one stays far inside the calendar's range.
pub const MAX_YEARS_AGO: u32 = 10_000;
pub const MAX_MONTHS_AGO: u32 = 12 * MAX_YEARS_AGO;
/// Ten thousand Gregorian years (3,652,425 days) in weeks and days.
pub const MAX_WEEKS_AGO: u32 = 521_775;
pub const MAX_DAYS_AGO: u32 = 3_652_425;

/// Dates from `start` to `end`, both included.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DateRange {
    pub start: NaiveDate,
    pub end: NaiveDate,
}

impl DateRange {
    pub fn new(start: NaiveDate, end: NaiveDate) -> Self {
        DateRange {
            start: start.min(end),
            end: start.max(end),
        }
    }

    pub fn day(date: NaiveDate) -> Self {
        DateRange::new(date, date)
    }

    /// How many days it spans (1 for a single day).
    pub fn days(&self) -> u32 {
        let span = self.end.signed_duration_since(self.start).num_days();
        u32::try_from(span).map_or(u32::MAX, |d| d.saturating_add(1))
    }

    pub fn contains_date(&self, date: NaiveDate) -> bool {
        self.start <= date && date <= self.end
    }

    /// Whether the UTC date of `t` is in the range.
    pub fn contains(&self, t: Timestamp) -> bool {
        self.contains_date(t.date())
    }

    pub fn union(self, other: DateRange) -> DateRange {
        DateRange::new(self.start.min(other.start), self.end.max(other.end))
    }

    fn of((start, end): (NaiveDate, NaiveDate)) -> Self {
        DateRange::new(start, end)
    }

    /// `slack` days either side of `date`.
    fn around(date: NaiveDate, slack: i64) -> Option<Self> {
        Some(DateRange::new(
            minus_days(date, slack)?,
            plus_days(date, slack)?,
        ))
    }
}

/// The date range `text` speaks of, if any.
pub fn parse_time_range(text: &str, today: NaiveDate) -> Option<DateRange> {
    time_mentions(text, today, LOOKAHEAD_DAYS)
        .into_iter()
        .map(|m| m.range)
        .reduce(DateRange::union)
}

/// A time expression found in a text: its range, the bytes it covers, and whether it is
/// vague (最近, recently: a stretch of the past rather than a date of something).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimeMention {
    pub range: DateRange,
    pub span: (usize, usize),
    pub vague: bool,
}

/// Every time expression of `text`, in order. A date without a year resolves to its latest
/// occurrence at most `lookahead_days` after `today` (retrieval looks back: 28 days; the
/// dream, reading plans, looks ahead almost a year).
pub fn time_mentions(text: &str, today: NaiveDate, lookahead_days: i64) -> Vec<TimeMention> {
    let (tokens, spans) = lex(text);
    let mut found = Vec::new();
    let mut i: usize = 0;
    while i < tokens.len() {
        let rest = from(&tokens, i);
        match match_at(rest, today, lookahead_days) {
            Some((range, used, vague)) => {
                let used = used.max(1);
                let last = i.saturating_add(used).saturating_sub(1);
                if let (Some(first), Some(end)) = (spans.get(i), spans.get(last)) {
                    let span = (first.0, end.1);
                    if !crate::time::quoted(text, span) {
                        found.push(TimeMention { range, span, vague });
                    }
                }
                i = i.saturating_add(used);
            }
            None => i = i.saturating_add(1),
        }
    }
    found
}

/// The range of a request: the `time_hint` if it names one, else time words in the query.
pub fn request_time_range(
    time_hint: Option<&str>,
    query: &str,
    today: NaiveDate,
) -> Option<DateRange> {
    time_hint
        .and_then(|hint| parse_time_range(hint, today))
        .or_else(|| parse_time_range(query, today))
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Num(u32),
    Word(String),
    Char(char),
}

/// `tokens` from position `i` on (empty past the end).
fn from(tokens: &[Tok], i: usize) -> &[Tok] {
    tokens.get(i..).unwrap_or_default()
}

/// Numbers (ASCII digits, ordinals like "8th", Chinese numerals), Latin words, single other
/// characters; whitespace dropped. Each token comes with its byte span in `text`; letters
/// are lowercased and full-width forms read as ASCII (what NFKC would do to them).
fn lex(text: &str) -> (Vec<Tok>, Vec<(usize, usize)>) {
    let mut chars = text
        .char_indices()
        .map(|(i, c)| (i, fold_char(c)))
        .peekable();
    let mut out = Vec::new();
    let mut spans = Vec::new();
    while let Some((start, c)) = chars.next() {
        if c.is_whitespace() {
            continue;
        }
        if c.is_ascii_alphanumeric() {
            let mut word = String::from(c);
            while let Some((_, next)) = chars.next_if(|(_, c)| c.is_ascii_alphanumeric()) {
                word.push(next);
            }
            out.push(number_of_word(&word).map_or(Tok::Word(word), Tok::Num));
        } else if let Some((n, used)) = zh_number(text.get(start..).unwrap_or_default()) {
            // The dream's reading of a numeral run (one lexicon for both grammars).
            let end = start.saturating_add(used);
            while chars.next_if(|&(i, _)| i < end).is_some() {}
            out.push(Tok::Num(n));
        } else {
            out.push(Tok::Char(c));
        }
        let end = chars.peek().map_or(text.len(), |&(i, _)| i);
        spans.push((start, end));
    }
    (out, spans)
}

/// Lowercase, full-width ASCII as ASCII.
fn fold_char(c: char) -> char {
    let c = match u32::from(c) {
        0x3000 => ' ',
        n @ 0xFF01..=0xFF5E => n.checked_sub(0xFEE0).and_then(char::from_u32).unwrap_or(c),
        _ => c,
    };
    c.to_lowercase().next().unwrap_or(c)
}

fn number_of_word(word: &str) -> Option<u32> {
    let digits = word.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    let suffix = word.strip_prefix(digits).unwrap_or_default();
    if !digits.is_empty() && digits.chars().all(|c| c.is_ascii_digit()) {
        return match suffix {
            // Too many digits for a u32: not a number we read.
            "" | "st" | "nd" | "rd" | "th" => digits.parse().ok(),
            _ => None,
        };
    }
    const WORDS: [&str; 12] = [
        "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
        "twelve",
    ];
    (1..).zip(WORDS).find(|(_, w)| *w == word).map(|(n, _)| n)
}

/// A fixed phrase: CJK characters or English words. Compared token by token without building
/// the phrase's tokens (this runs for every phrase at every position of the text).
fn phrase(tokens: &[Tok], text: &str) -> Option<usize> {
    let mut rest = tokens.iter();
    let mut used: usize = 0;
    if text.is_ascii() {
        for word in text.split(' ') {
            matches!(rest.next(), Some(Tok::Word(w)) if w == word).then_some(())?;
            used = used.saturating_add(1);
        }
    } else {
        for c in text.chars() {
            (rest.next() == Some(&Tok::Char(c))).then_some(())?;
            used = used.saturating_add(1);
        }
    }
    Some(used)
}

fn first_phrase(tokens: &[Tok], texts: &[&str]) -> Option<usize> {
    texts.iter().find_map(|t| phrase(tokens, t))
}

fn is_char(tok: Option<&Tok>, options: &str) -> bool {
    matches!(tok, Some(Tok::Char(c)) if options.contains(*c))
}

fn is_word(tok: Option<&Tok>, options: &[&str]) -> bool {
    matches!(tok, Some(Tok::Word(w)) if options.contains(&w.as_str()))
}

/// Monday to Sunday of `date`'s week.
fn week_of(date: NaiveDate) -> Option<DateRange> {
    let monday = calendar::monday_of(date)?;
    Some(DateRange::new(monday, plus_days(monday, 6)?))
}

/// Saturday and Sunday of `date`'s week.
fn weekend_of(date: NaiveDate) -> Option<DateRange> {
    let monday = calendar::monday_of(date)?;
    Some(DateRange::new(plus_days(monday, 5)?, plus_days(monday, 6)?))
}

fn month_of(year: i32, month: u32) -> Option<DateRange> {
    calendar::month_bounds(year, month).map(DateRange::of)
}

fn year_of(year: i32) -> Option<DateRange> {
    calendar::year_bounds(year).map(DateRange::of)
}

/// A year said as a number (2023年, "May 2023"): the years a timestamp can hold, 0–9999.
fn year_number(n: u32) -> Option<i32> {
    i32::try_from(n).ok().filter(|y| *y <= 9999)
}

/// How far ahead a date without a year may lie in a query: memories are mostly about the
/// past, but an appointment a few weeks away is asked about too.
pub const LOOKAHEAD_DAYS: i64 = 28;

/// The latest occurrence of month/day at most `lookahead` days after `today`.
fn nearest_date(month: u32, day: u32, today: NaiveDate, lookahead: i64) -> Option<NaiveDate> {
    let limit = plus_days(today, lookahead)?;
    let year = today.year();
    [year.checked_add(1), Some(year), year.checked_sub(1)]
        .into_iter()
        .flatten()
        .filter_map(|y| NaiveDate::from_ymd_opt(y, month, day))
        .find(|d| *d <= limit)
}

/// The latest month of that name starting at most `lookahead` days after `today`.
fn nearest_month(month: u32, today: NaiveDate, lookahead: i64) -> Option<DateRange> {
    let first = nearest_date(month, 1, today, lookahead)?;
    month_of(first.year(), month)
}

/// N days ago: that day, widened by a day either side from 3 days on (people round).
fn days_ago(n: u32, today: NaiveDate) -> Option<DateRange> {
    if n > MAX_DAYS_AGO {
        return None;
    }
    let day = minus_days(today, i64::from(n))?;
    DateRange::around(day, if n >= 3 { 1 } else { 0 })
}

/// N weeks ago: the 7 days around that day.
fn weeks_ago(n: u32, today: NaiveDate) -> Option<DateRange> {
    if n > MAX_WEEKS_AGO {
        return None;
    }
    let day = minus_days(today, i64::from(n).checked_mul(7)?)?;
    DateRange::around(day, 3)
}

/// N months ago: that calendar month.
fn months_ago(n: u32, today: NaiveDate) -> Option<DateRange> {
    if n > MAX_MONTHS_AGO {
        return None;
    }
    let d = calendar::minus_months(today, n)?;
    month_of(d.year(), d.month())
}

/// N years ago: that calendar year.
fn years_ago(n: u32, today: NaiveDate) -> Option<DateRange> {
    if n > MAX_YEARS_AGO {
        return None;
    }
    year_of(today.year().checked_sub(i32::try_from(n).ok()?)?)
}

/// The range a relative phrase names, from today.
type FromToday = fn(NaiveDate) -> Option<DateRange>;

/// A relative phrase that is a stretch of the past rather than the date of something.
const VAGUE: bool = true;

/// Fixed phrases relative to today, and whether they are vague. A longer phrase comes before
/// the shorter one it starts with (这周末 before 这周).
const RELATIVE: [(&[&str], FromToday, bool); 22] = [
    (&["大前天"], |t| day_of(t, -3), false),
    (&["前天", "day before yesterday"], |t| day_of(t, -2), false),
    (
        &["昨天", "昨日", "昨晚", "yesterday"],
        |t| day_of(t, -1),
        false,
    ),
    (
        &["今天", "今日", "今晚", "today", "tonight"],
        |t| Some(DateRange::day(t)),
        false,
    ),
    (&["大后天"], |t| day_of(t, 3), false),
    (&["后天", "day after tomorrow"], |t| day_of(t, 2), false),
    (
        &["明天", "明日", "明晚", "tomorrow"],
        |t| day_of(t, 1),
        false,
    ),
    (
        &["这周末", "这个周末", "本周末", "this weekend"],
        |t| weekend_of(t),
        false,
    ),
    (
        &["下周末", "下个周末", "next weekend"],
        |t| weekend_of(plus_days(t, 7)?),
        false,
    ),
    (
        &["上周末", "上个周末", "last weekend"],
        |t| weekend_of(minus_days(t, 7)?),
        false,
    ),
    (
        &["上个星期", "上星期", "上礼拜", "上周", "last week"],
        |t| week_of(minus_days(t, 7)?),
        false,
    ),
    (
        &["这个星期", "这星期", "这礼拜", "这周", "本周", "this week"],
        |t| Some(DateRange::new(calendar::monday_of(t)?, t)),
        false,
    ),
    (
        &["下个星期", "下星期", "下礼拜", "下周", "next week"],
        |t| week_of(plus_days(t, 7)?),
        false,
    ),
    (
        &["这几天", "past week", "past few days", "last few days"],
        |t| Some(DateRange::new(minus_days(t, 6)?, t)),
        VAGUE,
    ),
    (
        &["最近", "近来", "近期", "recently", "lately", "these days"],
        |t| Some(DateRange::new(minus_days(t, 13)?, t)),
        VAGUE,
    ),
    (
        &["上个月", "上月", "last month"],
        |t| months_ago(1, t),
        false,
    ),
    (
        &["这个月", "本月", "this month"],
        |t| Some(DateRange::new(t.with_day(1)?, t)),
        false,
    ),
    (
        &["下个月", "下月", "next month"],
        |t| {
            let d = calendar::plus_months(t, 1)?;
            month_of(d.year(), d.month())
        },
        false,
    ),
    (&["去年", "last year"], |t| years_ago(1, t), false),
    (&["今年", "this year"], |t| year_of(t.year()), false),
    (
        &["明年", "next year"],
        |t| year_of(t.year().checked_add(1)?),
        false,
    ),
    (&["前年"], |t| years_ago(2, t), false),
];

/// A time expression starting at `tokens[0]`: its range, how many tokens it used, and
/// whether it is vague.
fn match_at(tokens: &[Tok], today: NaiveDate, lookahead: i64) -> Option<(DateRange, usize, bool)> {
    for (phrases, range, vague) in RELATIVE {
        if let Some(used) = first_phrase(tokens, phrases) {
            let r = range(today)?;
            // "去年三月", "去年12月5号": a month or a day of the year said.
            if let Some((within, more)) = zh_month_of_year(r, from(tokens, used)) {
                return Some((within, used.saturating_add(more), vague));
            }
            return Some((r, used, vague));
        }
    }
    match_numeric(tokens, today, lookahead)
        .or_else(|| match_words(tokens, today, lookahead))
        .map(|(r, used)| (r, used, false))
}

/// "三月", "12月5号", "3月份", "的12月" right after a whole year (`year`: 去年, 今年 …): that month or day
/// of it, with the tokens used.
fn zh_month_of_year(year: DateRange, tokens: &[Tok]) -> Option<(DateRange, usize)> {
    let y = year.start.year();
    let whole = (year.start.ordinal(), year.end) == (1, NaiveDate::from_ymd_opt(y, 12, 31)?);
    let of = usize::from(is_char(tokens.first(), "的"));
    let at = |i: usize| tokens.get(of.saturating_add(i));
    let (Some(Tok::Num(m)), true) = (at(0), whole && is_char(at(1), "月")) else {
        return None;
    };
    if let (Some(Tok::Num(d)), true) = (at(2), is_char(at(3), "日号")) {
        return NaiveDate::from_ymd_opt(y, *m, *d)
            .map(|d| (DateRange::day(d), of.saturating_add(4)));
    }
    let used = if is_char(at(2), "份") { 3 } else { 2 };
    month_of(y, *m).map(|r| (r, of.saturating_add(used)))
}

/// The day `n` days from `today`.
fn day_of(today: NaiveDate, n: i64) -> Option<DateRange> {
    plus_days(today, n).map(DateRange::day)
}

fn match_numeric(tokens: &[Tok], today: NaiveDate, lookahead: i64) -> Option<(DateRange, usize)> {
    let at = |i: usize| tokens.get(i);
    let num = |i: usize| match tokens.get(i) {
        Some(Tok::Num(n)) => Some(*n),
        _ => None,
    };
    let date =
        |y: u32, m: u32, d: u32| NaiveDate::from_ymd_opt(year_number(y)?, m, d).map(DateRange::day);

    // 2026-04-08, 2026/4/8, 2026.4.8
    if let (Some(y), Some(m), Some(d)) = (num(0), num(2), num(4)) {
        if y >= 1000 && is_char(at(1), "-/.") && at(3) == at(1) {
            if let Some(r) = date(y, m, d) {
                return Some((r, 5));
            }
        }
    }
    let n = num(0)?;
    // Chinese: N年M月D日, N年M月, N年, M月D日/号, M月(份), N天前, N周前, N个月前, N年前.
    if is_char(at(1), "年") {
        if n >= 1000 {
            if let (Some(m), true) = (num(2), is_char(at(3), "月")) {
                if let (Some(d), true) = (num(4), is_char(at(5), "日号")) {
                    return date(n, m, d).map(|r| (r, 6));
                }
                return month_of(year_number(n)?, m).map(|r| (r, 4));
            }
            return year_of(year_number(n)?).map(|r| (r, 2));
        }
        if is_char(at(2), "前") {
            return years_ago(n, today).map(|r| (r, 3));
        }
    }
    if is_char(at(1), "天日") && is_char(at(2), "前") {
        return days_ago(n, today).map(|r| (r, 3));
    }
    let week_unit = first_phrase(from(tokens, 1), &["个星期", "个礼拜", "星期", "礼拜", "周"]);
    if let Some(used) = week_unit {
        if is_char(at(used.saturating_add(1)), "前") {
            return weeks_ago(n, today).map(|r| (r, used.saturating_add(2)));
        }
    }
    if is_char(at(1), "个") && is_char(at(2), "月") && is_char(at(3), "前") {
        return months_ago(n, today).map(|r| (r, 4));
    }
    if is_char(at(1), "月") && (1..=12).contains(&n) {
        if is_char(at(2), "前") {
            return months_ago(n, today).map(|r| (r, 3));
        }
        if let (Some(d), true) = (num(2), is_char(at(3), "日号")) {
            return nearest_date(n, d, today, lookahead).map(|d| (DateRange::day(d), 4));
        }
        let used = if is_char(at(2), "份") { 3 } else { 2 };
        return nearest_month(n, today, lookahead).map(|r| (r, used));
    }
    // English: N days/weeks/months/years ago; D Month [Year]; D of Month [Year].
    if let Some(r) = english_ago(n, from(tokens, 1), today) {
        return Some(r);
    }
    let of = usize::from(is_word(at(1), &["of"]));
    if let Some(Tok::Word(w)) = at(of.saturating_add(1)) {
        if let Some(m) = names::month_of(w) {
            let (year, used) = english_year(from(tokens, of.saturating_add(2)));
            let found = match year {
                Some(y) => NaiveDate::from_ymd_opt(y, m, n),
                None => nearest_date(m, n, today, lookahead),
            };
            if let Some(d) = found {
                return Some((DateRange::day(d), of.saturating_add(2).saturating_add(used)));
            }
        }
    }
    None
}

/// Expressions that start with a word: "a week ago", "May 8 [2023]", "May 2023", "in May".
fn match_words(tokens: &[Tok], today: NaiveDate, lookahead: i64) -> Option<(DateRange, usize)> {
    let num = |i: usize| match tokens.get(i) {
        Some(Tok::Num(n)) => Some(*n),
        _ => None,
    };
    if is_word(tokens.first(), &["a", "an", "one"]) {
        if let Some(found) = english_ago(1, from(tokens, 1), today) {
            return Some(found);
        }
        // "a couple of days ago", "a few weeks ago": a small count, the range widens with it.
        let count = match tokens.get(1) {
            Some(Tok::Word(w)) if w == "couple" => Some(2),
            Some(Tok::Word(w)) if w == "few" => Some(3),
            _ => None,
        };
        if let Some(n) = count {
            let of = usize::from(is_word(tokens.get(2), &["of"]));
            let unit_at = of.saturating_add(2);
            if let Some((r, used)) = english_ago(n, from(tokens, unit_at), today) {
                return Some((r, used.saturating_add(of).saturating_add(1)));
            }
        }
    }
    // "last Saturday": the latest such day before today ("on Saturday" may be a plan).
    if is_word(tokens.first(), &["last", "past"]) {
        if let Some(day) = tokens.get(1).and_then(weekday_of) {
            return calendar::previous(today, day).map(|d| (DateRange::day(d), 2));
        }
    }
    let month_at = |i: usize| match tokens.get(i) {
        Some(Tok::Word(w)) => names::month_of(w),
        _ => None,
    };
    if let Some(m) = month_at(0) {
        if let Some(d) = num(1).filter(|d| (1..=31).contains(d)) {
            let (year, used) = english_year(from(tokens, 2));
            let found = match year {
                Some(y) => NaiveDate::from_ymd_opt(y, m, d),
                None => nearest_date(m, d, today, lookahead),
            };
            return found.map(|d| (DateRange::day(d), used.saturating_add(2)));
        }
        if let Some((year, used)) = month_year(from(tokens, 1), today) {
            return month_of(year, m).map(|r| (r, used.saturating_add(1)));
        }
    }
    if is_word(tokens.first(), &["in", "during", "since"]) {
        if let Some(m) = month_at(1) {
            if let Some((year, used)) = month_year(from(tokens, 2), today) {
                return month_of(year, m).map(|r| (r, used.saturating_add(2)));
            }
            return nearest_month(m, today, lookahead).map(|r| (r, 2));
        }
    }
    None
}

/// The year said after a month: "2023", "last year", "of next year"; with the tokens it used.
/// ("In January 2023" was the coming January, "in May last year" this May. Not "this year":
/// "May this year be full of joy".)
fn month_year(tokens: &[Tok], today: NaiveDate) -> Option<(i32, usize)> {
    if let Some(Tok::Num(y)) = tokens.first() {
        return (*y >= 1000)
            .then(|| year_number(*y))
            .flatten()
            .map(|y| (y, 1));
    }
    let of = usize::from(is_word(tokens.first(), &["of"]));
    if !is_word(tokens.get(of.saturating_add(1)), &["year"]) {
        return None;
    }
    let year = match tokens.get(of) {
        Some(Tok::Word(w)) if w == "last" => today.year().checked_sub(1)?,
        Some(Tok::Word(w)) if w == "next" => today.year().checked_add(1)?,
        _ => return None,
    };
    Some((year, of.saturating_add(2)))
}

/// An English weekday name ("saturday", "sat").
fn weekday_of(tok: &Tok) -> Option<chrono::Weekday> {
    let Tok::Word(w) = tok else {
        return None;
    };
    weekday_named(w)
}

/// ", 2023" or "2023" after a day and month.
fn english_year(tokens: &[Tok]) -> (Option<i32>, usize) {
    let comma = usize::from(matches!(tokens.first(), Some(Tok::Char(','))));
    match tokens.get(comma) {
        Some(Tok::Num(y)) if *y >= 1000 => match year_number(*y) {
            Some(y) => (Some(y), comma.saturating_add(1)),
            None => (None, 0),
        },
        _ => (None, 0),
    }
}

fn english_ago(n: u32, tokens: &[Tok], today: NaiveDate) -> Option<(DateRange, usize)> {
    let unit = match tokens.first() {
        Some(Tok::Word(w)) => w.trim_end_matches('s'),
        _ => return None,
    };
    if !is_word(tokens.get(1), &["ago"]) {
        return None;
    }
    let range = match unit {
        "day" => days_ago(n, today)?,
        "week" => weeks_ago(n, today)?,
        "month" => months_ago(n, today)?,
        "year" => years_ago(n, today)?,
        _ => return None,
    };
    Some((range, 3))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A Wednesday.
    fn today() -> NaiveDate {
        NaiveDate::from_ymd_opt(2026, 4, 8).unwrap()
    }

    fn d(text: &str) -> NaiveDate {
        crate::time::parse_date(text).unwrap()
    }

    fn range(text: &str) -> Option<(String, String)> {
        parse_time_range(text, today()).map(|r| (r.start.to_string(), r.end.to_string()))
    }

    fn is(text: &str, start: &str, end: &str) {
        assert_eq!(
            range(text),
            Some((start.to_string(), end.to_string())),
            "{text}"
        );
    }

    #[test]
    fn a_name_in_quotes_asks_for_no_period() {
        assert_eq!(range("我们聊过“星期五”这个角色吗"), None);
        assert_eq!(range("《昨天》这首歌是谁唱的"), None);
        assert_eq!(range("what did I say about \"Yesterday\""), None);
        // Quoted speech does.
        is("他说“我们昨天见过”", "2026-04-07", "2026-04-07");
        is("他昨天说的“星期五”是谁", "2026-04-07", "2026-04-07");
    }

    #[test]
    fn relative_days() {
        is("今天", "2026-04-08", "2026-04-08");
        is("我昨天说了什么", "2026-04-07", "2026-04-07");
        is("前天", "2026-04-06", "2026-04-06");
        is("大前天", "2026-04-05", "2026-04-05");
        is("What did I say yesterday?", "2026-04-07", "2026-04-07");
        is("the day before yesterday", "2026-04-06", "2026-04-06");
        is("三天前", "2026-04-04", "2026-04-06");
        is("2天前", "2026-04-06", "2026-04-06");
        is("5 days ago", "2026-04-02", "2026-04-04");
        is("a day ago", "2026-04-07", "2026-04-07");
        assert_eq!(
            parse_time_range("5 days ago", today()).map(|r| r.days()),
            Some(3)
        );
    }

    #[test]
    fn weekdays_and_small_counts() {
        // today() is a Wednesday.
        is(
            "Who did I go with last Saturday?",
            "2026-04-04",
            "2026-04-04",
        );
        is("what did I eat last Monday", "2026-04-06", "2026-04-06");
        is("last Wednesday", "2026-04-01", "2026-04-01");
        is("last sat", "2026-04-04", "2026-04-04");
        is("a couple of days ago", "2026-04-06", "2026-04-06");
        is("a few days ago", "2026-04-04", "2026-04-06");
        is("a couple weeks ago", "2026-03-22", "2026-03-28");
        assert_eq!(range("the last saturnalia"), None);
        assert_eq!(range("a few"), None);
    }

    #[test]
    fn weeks_months_years() {
        is("上周", "2026-03-30", "2026-04-05");
        is("last week", "2026-03-30", "2026-04-05");
        is("这周", "2026-04-06", "2026-04-08");
        is("本周", "2026-04-06", "2026-04-08");
        is("this week", "2026-04-06", "2026-04-08");
        is("最近", "2026-03-26", "2026-04-08");
        is("recently", "2026-03-26", "2026-04-08");
        is("上个月", "2026-03-01", "2026-03-31");
        is("last month", "2026-03-01", "2026-03-31");
        is("去年", "2025-01-01", "2025-12-31");
        is("last year", "2025-01-01", "2025-12-31");
        is("两个月前", "2026-02-01", "2026-02-28");
        is("2 weeks ago", "2026-03-22", "2026-03-28");
    }

    #[test]
    fn dates_in_chinese_numerals_read_as_the_dream_reads_them() {
        // One reading of Chinese numerals for both grammars: 〇 is a digit, a run of digits a
        // number ("二〇二五年" was not a time to retrieval before).
        is("二〇二五年三月", "2025-03-01", "2025-03-31");
        is("十二月二十五日", "2025-12-25", "2025-12-25");
        assert_eq!(range("三十五天前"), range("35天前"));
        assert!(range("35天前").is_some());
    }

    #[test]
    fn absolute_dates() {
        is("4月8日", "2026-04-08", "2026-04-08");
        is("四月八号", "2026-04-08", "2026-04-08");
        is("2026-04-08", "2026-04-08", "2026-04-08");
        is("2025/12/3", "2025-12-03", "2025-12-03");
        is("2025年3月5日", "2025-03-05", "2025-03-05");
        is("2025年3月", "2025-03-01", "2025-03-31");
        is("May 8", "2025-05-08", "2025-05-08");
        is("on 8 May, 2023", "2023-05-08", "2023-05-08");
        is("the 8th of May", "2025-05-08", "2025-05-08");
        is("March 3rd 2024", "2024-03-03", "2024-03-03");
        is("in June", "2025-06-01", "2025-06-30");
        is("3月份", "2026-03-01", "2026-03-31");
    }

    #[test]
    fn year_is_the_latest_occurrence_up_to_four_weeks_ahead() {
        let jan = d("2026-01-10");
        let r = parse_time_range("12月24日", jan).unwrap();
        assert_eq!(r, DateRange::day(d("2025-12-24")));
        let r = parse_time_range("Feb 2", jan).unwrap();
        assert_eq!(r, DateRange::day(d("2026-02-02")));
    }

    #[test]
    fn ahead_of_today() {
        is("下个月", "2026-05-01", "2026-05-31");
        is("next month", "2026-05-01", "2026-05-31");
        is("这周末", "2026-04-11", "2026-04-12");
        is("next weekend", "2026-04-18", "2026-04-19");
        is("上周末", "2026-04-04", "2026-04-05");
        is("明年", "2027-01-01", "2027-12-31");
        is("后天", "2026-04-10", "2026-04-10");
        is("the day after tomorrow", "2026-04-10", "2026-04-10");
    }

    #[test]
    fn mentions_carry_their_spans_and_vagueness() {
        let text = "我的同学小红下周要来，ＮＥＸＴ MONTH too; 最近好忙";
        let found = time_mentions(text, today(), LOOKAHEAD_DAYS);
        let said: Vec<(&str, bool)> = found
            .iter()
            .map(|m| (&text[m.span.0..m.span.1], m.vague))
            .collect();
        assert_eq!(
            said,
            vec![("下周", false), ("ＮＥＸＴ MONTH", false), ("最近", true)]
        );
        assert_eq!(
            found[0].range,
            DateRange::new(d("2026-04-13"), d("2026-04-19"))
        );
        // Looking ahead almost a year, a month or day without a year is the next one.
        let june = time_mentions("in June", today(), 330);
        assert_eq!(
            june[0].range,
            DateRange::new(d("2026-06-01"), d("2026-06-30"))
        );
    }

    #[test]
    fn several_expressions_are_covered_by_one_range() {
        is("昨天和前天", "2026-04-06", "2026-04-07");
    }

    #[test]
    fn no_time_expression() {
        assert_eq!(range("我喜欢什么书"), None);
        assert_eq!(range("What do I like to read?"), None);
        assert_eq!(range("May I ask what you like?"), None);
        assert_eq!(range("I have 2 cats"), None);
        assert_eq!(range("13月40日"), None);
    }

    #[test]
    fn the_hint_wins_over_the_query() {
        let r = request_time_range(Some("yesterday"), "what did we do last week", today());
        assert_eq!(r, Some(DateRange::day(d("2026-04-07"))));
        let r = request_time_range(Some("whenever"), "what did we do last week", today());
        assert_eq!(r, Some(DateRange::new(d("2026-03-30"), d("2026-04-05"))));
        assert_eq!(request_time_range(None, "hello", today()), None);
    }

    /// Issue 18: these panicked (chrono date arithmetic overflow) and crashed the Worker.
    #[test]
    fn huge_counts_are_not_times_and_never_panic() {
        for text in [
            "what happened 100000000 days ago",
            "99999999天前",
            "100000000 weeks ago",
            "2147483648 years ago",
            "4294967295 months ago",
            "4294967295年前",
            "4294967295个月前",
            "4294967295周前",
            "4294967295 days ago",
            "4294967296 days ago",
            "2147483648年",
            "4294967295-4-8",
            "May 4294967295",
        ] {
            assert_eq!(range(text), None, "{text}");
        }
        // What follows a year too large to read is read on its own.
        is("4294967295年4月8日", "2026-04-08", "2026-04-08");
        is("May 8, 4294967295", "2025-05-08", "2025-05-08");
        is("8 May 4294967295", "2025-05-08", "2025-05-08");
    }

    #[test]
    fn counts_up_to_the_caps_are_read() {
        assert_eq!(
            range("10000 years ago"),
            Some(("-7974-01-01".into(), "-7974-12-31".into()))
        );
        assert!(range(&format!("{MAX_DAYS_AGO} days ago")).is_some());
        assert_eq!(range(&format!("{} days ago", MAX_DAYS_AGO + 1)), None);
        assert!(range(&format!("{MAX_WEEKS_AGO}周前")).is_some());
        assert_eq!(range(&format!("{}周前", MAX_WEEKS_AGO + 1)), None);
        assert!(range(&format!("{MAX_MONTHS_AGO} months ago")).is_some());
        assert_eq!(range(&format!("{} months ago", MAX_MONTHS_AGO + 1)), None);
        assert_eq!(range("10001年前"), None);
        // Zero counts are today.
        is("0 days ago", "2026-04-08", "2026-04-08");
        is("0年前", "2026-01-01", "2026-12-31");
    }

    #[test]
    fn a_month_is_in_the_year_said_after_it() {
        // Said on 2026-04-08: "in January" alone is the latest January, "in July" the coming.
        is("in January 2023", "2023-01-01", "2023-01-31");
        is("what did I spend in July 2025", "2025-07-01", "2025-07-31");
        is(
            "a conference in November last year",
            "2025-11-01",
            "2025-11-30",
        );
        is(
            "the hearing was in July of last year",
            "2025-07-01",
            "2025-07-31",
        );
        is("since August last year", "2025-08-01", "2025-08-31");
        is("in May next year", "2027-05-01", "2027-05-31");
        is("December last year", "2025-12-01", "2025-12-31");
        is("in January", "2026-01-01", "2026-01-31");
        // A number below a year is no year: "in May 8" stays what it was.
        assert_eq!(range("in May 8"), range("in May"));
        // A month or a day of a year said in Chinese.
        is("去年三月我们去了海南", "2025-03-01", "2025-03-31");
        is("去年12月5号", "2025-12-05", "2025-12-05");
        is("明年3月份", "2027-03-01", "2027-03-31");
        is("去年的12月", "2025-12-01", "2025-12-31");
        // "May this year be full of joy" is a wish, not a month.
        assert_eq!(range("May this year be full of joy"), range("this year"));
    }

    #[test]
    fn a_today_at_the_ends_of_the_calendar_never_panics() {
        let texts = [
            "今天",
            "昨天",
            "明天",
            "前天",
            "大前天",
            "上周",
            "这周",
            "下周",
            "这几天",
            "最近",
            "上个月",
            "这个月",
            "去年",
            "今年",
            "前年",
            "12月31日",
            "1月1日",
            "3天前",
            "5 weeks ago",
            "in May",
            "in May 9999",
            "in May last year",
            "in May of next year",
            "May 8",
            "8 May",
            "2 years ago",
        ];
        for today in [NaiveDate::MIN, NaiveDate::MAX] {
            for text in texts {
                let _ = parse_time_range(text, today);
            }
        }
    }

    #[test]
    fn contains_uses_the_utc_date() {
        let r = DateRange::day(d("2026-04-07"));
        assert!(r.contains(Timestamp::parse("2026-04-07T23:59:00Z").unwrap()));
        assert!(!r.contains(Timestamp::parse("2026-04-08T00:00:00Z").unwrap()));
    }
}
