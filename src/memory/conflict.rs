//! Conflict resolution for new facts (SPEC §2.3): duplicate / supersede / insert.
//!
//! Embedding similarity sorts candidates into three bands; in the ambiguous band an LLM
//! answers, or, without one, the deterministic [`rule_verdict`] does: the same subject slot
//! ("where the user lives", "what the user likes to be called") with a different value means
//! the new fact supersedes the old one. No similarity, however high, merges two values of one
//! slot: to an embedding model "favourite drink: tea" and "… coffee" are nearly the same
//! sentence (multilingual-e5: 0.986).

use super::Memory;
use crate::nfkc::nfkc;

mod dates;
mod slot;
use dates::{on_other_days, same_apart_from_dates, told_late};
pub use slot::subject_slot;

/// Similarity thresholds for conflict resolution (SPEC §2.3), declared by each embedder.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SimilarityThresholds {
    /// At or above: the same fact (reinforce).
    pub duplicate: f32,
    /// At or above (and below `duplicate`): ambiguous, ask the LLM or the rules.
    pub ambiguous: f32,
    /// Retrieval: a candidate found only by its vector needs at least this similarity to
    /// the query to be returned at all (every model has its own cosine scale).
    pub relevant: f32,
}

impl SimilarityThresholds {
    /// For general-purpose sentence embedders (cosine), used by every binding for an
    /// external embedder that declares none: paraphrases of one fact score above ~0.9;
    /// related but distinct facts land in the 0.75–0.9 band.
    pub const SENTENCE: SimilarityThresholds = SimilarityThresholds {
        duplicate: 0.92,
        ambiguous: 0.78,
        relevant: 0.2,
    };
}

/// Text reduced to what it says: NFKC (folds full-width forms), lowercase, without
/// punctuation, whitespace or control characters. Letters, digits and symbols such as emoji
/// are kept.
pub fn normalize_text(s: &str) -> String {
    // Conflict resolution normalises every memory it compares: ASCII is its own NFKC, and CJK
    // ideographs (most of a Chinese text) are letters without case, so neither searches the
    // NFKC or case tables.
    if s.is_ascii() {
        // Byte by byte: a character's push encodes it, a call per character in the package.
        let mut out = Vec::with_capacity(s.len());
        for &b in s.as_bytes() {
            if b.is_ascii_alphanumeric() {
                out.push(b.to_ascii_lowercase());
            }
        }
        return String::from_utf8(out).unwrap_or_default();
    }
    let text = nfkc(s);
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        // Every ASCII character other than a letter or digit is a separator.
        if c.is_ascii() {
            if c.is_ascii_alphanumeric() {
                out.push(c.to_ascii_lowercase());
            }
        } else if ('\u{4E00}'..='\u{9FFF}').contains(&c) {
            out.push(c);
        } else {
            out.extend(c.to_lowercase().filter(|&c| !is_separator(c)));
        }
    }
    out
}

/// Whitespace, control characters and punctuation (ASCII, general, CJK and their
/// compatibility forms); letters and digits never are.
fn is_separator(c: char) -> bool {
    // Every ASCII character is a letter, a digit, or one of the kinds below.
    if c.is_ascii() {
        return !c.is_ascii_alphanumeric();
    }
    if c.is_alphanumeric() {
        return false;
    }
    c.is_whitespace()
        || c.is_control()
        || c.is_ascii_punctuation()
        || matches!(c,
            '\u{00A1}'..='\u{00BF}'     // ¡ « » ¿ · and other Latin-1 punctuation
            | '\u{2000}'..='\u{206F}'   // general punctuation: dashes, quotes, ellipsis
            | '\u{3000}'..='\u{303F}'   // CJK symbols and punctuation: 。、「」《》
            | '\u{FE10}'..='\u{FE1F}'   // vertical forms
            | '\u{FE30}'..='\u{FE6F}'   // CJK compatibility and small forms
            | '\u{FF01}'..='\u{FF0F}'   // full-width punctuation NFKC leaves alone
            | '\u{FF1A}'..='\u{FF20}'
            | '\u{FF3B}'..='\u{FF40}'
            | '\u{FF5B}'..='\u{FF65}')
}

