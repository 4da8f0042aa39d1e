//! Chinese dates ("明天", "下周一", "5月8号") and times ("下午三点半", "10:30").
#![deny(
    clippy::indexing_slicing,
    clippy::string_slice,
    clippy::arithmetic_side_effects
)]

use super::*;

/// `s` from byte `at` on (empty past the end or inside a character).
fn from(s: &str, at: usize) -> &str {
    s.get(at..).unwrap_or_default()
}

pub(super) fn zh_weekday(c: char) -> Option<Weekday> {
    Some(match c {
        '一' | '1' => Weekday::Mon,
        '二' | '2' => Weekday::Tue,
        '三' | '3' => Weekday::Wed,
        '四' | '4' => Weekday::Thu,
        '五' | '5' => Weekday::Fri,
        '六' | '6' => Weekday::Sat,
        '日' | '天' | '7' => Weekday::Sun,
        _ => return None,
    })
}

pub(super) const ZH_DAYS: [(&str, i64); 12] = [
    ("大后天", 3),
    ("后天", 2),
    ("明天", 1),
    ("明早", 1),
    ("明晚", 1),
    ("明日", 1),
    ("今天", 0),
    ("今晚", 0),
    ("今早", 0),
    ("今日", 0),
    ("昨天", -1),
    ("前天", -2),
];

/// Holidays that fall on the same day every year (lunar ones do not, and are not read).
const ZH_HOLIDAYS: &[(&[&str], u32, u32)] = &[
    (&["元旦"], 1, 1),
    (&["情人节"], 2, 14),
    (&["五一", "劳动节"], 5, 1),
    (&["六一", "儿童节"], 6, 1),
    // Not a bare "国庆": it is also a given name (王国庆).
    (&["国庆节", "国庆假期", "国庆长假"], 10, 1),
    (&["双十一", "光棍节"], 11, 11),
    (&["平安夜"], 12, 24),
    (&["圣诞节", "圣诞"], 12, 25),
];

/// Whether `words` are a holiday's name: restated, a name keeps its words and is dated
/// beside them ("圣诞礼物" is a kind of present, not "2026-12-25礼物").
pub(super) fn zh_holiday(words: &str) -> bool {
    ZH_HOLIDAYS
        .iter()
        .any(|(names, _, _)| names.contains(&words))
}

/// The first date of `text`; one said without its year or week is read `back` (its last
/// occurrence up to today) or ahead.
pub(super) fn zh_date(
    text: &str,
    today: NaiveDate,
    back: bool,
) -> Option<(NaiveDate, (usize, usize))> {
    // Past quoted words as a whole: in “下周五” no "周五" is read either.
    let mut quoted_to = 0;
    for (i, _) in text.char_indices() {
        if i < quoted_to {
            continue;
        }
        if let Some(found) = zh_date_at(from(text, i), today, back) {
            let span = (i, i.saturating_add(found.1));
            // "每周六", "每个星期天", "每月8号": a habit, not a day.
            let before = text.get(..i).unwrap_or_default();
            if ["每", "每个", "每月", "每个月"]
                .iter()
                .any(|h| before.ends_with(h))
            {
                quoted_to = span.1;
                continue;
            }
            if !crate::time::quoted(text, span) {
                return Some((found.0, span));
            }
            quoted_to = span.1;
        }
    }
    None
}

