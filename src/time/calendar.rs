//! Checked calendar arithmetic. chrono's `+`/`-` on dates and its `Duration::days` panic past
//! the ends of its range (about ±262,000 years); a count said in a request ("100000000 days
//! ago") reaches them. Every function here answers `None` there instead; the crate's clippy
//! configuration forbids the panicking constructors everywhere else.
#![deny(clippy::arithmetic_side_effects, clippy::indexing_slicing)]

use chrono::{Datelike, Months, NaiveDate, TimeDelta, Weekday};

/// `date` moved by `days` (back if negative).
pub fn plus_days(date: NaiveDate, days: i64) -> Option<NaiveDate> {
    date.checked_add_signed(TimeDelta::try_days(days)?)
}

/// `date` moved back by `days`.
pub fn minus_days(date: NaiveDate, days: i64) -> Option<NaiveDate> {
    plus_days(date, days.checked_neg()?)
}

/// `date` moved back by `months` (the day clamped to the month's length).
pub fn minus_months(date: NaiveDate, months: u32) -> Option<NaiveDate> {
    date.checked_sub_months(Months::new(months))
}

/// `date` moved forward by `months` (the day clamped to the month's length).
pub fn plus_months(date: NaiveDate, months: u32) -> Option<NaiveDate> {
    date.checked_add_months(Months::new(months))
}

/// The Monday of `date`'s week (weeks start on Monday).
pub fn monday_of(date: NaiveDate) -> Option<NaiveDate> {
    minus_days(date, i64::from(date.weekday().num_days_from_monday()))
}

/// The next `weekday` from `date` on (`date` itself if it is one).
pub fn upcoming(date: NaiveDate, weekday: Weekday) -> Option<NaiveDate> {
    let ahead = weekday.days_since(date.weekday());
    plus_days(date, i64::from(ahead))
}

/// The last `weekday` strictly before `date`.
pub fn previous(date: NaiveDate, weekday: Weekday) -> Option<NaiveDate> {
    let back = match date.weekday().days_since(weekday) {
        0 => 7,
        n => n,
    };
    minus_days(date, i64::from(back))
}

/// The first and last day of a month.
pub fn month_bounds(year: i32, month: u32) -> Option<(NaiveDate, NaiveDate)> {
    let first = NaiveDate::from_ymd_opt(year, month, 1)?;
    let last = plus_months(first, 1)?.pred_opt()?;
    Some((first, last))
}

/// The first and last day of a year.
pub fn year_bounds(year: i32) -> Option<(NaiveDate, NaiveDate)> {
    Some((
        NaiveDate::from_ymd_opt(year, 1, 1)?,
        NaiveDate::from_ymd_opt(year, 12, 31)?,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(y: i32, m: u32, day: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(y, m, day).unwrap()
    }

    #[test]
    fn shifts_inside_the_range() {
        let wed = d(2026, 4, 8);
        assert_eq!(plus_days(wed, 1), Some(d(2026, 4, 9)));
        assert_eq!(minus_days(wed, 8), Some(d(2026, 3, 31)));
        assert_eq!(minus_months(d(2026, 3, 31), 1), Some(d(2026, 2, 28)));
        assert_eq!(monday_of(wed), Some(d(2026, 4, 6)));
        assert_eq!(upcoming(wed, Weekday::Wed), Some(wed));
        assert_eq!(upcoming(wed, Weekday::Mon), Some(d(2026, 4, 13)));
        assert_eq!(previous(wed, Weekday::Wed), Some(d(2026, 4, 1)));
        assert_eq!(previous(wed, Weekday::Fri), Some(d(2026, 4, 3)));
        assert_eq!(month_bounds(2024, 2), Some((d(2024, 2, 1), d(2024, 2, 29))));
        assert_eq!(year_bounds(2026), Some((d(2026, 1, 1), d(2026, 12, 31))));
    }

    #[test]
    fn the_ends_of_the_range_are_none_not_a_panic() {
        assert_eq!(plus_days(NaiveDate::MAX, 1), None);
        assert_eq!(minus_days(NaiveDate::MIN, 1), None);
        assert_eq!(minus_days(NaiveDate::MIN, i64::MIN), None);
        assert_eq!(plus_days(d(2026, 4, 8), i64::MAX), None);
        assert_eq!(minus_days(d(2026, 4, 8), 100_000_000), None);
        assert_eq!(minus_months(d(2026, 4, 8), u32::MAX), None);
        assert_eq!(month_bounds(262_142, 12), None);
        assert_eq!(
            upcoming(NaiveDate::MAX, NaiveDate::MAX.weekday().succ()),
            None
        );
        assert_eq!(year_bounds(i32::MAX), None);
    }
}
