//! Dates and times said in conversation ("明天下午三点", "下周一", "5月8号", "May 8 at 3pm",
//! "next Friday"), resolved against the day the turn was said.
//!
//! Weekdays: "下周X" / "next X" is X of the next calendar week (weeks start Monday); a bare
//! "周X" / "on X" / "this X" is the next X from today on. A month and day without a year is
//! its next occurrence from today on.
//!
//! Without a day, the shared grammar of retrieval ([`crate::time::phrase`]) names a
//! range ("下周", "下个月", "next month", "in June", "去年"), looking ahead almost a year;
//! vague stretches ("最近", "lately") are not dates of anything.
#![deny(
    clippy::indexing_slicing,
    clippy::string_slice,
    clippy::arithmetic_side_effects
)]

mod en;
mod stretch;
mod tense;
mod zh;

pub use tense::told_as_done;

use crate::time::calendar::{self, previous, upcoming};
use crate::time::names::*;
use crate::time::{date_text, month_text};
use chrono::{Datelike, NaiveDate, Weekday};
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
                && end.succ_opt().is_none_or(|next| next.day() == 1);
            return if whole_month {
                month_text(self.date)
            } else {
                format!("{}~{}", date_text(self.date), date_text(end))
            };
        }
        match self.time {
            Some((h, m)) => format!("{} {h:02}:{m:02}", date_text(self.date)),
            None => date_text(self.date),
        }
    }

    pub fn timestamp(&self) -> crate::time::Timestamp {
        let (h, m) = self.time.unwrap_or((0, 0));
        let minutes = i64::from(h).saturating_mul(60).saturating_add(i64::from(m));
        crate::time::Timestamp::from_date(self.date).plus_ms(minutes.saturating_mul(60_000))
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
        // Spans are byte ranges of `text` on character boundaries; `part` is empty otherwise.
        let part = |s: usize, e: usize| text.get(s..e).unwrap_or_default();
        let Some(&(date_start, date_end)) = self.spans.first() else {
            return String::new();
        };
        let start = part(0, date_start)
            .rfind(ENDS)
            .filter(|_| !whole)
            .map_or(0, |i| {
                let end_len = part(i, text.len()).chars().next().map_or(1, char::len_utf8);
                i.saturating_add(end_len)
            });
        let end = part(date_end, text.len())
            .find(ENDS)
            .filter(|_| !whole)
            .map_or(text.len(), |i| i.saturating_add(date_end));
        let mut out = String::new();
        let mut at = start;
        let mut spans: Vec<(usize, usize)> = self
            .spans
            .iter()
            .copied()
            .filter(|(s, e)| *s >= start && *e <= end)
            .collect();
        crate::order::sort_by(&mut spans, Ord::cmp);
        let label = self.label();
        for (s, e) in spans {
            if s < at {
                at = at.max(e);
                continue;
            }
            out.push_str(part(at, s));
            if s == date_start && (self.end.is_some() || zh_holiday(part(s, e))) {
                // A range or a holiday keeps its words, dated: "下周（2026-04-13~2026-04-19）",
                // "圣诞节（2026-12-25）".
                let words = part(s, e);
                out.push_str(words);
                if words.is_ascii() {
                    out.push_str(&format!(" ({label})"));
                } else {
                    out.push_str(&format!("（{label}）"));
                }
            } else if s == date_start {
                let before = out.trim_end().to_ascii_lowercase();
                let latin = part(s, e).is_ascii();
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
        out.push_str(part(at, end));
        out.split_whitespace().collect::<Vec<_>>().join(" ")
    }

    /// `text` without the date and time words.
    pub fn strip(&self, text: &str) -> String {
        let mut spans = self.spans.clone();
        crate::order::sort_by(&mut spans, Ord::cmp);
        let mut out = String::new();
        let mut at = 0;
        for (s, e) in spans {
            if s > at {
                out.push_str(text.get(at..s).unwrap_or_default());
            }
            at = at.max(e);
        }
        out.push_str(text.get(at..).unwrap_or_default());
        out
    }
}

/// How far ahead a month or day said without a year may lie: plans are said ahead of time.
const LOOKAHEAD_DAYS: i64 = 330;

/// The first date in `text` (Chinese or English), with a time of day if one is given; else
/// the first range the shared time grammar finds.
pub fn find(text: &str, today: NaiveDate) -> Option<When> {
    let lower = text.to_ascii_lowercase();
    let first = |back: bool| {
        zh_date(text, today, back).or_else(|| {
            en_date(&lower, today, back).filter(|(_, span)| !crate::time::quoted(text, *span))
        })
    };
    let Some((mut date, span)) = first(false) else {
        return weekend(text, today).or_else(|| range(text, today));
    };
    // Told as done, a date said without its year or week ("周六", "5月8号", "元旦", "on
    // Saturday") is read back: its last occurrence, not its next ([`tense`]).
    if date > today && tense::told_as_done(text, span) {
        if let Some((last, _)) = first(true).filter(|(_, s)| *s == span) {
            date = last;
        }
    }
    // "from the 2nd to the 7th of March", "3月2日到7日": the days between, not one end.
    if let Some((first, last, covered)) = stretch::stretch(text, &lower, date, span) {
        return Some(When {
            date: first,
            end: Some(last),
            time: None,
            spans: vec![covered],
        });
    }
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
    let (start, end) = ["周末", "weekend"]
        .iter()
        .find_map(|w| lower.find(w).map(|i| (i, i.saturating_add(w.len()))))?;
    let before = lower.get(..start).unwrap_or_default().trim_end();
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
    let (date, last) = if today.weekday() == Weekday::Sun {
        (today, today)
    } else {
        let mut saturday = upcoming(today, Weekday::Sat)?;
        // "周末我们去爬山了" said on a Wednesday: the weekend gone.
        if saturday > today && tense::told_as_done(text, (start, end)) {
            saturday = calendar::minus_days(saturday, 7)?;
        }
        (saturday, calendar::plus_days(saturday, 1)?)
    };
    Some(When {
        date,
        end: Some(last),
        time: zh_time(text).map(|(t, _)| t),
        spans: vec![(start, end)],
    })
}

/// The first range the shared time grammar finds ("下周", "next month", "去年"), vague ones
/// left out. A month said alone is the coming one ("in July"), or told as done the last one
/// ("I left Syria back in July", "a conference in November last year").
fn range(text: &str, today: NaiveDate) -> Option<When> {
    let first = |lookahead: i64| {
        crate::time::phrase::time_mentions(text, today, lookahead)
            .into_iter()
            .find(|m| !m.vague)
    };
    let mut found = first(LOOKAHEAD_DAYS)?;
    if found.range.start > today && tense::told_as_done(text, found.span) {
        if let Some(last) = first(0).filter(|m| m.span == found.span) {
            found = last;
        }
    }
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

/// `wd` of the calendar week `weeks` after today's (0: this week's; weeks start Monday).
fn week_day(today: NaiveDate, wd: Weekday, weeks: i64) -> Option<NaiveDate> {
    let monday = calendar::monday_of(today)?;
    calendar::plus_days(
        monday,
        i64::from(wd.num_days_from_monday()).saturating_add(weeks.saturating_mul(7)),
    )
}

/// `wd` of the calendar week after today's.
fn next_week_day(today: NaiveDate, wd: Weekday) -> Option<NaiveDate> {
    week_day(today, wd, 1)
}

/// A day of a month; without a year, the next occurrence from today on (the last one up to
/// today, read `back`); without a month, this month's day (or the next or the last month's).
fn month_day(
    today: NaiveDate,
    year: Option<i32>,
    month: Option<u32>,
    day: u32,
    back: bool,
) -> Option<NaiveDate> {
    let this = match (year, month) {
        (Some(y), Some(m)) => return NaiveDate::from_ymd_opt(y, m, day),
        (_, Some(m)) => NaiveDate::from_ymd_opt(today.year(), m, day),
        (_, None) => NaiveDate::from_ymd_opt(today.year(), today.month(), day),
    };
    match this {
        Some(d) if (back && d <= today) || (!back && d >= today) => Some(d),
        _ => {
            let other = match (month, back) {
                (Some(_), false) => calendar::plus_months(today, 12)?,
                (Some(_), true) => calendar::minus_months(today, 12)?,
                (None, false) => calendar::plus_months(today, 1)?,
                (None, true) => calendar::minus_months(today, 1)?,
            };
            NaiveDate::from_ymd_opt(other.year(), month.unwrap_or(other.month()), day)
        }
    }
}

/// The next `wd` from today on, or read `back` the last one up to today.
fn open_weekday(today: NaiveDate, wd: Weekday, back: bool) -> Option<NaiveDate> {
    if back {
        previous(calendar::plus_days(today, 1)?, wd)
    } else {
        upcoming(today, wd)
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
    fn chinese_holidays_on_a_fixed_day() {
        assert_eq!(label("五一打算去厦门玩").as_deref(), Some("2026-05-01"));
        assert_eq!(label("圣诞节一起吃饭").as_deref(), Some("2026-12-25"));
        // Passed this year: the next one.
        assert_eq!(label("元旦回老家").as_deref(), Some("2027-01-01"));
        assert_eq!(label("国庆节去北京").as_deref(), Some("2026-10-01"));
        // A given name is no holiday.
        assert_eq!(label("我同事王国庆人很好"), None);
    }

    #[test]
    fn words_a_pair_of_quotes_holds_alone_are_a_name_not_a_date() {
        // Robinson Crusoe's Friday (a MADial memory's diary asked "then" about "2023-10-13").
        assert_eq!(label("我们讨论了角色“星期五”的故事情节"), None);
        assert_eq!(label("他写了一首叫《明天》的歌"), None);
        assert_eq!(label("the character \"Friday\" was my favourite"), None);
        // No part of the quoted words either (not "周五" of “下周五”).
        assert_eq!(zh_date("电影“下周五”很好看", today(), false), None);
        // Quoted speech says when.
        assert_eq!(label("他说“明天见”").as_deref(), Some("2026-04-10"));
        // A name in quotes does not hide a date said beside it.
        assert_eq!(label("“星期五”这本书明天还").as_deref(), Some("2026-04-10"));
    }

    #[test]
    fn a_holiday_keeps_its_name_when_restated() {
        let t = "父母送了我一辆遥控跑车作为圣诞礼物";
        assert_eq!(
            find(t, today()).unwrap().restate(t),
            "父母送了我一辆遥控跑车作为圣诞（2025-12-25）礼物"
        );
        let t = "五一打算去厦门玩";
        assert_eq!(
            find(t, today()).unwrap().restate(t),
            "五一（2026-05-01）打算去厦门玩"
        );
        // A relative day is replaced: "明天" means nothing tomorrow.
        let t = "我明天去厦门";
        assert_eq!(find(t, today()).unwrap().restate(t), "我2026-04-10去厦门");
    }

    #[test]
    fn a_date_told_as_done_is_its_last_occurrence() {
        // Today is Thursday 2026-04-09. Each of these was the next occurrence, so the dream
        // wrote a finished outing as a plan to ask about.
        for (said, day) in [
            ("周六我们去爬山了，好累。", "2026-04-04"),
            ("我周六去了医院，医生说没事。", "2026-04-04"),
            ("5月8号我去了北京。", "2025-05-08"),
            ("12号我已经交了报告", "2026-03-12"),
            (
                "在元旦晚会上，我和同学们一起制作了彩纸灯笼，感到非常开心。",
                "2026-01-01",
            ),
            ("周末我们去爬山了", "2026-04-04~2026-04-05"),
            ("I went hiking on Saturday with my sister.", "2026-04-04"),
            ("My sister's wedding was on May 2.", "2025-05-02"),
            // This week's Tuesday is this week's, whatever the tense.
            ("这周二我去看了牙医。", "2026-04-07"),
            // A gift given or received as the occasion's.
            ("父母送了我一辆遥控跑车作为圣诞节礼物。", "2025-12-25"),
            ("我收到了一本书作为圣诞礼物", "2025-12-25"),
        ] {
            assert_eq!(label(said).as_deref(), Some(day), "{said}");
        }
        // Plans, deadlines, and dates that name a thing keep the next occurrence.
        for (said, day) in [
            ("周六要去爬山，昨天买了登山鞋。", "2026-04-11"),
            ("周六我打算去爬山了", "2026-04-11"),
            ("我买了周六的票。", "2026-04-11"),
            ("周六的考试我复习好了", "2026-04-11"),
            ("5月8号我们就去北京", "2026-05-08"),
            ("周六我受不了那个噪音", "2026-04-11"),
            ("On Saturday I'm going hiking.", "2026-04-11"),
            ("I booked tickets for Saturday.", "2026-04-11"),
            (
                "I went to bed early, I'll see her on Saturday.",
                "2026-04-11",
            ),
            ("Her birthday is on May 2.", "2026-05-02"),
            ("I was invited to a party on Saturday.", "2026-04-11"),
            (
                "I was thinking we could go hiking on Saturday.",
                "2026-04-11",
            ),
            ("周末我们去爬山", "2026-04-11~2026-04-12"),
            // One bought or meant for the occasion may be for the next.
            ("我买了一辆车作为圣诞礼物", "2026-12-25"),
            ("我打算送他一本书作为圣诞礼物", "2026-12-25"),
        ] {
            assert_eq!(label(said).as_deref(), Some(day), "{said}");
        }
        // A date with its year, or said relative to today, is what it says.
        assert_eq!(
            label("2026年5月8日我去了北京").as_deref(),
            Some("2026-05-08")
        );
        assert_eq!(label("明天我去了北京").as_deref(), Some("2026-04-10"));
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
    fn an_english_day_of_the_month_is_read_with_what_follows_it() {
        let cases = [
            // A month counted from today's.
            (
                "I filed for an LLC on the 15th of last month",
                Some("2026-03-15"),
            ),
            (
                "I got a book on the 20th of the previous month",
                Some("2026-03-20"),
            ),
            (
                "her birthday is on the 15th of next month",
                Some("2026-05-15"),
            ),
            ("the party is on the 20th of this month", Some("2026-04-20")),
            (
                "the fair is on the 15th and 16th of next month",
                Some("2026-05-15"),
            ),
            // A month named after "of" is that month's, the first of two days.
            (
                "a workshop on the 17th and 18th of April",
                Some("2026-04-17"),
            ),
            ("the match is on the 8th of October", Some("2026-10-08")),
            // An ordinal of something else is no date.
            ("My room was on the 14th floor, with a view", None),
            ("Expound on the 17th name", None),
            ("on the 20th of the list", None),
            // A day alone, before a clause or punctuation.
            ("we fly on the 20th, early", Some("2026-04-20")),
            (
                "we fly on the 20th when the sale starts",
                Some("2026-04-20"),
            ),
            // The year said is the year, any year of four digits.
            (
                "On 23 August 2018, the Builder issued invoice 104",
                Some("2018-08-23"),
            ),
            ("Make the Date 16 February 2023.", Some("2023-02-16")),
            (
                "the ship landed there on June 10, 1643, in search",
                Some("1643-06-10"),
            ),
            ("a review on the 3rd of May, 2027", Some("2027-05-03")),
            // Not a year: three digits, five, or a sign.
            ("party on May 8, 300 people invited", Some("2026-05-08")),
            ("party on May 8, -123 at the door", Some("2026-05-08")),
            ("due 8 May -999", Some("2026-05-08")),
        ];
        for (text, expected) in cases {
            assert_eq!(label(text).as_deref(), expected, "{text}");
        }
    }

    #[test]
    fn a_stretch_of_days_is_dated_from_its_first_day_to_its_last() {
        let cases = [
            (
                "I took 10 rides during my vacation from the 2nd to the 7th of March",
                "2026-03-02~2026-03-07",
            ),
            (
                "we were in Rome between the 2nd and the 7th of March",
                "2026-03-02~2026-03-07",
            ),
            (
                "I'm away from the 8th until the 12th of May",
                "2026-05-08~2026-05-12",
            ),
            (
                "we camp the 2nd through 4th of June",
                "2026-06-02~2026-06-04",
            ),
            ("I'm away from May 8th to 12th", "2026-05-08~2026-05-12"),
            ("I'm away May 8th till the 12th.", "2026-05-08~2026-05-12"),
            // At the text's start.
            ("2nd to the 4th of June we camp", "2026-06-02~2026-06-04"),
            ("我们3月2日到7日去了海南", "2026-03-02~2026-03-07"),
            ("5月8号至5月12号我出差", "2026-05-08~2026-05-12"),
            ("5月8号到十二号我出差", "2026-05-08~2026-05-12"),
            // Into the next month, and over a year's end.
            (
                "the course runs May 28th to June 3rd",
                "2026-05-28~2026-06-03",
            ),
            (
                "from the 28th of May to the 3rd of June",
                "2026-05-28~2026-06-03",
            ),
            ("we ski December 28 to 3 January", "2026-12-28~2027-01-03"),
            ("我们5月28号到6月3号去云南", "2026-05-28~2026-06-03"),
            // Two days, not a stretch: the first.
            ("the 17th and 18th of April", "2026-04-17"),
            ("we meet May 8th and 12th", "2026-05-08"),
            // One day: a count after it, a day before it, a word that is no join.
            ("we meet on May 8 to 10 people", "2026-05-08"),
            ("I'm away from May 8th to 3rd", "2026-05-08"),
            ("postponed from May 8th to June", "2026-05-08"),
            ("I moved it to the 7th of May", "2026-05-07"),
            ("May 8th. To 12th graders", "2026-05-08"),
            ("我5月8号到公司报到", "2026-05-08"),
        ];
        for (text, expected) in cases {
            assert_eq!(label(text).as_deref(), Some(expected), "{text}");
        }
        // Restated, a stretch keeps its words, dated.
        let restated = |text: &str| find(text, today()).unwrap().restate_all(text);
        assert_eq!(
            restated("I took 10 rides from the 2nd to the 7th of March"),
            "I took 10 rides from the 2nd to the 7th of March (2026-03-02~2026-03-07)"
        );
        assert_eq!(
            restated("我们3月2日到7日去了海南"),
            "我们3月2日到7日（2026-03-02~2026-03-07）去了海南"
        );
    }

    #[test]
    fn a_date_gone_by_or_a_habit_is_no_plan() {
        let cases = [
            // "since", "back in" and a past verb: the last occurrence, a month said alone too.
            (
                "I've been keeping a journal since February 10th",
                Some("2026-02-10"),
            ),
            ("I've been sick since Tuesday", Some("2026-04-07")),
            (
                "since Tuesday is free, let's meet on Tuesday",
                Some("2026-04-14"),
            ),
            (
                "I took 10 rides during my vacation from the 2nd to the 7th of March",
                Some("2026-03-02~2026-03-07"),
            ),
            ("I left Syria back in July", Some("2025-07")),
            (
                "I attended a conference in November last year",
                Some("2025-11"),
            ),
            ("I went there in December and had a blast", Some("2025-12")),
            ("the tripod arrived on February 5th", Some("2026-02-05")),
            // A year said after the month is the year.
            ("She joined the club in December 2019", Some("2019-12")),
            // Still ahead.
            ("the festival is in July", Some("2026-07")),
            ("I'm planning a trip in December", Some("2026-12")),
            // A habit is no date.
            ("We meet every Thursday at lunch", None),
            ("I do yoga every Monday, Wednesday and Friday", None),
            // The same in Chinese.
            ("我每周六都去游泳", None),
            ("每个星期天我们都去看奶奶", None),
            ("我每月8号交房租", None),
            ("自从2月10号以来我一直在写日记", Some("2026-02-10")),
            ("去年12月我们去了海南", Some("2025-12")),
            ("周六我们去游泳吧", Some("2026-04-11")),
        ];
        for (text, expected) in cases {
            assert_eq!(label(text).as_deref(), expected, "{text}");
        }
    }

    #[test]
    fn a_day_of_a_named_month_is_restated_once() {
        for (text, restated) in [
            (
                "I attended a workshop on the 17th and 18th of April, it was great",
                "I attended a workshop on 2025-04-17",
            ),
            (
                "I attended a lecture on the 10th of April.",
                "I attended a lecture on 2025-04-10.",
            ),
            ("I moved on 3 March 2020, finally", "I moved on 2020-03-03"),
        ] {
            let when = find(text, NaiveDate::from_ymd_opt(2025, 5, 1).unwrap()).unwrap();
            assert_eq!(when.restate(text), restated, "{text}");
        }
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
    fn the_ends_of_the_calendar_never_panic() {
        let texts = [
            "明天下午三点",
            "后天",
            "昨天",
            "下周一",
            "周六",
            "5月8号",
            "8号",
            "2026年5月8日",
            "tomorrow at 3pm",
            "the day after tomorrow",
            "yesterday",
            "next Monday",
            "last Friday",
            "on Saturday",
            "May 8",
            "8 May",
            "on the 20th",
            "on the 31st of next month",
            "on the 29th of last month",
            "on the 17th and 18th of April",
            "on 31 December 9999",
            "262142-12-31",
            "4294967295年5月8日",
        ];
        for today in [NaiveDate::MIN, NaiveDate::MAX, today()] {
            for text in texts {
                if let Some(when) = find(text, today) {
                    let _ = (when.timestamp(), when.restate(text), when.strip(text));
                }
            }
        }
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
