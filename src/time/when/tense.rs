//! Whether a sentence tells of its date as something done. A date said without what fixes it
//! in time (a bare weekday, a day of a month without its year, a holiday) is read as its next
//! occurrence; told as done ("周六我们去爬山了", "my sister's wedding was on May 2") it is
//! the last one, or the dream wrote a finished outing as a plan to ask about.
//!
//! The cues are few and the rule is one-sided: a sentence is read as done only when it has a
//! cue of a finished thing after the date (Chinese) or anywhere (English) and no cue of
//! something still ahead. Anything else keeps the next occurrence, as before.
#![deny(
    clippy::indexing_slicing,
    clippy::string_slice,
    clippy::arithmetic_side_effects
)]

use crate::text::{find_word, lang_of, sentence_spans, Lang};

/// Whether the sentence of `text` that holds the date's `span` tells of it as done.
pub fn told_as_done(text: &str, (start, end): (usize, usize)) -> bool {
    let Some(range) = sentence_spans(text)
        .into_iter()
        .find(|r| r.start <= start && end <= r.end)
    else {
        return false;
    };
    let before = text.get(range.start..start).unwrap_or_default();
    let after = text.get(end..range.end).unwrap_or_default();
    let sentence = text.get(range).unwrap_or_default();
    // "周六的票", "周六的考试我复习好了": the date names a thing; what is done is another.
    if after.starts_with('的') {
        return false;
    }
    if lang_of(sentence) == Lang::En {
        // A past verb of a finished event anywhere, no word of a plan, and no deadline
        // ("booked tickets for Saturday").
        let lower = sentence.to_ascii_lowercase();
        let lower_before = lower.get(..before.len()).unwrap_or_default().trim_end();
        let word_before = lower_before.rsplit(' ').next().unwrap_or_default();
        // "since May 15", "back in July": a date gone, whatever else the sentence says; not
        // "since Tuesday is the day after Monday" ("since" as "because").
        let verb_after = after
            .split_whitespace()
            .next()
            .is_some_and(|w| has_any(&w.to_ascii_lowercase(), "is|was|are|were|has|had|will"));
        if (word_before == "since" && !verb_after) || lower_before.ends_with("back in") {
            return true;
        }
        // "from the 20th to the 27th of April": the end of a span, not a deadline.
        let span_end = matches!(word_before, "to" | "until" | "till")
            && find_word(lower_before, "from").is_some();
        return (span_end || !has_any(word_before, EN_DEADLINES))
            && !has_any(&lower, EN_AHEAD)
            && has_any(&lower, EN_PAST);
    }
    // "自从2月10号", "2月10号以来": since then, gone by.
    if before.ends_with("自从") || after.starts_with("以来") {
        return true;
    }
    // No word of a plan, and after the date a 了 (with no 为了, 了解, 受不了 … there) or 已经.
    let ahead = has_any(sentence, ZH_AHEAD)
        || (sentence.contains('要') && !has_any(sentence, ZH_NOT_AHEAD));
    // "父母送了我一辆车作为圣诞礼物": a gift given or received as the occasion's is the last
    // occasion's. Not one bought for it ("买了…作为圣诞礼物" may be for the next).
    if before.ends_with("作为") && has_any(before, ZH_GIVEN) && !ahead {
        return true;
    }
    let done = after.contains('了') && !has_any(after, ZH_NOT_DONE);
    !ahead && (done || after.contains("已经"))
}

/// Whether `text` has one of the `|`-separated words of `list` (whole words, for English).
fn has_any(text: &str, list: &str) -> bool {
    list.split('|').any(|w| find_word(text, w).is_some())
}

/// Words of a plan, of what is still ahead, or of what might be.
const ZH_AHEAD: &str =
    "将|打算|准备|计划|想去|想要|想和|想跟|想在|期待|希望|到时|下次|还没|快要|快到|\
    马上|即将|明天|明年|下周|下个|以后|会去|会来|会在|会和|会跟|如果|的话|假如|万一";
/// A gift given or received.
const ZH_GIVEN: &str = "送了|收到了|得到了|拿到了|给了|送给了";
/// Words with 要 that do not say something is ahead.
const ZH_NOT_AHEAD: &str = "重要|需要|主要|只要";
/// Words with 了 that do not say something is done: with one of them after the date, no 了
/// there is taken for done ("周六为了…": the cue is one-sided).
const ZH_NOT_DONE: &str = "为了|除了|了解|不了|得了|算了|罢了";

/// Words before a date that make it a deadline or a start, still ahead.
const EN_DEADLINES: &str = "for|by|until|till|before|to|from";
/// Words of a plan, a wish or an arrangement: what they speak of is ahead even in a past
/// sentence ("I was invited to a party on Saturday", "I was thinking we could go on Saturday");
/// and "born": a birthday comes round, and the next one is what matters.
const EN_AHEAD: &str = "will|'ll|gonna|going to|want to|plan|plans|planning|hope|would|could|\
    might|next|tomorrow|soon|excited|should|need|if|invited|asked|supposed|booked|decided|\
    thinking|born";
/// Past forms of verbs of finished events (not "decided", "booked", "planned": what they
/// take is still ahead; nor any "-ed", which "interested" and "scheduled" are too).
const EN_PAST: &str = "was|were|went|had|did|got|saw|came|took|made|met|ate|spent|bought|left|\
    gave|won|lost|ran|visited|watched|played|finished|celebrated|attended|moved|started|tried|\
    enjoyed|joined|stayed|happened|arrived";
