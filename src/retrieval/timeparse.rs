//! Time expressions in `time_hint` and in queries, as an inclusive date range (SPEC §2.4).
//!
//! Understood, in Chinese and English (relative forms are relative to `today`):
//! - days: 今天/今日/today, 昨天/昨日/yesterday, 前天/the day before yesterday, 大前天, 明天/tomorrow,
//!   N天前 / N days ago (widened by a day either side from 3 days on: people round);
//! - weeks (Monday to Sunday): 这周/本周/这个星期/this week (to today), 上周/上星期/上礼拜/last week,
//!   下周/next week, N周前 / N weeks ago (the 7 days around that day), past week / 这几天 (7 days);
//! - weekends: 这周末/this weekend, 下周末/next weekend, 上周末/last weekend; ahead: 后天, 大后天,
//!   下个月/next month, 明年/next year (the dream reads plans with the same lexicon, through
//!   [`time_mentions`], looking further ahead);
//! - months: 这个月/本月/this month, 上个月/上月/last month, N个月前 / N months ago (that month),
//!   4月 / 4月份 / in April / April 2023;
//! - years: 今年/this year, 去年/last year, 前年, N年前 / N years ago, 2023年;
//! - 最近/近来/recently/lately/these days: the last 14 days;
//! - dates: 2026-04-08, 2026/4/8, 2026年4月8日, 4月8日/4月8号, May 8, May 8th, 8 May, the 8th of
//!   May, May 8, 2023. Without a year, the latest occurrence at most four weeks ahead of `today`
//!   (so "May 8" said in January means last May, and "2月2日" said on 10 January means this one).
//!
//! Chinese numerals (一 … 十二, 两) and English number words (one … twelve, a/an before a unit)
//! count as numbers. Several expressions in one text give the smallest range covering them all.

use crate::time::Timestamp;
use chrono::{Datelike, Duration, Months, NaiveDate};

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
    let mut i = 0;
    while i < tokens.len() {
        match match_at(&tokens[i..], today, lookahead_days) {
            Some((range, used, vague)) => {
                found.push(TimeMention {
                    range,
                    span: (spans[i].0, spans[i + used - 1].1),
                    vague,
                });
                i += used;
            }
            None => i += 1,
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

/// Numbers (ASCII digits, ordinals like "8th", Chinese numerals), Latin words, single other
/// characters; whitespace dropped. Each token comes with its byte span in `text`; letters
/// are lowercased and full-width forms read as ASCII (what NFKC would do to them).
fn lex(text: &str) -> (Vec<Tok>, Vec<(usize, usize)>) {
    let chars: Vec<(usize, char)> = text
        .char_indices()
        .map(|(i, c)| (i, fold_char(c)))
        .collect();
    let end_of = |k: usize| chars.get(k).map_or(text.len(), |(i, _)| *i);
    let mut out = Vec::new();
    let mut spans = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i].1;
        let start = i;
        if c.is_whitespace() {
            i += 1;
            continue;
        } else if c.is_ascii_alphanumeric() {
            while i < chars.len() && chars[i].1.is_ascii_alphanumeric() {
                i += 1;
            }
            let word: String = chars[start..i].iter().map(|(_, c)| *c).collect();
            out.push(number_of_word(&word).map_or(Tok::Word(word), Tok::Num));
        } else if chinese_digit(c).is_some() {
            while i < chars.len() && chinese_digit(chars[i].1).is_some() {
                i += 1;
            }
            let run: Vec<u32> = chars[start..i]
                .iter()
                .filter_map(|&(_, c)| chinese_digit(c))
                .collect();
            out.push(chinese_number(&run).map_or(Tok::Char(c), Tok::Num));
        } else {
            out.push(Tok::Char(c));
            i += 1;
        }
        spans.push((chars[start].0, end_of(i)));
    }
    (out, spans)
}

/// Lowercase, full-width ASCII as ASCII.
fn fold_char(c: char) -> char {
    let c = match c as u32 {
        0xFF01..=0xFF5E => char::from_u32(c as u32 - 0xFEE0).unwrap_or(c),
        0x3000 => ' ',
        _ => c,
    };
    c.to_lowercase().next().unwrap_or(c)
}

