//! What goes into an answer, once the candidates are ranked (docs/LIFECYCLE.md, "Precision").
//!
//! Ranking orders everything that matches at all; an answer should hold what is relevant, not
//! `max_results` items whatever they are. Four rules, in order:
//! 1. **Relevance floor** (memory_retrieval): an item whose match ([`Ranked::relevance`]) is
//!    below [`RELEVANCE_FLOOR`] of the best item's is left out. Relative, so it adapts to the
//!    query (a one-word query and a long dialogue score on different scales).
//! 2. **Decay orders, it never hides the best match**: a typed memory in the archive tier
//!    (strength < 0.2) stays only when it matches about as well as the best item
//!    ([`ARCHIVE_FLOOR`]); weak *and* weakly matched is what archive means. Verbatim turns and
//!    diary days are records of what happened, not beliefs that fade: no archive rule.
//! 3. **A fact and the words it came from are not both read**: a conversation turn is dropped
//!    when a typed memory drawn from it (its `source_turns`) is in the answer.
//! 4. **One exchange, one slot first**: for a question in the user's own voice, the
//!    character's reply next to a user turn in the answer waits until the other items are in
//!    ([`one_slot_per_exchange`]); so does a diary day that repeats a typed memory in the
//!    answer word for word, or another diary day in it.

use super::query::{split_speaker, Speaker};
use super::rank::{Candidate, CandidateKind, Ranked};
use crate::memory::strength::{tier, Tier};
use std::collections::HashSet;

/// Share of the best item's relevance an item needs to be in a memory_retrieval answer.
pub const RELEVANCE_FLOOR: f64 = 0.35;
/// Relevance any item needs in a memory_retrieval answer to a question: below it nothing
/// matched the question's content (a name alone, a faint vector neighbour), and an empty
/// answer is the right one. Not applied to a dialogue query: its lexical score is a share of
/// every line's terms, so a turn that matches one line well scores far below it (MADial's
/// dialogues got empty answers for half their queries; docs/LIFECYCLE.md, "Precision").
pub const ABSOLUTE_FLOOR: f64 = 0.1;
/// Share of the best item's relevance an archive-tier memory needs to be returned at all.
pub const ARCHIVE_FLOOR: f64 = 0.75;

/// How to select.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Selection {
    /// Apply the relevance floor (memory_retrieval; the search route shows the whole ranking).
    pub floor: bool,
    /// Apply [`ABSOLUTE_FLOOR`] too (with `floor`, for a question; not for a dialogue).
    pub absolute_floor: bool,
    /// Return archive-tier memories however they match (the search route, when asked).
    pub include_archived: bool,
    /// Rule 4: who the query is about when it speaks in that person's own voice (`None` for a
    /// search, a named subject or none).
    pub voiced_subject: Option<Speaker>,
    pub max_results: usize,
}

/// The answer: `ranked` (best first) after the four rules, at most `max_results` items.
pub fn select(ranked: Vec<Ranked>, how: Selection) -> Vec<Ranked> {
    let top = ranked.iter().map(|r| r.relevance).fold(0.0, f64::max);
    let kept: Vec<Ranked> = ranked
        .into_iter()
        .filter(|r| {
            !how.floor
                || (r.relevance >= RELEVANCE_FLOOR * top
                    && (!how.absolute_floor || r.relevance >= ABSOLUTE_FLOOR))
        })
        .filter(|r| how.include_archived || !is_archived(r) || r.relevance >= ARCHIVE_FLOOR * top)
        .collect();
    let fact_sources: HashSet<String> = kept
        .iter()
        .take(how.max_results)
        .filter(|r| r.candidate.kind == CandidateKind::Memory)
        .flat_map(|r| r.candidate.source_turns.iter().cloned())
        .collect();
    let quoted = |r: &Ranked| {
        r.candidate.kind == CandidateKind::Conversation
            && r.candidate
                .source_turns
                .iter()
                .any(|t| fact_sources.contains(t))
    };
    // A turn dropped for its fact is still in the answer, as that fact (rule 4 reads it).
    let (quoted, kept): (Vec<Ranked>, Vec<Ranked>) = kept.into_iter().partition(quoted);
    one_slot_per_exchange(kept, &quoted, how)
}

/// Rule 4: when the query speaks in the user's own voice ("how many projects have *I*
/// finished?"), the character's reply next to a turn of the user's already in the answer is
/// read after the other items: it restates that turn ("Congratulations on your four
/// projects!") and would take the slot of another turn that answers. Measured: LongMemEval_S
/// dev end to end R@10 0.849 → 0.857; only 16 of 427 such replies were evidence there. A
/// question that only *names* its subject is left alone: in LoCoMo, where both speakers tell
/// their own lives, the adjacent turn was evidence as often as its replacement (docs/LIFECYCLE.md).
fn one_slot_per_exchange(kept: Vec<Ranked>, as_facts: &[Ranked], how: Selection) -> Vec<Ranked> {
    let (mut first, mut later): (Vec<Ranked>, Vec<Ranked>) = (Vec::new(), Vec::new());
    for r in kept {
        if first.len() >= how.max_results {
            break;
        }
        let answers_a_turn_in_the_answer = how.voiced_subject.is_some_and(|subject| {
            r.candidate.kind == CandidateKind::Conversation
                && r.candidate.speaker.is_some_and(|s| s != subject)
                && first.iter().chain(as_facts).any(|k| {
                    k.candidate.speaker == Some(subject) && next_to(&r.candidate, &k.candidate)
                })
        });
        if answers_a_turn_in_the_answer || restates_the_answer(&r, &first) {
            later.push(r);
        } else {
            first.push(r);
        }
    }
    first.extend(later);
    first.truncate(how.max_results);
    first
}

