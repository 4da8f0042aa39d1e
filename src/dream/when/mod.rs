//! Dates and times said in conversation ("明天下午三点", "下周一", "5月8号", "May 8 at 3pm",
//! "next Friday"), resolved against the day the turn was said.
//!
//! Weekdays: "下周X" / "next X" is X of the next calendar week (weeks start Monday); a bare
//! "周X" / "on X" / "this X" is the next X from today on. A month and day without a year is
//! its next occurrence from today on.
//!
//! Without a day, the shared grammar of retrieval ([`crate::retrieval::timeparse`]) names a
//! range ("下周", "下个月", "next month", "in June", "去年"), looking ahead almost a year;
//! vague stretches ("最近", "lately") are not dates of anything.

mod en;
mod zh;

use chrono::{Datelike, Duration, NaiveDate, Weekday};
use en::*;
use zh::*;

/// A date (and maybe a time of day) found in a sentence, with the byte spans it covered.
#[derive(Debug, Clone, PartialEq)]
pub struct When {
    pub date: NaiveDate,
    /// The last day, when a range was said ("下周": Monday to Sunday).
    pub end: Option<NaiveDate>,
    /// Hour (0..24) and minute.
    pub time: Option<(u32, u32)>,
    pub spans: Vec<(usize, usize)>,
}

impl When {
    /// `2026-04-10`, `2026-04-10 15:00`, a range `2026-04-13~2026-04-19`, a month `2026-05`.
    pub fn label(&self) -> String {
        if let Some(end) = self.end {
            let whole_month = self.date.day() == 1
                && end.month() == self.date.month()
                && (end + Duration::days(1)).day() == 1;
            return if whole_month {
                self.date.format("%Y-%m").to_string()
            } else {
                format!(
                    "{}~{}",
                    self.date.format("%Y-%m-%d"),
                    end.format("%Y-%m-%d")
                )
            };
        }
        match self.time {
            Some((h, m)) => format!("{} {h:02}:{m:02}", self.date.format("%Y-%m-%d")),
            None => self.date.format("%Y-%m-%d").to_string(),
        }
    }

    pub fn timestamp(&self) -> crate::time::Timestamp {
        let (h, m) = self.time.unwrap_or((0, 0));
        let ms = crate::time::Timestamp::from_date(self.date).ms() + (h * 60 + m) as i64 * 60_000;
        crate::time::Timestamp(ms)
    }

    /// The clause of `text` that holds the date, with the date and time words replaced by
    /// [`When::label`] ("我明天要去面试" → "我2026-04-10要去面试", "exam tomorrow" →
    /// "exam on 2026-04-10").
    pub fn restate(&self, text: &str) -> String {
        self.restate_within(text, false)
    }

    /// The whole of `text` (every clause) with the date words dated, as [`When::restate`].
    pub fn restate_all(&self, text: &str) -> String {
        self.restate_within(text, true)
    }

    fn restate_within(&self, text: &str, whole: bool) -> String {
        const ENDS: [char; 12] = [
            '，', ',', '。', '！', '!', '？', '?', '；', ';', '\n', '：', '…',
        ];
        let (date_start, date_end) = self.spans[0];
        let start = text[..date_start]
            .rfind(ENDS)
            .filter(|_| !whole)
            .map_or(0, |i| {
                i + text[i..].chars().next().map_or(1, char::len_utf8)
            });
        let end = text[date_end..]
            .find(ENDS)
            .filter(|_| !whole)
            .map_or(text.len(), |i| i + date_end);
        let mut out = String::new();
        let mut at = start;
        let mut spans: Vec<(usize, usize)> = self
            .spans
            .iter()
            .copied()
            .filter(|(s, e)| *s >= start && *e <= end)
            .collect();
        spans.sort();
        let label = self.label();
        for (s, e) in spans {
            if s < at {
                at = at.max(e);
                continue;
            }
            out.push_str(&text[at..s]);
            if s == date_start && self.end.is_some() {
                // A range keeps its words, dated: "下周（2026-04-13~2026-04-19）".
                out.push_str(&text[s..e]);
                if text[s..e].is_ascii() {
                    out.push_str(&format!(" ({label})"));
                } else {
                    out.push_str(&format!("（{label}）"));
                }
            } else if s == date_start {
                let before = out.trim_end().to_ascii_lowercase();
                let latin = text[s..e].is_ascii();
                let has_prep = ["on", "by", "until", "before", "for", "at"]
                    .iter()
                    .any(|p| before.ends_with(&format!(" {p}")) || before == *p);
                if latin && !has_prep {
                    out.push_str("on ");
                }
                out.push_str(&label);
            }
            at = e;
        }
        out.push_str(&text[at..end]);
        out.split_whitespace().collect::<Vec<_>>().join(" ")
    }

