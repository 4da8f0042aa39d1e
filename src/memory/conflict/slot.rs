//! Subject slots: which attribute of whom a fact sets ("where the user lives") and to what
//! value, read from English and Chinese predicate markers. Two facts filling the same slot
//! with different values conflict (SPEC §2.3, the no-LLM rule).

use super::{is_separator, normalize_text};
use crate::nfkc::nfkc;
use std::sync::OnceLock;

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
    let (marker, copula) = first_markers(&text);
    // A marker beats 在…工作 starting at the same place.
    let zai_gongzuo = split_zai_gongzuo(&text);
    let marked = match marker {
        Some((at, marker, slot)) if zai_gongzuo.is_none_or(|(subject, _)| at <= subject.len()) => {
            Some((&text[..at], &text[at + marker.len()..], slot))
        }
        _ => zai_gongzuo.map(|(subject, value)| (subject, value, "workplace")),
    };
    if let Some((subject, value, slot)) = marked {
        return slot_and_value(subject, value, slot);
    }
    let (at, copula, _) = copula?;
    let (slot, value) = slot_and_value(&text[..at], &text[at + copula.len()..], "is")?;
    // "Is a teacher" names no subject: too weak to call anything a conflict.
    (slot != "|is").then_some((slot, value))
}

/// NFKC, lowercase, curly apostrophes straightened, punctuation (other than `'`) turned into
/// spaces, whitespace collapsed.
fn prepare(text: &str) -> String {
    let text = nfkc(text);
    let mut out = String::with_capacity(text.len());
    // A space is written only before the next kept character: no run of spaces, none at
    // either end.
    let mut space = false;
    let mut push = |c: char| match c {
        c if c != '\'' && is_separator(c) => space = true,
        c => {
            if std::mem::take(&mut space) && !out.is_empty() {
                out.push(' ');
            }
            out.push(c);
        }
    };
    for c in text.chars() {
        match c {
            // ASCII lowercases to ASCII: the case tables are for the rest.
            c if c.is_ascii() => push(c.to_ascii_lowercase()),
            '\u{2018}' | '\u{2019}' => push('\''),
            c => c.to_lowercase().for_each(&mut push),
        }
    }
    out
}

/// Where a marker sits: its byte offset, the marker, its slot ("is" for a copula).
type Found = (usize, &'static str, &'static str);

/// The earliest slot marker of a prepared text (the longest one on a tie), and the earliest
/// copula before it (or anywhere, when there is no marker), read in one pass: searching the
/// text once per marker read a long text some seventy times, most of a fill's verdict cost
/// on real conversation turns. ASCII markers match whole words, others anywhere.
fn first_markers(text: &str) -> (Option<Found>, Option<Found>) {
    let markers = Markers::get();
    let bytes = text.as_bytes();
    let mut copula = None;
    for (at, &first) in bytes.iter().enumerate() {
        let starts_word = at == 0 || bytes[at - 1] == b' ';
        let group = &markers.entries
            [markers.start[usize::from(first)]..markers.start[usize::from(first) + 1]];
        // Longest first: the first that matches is the one this position gives.
        for marker in group {
            // Inside a word no whole-word marker starts: not compared (most of a long
            // text's positions, and of the parse's time on it).
            if marker.whole_word && !starts_word {
                continue;
            }
            let end = at + marker.text.len();
            let matches = bytes[at..].starts_with(marker.text.as_bytes())
                && (!marker.whole_word || end == bytes.len() || bytes[end] == b' ');
            if !matches {
                continue;
            }
            let found = Some((at, marker.text, marker.slot));
            match marker.copula {
                false => return (found, copula),
                true if copula.is_none() => copula = found,
                true => {}
            }
        }
    }
    (None, copula)
}

struct Marker {
    text: &'static str,
    slot: &'static str,
    /// ASCII markers match whole words only.
    whole_word: bool,
    copula: bool,
}

/// Every slot marker and copula, grouped by first byte, longest first within a group.
struct Markers {
    entries: Vec<Marker>,
    /// `entries[start[b]..start[b + 1]]` begin with byte `b`.
    start: [usize; 257],
}

