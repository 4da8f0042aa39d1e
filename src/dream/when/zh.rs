//! Chinese dates ("明天", "下周一", "5月8号") and times ("下午三点半", "10:30").

use super::*;

pub(super) fn zh_digit(c: char) -> Option<u32> {
    "零一二三四五六七八九"
        .chars()
        .position(|d| d == c)
        .map(|p| p as u32)
        .or(match c {
            '两' => Some(2),
            '〇' => Some(0),
            _ => c.to_digit(10),
        })
}

/// A number written in Arabic digits or Chinese numerals up to 99, at the start of `s`:
/// the value and the bytes it used.
pub(super) fn zh_number(s: &str) -> Option<(u32, usize)> {
    let mut value: Option<u32> = None;
    let mut tens_seen = false;
    let mut used = 0;
    for c in s.chars() {
        if c == '十' {
            value = Some(value.unwrap_or(1) * 10);
            tens_seen = true;
        } else if let Some(d) = zh_digit(c) {
            value = Some(match value {
                Some(v) if tens_seen => v + d,
                Some(v) => v * 10 + d,
                None => d,
            });
        } else {
            break;
        }
        used += c.len_utf8();
    }
    value.filter(|v| *v < 10_000).map(|v| (v, used))
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

pub(super) fn zh_date(text: &str, today: NaiveDate) -> Option<(NaiveDate, (usize, usize))> {
    for (i, _) in text.char_indices() {
        let rest = &text[i..];
        if let Some(found) = zh_date_at(rest, today) {
            return Some((found.0, (i, i + found.1)));
        }
    }
    None
}

pub(super) fn zh_date_at(rest: &str, today: NaiveDate) -> Option<(NaiveDate, usize)> {
    for (word, offset) in ZH_DAYS {
        if rest.starts_with(word) {
            return Some((calendar::plus_days(today, offset)?, word.len()));
        }
    }
    // 下周一, 下个星期五, 这周三, 本周日, 周六, 星期天, 礼拜二
    let (next_week, after_prefix) = ["下个", "下"]
        .iter()
        .find(|p| rest.starts_with(**p))
        .map_or((false, 0), |p| (true, p.len()));
    let skip_this = ["这个", "这", "本"]
        .iter()
        .find(|p| rest[after_prefix..].starts_with(**p))
        .map_or(0, |p| if next_week { 0 } else { p.len() });
    let at = after_prefix + skip_this;
    for unit in ["星期", "礼拜", "周"] {
        if rest[at..].starts_with(unit) {
            let after = at + unit.len();
            let c = rest[after..].chars().next()?;
            let wd = zh_weekday(c)?;
            let date = if next_week {
                next_week_day(today, wd)?
            } else {
                upcoming(today, wd)?
            };
            return Some((date, after + c.len_utf8()));
        }
    }
    if next_week {
        return None;
    }
    // 2026年5月8日, 5月8号, 8号
    let (year, after_year) = match zh_number(rest) {
        Some((y, n)) if y >= 1900 && rest[n..].starts_with('年') => {
            (i32::try_from(y).ok(), n + '年'.len_utf8())
        }
        _ => (None, 0),
    };
    let (month, after_month) = match zh_number(&rest[after_year..]) {
        Some((m, n)) if rest[after_year + n..].starts_with('月') => {
            (Some(m), after_year + n + '月'.len_utf8())
        }
        _ => (None, after_year),
    };
    let (day, n) = zh_number(&rest[after_month..])?;
    let tail = &rest[after_month + n..];
    let marker = ['日', '号'].into_iter().find(|m| tail.starts_with(*m))?;
    let date = month_day(today, year, month, day)?;
    Some((date, after_month + n + marker.len_utf8()))
}

pub(super) fn zh_time(text: &str) -> Option<((u32, u32), (usize, usize))> {
    const PERIODS: [(&str, u32); 9] = [
        ("凌晨", 0),
        ("早上", 0),
        ("上午", 0),
        ("早晨", 0),
        ("中午", 12),
        ("下午", 12),
        ("傍晚", 12),
        ("晚上", 12),
        ("今晚", 12),
    ];
    for (i, _) in text.char_indices() {
        let rest = &text[i..];
        let (pm, after_period) = PERIODS
            .iter()
            .find(|(p, _)| rest.starts_with(p))
            .map_or((None, 0), |(p, add)| (Some(*add), p.len()));
        let Some((hour, n)) = zh_number(&rest[after_period..]) else {
            continue;
        };
        // "快一点" / "简短一点" mean "a bit", not one o'clock.
        if pm.is_none() && rest[after_period..].starts_with('一') {
            continue;
        }
        let mut end = after_period + n;
        let (minute, used) = if rest[end..].starts_with('点') || rest[end..].starts_with('時') {
            end += '点'.len_utf8();
            let after = &rest[end..];
            if after.starts_with('半') {
                (30, '半'.len_utf8())
            } else if after.starts_with("一刻") {
                (15, "一刻".len())
            } else if let Some((m, k)) = zh_number(after).filter(|(m, _)| *m < 60) {
                let k = k + if after[k..].starts_with('分') {
                    '分'.len_utf8()
                } else {
                    0
                };
                (m, k)
            } else {
                (0, 0)
            }
        } else if let Some(after) = rest[end..].strip_prefix(':') {
            match zh_number(after).filter(|(m, k)| *m < 60 && *k == 2) {
                Some((m, k)) => (m, 1 + k),
                None => continue,
            }
        } else {
            continue;
        };
        if hour > 24 {
            continue;
        }
        let hour = match pm {
            Some(12) if hour < 12 => hour + 12,
            _ => hour,
        };
        return Some(((hour % 24, minute), (i, i + end + used)));
    }
    None
}