/// The LLM's answer in the ambiguous band.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// The same fact in other words: reinforce the old one.
    Duplicate,
    /// Same topic, new value: the new fact replaces the old one, which is kept as history.
    Supersedes,
    /// Related, but both are true: insert.
    Distinct,
}

impl Verdict {
    /// Reads a verdict from an LLM answer such as `"DUPLICATE"`, `" supersedes."` or
    /// `"Verdict: **Distinct**"`: the answer itself, or the only verdict word in it.
    pub fn parse(s: &str) -> Option<Verdict> {
        let words: Vec<Verdict> = s
            .split(|c: char| !c.is_alphabetic())
            .filter_map(Self::from_word)
            .collect();
        match words.as_slice() {
            [first, rest @ ..] if rest.iter().all(|v| v == first) => Some(*first),
            _ => None,
        }
    }

    fn from_word(word: &str) -> Option<Verdict> {
        match word.to_ascii_uppercase().as_str() {
            "DUPLICATE" => Some(Verdict::Duplicate),
            "SUPERSEDES" | "SUPERSEDE" => Some(Verdict::Supersedes),
            "DISTINCT" => Some(Verdict::Distinct),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Duplicate => "DUPLICATE",
            Verdict::Supersedes => "SUPERSEDES",
            Verdict::Distinct => "DISTINCT",
        }
    }
}

/// What to do with a new fact, before any LLM is asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// The same fact exists: reinforce memory `id`.
    Reinforce { id: String },
    /// Nothing close: insert the new fact.
    Insert,
    /// Close to memory `id` but not clearly the same: ask the LLM or [`rule_verdict`].
    Ambiguous { id: String },
}

/// Sorts a new fact into a band. `candidates` are the same NPC's non-superseded memories of
/// the same type with their similarity to the new fact (superseded ones are skipped anyway).
/// An exact normalised-text match reinforces whatever its similarity.
pub fn decide(
    new_summary: &str,
    candidates: &[(&Memory, f32)],
    thresholds: SimilarityThresholds,
) -> Decision {
    let text = normalize_text(new_summary);
    let marked: Vec<(&Memory, f32, bool)> = candidates
        .iter()
        .map(|&(m, s)| (m, s, normalize_text(&m.summary) == text))
        .collect();
    decide_marked(new_summary, &marked, thresholds, &mut Slots::default())
}

/// [`decide`] with each candidate's exact match already known (`true`: the same
/// [`normalize_text`] as the new fact): conflict resolution normalises each memory it
/// compares once per call, not once per new memory, and parses each text's slot once
/// (`slots`).
pub fn decide_marked(
    new_summary: &str,
    candidates: &[(&Memory, f32, bool)],
    thresholds: SimilarityThresholds,
    slots: &mut Slots,
) -> Decision {
    let live = || {
        candidates
            .iter()
            .filter(|(m, _, _)| m.superseded_by.is_none())
    };
    // Equally similar candidates are common with the built-in embedder (texts that differ by
    // one word of a slot: "salad" / "tacos for dinner"): the newest is the slot's current
    // value, then the text decides (copies of one text are interchangeable), so the choice
    // never rests on the order the look-ups listed them in, which ties break by random id.
    let most_similar = |a: &&(&Memory, f32, bool), b: &&(&Memory, f32, bool)| {
        a.1.total_cmp(&b.1)
            .then(a.0.created_at.cmp(&b.0.created_at))
            .then_with(|| b.0.summary.cmp(&a.0.summary))
    };
    let exact = live().filter(|(_, _, same)| *same).max_by(most_similar);
    if let Some((m, _, _)) = exact {
        return Decision::Reinforce { id: m.id.clone() };
    }
    match live().filter(|(_, s, _)| !s.is_nan()).max_by(most_similar) {
        Some((m, s, _))
            if *s >= thresholds.duplicate
                && slots.compare(new_summary, &m.summary) != SlotMatch::NewValue
                && !on_other_days(new_summary, &m.summary) =>
        {
            Decision::Reinforce { id: m.id.clone() }
        }
        Some((m, s, _)) if *s >= thresholds.ambiguous => Decision::Ambiguous { id: m.id.clone() },
        _ => Decision::Insert,
    }
}