/// A diary day that repeats a typed memory already in the answer word for word (the built-in
/// diary quotes what the user said, and the dream drew the memory from the same words), or
/// another day in the answer (a day that said little is a topic and a feeling, the same for
/// many days), waits like the reply of rule 4: read twice, the same words would take the slot
/// of another item.
fn restates_the_answer(r: &Ranked, first: &[Ranked]) -> bool {
    r.candidate.kind == CandidateKind::Diary
        && first.iter().any(|k| {
            matches!(
                k.candidate.kind,
                CandidateKind::Memory | CandidateKind::Diary
            ) && !k.candidate.summary.is_empty()
                && r.candidate.summary.contains(&k.candidate.summary)
        })
}

/// Whether conversation turn `a` is next to turn `b` in its session: a turn's `context` holds
/// its neighbours as stored turns ("Speaker: text", `dream::records`), and `b.summary` is its
/// text without the label.
fn next_to(a: &Candidate, b: &Candidate) -> bool {
    b.kind == CandidateKind::Conversation
        && !b.summary.is_empty()
        && a.context.lines().any(|line| match split_speaker(line) {
            (Some(_), text) => text == b.summary,
            (None, _) => false,
        })
}

/// A typed memory whose strength has decayed into the archive tier.
fn is_archived(r: &Ranked) -> bool {
    r.candidate.kind == CandidateKind::Memory && tier(r.candidate.strength) == Tier::Archive
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::MemoryType;
    use crate::retrieval::rank::Candidate;
    use crate::time::Timestamp;

    fn item(id: &str, kind: CandidateKind, relevance: f64, strength: f64, src: &[&str]) -> Ranked {
        let mut c = Candidate::new(id, kind, MemoryType::Other, id, Timestamp(0));
        c.strength = strength;
        c.source_turns = src.iter().map(|s| s.to_string()).collect::<Vec<_>>().into();
        Ranked {
            candidate: c,
            score: relevance,
            relevance,
            signals: None,
        }
    }

    fn ids(r: &[Ranked]) -> Vec<&str> {
        r.iter().map(|x| x.candidate.id.as_str()).collect()
    }

    const RETRIEVE: Selection = Selection {
        floor: true,
        absolute_floor: true,
        include_archived: false,
        voiced_subject: None,
        max_results: 10,
    };

    #[test]
    fn weak_matches_are_left_out_of_a_retrieval_but_not_of_a_search() {
        let ranked = || {
            vec![
                item("best", CandidateKind::Memory, 1.0, 0.9, &[]),
                item("good", CandidateKind::Memory, 0.5, 0.9, &[]),
                item("fill", CandidateKind::Memory, 0.2, 0.9, &[]),
            ]
        };
        assert_eq!(ids(&select(ranked(), RETRIEVE)), ["best", "good"]);
        let search = Selection {
            floor: false,
            ..RETRIEVE
        };
        assert_eq!(ids(&select(ranked(), search)), ["best", "good", "fill"]);
        // Nothing matched the content: an empty answer.
        let faint = || vec![item("name-only", CandidateKind::Pkg, 0.05, 1.0, &[])];
        assert!(select(faint(), RETRIEVE).is_empty());
        // A dialogue's scores are shares of every line's terms: only the relative floor.
        let dialogue = Selection {
            absolute_floor: false,
            ..RETRIEVE
        };
        assert_eq!(ids(&select(faint(), dialogue)), ["name-only"]);
        assert_eq!(ids(&select(ranked(), dialogue)), ["best", "good"]);
    }

    #[test]
    fn an_old_memory_that_is_the_best_match_is_still_returned() {
        let ranked = vec![
            item("old-best", CandidateKind::Memory, 1.0, 0.05, &[]),
            item("old-weak", CandidateKind::Memory, 0.5, 0.05, &[]),
            item("fresh", CandidateKind::Memory, 0.5, 0.9, &[]),
            item("old-turn", CandidateKind::Conversation, 0.5, 0.05, &[]),
        ];
        assert_eq!(
            ids(&select(ranked, RETRIEVE)),
            ["old-best", "fresh", "old-turn"]
        );
    }

    #[test]
    fn a_turn_is_dropped_when_its_fact_is_in_the_answer() {
        let ranked = vec![
            item("turn", CandidateKind::Conversation, 1.0, 0.3, &["t1"]),
            item("fact", CandidateKind::Memory, 0.9, 0.9, &["t1"]),
            item("other-turn", CandidateKind::Conversation, 0.8, 0.3, &["t2"]),
            item("diary", CandidateKind::Diary, 0.7, 1.0, &["t2"]),
        ];
        assert_eq!(
            ids(&select(ranked, RETRIEVE)),
            ["fact", "other-turn", "diary"]
        );
    }

    #[test]
    fn a_diary_day_repeating_a_fact_in_the_answer_waits() {
        let with = |id: &str, kind, relevance, summary: &str| {
            let mut r = item(id, kind, relevance, 0.9, &[]);
            r.candidate.summary = summary.into();
            r
        };
        let ranked = || {
            vec![
                with(
                    "fact",
                    CandidateKind::Memory,
                    1.0,
                    "The user finished a painting",
                ),
                with(
                    "diary",
                    CandidateKind::Diary,
                    0.9,
                    "Talked about painting. The user finished a painting.",
                ),
                with(
                    "other",
                    CandidateKind::Conversation,
                    0.8,
                    "My fifth one is done",
                ),
            ]
        };
        let two = Selection {
            max_results: 2,
            ..RETRIEVE
        };
        assert_eq!(ids(&select(ranked(), two)), ["fact", "other"]);
        // With room for all, the diary day is still there, after the others.
        assert_eq!(ids(&select(ranked(), RETRIEVE)), ["fact", "other", "diary"]);
        // A diary day that says something else keeps its place.
        let mut other_day = ranked();
        other_day[1].candidate.summary = "Talked about the lake.".into();
        assert_eq!(ids(&select(other_day, two)), ["fact", "diary"]);
    }

    #[test]
    fn a_diary_day_in_the_same_words_as_one_in_the_answer_waits() {
        // The built-in diary of a day that said little is a topic and a feeling: on MADial,
        // four days of "今天和Bart聊了朋友。说到朋友的时候，Bart很紧张。" filled an answer.
        let day = |id: &str, relevance, summary: &str| {
            let mut r = item(id, CandidateKind::Diary, relevance, 1.0, &[]);
            r.candidate.summary = summary.into();
            r
        };
        let same = "今天和Bart聊了朋友。说到朋友的时候，Bart很紧张。";
        let ranked = || {
            vec![
                day("day1", 1.0, same),
                day("day2", 0.95, same),
                item("quote", CandidateKind::Conversation, 0.9, 0.3, &[]),
                day("day3", 0.85, "今天和Bart聊了朋友。Bart今天有点难过。"),
            ]
        };
        let three = Selection {
            max_results: 3,
            ..RETRIEVE
        };
        assert_eq!(ids(&select(ranked(), three)), ["day1", "quote", "day3"]);
        assert_eq!(
            ids(&select(ranked(), RETRIEVE)),
            ["day1", "quote", "day3", "day2"]
        );
    }

    fn turn(id: &str, speaker: Speaker, text: &str, context: &str, relevance: f64) -> Ranked {
        let mut r = item(id, CandidateKind::Conversation, relevance, 0.3, &[]);
        r.candidate.speaker = Some(speaker);
        r.candidate.summary = text.into();
        r.candidate.context = context.into();
        r
    }

    #[test]
    fn a_reply_next_to_a_turn_in_the_answer_waits_when_the_question_is_in_the_users_voice() {
        let ranked = || {
            vec![
                turn(
                    "said",
                    Speaker::User,
                    "I finished my fourth project.",
                    "Assistant: Well done!",
                    1.0,
                ),
                turn(
                    "reply",
                    Speaker::Character,
                    "Well done!",
                    "User: I finished my fourth project.",
                    0.9,
                ),
                turn(
                    "other-day",
                    Speaker::User,
                    "My fifth project is done.",
                    "",
                    0.8,
                ),
            ]
        };
        let voiced = Selection {
            voiced_subject: Some(Speaker::User),
            max_results: 2,
            ..RETRIEVE
        };
        assert_eq!(ids(&select(ranked(), voiced)), ["said", "other-day"]);
        // With room for all, the reply is still there, after the others.
        let roomy = Selection {
            max_results: 10,
            ..voiced
        };
        assert_eq!(
            ids(&select(ranked(), roomy)),
            ["said", "other-day", "reply"]
        );
        // A question that only names its subject keeps the ranking's order.
        let named = Selection {
            voiced_subject: None,
            ..voiced
        };
        assert_eq!(ids(&select(ranked(), named)), ["said", "reply"]);
        // The user's own next turn is not a reply to be put back.
        let mut own = ranked();
        own[1].candidate.speaker = Some(Speaker::User);
        assert_eq!(ids(&select(own, voiced)), ["said", "reply"]);
        // The user's turn is in the answer as the fact drawn from it: its reply waits too.
        let mut as_fact = ranked();
        as_fact[0].candidate.source_turns = vec!["t1".to_string()].into();
        let mut fact = item("fact", CandidateKind::Memory, 1.1, 0.9, &["t1"]);
        fact.candidate.summary = "The user finished their fourth project".into();
        as_fact.insert(0, fact);
        assert_eq!(ids(&select(as_fact, voiced)), ["fact", "other-day"]);
    }
}