impl Markers {
    fn get() -> &'static Markers {
        static MARKERS: OnceLock<Markers> = OnceLock::new();
        MARKERS.get_or_init(|| {
            let marker = |text: &'static str, slot, copula| Marker {
                text,
                slot,
                whole_word: text.is_ascii(),
                copula,
            };
            let mut entries: Vec<Marker> = SLOT_MARKERS
                .iter()
                .flat_map(|(slot, markers)| markers.iter().map(move |m| marker(m, slot, false)))
                .chain(COPULAS.iter().map(|c| marker(c, "is", true)))
                .collect();
            // The crate's one sort (a sort of its own is kilobytes of the package's wasm).
            crate::order::sort_by(&mut entries, |a, b| {
                let key = |m: &Marker| (m.text.as_bytes()[0], std::cmp::Reverse(m.text.len()));
                key(a).cmp(&key(b))
            });
            let mut start = [0; 257];
            for m in &entries {
                start[usize::from(m.text.as_bytes()[0]) + 1] += 1;
            }
            for b in 0..256 {
                start[b + 1] += start[b];
            }
            Markers { entries, start }
        })
    }
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
    let plain = normalize_text(value);
    if plain.is_empty() {
        return None;
    }
    let value = match negation {
        "" => plain,
        negation => normalize_text(&format!("{negation}{value}")),
    };
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

    /// The definition [`subject_slot`] must keep: each marker searched for on its own, the
    /// earliest (then longest) wins, 在…工作 loses a tie, copulas only when nothing else.
    fn subject_slot_by_definition(text: &str) -> Option<(String, String)> {
        let text = prepare(text);
        let first = |marker: &str| -> Option<usize> {
            let mut from = 0;
            while let Some(at) = text[from..].find(marker).map(|at| from + at) {
                let end = at + marker.len();
                let whole = !marker.is_ascii()
                    || ((at == 0 || text[..at].ends_with(' '))
                        && (end == text.len() || text[end..].starts_with(' ')));
                if whole {
                    return Some(at);
                }
                from = at + 1;
            }
            None
        };
        let marked = SLOT_MARKERS
            .iter()
            .flat_map(|(slot, markers)| markers.iter().map(move |m| (*slot, *m)))
            .filter_map(|(slot, m)| first(m).map(|at| (at, usize::MAX - m.len(), slot, m.len())))
            .map(|(at, rank, slot, len)| (at, rank, slot, &text[..at], &text[at + len..]))
            .chain(
                split_zai_gongzuo(&text).map(|(subject, value)| {
                    (subject.len(), usize::MAX, "workplace", subject, value)
                }),
            )
            .min_by_key(|(at, rank, ..)| (*at, *rank));
        if let Some((_, _, slot, subject, value)) = marked {
            return slot_and_value(subject, value, slot);
        }
        let (at, len) = COPULAS
            .iter()
            .filter_map(|c| first(c).map(|at| (at, c.len())))
            .min_by_key(|(at, _)| *at)?;
        let (slot, value) = slot_and_value(&text[..at], &text[at + len..], "is")?;
        (slot != "|is").then_some((slot, value))
    }

    #[test]
    fn markers_are_distinct_and_at_least_two_bytes() {
        let all: Vec<&str> = Markers::get().entries.iter().map(|m| m.text).collect();
        let distinct: std::collections::HashSet<&str> = all.iter().copied().collect();
        assert_eq!(distinct.len(), all.len());
        assert!(all.iter().all(|m| m.len() >= 2));
    }

    #[test]
    fn one_pass_reads_the_slot_the_definition_reads() {
        let texts = TEXTS.iter().map(|t| t.to_string()).chain([
            "用户在北京工作，住在上海".into(),
            "用户住在北京工作".into(),
            "在家工作".into(),
            "she is called is named is".into(),
            "this is his island".into(),
            "the user no longer lives in berlin".into(),
            "用户不再住在北京".into(),
            "用户的名字叫做小明,是老师".into(),
            "a".repeat(300) + " lives in x",
        ]);
        for text in texts {
            assert_eq!(
                subject_slot(&text),
                subject_slot_by_definition(&text),
                "{text:?}"
            );
        }
    }

    /// What [`prepare`] must return, written the plain way.
    fn prepared_by_definition(text: &str) -> String {
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

    #[test]
    fn preparing_keeps_the_definition() {
        for text in TEXTS.iter().copied().chain([
            "  User’S  Name,  is ‘A Che’!! ",
            "ＵＳＥＲ　ｌｉｖｅｓ　ｉｎ　Ｂｅｒｌｉｎ",
            "İstanbul ΣΑΣ\u{2028}café\t\n",
            "用户，住在　北京。",
        ]) {
            assert_eq!(prepare(text), prepared_by_definition(text), "{text:?}");
        }
    }

    proptest::proptest! {
        /// Texts stitched from markers, their pieces, words and separators.
        #[test]
        fn one_pass_reads_the_slot_the_definition_reads_anywhere(
            pieces in proptest::collection::vec(proptest::sample::select(vec![
                "lives in", "live", "in", "is", "is called", "called", "are", "am", "from",
                "goes by", "works at", "work", "as", "was born on", "user", "the", "'s", "not",
                "no longer", "住在", "住", "在", "工作", "叫", "叫做", "是", "不", "的", "来自",
                "用户", "北京", " ", "  ", ",", "。", "x", "ís", "ＩＳ", "\u{2019}s",
            ]), 0..12)
        ) {
            let text: String = pieces.concat();
            proptest::prop_assert_eq!(subject_slot(&text), subject_slot_by_definition(&text));
        }

        #[test]
        fn preparing_keeps_the_definition_for_any_text(text in "\\PC{0,40}") {
            proptest::prop_assert_eq!(prepare(&text), prepared_by_definition(&text));
        }
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