/// How two texts' subject slots ([`subject_slot`]) relate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SlotMatch {
    /// The same slot with the same value.
    SameValue,
    /// The same slot with another value.
    NewValue,
    /// No slot in common.
    Unrelated,
}

/// The subject slots of the texts conflict resolution compares, each parsed once while held:
/// a new memory's slot is read by [`decide_marked`] and again by the rules, and a memory near
/// many new ones is compared with each, in one call and the calls after it (the parse was a
/// twelfth of a fill's instructions). A memo of at most [`SLOTS_HELD`] texts, emptied when
/// full.
#[derive(Debug, Default)]
pub struct Slots(foldhash::HashMap<String, Option<(String, String)>>);

/// Texts a [`Slots`] holds at most (a few hundred bytes each).
pub const SLOTS_HELD: usize = 4096;

impl Slots {
    pub fn compare(&mut self, new_text: &str, old_text: &str) -> SlotMatch {
        let unparsed = [new_text, old_text]
            .iter()
            .filter(|text| !self.0.contains_key(**text))
            .count();
        if self.0.len() + unparsed > SLOTS_HELD {
            self.0.clear();
        }
        for text in [new_text, old_text] {
            if !self.0.contains_key(text) {
                self.0.insert(text.to_string(), subject_slot(text));
            }
        }
        match (self.0.get(new_text), self.0.get(old_text)) {
            (Some(Some((slot_new, value_new))), Some(Some((slot_old, value_old))))
                if slot_new == slot_old =>
            {
                if value_new == value_old {
                    SlotMatch::SameValue
                } else {
                    SlotMatch::NewValue
                }
            }
            _ => SlotMatch::Unrelated,
        }
    }
}

/// The no-LLM verdict for an ambiguous pair: the same normalised text, the same words
/// (`same_words`: the engine passes the built-in embedder's duplicate level, which allows word
/// order, punctuation, 很-style insertions), or the same slot with the same value, is a
/// duplicate; the same slot with another value supersedes; anything else is distinct (both
/// kept: a model embedder's band is wide, and keeping a restated fact twice costs less than
/// losing a fact).
pub fn rule_verdict(
    new_summary: &str,
    old_summary: &str,
    same_words: impl Fn(&str, &str) -> bool,
) -> Verdict {
    if normalize_text(new_summary) == normalize_text(old_summary) {
        return Verdict::Duplicate;
    }
    rule_verdict_of_other_texts(new_summary, old_summary, same_words, &mut Slots::default())
}

/// [`rule_verdict`] for two texts known to normalise differently (a pair [`decide_marked`]
/// calls ambiguous), with the slots parsed so far.
pub fn rule_verdict_of_other_texts(
    new_summary: &str,
    old_summary: &str,
    same_words: impl Fn(&str, &str) -> bool,
    slots: &mut Slots,
) -> Verdict {
    let other_days = on_other_days(new_summary, old_summary);
    // The slot first: "lives in Berlin" / "lives in Bern" share nearly every word.
    match slots.compare(new_summary, old_summary) {
        SlotMatch::NewValue => Verdict::Supersedes,
        // A dated event on another day is never the same fact: the same words and a later
        // date are a routine's latest occurrence (kept live, the earlier one as history);
        // an earlier date (an old log dreamt late), or other words too, another event.
        SlotMatch::SameValue if other_days => match told_late(new_summary, old_summary) {
            true => Verdict::Distinct,
            false => Verdict::Supersedes,
        },
        SlotMatch::SameValue => Verdict::Duplicate,
        SlotMatch::Unrelated if other_days => {
            match same_apart_from_dates(new_summary, old_summary)
                && !told_late(new_summary, old_summary)
            {
                true => Verdict::Supersedes,
                false => Verdict::Distinct,
            }
        }
        SlotMatch::Unrelated if same_words(new_summary, old_summary) => Verdict::Duplicate,
        SlotMatch::Unrelated => Verdict::Distinct,
    }
}

