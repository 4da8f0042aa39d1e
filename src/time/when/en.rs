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
                let year = after(k, 2).and_then(|y| Some((y.0.parse::<i32>().ok()?, y.2)));
                let year = match year {
                    Some((y, y_end)) if y > 1900 => {
                        end = y_end;
                        Some(y)
                    }
                    _ => None,
                };
                let date = month_day(today, year, Some(month), day, back)?;
                return Some((date, (s, end)));
            }
            // "8 May", "8th of May"
            let day_word = match prev {
                Some("of") => before(k, 2),
                Some(_) => before(k, 1),
                None => None,
            };
            if let Some(&(dw, ds, _)) = day_word {
                if let Some(day) = ordinal_day(dw) {
                    return Some((month_day(today, None, Some(month), day, back)?, (ds, e)));
                }
            }
        }
        // "on the 8th"
        if word == "the" && prev == Some("on") {
            if let Some(&(n, _, ne)) = next {
                if n.chars().next().is_some_and(|c| c.is_ascii_digit()) && n.len() > 2 {
                    if let Some(day) = ordinal_day(n) {
                        return Some((
                            month_day(today, None, None, day, back)?,
                            (start_before(1), ne),
                        ));
                    }
                }
            }
        }
    }
    None
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
