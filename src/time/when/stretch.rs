//! A stretch of days said around a date: "from the 2nd to the 7th of March", "between the 2nd
//! and the 7th of March", "May 8th to 12th", "May 28th to June 3rd", "3月2日到7日",
//! "5月28号至6月3号". The date found is one end; the other end is a day of its month or of the
//! month said after it. Without this the date found alone stood for the stretch: a week's
//! holiday was dated its last day, and restated "from the 2nd to on 2026-03-07".
#![deny(
    clippy::indexing_slicing,
    clippy::string_slice,
    clippy::arithmetic_side_effects
)]

use super::*;

/// Words that join the two ends of a stretch (and "between … and …").
const JOINS: [&str; 5] = ["to", "till", "until", "through", "thru"];

/// The first and last day of the stretch `date` (found at `span` of `text`) is one end of,
/// and the bytes the whole stretch covers; `None` if no stretch is said there.
pub(super) fn stretch(
    text: &str,
    lower: &str,
    date: NaiveDate,
    span: (usize, usize),
) -> Option<(NaiveDate, NaiveDate, (usize, usize))> {
    let w = words(lower);
    let word = |i: usize| w.get(i).map_or("", |x| x.0);
    let the = |i: usize| usize::from(word(i) == "the");
    // The other end: a day of the month said, else of `date`'s; an earlier month said is next
    // year's.
    let other_end = |month: Option<u32>, day: u32| {
        let month = month.unwrap_or(date.month());
        let year = date.year().checked_add(i32::from(month < date.month()))?;
        NaiveDate::from_ymd_opt(year, month, day)
    };
    // "[between|from] [the] 2nd to|and [the] 7th of March": `date` is the last day.
    let ends_here = || {
        let join = w.iter().position(|x| x.1 >= span.0)?.checked_sub(1)?;
        let day_at = join.checked_sub(1)?;
        let from = match day_at.checked_sub(1) {
            Some(before) if word(before) == "the" => before,
            _ => day_at,
        };
        let between = from.checked_sub(1).is_some_and(|i| word(i) == "between");
        if !(JOINS.contains(&word(join)) || (word(join) == "and" && between)) {
            return None;
        }
        let start = other_end(None, ordinal_day(word(day_at))?)?;
        ends(start, date, (w.get(from)?.1, span.1))
    };
    // "May 8th to [the] 12th", "May 28th to June 3rd", "… to the 3rd of June": `date` is the
    // first day. Only space between them ("May 8. To 12th graders …" is no stretch), and a
    // number names a day only with its suffix or its month.
    let starts_here = || {
        let join = w.iter().position(|x| x.1 >= span.1)?;
        let mut at = join.saturating_add(1);
        at = at.saturating_add(the(at));
        let mut month = month_of(word(at));
        at = at.saturating_add(usize::from(month.is_some()));
        let (day, _, mut end) = *w.get(at)?;
        if month.is_none() {
            let of = at.saturating_add(1);
            let month_at = of.saturating_add(usize::from(word(of) == "of"));
            if let Some(m) = month_of(word(month_at)) {
                month = Some(m);
                end = w.get(month_at)?.2;
            }
        }
        let gap = lower.get(span.1..w.get(join)?.1)?;
        if !JOINS.contains(&word(join))
            || !gap.trim().is_empty()
            || !(day.ends_with(char::is_alphabetic) || month.is_some())
        {
            return None;
        }
        ends(date, other_end(month, ordinal_day(day)?)?, (span.0, end))
    };
    // "3月2日到7日", "5月8号至5月12号"
    let zh_starts_here = || {
        let rest = text.get(span.1..)?;
        let tail = rest
            .strip_prefix("到")
            .or_else(|| rest.strip_prefix("至"))?;
        let (mut day, mut used) = zh_number(tail)?;
        let mut month = None;
        if let Some(more) = tail.get(used..).and_then(|t| t.strip_prefix('月')) {
            month = Some(day);
            (day, used) = zh_number(more)?;
            used = used.saturating_add(tail.len().saturating_sub(more.len()));
        }
        let marker = tail
            .get(used..)?
            .chars()
            .next()
            .filter(|c| "日号".contains(*c))?;
        let end = text.len().saturating_sub(tail.len());
        let end = end.saturating_add(used).saturating_add(marker.len_utf8());
        ends(date, other_end(month, day)?, (span.0, end))
    };
    ends_here().or_else(starts_here).or_else(zh_starts_here)
}

/// A stretch from `first` to `last`, if `last` is later.
fn ends(
    first: NaiveDate,
    last: NaiveDate,
    covered: (usize, usize),
) -> Option<(NaiveDate, NaiveDate, (usize, usize))> {
    (last > first).then_some((first, last, covered))
}