pub(super) fn zh_date_at(rest: &str, today: NaiveDate, back: bool) -> Option<(NaiveDate, usize)> {
    for (word, offset) in ZH_DAYS {
        if rest.starts_with(word) {
            return Some((calendar::plus_days(today, offset)?, word.len()));
        }
    }
    // 上周六, 上个星期五: a day of last week.
    for prefix in ["上个", "上"] {
        let Some(after_prefix) = rest.strip_prefix(prefix) else {
            continue;
        };
        for unit in ["星期", "礼拜", "周"] {
            let Some(day) = after_prefix.strip_prefix(unit) else {
                continue;
            };
            let c = day.chars().next()?;
            let date = week_day(today, zh_weekday(c)?, -1)?;
            let used = prefix
                .len()
                .saturating_add(unit.len())
                .saturating_add(c.len_utf8());
            return Some((date, used));
        }
    }
    // 下周一, 下个星期五, 这周三, 本周日, 周六, 星期天, 礼拜二
    let (next_week, after_prefix) = ["下个", "下"]
        .iter()
        .find(|p| rest.starts_with(**p))
        .map_or((false, 0), |p| (true, p.len()));
    let skip_this = ["这个", "这", "本"]
        .iter()
        .find(|p| from(rest, after_prefix).starts_with(**p))
        .map_or(0, |p| if next_week { 0 } else { p.len() });
    let at = after_prefix.saturating_add(skip_this);
    for unit in ["星期", "礼拜", "周"] {
        if from(rest, at).starts_with(unit) {
            let after = at.saturating_add(unit.len());
            let c = from(rest, after).chars().next()?;
            let wd = zh_weekday(c)?;
            // "这周三" is this week's, past or ahead; a bare "周三" the next from today on
            // (or the last, when the sentence tells of it as done: [`find`]).
            let date = if next_week {
                next_week_day(today, wd)?
            } else if skip_this > 0 {
                week_day(today, wd, 0)?
            } else {
                open_weekday(today, wd, back)?
            };
            return Some((date, after.saturating_add(c.len_utf8())));
        }
    }
    if next_week {
        return None;
    }
    // Holidays on a fixed day of the year: "五一打算去厦门" is "5月1日…".
    for (names, month, day) in ZH_HOLIDAYS {
        if let Some(name) = names.iter().find(|n| rest.starts_with(**n)) {
            return Some((
                month_day(today, None, Some(*month), *day, back)?,
                name.len(),
            ));
        }
    }
    // 2026年5月8日, 5月8号, 8号
    let (year, after_year) = match zh_number(rest) {
        Some((y, n)) if y >= 1900 && from(rest, n).starts_with('年') => {
            (i32::try_from(y).ok(), n.saturating_add('年'.len_utf8()))
        }
        _ => (None, 0),
    };
    let (month, after_month) = match zh_number(from(rest, after_year)) {
        Some((m, n)) if from(rest, after_year.saturating_add(n)).starts_with('月') => (
            Some(m),
            after_year.saturating_add(n).saturating_add('月'.len_utf8()),
        ),
        _ => (None, after_year),
    };
    let (day, n) = zh_number(from(rest, after_month))?;
    let day_end = after_month.saturating_add(n);
    let marker = ['日', '号']
        .into_iter()
        .find(|m| from(rest, day_end).starts_with(*m))?;
    let date = month_day(today, year, month, day, back)?;
    Some((date, day_end.saturating_add(marker.len_utf8())))
}

pub(super) fn zh_time(text: &str) -> Option<((u32, u32), (usize, usize))> {
    const PERIODS: [(&str, u32); 10] = [
        ("凌晨", 0),
        ("早上", 0),
        ("上午", 0),
        ("早晨", 0),
        ("中午", 12),
        ("下午", 12),
        ("傍晚", 12),
        ("晚上", 12),
        ("今晚", 12),
        ("明晚", 12),
    ];
    for (i, _) in text.char_indices() {
        let rest = from(text, i);
        let (pm, after_period) = PERIODS
            .iter()
            .find(|(p, _)| rest.starts_with(p))
            .map_or((None, 0), |(p, add)| (Some(*add), p.len()));
        let Some((hour, n)) = zh_number(from(rest, after_period)) else {
            continue;
        };
        // "快一点" / "简短一点" mean "a bit", not one o'clock.
        if pm.is_none() && from(rest, after_period).starts_with('一') {
            continue;
        }
        let mut end = after_period.saturating_add(n);
        let (minute, used) = if from(rest, end).starts_with(['点', '時']) {
            end = end.saturating_add('点'.len_utf8());
            let after = from(rest, end);
            if after.starts_with('半') {
                (30, '半'.len_utf8())
            } else if after.starts_with("一刻") {
                (15, "一刻".len())
            } else if let Some((m, k)) = zh_number(after).filter(|(m, _)| *m < 60) {
                let unit = if from(after, k).starts_with('分') {
                    '分'.len_utf8()
                } else {
                    0
                };
                (m, k.saturating_add(unit))
            } else {
                (0, 0)
            }
        } else if let Some(after) = from(rest, end).strip_prefix(':') {
            match zh_number(after).filter(|(m, k)| *m < 60 && *k == 2) {
                Some((m, k)) => (m, k.saturating_add(1)),
                None => continue,
            }
        } else {
            continue;
        };
        if hour > 24 {
            continue;
        }
        let hour = match pm {
            Some(12) if hour < 12 => hour.saturating_add(12),
            _ => hour,
        };
        return Some((
            (hour % 24, minute),
            (i, i.saturating_add(end).saturating_add(used)),
        ));
    }
    None
}
