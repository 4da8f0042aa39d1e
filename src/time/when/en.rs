//! English dates ("tomorrow", "next Monday", "May 8th") and times ("3pm", "at 10:30").
#![deny(
    clippy::indexing_slicing,
    clippy::string_slice,
    clippy::arithmetic_side_effects
)]

use super::*;

/// Words of `lower` with their byte spans.
pub(super) fn words(lower: &str) -> Vec<(&str, usize, usize)> {
    let mut out = Vec::new();
    let mut start = None;
    let mut push = |s: usize, e: usize| {
        if let Some(word) = lower.get(s..e) {
            out.push((word, s, e));
        }
    };
    for (i, c) in lower.char_indices() {
        let part = c.is_ascii_alphanumeric() || c == ':' || c == '-';
        match (part, start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                push(s, i);
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        push(s, lower.len());
    }
    out
}

pub(super) fn ordinal_day(word: &str) -> Option<u32> {
    let digits = word
        .strip_suffix("st")
        .or_else(|| word.strip_suffix("nd"))
        .or_else(|| word.strip_suffix("rd"))
        .or_else(|| word.strip_suffix("th"))
        .unwrap_or(word);
    digits.parse().ok().filter(|d| (1..=31).contains(d))
}

pub(super) fn en_date(
    lower: &str,
    today: NaiveDate,
    back: bool,
) -> Option<(NaiveDate, (usize, usize))> {
    let w = words(lower);
    // The word `back` places before word `k`, and the one `ahead` after it.
    let before = |k: usize, back: usize| k.checked_sub(back).and_then(|i| w.get(i));
    let after = |k: usize, ahead: usize| k.checked_add(ahead).and_then(|i| w.get(i));
    let word_before = |k: usize, back: usize| before(k, back).map(|x| x.0);
    let mut habit = false;
    for (k, &(word, s, e)) in w.iter().enumerate() {
        let next = after(k, 1);
        let prev = word_before(k, 1);
        // Where a phrase that starts `back` words earlier begins.
        let start_before = |back: usize| before(k, back).map_or(s, |x| x.1);
        if word == "tomorrow" {
            if (word_before(k, 1), word_before(k, 2), word_before(k, 3))
                == (Some("after"), Some("day"), Some("the"))
            {
                return Some((calendar::plus_days(today, 2)?, (start_before(3), e)));
            }
            return Some((calendar::plus_days(today, 1)?, (s, e)));
        }
        match word {
            "today" | "tonight" => return Some((today, (s, e))),
            "yesterday" => return Some((calendar::minus_days(today, 1)?, (s, e))),
            _ => {}
        }
        if let Some(&(_, wd)) = WEEKDAYS.iter().find(|(n, _)| *n == word) {
            let (start, date) = match prev {
                Some("next") => (start_before(1), next_week_day(today, wd)),
                Some("last" | "past") => (start_before(1), previous(today, wd)),
                Some("this" | "coming") => (start_before(1), upcoming(today, wd)),
                Some("on") => (start_before(1), open_weekday(today, wd, back)),
                // "every Thursday", "every Monday, Wednesday and Friday": a habit, not a day.
                Some("every" | "each") => {
                    habit = true;
                    continue;
                }
                _ if habit => continue,
                _ => (s, open_weekday(today, wd, back)),
            };
            return Some((date?, (start, e)));
        }
        if let Some(date) = crate::time::parse_ymd(word) {
            return Some((date, (s, e)));
        }
        if let Some(month) = month_of(word) {
            // "May 8", "May 8th, 2026"
            if let Some(day) = next.and_then(|n| ordinal_day(n.0)) {
                let mut end = next.map_or(e, |n| n.2);
                let year = year_word(after(k, 2)).map(|(y, y_end)| {
                    end = y_end;
                    y
                });
                let date = month_day(today, year, Some(month), day, back)?;
                return Some((date, (s, end)));
            }
            // "8 May", "8th of May", "the 17th and 18th of April" (the first day)
            let back_to_day = match prev {
                Some("of") if word_before(k, 3) == Some("and") => [4, 2]
                    .into_iter()
                    .find(|&b| before(k, b).is_some_and(|d| ordinal_day(d.0).is_some())),
                Some("of") => Some(2),
                Some(_) => Some(1),
                None => None,
            };
            let day = back_to_day.and_then(|b| Some((b, ordinal_day(before(k, b)?.0)?)));
            if let Some((b, day)) = day {
                // "8 May 2020": the year said is the year.
                let (year, end) = year_word(next).map_or((None, e), |(y, ye)| (Some(y), ye));
                // "on the 8th of May" is restated "on 2026-05-08".
                let b = if word_before(k, b.saturating_add(1)) == Some("the") {
                    b.saturating_add(1)
                } else {
                    b
                };
                let date = month_day(today, year, Some(month), day, back)?;
                return Some((date, (start_before(b), end)));
            }
        }
        // "on the 8th", "on the 15th of last month"; not "on the 6th floor", and "on the 8th
        // of May" is May's (read at the month's word).
        if word == "the" && prev == Some("on") {
            let Some(&(n, _, ne)) = next else { continue };
            let Some(day) = ordinal_day(n)
                .filter(|_| n.len() > 2 && n.bytes().next().is_some_and(|c| c.is_ascii_digit()))
            else {
                continue;
            };
            // "the 15th and 16th of next month": the first day, the month after the second.
            let mut at = k.saturating_add(2);
            if w.get(at).map(|x| x.0) == Some("and")
                && w.get(at.saturating_add(1))
                    .is_some_and(|x| ordinal_day(x.0).is_some())
            {
                at = at.saturating_add(2);
            }
            let follower = w.get(at);
            let month = match follower.map(|x| x.0) {
                None => Some((None, ne)),
                Some("of") => {
                    relative_month(&w, at.saturating_add(1)).map(|(step, end)| (Some(step), end))
                }
                // Punctuation after the day ("on the 8th, we …") or a word that starts a clause.
                Some(f) if DAY_FOLLOWERS.split('|').any(|x| x == f) => Some((None, ne)),
                Some(_) => follower
                    .and_then(|x| lower.get(ne..x.1))
                    .filter(|gap| !gap.trim().is_empty())
                    .map(|_| (None, ne)),
            };
            let Some((step, end)) = month else { continue };
            let date = match step {
                None => month_day(today, None, None, day, back)?,
                Some(step) => {
                    let month = match step {
                        1 => calendar::plus_months(today, 1)?,
                        -1 => calendar::minus_months(today, 1)?,
                        _ => today,
                    };
                    NaiveDate::from_ymd_opt(month.year(), month.month(), day)?
                }
            };
            return Some((date, (start_before(1), end)));
        }
    }
    None
}

/// Words that may follow a day of the month said alone ("on the 8th when we met"); any other
/// word makes it an ordinal of something else ("on the 6th floor").
const DAY_FOLLOWERS: &str = "and|at|as|after|before|because|but|for|he|i|if|in|it|my|or|our|\
    she|so|that|then|they|this|to|too|was|we|were|when|which|while|will|with|you";

/// A year said right after a date: four digits ("May 8, 1643", "8 May 2020").
fn year_word(word: Option<&(&str, usize, usize)>) -> Option<(i32, usize)> {
    let &(y, _, end) = word?;
    let digits = y.len() == 4 && y.bytes().all(|c| c.is_ascii_digit());
    let year = y.parse().ok().filter(|_| digits)?;
    Some((year, end))
}

/// The month after "of" in "the 15th of …", from today's: `Some((-1 | 0 | 1, end))` for last,
/// this or next month; `None` for anything else (a month's name is read at its
/// word; "the 20th of the line" is no date).
fn relative_month(w: &[(&str, usize, usize)], at: usize) -> Option<(i32, usize)> {
    let word = |i: usize| w.get(at.checked_add(i)?).map(|x| x.0);
    let skip = usize::from(word(0) == Some("the"));
    let month = w.get(at.checked_add(skip)?.checked_add(1)?)?;
    if month.0 != "month" {
        return None;
    }
    let step = match word(skip)? {
        "last" | "previous" | "past" => -1,
        "next" | "following" | "coming" => 1,
        "this" => 0,
        _ => return None,
    };
    Some((step, month.2))
}

pub(super) fn en_time(lower: &str) -> Option<((u32, u32), (usize, usize))> {
    let w = words(lower);
    let evening = ["afternoon", "evening", "tonight", "night"]
        .iter()
        .any(|p| find_ascii_word(lower, p));
    for (k, &(word, s, e)) in w.iter().enumerate() {
        let next = k.checked_add(1).and_then(|i| w.get(i));
        let prev = k.checked_sub(1).and_then(|i| w.get(i));
        if word == "noon" {
            return Some(((12, 0), (s, e)));
        }
        // "3pm", "3:30pm", "15:00", "3 pm", "at 3"
        let (num, suffix) = split_suffix(word);
        let parsed = match num.split_once(':') {
            Some((h, m)) => h
                .parse::<u32>()
                .ok()
                .zip(m.parse::<u32>().ok().filter(|m| *m < 60)),
            None => num.parse::<u32>().ok().map(|h| (h, 0)),
        };
        let Some((h, m)) = parsed else {
            continue;
        };
        if h > 24 {
            continue;
        }
        let at_before = prev.is_some_and(|p| p.0 == "at");
        let (ampm, end) = match (suffix, next) {
            ("am" | "pm", _) => (suffix, e),
            ("", Some(&(n @ ("am" | "pm"), _, ne))) => (n, ne),
            ("", Some(&("o", _, _))) => (
                "",
                k.checked_add(2).and_then(|i| w.get(i)).map_or(e, |c| c.2),
            ),
            _ if num.contains(':') || at_before => ("", e),
            _ => continue,
        };
        // h is at most 24 here.
        let hour = match ampm {
            "pm" if h < 12 => h.saturating_add(12),
            "am" if h == 12 => 0,
            "" if evening && h < 12 => h.saturating_add(12),
            _ => h,
        };
        let start = match prev {
            Some(p) if at_before => p.1,
            _ => s,
        };
        return Some(((hour % 24, m), (start, end)));
    }
    None
}

pub(super) fn split_suffix(word: &str) -> (&str, &str) {
    for suffix in ["am", "pm"] {
        if let Some(n) = word.strip_suffix(suffix) {
            if !n.is_empty() && n.chars().all(|c| c.is_ascii_digit() || c == ':') {
                return (n, suffix);
            }
        }
    }
    (word, "")
}

pub(super) fn find_ascii_word(lower: &str, word: &str) -> bool {
    crate::text::find_word(lower, word).is_some()
}
