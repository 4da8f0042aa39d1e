//! The diary: a rolling window of daily entries with older ones merged into `prior` (SPEC §1).

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DiaryEntry {
    /// `YYYY-MM-DD`.
    pub date: String,
    pub summary: String,
}

/// The stored diary. `dailies` are kept sorted oldest first; views show them newest first.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Diary {
    pub prior: String,
    pub dailies: Vec<DiaryEntry>,
}

/// The diary after [`put_daily`], and the entries that left the window.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiaryRoll {
    /// `prior` unchanged; `dailies` sorted oldest first, at most `window` of them.
    pub diary: Diary,
    /// Entries pushed out of the window, oldest first: the caller merges them into `prior`
    /// and deletes them from the store.
    pub overflow: Vec<DiaryEntry>,
}

/// Inserts `entry`, or replaces the entry of the same date, and rolls the window.
///
/// Dates are `YYYY-MM-DD`, so sorting the strings sorts the days. A `window` of 0 is taken
/// as 1. An entry older than the whole window overflows at once.
pub fn put_daily(diary: &Diary, entry: DiaryEntry, window: usize) -> DiaryRoll {
    let mut dailies: Vec<DiaryEntry> = diary
        .dailies
        .iter()
        .filter(|d| d.date != entry.date)
        .cloned()
        .collect();
    dailies.push(entry);
    crate::order::sort_by(&mut dailies, oldest_first);
    let excess = dailies.len().saturating_sub(window.max(1));
    let overflow: Vec<DiaryEntry> = dailies.drain(..excess).collect();
    DiaryRoll {
        diary: Diary {
            prior: diary.prior.clone(),
            dailies,
        },
        overflow,
    }
}

/// The dailies newest first, as `GET /api/diary` shows them.
pub fn newest_first(diary: &Diary) -> Vec<DiaryEntry> {
    let mut dailies = diary.dailies.clone();
    crate::order::sort_by(&mut dailies, |a, b| oldest_first(b, a));
    dailies
}

fn oldest_first(a: &DiaryEntry, b: &DiaryEntry) -> std::cmp::Ordering {
    a.date.cmp(&b.date)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(date: &str, summary: &str) -> DiaryEntry {
        DiaryEntry {
            date: date.into(),
            summary: summary.into(),
        }
    }

    fn dates(entries: &[DiaryEntry]) -> Vec<&str> {
        entries.iter().map(|e| e.date.as_str()).collect()
    }

    #[test]
    fn entries_stay_sorted_and_same_date_is_replaced() {
        let mut diary = Diary::default();
        for (date, text) in [
            ("2026-04-08", "a"),
            ("2026-04-06", "b"),
            ("2026-04-08", "c"),
        ] {
            diary = put_daily(&diary, entry(date, text), 7).diary;
        }
        assert_eq!(dates(&diary.dailies), ["2026-04-06", "2026-04-08"]);
        assert_eq!(diary.dailies[1].summary, "c");
        assert_eq!(dates(&newest_first(&diary)), ["2026-04-08", "2026-04-06"]);
    }

    #[test]
    fn oldest_entries_overflow_the_window() {
        let diary = Diary {
            prior: "before".into(),
            dailies: (1..=7)
                .map(|d| entry(&format!("2026-04-0{d}"), "x"))
                .collect(),
        };
        let roll = put_daily(&diary, entry("2026-04-08", "new"), 7);
        assert_eq!(dates(&roll.overflow), ["2026-04-01"]);
        assert_eq!(roll.diary.dailies.len(), 7);
        assert_eq!(roll.diary.dailies.last().unwrap().summary, "new");
        assert_eq!(roll.diary.prior, "before");

        let shrunk = put_daily(&diary, entry("2026-04-08", "new"), 3);
        assert_eq!(
            dates(&shrunk.overflow),
            [
                "2026-04-01",
                "2026-04-02",
                "2026-04-03",
                "2026-04-04",
                "2026-04-05"
            ]
        );
        assert_eq!(
            dates(&shrunk.diary.dailies),
            ["2026-04-06", "2026-04-07", "2026-04-08"]
        );
    }

    #[test]
    fn a_late_old_entry_can_overflow_itself() {
        let diary = Diary {
            prior: String::new(),
            dailies: vec![entry("2026-04-07", "x"), entry("2026-04-08", "y")],
        };
        let roll = put_daily(&diary, entry("2026-04-01", "late"), 2);
        assert_eq!(dates(&roll.overflow), ["2026-04-01"]);
        assert_eq!(roll.diary.dailies, diary.dailies);
    }
}
