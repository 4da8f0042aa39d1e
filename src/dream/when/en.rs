//! English dates ("tomorrow", "next Monday", "May 8th") and times ("3pm", "at 10:30").

use super::*;

pub(super) const WEEKDAYS: [(&str, Weekday); 7] = [
    ("monday", Weekday::Mon),
    ("tuesday", Weekday::Tue),
    ("wednesday", Weekday::Wed),
    ("thursday", Weekday::Thu),
    ("friday", Weekday::Fri),
    ("saturday", Weekday::Sat),
    ("sunday", Weekday::Sun),
];

pub(super) const MONTHS: [&str; 12] = [
    "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
];

/// Words of `lower` with their byte spans.
pub(super) fn words(lower: &str) -> Vec<(&str, usize, usize)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in lower.char_indices() {
        let part = c.is_ascii_alphanumeric() || c == ':' || c == '-';
        match (part, start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                out.push((&lower[s..i], s, i));
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        out.push((&lower[s..], s, lower.len()));
    }
    out
}

pub(super) fn month_of(word: &str) -> Option<u32> {
    if word.len() < 3 || word == "mayor" {
        return None;
    }
    MONTHS
        .iter()
        .position(|m| word.starts_with(m) && (word.len() == 3 || full_month(word)))
        .map(|p| p as u32 + 1)
}

pub(super) fn full_month(word: &str) -> bool {
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

pub(super) fn ordinal_day(word: &str) -> Option<u32> {
    let digits = word
        .strip_suffix("st")
        .or_else(|| word.strip_suffix("nd"))
        .or_else(|| word.strip_suffix("rd"))
        .or_else(|| word.strip_suffix("th"))
        .unwrap_or(word);
    digits.parse().ok().filter(|d| (1..=31).contains(d))
}

pub(super) fn en_date(lower: &str, today: NaiveDate) -> Option<(NaiveDate, (usize, usize))> {
    let w = words(lower);
    for (k, &(word, s, e)) in w.iter().enumerate() {
        let next = w.get(k + 1);
        let prev = k.checked_sub(1).map(|p| w[p].0);
        if word == "tomorrow" {
            if k >= 3 && w[k - 1].0 == "after" && w[k - 2].0 == "day" && w[k - 3].0 == "the" {
                return Some((calendar::plus_days(today, 2)?, (w[k - 3].1, e)));
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
                Some("next") => (w[k - 1].1, next_week_day(today, wd)),
                Some("last" | "past") => (w[k - 1].1, previous(today, wd)),
                Some("this" | "on" | "coming") => (w[k - 1].1, upcoming(today, wd)),
                _ => (s, upcoming(today, wd)),
            };
            return Some((date?, (start, e)));
        }
        if let Ok(date) = NaiveDate::parse_from_str(word, "%Y-%m-%d") {
            return Some((date, (s, e)));
        }
        if let Some(month) = month_of(word) {
            // "May 8", "May 8th, 2026"
            if let Some(day) = next.and_then(|n| ordinal_day(n.0)) {
                let mut end = next.map_or(e, |n| n.2);
                let year = w
                    .get(k + 2)
                    .and_then(|y| y.0.parse::<i32>().ok())
                    .filter(|y| *y > 1900);
                if year.is_some() {
                    end = w[k + 2].2;
                }
                let date = month_day(today, year, Some(month), day)?;
                return Some((date, (s, end)));
            }
            // "8 May", "8th of May"
            let day_word = match prev {
                Some("of") if k >= 2 => Some(&w[k - 2]),
                Some(_) => Some(&w[k - 1]),
                None => None,
            };
            if let Some(&(dw, ds, _)) = day_word {
                if let Some(day) = ordinal_day(dw) {
                    return Some((month_day(today, None, Some(month), day)?, (ds, e)));
                }
            }
        }
        // "on the 8th"
        if word == "the" && prev == Some("on") {
            if let Some(&(n, _, ne)) = next {
                if n.chars().next().is_some_and(|c| c.is_ascii_digit()) && n.len() > 2 {
                    if let Some(day) = ordinal_day(n) {
                        return Some((month_day(today, None, None, day)?, (w[k - 1].1, ne)));
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
        let next = w.get(k + 1).map(|n| n.0);
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
        let at_before = k > 0 && w[k - 1].0 == "at";
        let (ampm, end) = match (suffix, next) {
            ("am" | "pm", _) => (suffix, e),
            ("", Some(n @ ("am" | "pm"))) => (n, w[k + 1].2),
            ("", Some("o")) => ("", w.get(k + 2).map_or(e, |c| c.2)),
            _ if num.contains(':') || at_before => ("", e),
            _ => continue,
        };
        let hour = match ampm {
            "pm" if h < 12 => h + 12,
            "am" if h == 12 => 0,
            "" if evening && h < 12 => h + 12,
            _ => h,
        };
        let start = if at_before { w[k - 1].1 } else { s };
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
    crate::dream::text::find_word(lower, word).is_some()
}