    /// `text` without the date and time words.
    pub fn strip(&self, text: &str) -> String {
        let mut spans = self.spans.clone();
        spans.sort();
        let mut out = String::new();
        let mut at = 0;
        for (s, e) in spans {
            if s > at {
                out.push_str(&text[at..s]);
            }
            at = at.max(e);
        }
        out.push_str(&text[at.min(text.len())..]);
        out
    }
}

/// How far ahead a month or day said without a year may lie: plans are said ahead of time.
const LOOKAHEAD_DAYS: i64 = 330;

/// The first date in `text` (Chinese or English), with a time of day if one is given; else
/// the first range the shared time grammar finds.
pub fn find(text: &str, today: NaiveDate) -> Option<When> {
    let lower = text.to_ascii_lowercase();
    let Some((date, span)) = zh_date(text, today).or_else(|| en_date(&lower, today)) else {
        return weekend(text, today).or_else(|| range(text, today));
    };
    let mut spans = vec![span];
    let time = zh_time(text).or_else(|| en_time(&lower)).map(|(t, s)| {
        spans.push(s);
        t
    });
    Some(When {
        date,
        end: None,
        time,
        spans,
    })
}

/// A bare "周末" / "weekend" (not "每个周末", "every weekend"): the coming Saturday and Sunday.
fn weekend(text: &str, today: NaiveDate) -> Option<When> {
    let lower = text.to_ascii_lowercase();
    let (start, end) = [("周末", 0usize), ("weekend", 1)]
        .iter()
        .filter_map(|(w, _)| lower.find(w).map(|i| (i, i + w.len())))
        .next()?;
    let before = lower[..start].trim_end();
    let habitual = [
        "每", "每个", "上", "上个", "下", "下个", "every", "each", "last", "next",
    ]
    .iter()
    .any(|h| before.ends_with(h))
        || [
            "一般",
            "平时",
            "通常",
            "经常",
            "usually",
            "often",
            "always",
            "on weekends",
        ]
        .iter()
        .any(|h| lower.contains(h));
    if habitual {
        return None;
    }
    let saturday = upcoming(today, Weekday::Sat);
    let (date, last) = if today.weekday() == Weekday::Sun {
        (today, today)
    } else {
        (saturday, saturday + Duration::days(1))
    };
    Some(When {
        date,
        end: Some(last),
        time: zh_time(text).map(|(t, _)| t),
        spans: vec![(start, end)],
    })
}

/// The first range the shared time grammar finds ("下周", "next month", "去年"), vague ones
/// left out.
fn range(text: &str, today: NaiveDate) -> Option<When> {
    let found = crate::retrieval::timeparse::time_mentions(text, today, LOOKAHEAD_DAYS)
        .into_iter()
        .find(|m| !m.vague)?;
    let r = found.range;
    Some(When {
        date: r.start,
        end: (r.end > r.start).then_some(r.end),
        time: None,
        spans: vec![found.span],
    })
}

// ---- Chinese ----

// ---- English ----

// ---- calendar ----

/// The next `wd` from `today` on (today counts).
fn upcoming(today: NaiveDate, wd: Weekday) -> NaiveDate {
    let ahead = (wd.num_days_from_monday() + 7 - today.weekday().num_days_from_monday()) % 7;
    today + Duration::days(ahead as i64)
}

/// The last `wd` before today.
fn previous(today: NaiveDate, wd: Weekday) -> NaiveDate {
    let back = (today.weekday().num_days_from_monday() + 7 - wd.num_days_from_monday()) % 7;
    today - Duration::days(if back == 0 { 7 } else { back as i64 })
}

/// `wd` of the calendar week after today's (weeks start Monday).
fn next_week_day(today: NaiveDate, wd: Weekday) -> NaiveDate {
    let monday = today - Duration::days(today.weekday().num_days_from_monday() as i64);
    monday + Duration::days(7 + wd.num_days_from_monday() as i64)
}

