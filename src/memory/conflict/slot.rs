//! Subject slots: which attribute of whom a fact sets ("where the user lives") and to what
//! value, read from English and Chinese predicate markers. Two facts filling the same slot
//! with different values conflict (SPEC §2.3, the no-LLM rule).

use super::{is_separator, normalize_text};
use crate::nfkc::nfkc;

/// Predicate groups. The marker that starts earliest in the text names the slot (the longer
/// one on a tie), so "用户住在叫做X的小区" is about residence. ASCII markers match whole
/// words; Chinese markers match anywhere. Verbs that allow many values at once ("likes",
/// "喜欢") are deliberately absent: liking tea and coffee is no conflict.
const SLOT_MARKERS: &[(&str, &[&str])] = &[
    (
        "called",
        &[
            "likes to be called",
            "like to be called",
            "prefers to be called",
            "prefer to be called",
            "wants to be called",
            "want to be called",
            "is called",
            "are called",
            "am called",
            "is named",
            "goes by",
            "go by",
            "喜欢被叫做",
            "喜欢被称为",
            "喜欢被叫",
            "希望被叫",
            "想被叫",
            "被叫做",
            "被称为",
            "名叫",
            "叫做",
            "叫",
        ],
    ),
    (
        "residence",
        &[
            "lives in",
            "live in",
            "lives at",
            "live at",
            "moved to",
            "relocated to",
            "居住在",
            "住在",
            "定居在",
            "定居于",
            "搬到了",
            "搬到",
        ],
    ),
    (
        "workplace",
        &[
            "is working at",
            "works at",
            "work at",
            "works for",
            "work for",
            "is employed at",
            "is employed by",
            "就职于",
            "任职于",
        ],
    ),
    ("occupation", &["is working as", "works as", "work as"]),
    (
        "birthplace",
        &["was born in", "were born in", "出生在", "出生于"],
    ),
    ("birthday", &["was born on", "were born on"]),
    (
        "origin",
        &[
            "comes from",
            "come from",
            "is from",
            "are from",
            "am from",
            "来自",
        ],
    ),
];

/// Copulas: the weakest slot, `<subject> is <value>`; the subject must be non-empty.
const COPULAS: &[&str] = &["is", "are", "am", "是"];

/// Words that say when or how sure, not who: dropped from subjects so "User now lives in X"
/// and "User lives in Y" share a slot.
const SUBJECT_FILLERS_EN: &[&str] = &[
    "the",
    "currently",
    "now",
    "still",
    "also",
    "recently",
    "actually",
    "really",
    "usually",
    "just",
    "already",
    "finally",
    "has",
    "have",
];
const SUBJECT_FILLERS_ZH: &[&str] = &[
    "现在", "目前", "已经", "一直", "仍然", "如今", "最近", "其实", "平时", "还", "也", "都",
];
/// Negations at the end of a subject belong to the value: "no longer lives in Berlin"
/// contradicts "lives in Berlin".
const NEGATIONS: &[&str] = &[
    "does not",
    "doesn't",
    "do not",
    "don't",
    "no longer",
    "never",
    "not",
    "不再",
    "从不",
    "没有",
    "不",
    "没",
];
/// Leading articles and measure words that do not change a value.
const VALUE_ARTICLES: &[&str] = &["a ", "an ", "the ", "一名", "一个", "一位", "一家"];

