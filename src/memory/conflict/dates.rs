//! Dated events: the dream writes the day of an event into its summary, so two summaries
//! that differ only by their ISO dates are two occurrences, never one fact (docs/LIFECYCLE.md,
//! "A new memory meets the old ones").

use super::normalize_text;

/// The ISO dates (`2025-06-09`) `text` names, in order. The dream writes the day of an event
/// into its summary ("The user had a long meeting on 2025-06-09", "用户2025-06-09开了好久的会"),
/// so a routine told on many days makes summaries that differ by their dates alone: to the
/// embedder, one sentence.
fn iso_dates(text: &str) -> Vec<&str> {
    let bytes = text.as_bytes();
    let digit = |at: usize| bytes.get(at).is_some_and(u8::is_ascii_digit);
    let mut dates = Vec::new();
    // A date's first hyphen is its fifth byte: only hyphens are looked around (conflict
    // resolution asks for every near pair, and most texts have none).
    for (hyphen, _) in text.match_indices('-') {
        let Some(at) = hyphen.checked_sub(4) else {
            continue;
        };
        let shape = (0..10).all(|i| match i {
            4 | 7 => bytes.get(at + i) == Some(&b'-'),
            _ => digit(at + i),
        });
        let bounded = (at == 0 || !digit(at - 1)) && !digit(at + 10);
        if shape && bounded {
            dates.push(&text[at..at + 10]);
        }
    }
    dates
}

/// Whether both texts name dates, and not the same ones: two occurrences, never one fact.
pub(super) fn on_other_days(a: &str, b: &str) -> bool {
    let (a, b) = (iso_dates(a), iso_dates(b));
    !a.is_empty() && !b.is_empty() && a != b
}

/// Whether `new`'s latest date is before `old`'s: an earlier occurrence learnt after a later
/// one, which must not replace it. ISO dates of four-digit years sort as text.
pub(super) fn told_late(new: &str, old: &str) -> bool {
    iso_dates(new).into_iter().max() < iso_dates(old).into_iter().max()
}

/// Whether the texts say the same once their dates are taken out.
pub(super) fn same_apart_from_dates(a: &str, b: &str) -> bool {
    let undated = |text: &str| {
        let mut out = text.to_string();
        for date in iso_dates(text) {
            out = out.replacen(date, " ", 1);
        }
        normalize_text(&out)
    };
    undated(a) == undated(b)
}