/// Deleting `deleted` hands its place back: the memories it superseded now point to what
/// superseded it (usually nothing, so they are live again). Returns the updated memories.
pub fn resurrect_on_delete(deleted: &Memory, others: &[Memory]) -> Vec<Memory> {
    others
        .iter()
        .filter(|m| m.superseded_by.as_deref() == Some(deleted.id.as_str()))
        .map(|m| Memory {
            superseded_by: deleted.superseded_by.clone(),
            ..m.clone()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::MemoryType;
    use crate::retrieval::embed::same_words;
    use crate::time::Timestamp;

    fn memory(id: &str, summary: &str) -> Memory {
        Memory {
            confidence: 0.9,
            source: "conversation".into(),
            ..Memory::new(id, MemoryType::Profile, summary, Timestamp(0))
        }
    }

    #[test]
    fn a_dated_event_on_another_day_is_never_a_repeat() {
        let same = |_: &str, _: &str| true;
        let pairs = [
            // The same words, another day: the routine's latest occurrence.
            (
                "用户2025-06-10开了好久的会",
                "用户2025-06-09开了好久的会",
                Verdict::Supersedes,
            ),
            (
                "The user still needs to call the bank on 2025-07-02",
                "The user still needs to call the bank on 2025-06-10",
                Verdict::Supersedes,
            ),
            // A date at either end of the text.
            (
                "2025-06-10 long meeting",
                "Long meeting 2025-06-09",
                Verdict::Supersedes,
            ),
            (
                "2025-06-10: long meeting",
                "2025-06-09 long meeting",
                Verdict::Supersedes,
            ),
            // An earlier day learnt late (an old log dreamt after a newer one): another event,
            // the later day stays live.
            (
                "用户2025-06-08开了好久的会",
                "用户2025-06-09开了好久的会",
                Verdict::Distinct,
            ),
            // Other words too: another event.
            (
                "用户回来啦，2025-07-01上班好累",
                "用户2025-06-03上班好累",
                Verdict::Distinct,
            ),
            // The same day: what the words say, as before.
            (
                "用户2025-06-09开了好久的会。",
                "用户2025-06-09开了好久的会",
                Verdict::Duplicate,
            ),
            // One text undated: no second day to tell apart.
            (
                "用户开了好久的会",
                "用户2025-06-09开了好久的会",
                Verdict::Duplicate,
            ),
            // A date is ten characters bounded by non-digits: a longer number is none.
            (
                "Order 12025-06-091 arrived",
                "Order 22025-06-092 arrived",
                Verdict::Duplicate,
            ),
        ];
        for (new, old, verdict) in pairs {
            assert_eq!(rule_verdict(new, old, same), verdict, "{new} / {old}");
            // Above the duplicate level too, another day is no repeat: the rules decide.
            let old = memory("m_old", old);
            let decision = decide_marked(new, &[(&old, 0.99, false)], BANDS, &mut Slots::default());
            let expected = match verdict {
                Verdict::Duplicate => Decision::Reinforce { id: "m_old".into() },
                _ => Decision::Ambiguous { id: "m_old".into() },
            };
            assert_eq!(decision, expected, "{new} / {old:?}");
        }
    }

    #[test]
    fn equally_similar_candidates_are_chosen_by_age_and_text_never_by_id() {
        let new = "The user is thinking about salad for dinner";
        let dated = |id: &str, summary: &str, at: i64| Memory {
            created_at: Timestamp(at),
            ..memory(id, summary)
        };
        let older = dated("m_b", "The user is thinking about tacos for dinner", 1);
        let newer = dated("m_a", "The user is thinking about dumplings for dinner", 2);
        let twin = dated("m_c", "The user is thinking about pasta for dinner", 2);
        let mut slots = Slots::default();
        for (band, s) in [("ambiguous", 0.85), ("duplicate", 0.95)] {
            // Whatever the order the look-ups returned them in, the same memory is chosen.
            for order in [
                [&older, &newer, &twin],
                [&twin, &newer, &older],
                [&newer, &twin, &older],
            ] {
                let candidates: Vec<(&Memory, f32, bool)> =
                    order.iter().map(|m| (*m, s, false)).collect();
                let chosen = match decide_marked(new, &candidates, BANDS, &mut slots) {
                    Decision::Ambiguous { id } | Decision::Reinforce { id } => id,
                    Decision::Insert => panic!("{band}: a candidate is in the band"),
                };
                // The newest two tie on age; the text ("dumplings" < "pasta") decides.
                assert_eq!(chosen, "m_a", "{band}, order {:?}", order.map(|m| &m.id));
            }
        }
    }

    const BANDS: SimilarityThresholds = SimilarityThresholds {
        duplicate: 0.93,
        ambiguous: 0.78,
        relevant: 0.2,
    };

    /// The definition [`normalize_text`]'s fast paths (ASCII, CJK ideographs) must match.
    fn normalized_by_definition(s: &str) -> String {
        nfkc(s)
            .chars()
            .flat_map(char::to_lowercase)
            .filter(|&c| !is_separator(c))
            .collect()
    }

    #[test]
    fn fast_paths_normalise_as_the_definition() {
        let ranges = [0..0x3100u32, 0x4DF0..0xA010, 0xF900..0xFB00, 0xFE00..0xFFF0];
        for c in ranges.into_iter().flatten().filter_map(char::from_u32) {
            for text in [
                format!("{c}"),
                format!("A{c}b"),
                format!("用{c}\u{0301}户"),
                format!("e{c}\u{0301}，"),
            ] {
                assert_eq!(
                    normalize_text(&text),
                    normalized_by_definition(&text),
                    "{text:?}"
                );
            }
        }
        for text in [
            "User LIVES in Berlin!!",
            "用户喜欢吃火锅，尤其是成都那家店的",
            "ＵＳＥＲ　ｌｉｋｅｓ　ＴＥＡ！",
            "İstanbul ΣΑΣ café",
        ] {
            assert_eq!(normalize_text(text), normalized_by_definition(text));
        }
    }

    #[test]
    fn ascii_separators_are_the_general_rules() {
        for c in (0u8..128).map(char::from) {
            let general = !c.is_alphanumeric()
                && (c.is_whitespace() || c.is_control() || c.is_ascii_punctuation());
            assert_eq!(is_separator(c), general, "{c:?}");
        }
    }

    #[test]
    fn normalization_folds_case_width_punctuation_and_spacing() {
        assert_eq!(
            normalize_text("  User LIVES in Berlin!! "),
            "userlivesinberlin"
        );
        assert_eq!(normalize_text("用户，住在　北京。"), "用户住在北京");
        assert_eq!(
            normalize_text("ＵＳＥＲ　ｌｉｋｅｓ　ＴＥＡ！"),
            "userlikestea"
        );
        assert_eq!(normalize_text("「喜欢」《三体》…"), "喜欢三体");
        assert_eq!(normalize_text("likes 🍵"), "likes🍵");
        assert_eq!(
            normalize_text("User likes tea."),
            normalize_text("user  LIKES tea")
        );
        assert_ne!(
            normalize_text("User likes tea"),
            normalize_text("User likes coffee")
        );
    }

    #[test]
    fn verdicts_parse_tolerantly() {
        for (text, want) in [
            ("DUPLICATE", Verdict::Duplicate),
            ("  supersedes.\n", Verdict::Supersedes),
            ("**Distinct**", Verdict::Distinct),
            ("Verdict: DUPLICATE", Verdict::Duplicate),
        ] {
            assert_eq!(Verdict::parse(text), Some(want), "{text:?}");
        }
        assert_eq!(Verdict::parse("maybe"), None);
        assert_eq!(Verdict::parse(""), None);
        assert_eq!(Verdict::parse("DUPLICATE or DISTINCT"), None);
        assert_eq!(
            Verdict::parse(Verdict::Supersedes.as_str()),
            Some(Verdict::Supersedes)
        );
    }

    #[test]
    fn decide_by_band() {
        let a = memory("mem_a", "User likes green tea");
        let b = memory("mem_b", "User drinks tea every morning");
        let cases = [
            (0.95, 0.5, Decision::Reinforce { id: "mem_a".into() }),
            (0.80, 0.85, Decision::Ambiguous { id: "mem_b".into() }),
            (0.50, 0.70, Decision::Insert),
        ];
        for (sa, sb, want) in cases {
            assert_eq!(
                decide("User enjoys tea", &[(&a, sa), (&b, sb)], BANDS),
                want
            );
        }
        assert_eq!(decide("anything", &[], BANDS), Decision::Insert);
    }

    #[test]
    fn slots_parsed_once_answer_as_parsed_each_time() {
        // One memo across every pair, each text met as the new and as the old one: the
        // answers of a fresh parse each time.
        let texts = [
            "用户最喜欢的饮料是咖啡",
            "用户最喜欢的饮料是茶",
            "User lives in Berlin",
            "The user lives in Bern",
            "The user lives in Berlin",
            "The user has a dog",
        ];
        let mut shared = Slots::default();
        let mut kinds = Vec::new();
        for new in texts {
            for old in texts {
                let fresh = Slots::default().compare(new, old);
                assert_eq!(shared.compare(new, old), fresh, "{new} / {old}");
                kinds.push(fresh);
            }
        }
        for kind in [
            SlotMatch::SameValue,
            SlotMatch::NewValue,
            SlotMatch::Unrelated,
        ] {
            assert!(kinds.contains(&kind), "{kind:?} never met");
        }
        assert_eq!(
            Slots::default().compare("The user lives in Bern", "User lives in Berlin"),
            SlotMatch::NewValue
        );
        // Held across many comparisons, it stays bounded and answers the same, also when it
        // fills up between a pair's two texts (one text held first, then pairs).
        let mut held = Slots::default();
        assert_eq!(
            held.compare("User lives in Oslo", "User lives in Oslo"),
            SlotMatch::SameValue
        );
        for n in 0..SLOTS_HELD + 10 {
            let (new, old) = (format!("User lives in {n}a"), format!("User lives in {n}b"));
            assert_eq!(held.compare(&new, &old), SlotMatch::NewValue, "{n}");
            assert!(held.0.len() <= SLOTS_HELD);
        }
    }

    #[test]
    fn no_similarity_merges_two_values_of_one_slot() {
        // A model embedder scores these near 1: the rules decide, and they supersede.
        let old = memory("mem_a", "用户最喜欢的饮料是茶");
        let got = decide("用户最喜欢的饮料是咖啡", &[(&old, 0.99)], BANDS);
        assert_eq!(got, Decision::Ambiguous { id: "mem_a".into() });
        assert_eq!(
            rule_verdict("用户最喜欢的饮料是咖啡", "用户最喜欢的饮料是茶", same_words),
            Verdict::Supersedes
        );
        let same = memory("mem_b", "User lives in Berlin");
        let got = decide("The user lives in Berlin", &[(&same, 0.99)], BANDS);
        assert_eq!(got, Decision::Reinforce { id: "mem_b".into() });
    }

    #[test]
    fn the_same_words_reworded_are_a_duplicate_without_an_llm() {
        for (new, old) in [
            (
                "The user really loves spicy hot pot.",
                "The user loves spicy hot pot",
            ),
            ("用户很喜欢吃辣的火锅", "用户喜欢吃辣的火锅"),
            ("周末用户常去海边散步。", "用户周末常去海边散步"),
        ] {
            assert_eq!(
                rule_verdict(new, old, same_words),
                Verdict::Duplicate,
                "{new} / {old}"
            );
        }
        // Shared words, another thing: kept apart.
        for (new, old) in [
            ("用户去动物园看了熊猫", "用户去动物园看了大象"),
            (
                "The user saw pandas at the zoo",
                "The user saw elephants at the zoo",
            ),
        ] {
            assert_eq!(
                rule_verdict(new, old, same_words),
                Verdict::Distinct,
                "{new} / {old}"
            );
        }
    }

    #[test]
    fn exact_text_reinforces_whatever_the_similarity() {
        let a = memory("mem_a", "用户住在北京。");
        let b = memory("mem_b", "User likes tea");
        let got = decide("用户 住在 北京", &[(&b, 0.9), (&a, 0.1)], BANDS);
        assert_eq!(got, Decision::Reinforce { id: "mem_a".into() });
    }

    #[test]
    fn superseded_candidates_are_ignored() {
        let mut old = memory("mem_old", "User lives in Berlin");
        old.superseded_by = Some("mem_new".into());
        assert_eq!(
            decide("User lives in Berlin", &[(&old, 0.99)], BANDS),
            Decision::Insert
        );
    }

    #[test]
    fn same_slot_new_value_supersedes() {
        let pairs = [
            ("User lives in Bangkok", "User lives in Berlin"),
            ("用户住在上海", "用户住在北京"),
            (
                "The user likes to be called B",
                "The user likes to be called A",
            ),
            ("用户喜欢被叫小澈", "用户喜欢被叫阿澈"),
            ("User now works at Google", "User works at Microsoft"),
            ("用户现在在字节跳动工作", "用户在腾讯工作"),
            (
                "User's favorite color is green",
                "The user's favorite color is blue",
            ),
            ("用户最喜欢的颜色是绿色", "用户最喜欢的颜色是蓝色"),
            ("用户的生日是6月2日", "用户生日是5月1日"),
            ("User no longer lives in Berlin", "User lives in Berlin"),
            ("用户不再住在北京", "用户住在北京"),
            ("User's sister is called Mia", "User's sister is named Anna"),
            ("用户的妹妹叫小美", "用户的妹妹名叫小丽"),
            ("User has moved to Paris", "User lives in Rome"),
            ("用户搬到了深圳", "用户住在广州"),
            ("User works as a nurse", "User works as a teacher"),
            ("User is from Canada", "User comes from Mexico"),
            ("用户来自四川", "用户来自湖南"),
        ];
        for (new, old) in pairs {
            assert_eq!(
                rule_verdict(new, old, same_words),
                Verdict::Supersedes,
                "{new} / {old}"
            );
        }
    }

    #[test]
    fn same_slot_same_value_is_duplicate() {
        let pairs = [
            ("User lives in Berlin.", "user lives in berlin"),
            ("The user currently lives in Berlin", "User lives in Berlin"),
            ("用户目前住在北京", "用户住在北京"),
            ("User is a teacher", "User is the teacher"),
            ("用户是一名老师", "用户是老师"),
        ];
        for (new, old) in pairs {
            assert_eq!(
                rule_verdict(new, old, same_words),
                Verdict::Duplicate,
                "{new} / {old}"
            );
        }
    }

    #[test]
    fn different_slots_or_no_slot_are_distinct() {
        let pairs = [
            ("User likes coffee", "User likes tea"),
            ("用户喜欢咖啡", "用户喜欢茶"),
            ("User lives in Berlin", "User works at Google"),
            ("User's sister lives in Berlin", "User lives in Bangkok"),
            ("用户的妹妹住在上海", "用户住在北京"),
            ("Went hiking on Sunday", "Watched a movie on Saturday"),
        ];
        for (new, old) in pairs {
            assert_eq!(
                rule_verdict(new, old, same_words),
                Verdict::Distinct,
                "{new} / {old}"
            );
        }
    }

    #[test]
    fn deleting_the_newer_resurrects_the_older() {
        let mut newer = memory("mem_new", "User lives in Bangkok");
        let mut older = memory("mem_old", "User lives in Berlin");
        older.superseded_by = Some("mem_new".into());
        let unrelated = memory("mem_x", "User likes tea");
        let back = resurrect_on_delete(&newer, &[older.clone(), unrelated.clone()]);
        assert_eq!(back.len(), 1);
        assert_eq!(back[0].id, "mem_old");
        assert_eq!(back[0].superseded_by, None);

        // In a chain, the older one points past the deleted middle one.
        newer.superseded_by = Some("mem_newest".into());
        let back = resurrect_on_delete(&newer, &[older, unrelated]);
        assert_eq!(back[0].superseded_by.as_deref(), Some("mem_newest"));
    }
}