/// The fact's subject slot and value, e.g. "User lives in Berlin" → ("user|residence",
/// "berlin"), "用户的生日是5月1日" → ("用户生日|is", "5月1日"). Both parts are normalised
/// ([`normalize_text`]); possessives (`'s`, `的`), leading articles and time fillers are
/// dropped from the subject. `None` when no marker is found or the value is empty.
///
/// Markers, by priority (see `SLOT_MARKERS`): being called (is called / is named / goes by /
/// likes to be called, 叫 / 名叫 / 被称为 / 喜欢被叫), residence (lives in / moved to, 住在 /
/// 搬到), workplace (works at / works for, 在…工作 / 就职于), occupation (works as), birthplace
/// (was born in, 出生在), birthday (was born on), origin (comes from / is from, 来自), and
/// last the copula (is / are / am, 是), which covers "'s … is", "favorite X is", "的…是" and
/// "生日是".
pub fn subject_slot(text: &str) -> Option<(String, String)> {
    let text = prepare(text);
    let pairs = BytePairs::of(&text);
    let marked = SLOT_MARKERS
        .iter()
        .flat_map(|(slot, markers)| markers.iter().map(move |m| (*slot, *m)))
        .filter(|(_, marker)| pairs.may_hold(marker))
        .filter_map(|(slot, marker)| {
            let (subject, value) = split_at_marker(&text, marker)?;
            Some((
                subject.len(),
                usize::MAX - marker.len(),
                slot,
                subject,
                value,
            ))
        })
        .chain(
            split_zai_gongzuo(&text)
                .map(|(subject, value)| (subject.len(), usize::MAX, "workplace", subject, value)),
        )
        .min_by_key(|(at, longest, ..)| (*at, *longest));
    if let Some((_, _, slot, subject, value)) = marked {
        return slot_and_value(subject, value, slot);
    }
    let (subject, value) = COPULAS
        .iter()
        .filter(|copula| pairs.may_hold(copula))
        .filter_map(|copula| split_at_marker(&text, copula))
        .min_by_key(|(subject, _)| subject.len())?;
    let (slot, value) = slot_and_value(subject, value, "is")?;
    // "Is a teacher" names no subject: too weak to call anything a conflict.
    (slot != "|is").then_some((slot, value))
}

/// NFKC, lowercase, curly apostrophes straightened, punctuation (other than `'`) turned into
/// spaces, whitespace collapsed.
fn prepare(text: &str) -> String {
    let spaced: String = nfkc(text)
        .chars()
        .flat_map(char::to_lowercase)
        .map(|c| match c {
            '\u{2018}' | '\u{2019}' => '\'',
            c if c != '\'' && is_separator(c) => ' ',
            c => c,
        })
        .collect();
    spaced.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Which byte pairs a text holds, hashed into 1,024 bits: a marker whose first two bytes are
/// not there is not in the text. A verdict reads two texts against some seventy markers, and
/// scanning each text for each marker was most of the no-LLM verdict's cost.
struct BytePairs([u64; 16]);

impl BytePairs {
    fn of(text: &str) -> Self {
        let mut bits = [0u64; 16];
        for pair in text.as_bytes().windows(2) {
            let at = Self::bit(pair[0], pair[1]);
            bits[at / 64] |= 1 << (at % 64);
        }
        BytePairs(bits)
    }

    fn bit(a: u8, b: u8) -> usize {
        (usize::from(a) * 31 + usize::from(b)) % 1024
    }

    /// False only when `marker` cannot be in the text (every marker has two bytes or more).
    fn may_hold(&self, marker: &str) -> bool {
        match marker.as_bytes() {
            [a, b, ..] => {
                let at = Self::bit(*a, *b);
                self.0[at / 64] & (1 << (at % 64)) != 0
            }
            _ => true,
        }
    }
}

/// Splits at the first occurrence of `marker`: whole words for ASCII markers, anywhere for
/// others.
fn split_at_marker<'a>(text: &'a str, marker: &str) -> Option<(&'a str, &'a str)> {
    if !marker.is_ascii() {
        let at = find_from(text, marker, 0)?;
        return Some((&text[..at], &text[at + marker.len()..]));
    }
    let mut from = 0;
    while let Some(at) = find_from(text, marker, from) {
        let end = at + marker.len();
        let starts_word = at == 0 || text[..at].ends_with(' ');
        let ends_word = end == text.len() || text[end..].starts_with(' ');
        if starts_word && ends_word {
            return Some((&text[..at], &text[end..]));
        }
        from = at + 1;
    }
    None
}

/// The byte offset of the first `needle` in `text` at or after `from`, by a plain scan: a
/// summary is short and there are dozens of markers per verdict, and `str::find` set up its
/// two-way searcher for each (a twentieth of a fill's instructions went there). A match of whole
/// UTF-8 in UTF-8 starts on a character boundary.
fn find_from(text: &str, needle: &str, from: usize) -> Option<usize> {
    let (hay, needle) = (text.as_bytes().get(from..)?, needle.as_bytes());
    let first = *needle.first()?;
    let at = hay
        .windows(needle.len())
        .position(|w| w[0] == first && w == needle)?;
    Some(from + at)
}

/// "用户在腾讯工作": the workplace sits between the last 在 and 工作.
fn split_zai_gongzuo(text: &str) -> Option<(&str, &str)> {
    let work = text.find("工作")?;
    let zai = text[..work].rfind('在')?;
    Some((&text[..zai], &text[zai + '在'.len_utf8()..work]))
}