fn number_of_word(word: &str) -> Option<u32> {
    let digits = word.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    let suffix = &word[digits.len()..];
    if !digits.is_empty() && digits.chars().all(|c| c.is_ascii_digit()) {
        return match suffix {
            "" | "st" | "nd" | "rd" | "th" => digits.parse().ok(),
            _ => None,
        };
    }
    const WORDS: [&str; 12] = [
        "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
        "twelve",
    ];
    WORDS.iter().position(|w| *w == word).map(|p| p as u32 + 1)
}

fn chinese_digit(c: char) -> Option<u32> {
    "零一二三四五六七八九十两"
        .chars()
        .position(|d| d == c)
        .map(|p| match p {
            10 => 10,
            11 => 2,
            p => p as u32,
        })
}

/// 一 … 九十九 from their digit values (十 = 10).
fn chinese_number(run: &[u32]) -> Option<u32> {
    match run {
        [10] => Some(10),
        [d] => Some(*d),
        [10, u] => Some(10 + u),
        [t, 10] => Some(t * 10),
        [t, 10, u] => Some(t * 10 + u),
        _ => None,
    }
}

fn month_of_word(word: &str) -> Option<u32> {
    const MONTHS: [&str; 12] = [
        "january",
        "february",
        "march",
        "april",
        "may",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
    ];
    if let Some(p) = MONTHS.iter().position(|m| *m == word) {
        return Some(p as u32 + 1);
    }
    // Abbreviations; "may" and "march" double as verbs, so they never stand alone anyway.
    const ABBREVIATIONS: [&str; 12] = [
        "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
    ];
    let word = if word == "sept" { "sep" } else { word };
    ABBREVIATIONS
        .iter()
        .position(|m| *m == word)
        .map(|p| p as u32 + 1)
}