/// A day of a month; without a year, the next occurrence from today on; without a month,
/// this month's day (or next month's if it has passed).
fn month_day(
    today: NaiveDate,
    year: Option<i32>,
    month: Option<u32>,
    day: u32,
) -> Option<NaiveDate> {
    match (year, month) {
        (Some(y), Some(m)) => NaiveDate::from_ymd_opt(y, m, day),
        (_, Some(m)) => {
            let this = NaiveDate::from_ymd_opt(today.year(), m, day)?;
            if this >= today {
                Some(this)
            } else {
                NaiveDate::from_ymd_opt(today.year() + 1, m, day)
            }
        }
        (_, None) => {
            let this = NaiveDate::from_ymd_opt(today.year(), today.month(), day);
            match this {
                Some(d) if d >= today => Some(d),
                _ => {
                    let next = today.checked_add_months(chrono::Months::new(1))?;
                    NaiveDate::from_ymd_opt(next.year(), next.month(), day)
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn today() -> NaiveDate {
        NaiveDate::from_ymd_opt(2026, 4, 9).unwrap() // a Thursday
    }

    fn label(text: &str) -> Option<String> {
        find(text, today()).map(|w| w.label())
    }

    #[test]
    fn chinese_dates_and_times() {
        assert_eq!(
            label("明天下午三点看牙医").as_deref(),
            Some("2026-04-10 15:00")
        );
        assert_eq!(label("我下周一要去面试").as_deref(), Some("2026-04-13"));
        assert_eq!(label("周六去爬山").as_deref(), Some("2026-04-11"));
        assert_eq!(
            label("5月8号晚上7点半有演唱会").as_deref(),
            Some("2026-05-08 19:30")
        );
        assert_eq!(label("3月1日交报告").as_deref(), Some("2027-03-01"));
        assert_eq!(
            label("后天上午10:30开会").as_deref(),
            Some("2026-04-11 10:30")
        );
        assert_eq!(label("我喜欢猫"), None);
    }

    #[test]
    fn english_dates_and_times() {
        assert_eq!(label("dentist on May 8").as_deref(), Some("2026-05-08"));
        assert_eq!(
            label("I have an exam tomorrow at 3pm").as_deref(),
            Some("2026-04-10 15:00")
        );
        assert_eq!(
            label("meeting next Monday at 10:30").as_deref(),
            Some("2026-04-13 10:30")
        );
        assert_eq!(
            label("party on Saturday at 7 in the evening").as_deref(),
            Some("2026-04-11 19:00")
        );
        assert_eq!(
            label("the day after tomorrow").as_deref(),
            Some("2026-04-11")
        );
        assert_eq!(label("flight on the 20th").as_deref(), Some("2026-04-20"));
        assert_eq!(label("due 12 June").as_deref(), Some("2026-06-12"));
        assert_eq!(label("I may go"), None);
        assert_eq!(
            label("last Friday I went out").as_deref(),
            Some("2026-04-03")
        );
    }

    #[test]
    fn restate_puts_the_label_in_place() {
        let t = "好紧张，我明天下午三点要看牙医，你陪我吗";
        assert_eq!(
            find(t, today()).unwrap().restate(t),
            "我2026-04-10 15:00要看牙医"
        );
        let t = "I have an exam tomorrow at 3pm, wish me luck";
        assert_eq!(
            find(t, today()).unwrap().restate(t),
            "I have an exam on 2026-04-10 15:00"
        );
        let t = "dentist on May 8";
        assert_eq!(
            find(t, today()).unwrap().restate(t),
            "dentist on 2026-05-08"
        );
    }

    #[test]
    fn ranges_come_from_the_shared_grammar() {
        assert_eq!(
            label("我的同学小红下周要来杭州找我玩").as_deref(),
            Some("2026-04-13~2026-04-19")
        );
        assert_eq!(label("我下个月要搬去深圳").as_deref(), Some("2026-05"));
        assert_eq!(
            label("moving to Berlin next month").as_deref(),
            Some("2026-05")
        );
        assert_eq!(label("a half marathon in June").as_deref(), Some("2026-06"));
        assert_eq!(
            label("周末想去西湖边骑车").as_deref(),
            Some("2026-04-11~2026-04-12")
        );
        assert_eq!(label("我周末一般宅家打游戏"), None);
        assert_eq!(label("我最近喜欢上了游泳"), None);
        let t = "我的同学小红下周要来杭州找我玩，好开心";
        assert_eq!(
            find(t, today()).unwrap().restate(t),
            "我的同学小红下周（2026-04-13~2026-04-19）要来杭州找我玩"
        );
    }

    #[test]
    fn strip_removes_the_date_words() {
        let w = find("明天下午三点看牙医", today()).unwrap();
        assert_eq!(w.strip("明天下午三点看牙医"), "看牙医");
    }
}