fn slot_and_value(subject: &str, value: &str, slot: &str) -> Option<(String, String)> {
    let (subject, negation) = split_negation(subject.trim());
    let subject = clean_subject(subject);
    let mut value = value.trim();
    // Names keep their first word ("A Che"); elsewhere "a teacher" is "teacher".
    while let Some(rest) = VALUE_ARTICLES
        .iter()
        .filter(|_| slot != "called")
        .find_map(|a| value.strip_prefix(a))
    {
        value = rest.trim_start();
    }
    if normalize_text(value).is_empty() {
        return None;
    }
    let value = normalize_text(&format!("{negation}{value}"));
    Some((format!("{subject}|{slot}"), value))
}

/// Splits a trailing negation off the subject, returned as `"not "` (or empty).
fn split_negation(subject: &str) -> (&str, &'static str) {
    for negation in NEGATIONS {
        if let Some(rest) = subject.strip_suffix(negation) {
            let word_boundary = !negation.is_ascii() || rest.is_empty() || rest.ends_with(' ');
            if word_boundary {
                return (rest.trim_end(), "not ");
            }
        }
    }
    (subject, "")
}

fn clean_subject(subject: &str) -> String {
    let words: Vec<&str> = subject
        .split(' ')
        .map(|w| w.strip_suffix("'s").unwrap_or(w))
        .filter(|w| !SUBJECT_FILLERS_EN.contains(w))
        .collect();
    let mut subject = normalize_text(&words.join(" "));
    // Each `replace` builds a new string: only for what is there (most subjects are "user").
    for filler in ["的"].iter().chain(SUBJECT_FILLERS_ZH) {
        if subject.contains(filler) {
            subject = subject.replace(filler, "");
        }
    }
    subject
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Texts holding markers (English, Chinese, repeated, at the ends) and none.
    const TEXTS: [&str; 7] = [
        "user lives in berlin and is from bern",
        "用户住在北京,是老师,出生在上海",
        "is",
        "",
        "ab",
        "ééis isis 是是",
        "the user's birthday is may 5 and she goes by a che",
    ];

    fn every_marker() -> impl Iterator<Item = &'static &'static str> + Clone {
        SLOT_MARKERS
            .iter()
            .flat_map(|(_, markers)| markers.iter())
            .chain(COPULAS)
    }

    #[test]
    fn the_plain_marker_search_finds_what_str_find_finds() {
        for marker in every_marker() {
            for text in TEXTS {
                let mut from = 0;
                while from <= text.len() {
                    if text.is_char_boundary(from) {
                        let want = text[from..].find(marker).map(|at| from + at);
                        assert_eq!(
                            find_from(text, marker, from),
                            want,
                            "{marker:?} in {text:?}"
                        );
                    }
                    from += 1;
                }
            }
        }
    }

    #[test]
    fn the_byte_pair_filter_never_hides_a_marker_the_text_holds() {
        let mut skipped = 0;
        for text in TEXTS {
            let pairs = BytePairs::of(text);
            for marker in every_marker() {
                if text.contains(marker) {
                    assert!(pairs.may_hold(marker), "{marker:?} in {text:?}");
                } else if !pairs.may_hold(marker) {
                    skipped += 1;
                }
            }
        }
        // It filters: most markers are absent from most texts.
        assert!(skipped > 200, "skipped only {skipped}");
    }

    #[test]
    fn subject_slots() {
        let slot = |t: &str| subject_slot(t).map(|(s, v)| format!("{s}={v}"));
        assert_eq!(
            slot("User lives in Berlin").as_deref(),
            Some("user|residence=berlin")
        );
        assert_eq!(slot("用户住在北京").as_deref(), Some("用户|residence=北京"));
        assert_eq!(
            slot("用户住在叫做望京的小区").as_deref(),
            Some("用户|residence=叫做望京的小区")
        );
        assert_eq!(
            slot("The user likes to be called A Che").as_deref(),
            Some("user|called=ache")
        );
        assert_eq!(
            slot("用户在腾讯工作").as_deref(),
            Some("用户|workplace=腾讯")
        );
        assert_eq!(
            slot("User’s birthday is May 5").as_deref(),
            Some("userbirthday|is=may5")
        );
        assert_eq!(slot("Is a teacher"), None);
        assert_eq!(slot("User likes tea"), None);
        assert_eq!(slot("User lives in"), None);
    }
}