/// A fixed phrase: CJK characters or English words.
fn phrase(tokens: &[Tok], text: &str) -> Option<usize> {
    let parts: Vec<Tok> = if text.is_ascii() {
        text.split(' ').map(|w| Tok::Word(w.to_string())).collect()
    } else {
        text.chars().map(Tok::Char).collect()
    };
    (tokens.len() >= parts.len() && tokens[..parts.len()] == parts[..]).then_some(parts.len())
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

fn week_of(date: NaiveDate) -> DateRange {
    let monday = date - Duration::days(date.weekday().num_days_from_monday() as i64);
    DateRange::new(monday, monday + Duration::days(6))
}

fn month_of(year: i32, month: u32) -> Option<DateRange> {
    let first = NaiveDate::from_ymd_opt(year, month, 1)?;
    let next = first.checked_add_months(Months::new(1))?;
    Some(DateRange::new(first, next - Duration::days(1)))
}

fn year_of(year: i32) -> Option<DateRange> {
    Some(DateRange::new(
        NaiveDate::from_ymd_opt(year, 1, 1)?,
        NaiveDate::from_ymd_opt(year, 12, 31)?,
    ))
}

/// How far ahead a date without a year may lie in a query: memories are mostly about the
/// past, but an appointment a few weeks away is asked about too.
pub const LOOKAHEAD_DAYS: i64 = 28;

/// The latest occurrence of month/day at most `lookahead` days after `today`.
fn nearest_date(month: u32, day: u32, today: NaiveDate, lookahead: i64) -> Option<NaiveDate> {
    let limit = today + Duration::days(lookahead);
    (today.year() - 1..=today.year() + 1)
        .rev()
        .filter_map(|y| NaiveDate::from_ymd_opt(y, month, day))
        .find(|d| *d <= limit)
}

/// The latest month of that name starting at most `lookahead` days after `today`.
fn nearest_month(month: u32, today: NaiveDate, lookahead: i64) -> Option<DateRange> {
    let first = nearest_date(month, 1, today, lookahead)?;
    month_of(first.year(), month)
}

fn days_ago(n: u32, today: NaiveDate) -> DateRange {
    let day = today - Duration::days(n as i64);
    let slack = if n >= 3 { 1 } else { 0 };
    DateRange::new(day - Duration::days(slack), day + Duration::days(slack))
}

fn months_ago(n: u32, today: NaiveDate) -> Option<DateRange> {
    let d = today.checked_sub_months(Months::new(n))?;
    month_of(d.year(), d.month())
}

/// A time expression starting at `tokens[0]`: its range and how many tokens it used.
/// A time expression starting at `tokens[0]`: its range, how many tokens it used, and
/// whether it is vague.
fn match_at(tokens: &[Tok], today: NaiveDate, lookahead: i64) -> Option<(DateRange, usize, bool)> {
    let day = |n: i64| DateRange::day(today + Duration::days(n));
    let this_week = DateRange::new(week_of(today).start, today);
    let last_week = week_of(today - Duration::days(7));
    let next_week = week_of(today + Duration::days(7));
    let weekend = |week: DateRange| {
        DateRange::new(
            week.start + Duration::days(5),
            week.start + Duration::days(6),
        )
    };
    let recent = DateRange::new(today - Duration::days(13), today);
    let past_week = DateRange::new(today - Duration::days(6), today);
    let this_month = DateRange::new(today.with_day(1)?, today);
    let next_month = today
        .checked_add_months(Months::new(1))
        .and_then(|d| month_of(d.year(), d.month()));
    const VAGUE: bool = true;
    let relative: [(&[&str], Option<DateRange>, bool); 22] = [
        (&["大前天"], Some(day(-3)), false),
        (&["前天", "day before yesterday"], Some(day(-2)), false),
        (&["昨天", "昨日", "昨晚", "yesterday"], Some(day(-1)), false),
        (
            &["今天", "今日", "今晚", "today", "tonight"],
            Some(day(0)),
            false,
        ),
        (&["大后天"], Some(day(3)), false),
        (&["后天", "day after tomorrow"], Some(day(2)), false),
        (&["明天", "明日", "明晚", "tomorrow"], Some(day(1)), false),
        (
            &["这周末", "这个周末", "本周末", "this weekend"],
            Some(weekend(week_of(today))),
            false,
        ),
        (
            &["下周末", "下个周末", "next weekend"],
            Some(weekend(next_week)),
            false,
        ),
        (
            &["上周末", "上个周末", "last weekend"],
            Some(weekend(last_week)),
            false,
        ),
        (
            &["上个星期", "上星期", "上礼拜", "上周", "last week"],
            Some(last_week),
            false,
        ),
        (
            &["这个星期", "这星期", "这礼拜", "这周", "本周", "this week"],
            Some(this_week),
            false,
        ),
        (
            &["下个星期", "下星期", "下礼拜", "下周", "next week"],
            Some(next_week),
            false,
        ),
        (
            &["这几天", "past week", "past few days", "last few days"],
            Some(past_week),
            VAGUE,
        ),
        (
            &["最近", "近来", "近期", "recently", "lately", "these days"],
            Some(recent),
            VAGUE,
        ),
        (
            &["上个月", "上月", "last month"],
            months_ago(1, today),
            false,
        ),
        (&["这个月", "本月", "this month"], Some(this_month), false),
        (&["下个月", "下月", "next month"], next_month, false),
        (&["去年", "last year"], year_of(today.year() - 1), false),
        (&["今年", "this year"], year_of(today.year()), false),
        (&["明年", "next year"], year_of(today.year() + 1), false),
        (&["前年"], year_of(today.year() - 2), false),
    ];
    for (phrases, range, vague) in relative {
        if let Some(used) = first_phrase(tokens, phrases) {
            return range.map(|r| (r, used, vague));
        }
    }
    match_numeric(tokens, today, lookahead).map(|(r, used)| (r, used, false))
}

fn match_numeric(tokens: &[Tok], today: NaiveDate, lookahead: i64) -> Option<(DateRange, usize)> {
    let at = |i: usize| tokens.get(i);
    let num = |i: usize| match tokens.get(i) {
        Some(Tok::Num(n)) => Some(*n),
        _ => None,
    };
    let date = |y: i32, m: u32, d: u32| NaiveDate::from_ymd_opt(y, m, d).map(DateRange::day);

    // 2026-04-08, 2026/4/8, 2026.4.8
    if let (Some(y), Some(m), Some(d)) = (num(0), num(2), num(4)) {
        if y >= 1000 && is_char(at(1), "-/.") && at(3) == at(1) {
            if let Some(r) = date(y as i32, m, d) {
                return Some((r, 5));
            }
        }
    }
    if let Some(n) = num(0) {
        // Chinese: N年M月D日, N年M月, N年, M月D日/号, M月(份), N天前, N周前, N个月前, N年前.
        if is_char(at(1), "年") {
            if n >= 1000 {
                if let (Some(m), true) = (num(2), is_char(at(3), "月")) {
                    if let (Some(d), true) = (num(4), is_char(at(5), "日号")) {
                        return date(n as i32, m, d).map(|r| (r, 6));
                    }
                    return month_of(n as i32, m).map(|r| (r, 4));
                }
                return year_of(n as i32).map(|r| (r, 2));
            }
            if is_char(at(2), "前") {
                return year_of(today.year() - n as i32).map(|r| (r, 3));
            }
        }
        if is_char(at(1), "天日") && is_char(at(2), "前") {
            return Some((days_ago(n, today), 3));
        }
        let week_unit = first_phrase(&tokens[1..], &["个星期", "个礼拜", "星期", "礼拜", "周"]);
        if let Some(used) = week_unit {
            if is_char(at(1 + used), "前") {
                let week = today - Duration::days(7 * n as i64);
                let r = DateRange::new(week - Duration::days(3), week + Duration::days(3));
                return Some((r, 2 + used));
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
        if let Some(r) = english_ago(n, &tokens[1..], today) {
            return Some(r);
        }
        let of = usize::from(is_word(at(1), &["of"]));
        if let Some(Tok::Word(w)) = at(1 + of) {
            if let Some(m) = month_of_word(w) {
                let (year, used) = english_year(&tokens[2 + of..]);
                let found = match year {
                    Some(y) => NaiveDate::from_ymd_opt(y, m, n),
                    None => nearest_date(m, n, today, lookahead),
                };
                if let Some(d) = found {
                    return Some((DateRange::day(d), 2 + of + used));
                }
            }
        }
    }
    if is_word(at(0), &["a", "an", "one"]) {
        if let Some(found) = english_ago(1, &tokens[1..], today) {
            return Some(found);
        }
    }
    // Month D [Year]; Month Year; in Month.
    let month_at = |i: usize| match tokens.get(i) {
        Some(Tok::Word(w)) => month_of_word(w),
        _ => None,
    };
    if let Some(m) = month_at(0) {
        if let Some(d) = num(1).filter(|d| (1..=31).contains(d)) {
            let (year, used) = english_year(&tokens[2..]);
            let found = match year {
                Some(y) => NaiveDate::from_ymd_opt(y, m, d),
                None => nearest_date(m, d, today, lookahead),
            };
            return found.map(|d| (DateRange::day(d), 2 + used));
        }
        if let Some(y) = num(1).filter(|y| *y >= 1000) {
            return month_of(y as i32, m).map(|r| (r, 2));
        }
    }
    if is_word(at(0), &["in", "during", "since"]) {
        if let Some(m) = month_at(1) {
            return nearest_month(m, today, lookahead).map(|r| (r, 2));
        }
    }
    None
}

/// ", 2023" or "2023" after a day and month.
fn english_year(tokens: &[Tok]) -> (Option<i32>, usize) {
    let comma = usize::from(matches!(tokens.first(), Some(Tok::Char(','))));
    match tokens.get(comma) {
        Some(Tok::Num(y)) if *y >= 1000 => (Some(*y as i32), comma + 1),
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
        "day" => days_ago(n, today),
        "week" => {
            let day = today - Duration::days(7 * n as i64);
            DateRange::new(day - Duration::days(3), day + Duration::days(3))
        }
        "month" => months_ago(n, today)?,
        "year" => year_of(today.year() - n as i32)?,
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

    #[test]
    fn contains_uses_the_utc_date() {
        let r = DateRange::day(d("2026-04-07"));
        assert!(r.contains(Timestamp::parse("2026-04-07T23:59:00Z").unwrap()));
        assert!(!r.contains(Timestamp::parse("2026-04-08T00:00:00Z").unwrap()));
    }
}
