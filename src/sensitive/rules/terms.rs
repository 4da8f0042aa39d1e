//! Health, sexuality and orientation terms that need a person and a disclosure in the same
//! sentence ("my mom has cancer", "I'm gay"), so that topics stay ordinary.

use super::*;

/// Whether the sentence of an English health or sexuality term is about someone: a person word in it
/// ("my", "she", "mom", "you"), a first word whose subject went unsaid ("Started chemo last
/// week", "Tested positive in May"), or Chinese in it (its person words are not listed here).
/// A sentence about nobody discloses nobody's health: "Chemotherapy can cause nausea", "Some
/// STIs can lead to birth defects", `std(data)`, "books on gender identity and race". On
/// LongMemEval_S turns such sentences (an assistant's explanations, pasted articles and code)
/// were 47% of the health findings.
/// A disclosure phrase ("diagnosed with") and terms of other languages count anywhere.
pub(super) fn about_someone(s: &Scan, term: &Range<usize>) -> bool {
    let word = &s.lower[term.clone()];
    if !word.is_ascii() || in_list(HEALTH_DISCLOSURE_PHRASES, word) {
        return true;
    }
    let sentence = &s.lower[sentence_around(&s.lower, term.start)];
    let before = preceding_words(&s.lower, term.start, usize::MAX);
    let first = before.last().copied().unwrap_or_default();
    in_list(UNSAID_SUBJECT_STARTS, first)
        || has_any(sentence, PERSON_WORDS)
        || sentence.chars().any(is_cjk)
}

/// Whether "therapist" at `at` is one a client sees for the mind: not a massage, yoga or
/// physical therapist (a body's, like a dentist), and not someone's job ("I'm a therapist",
/// "my sister is a therapist"). Both were among the health findings on LongMemEval_S turns.
pub(super) fn a_mental_health_therapist(s: &Scan, at: usize) -> bool {
    match preceding_words(&s.lower, at, 3).as_slice() {
        [kind, ..] if in_list(BODY_THERAPISTS, kind) => false,
        ["a" | "an", "as", "such", ..] => true,
        ["a" | "an", job, ..] => !in_list(IS_A_JOB, job),
        _ => true,
    }
}

/// "my depression", "my anxiety and PTSD" (a possessive two words back, four after "and" or
/// "or"), or a person and a disclosure verb in the sentence ("my mom has cancer").
pub(super) fn health_disclosure(s: &Scan, term: &Range<usize>) -> bool {
    let before = preceding_words(&s.lower, term.start, 4);
    let reach = match before.first() {
        Some(&("and" | "or")) => 4,
        _ => 2,
    };
    if before.iter().take(reach).any(|w| in_list(POSSESSIVES, w)) {
        return true;
    }
    let sentence = &s.lower[sentence_around(&s.lower, term.start)];
    has_any(sentence, PERSON_WORDS) && has_any(sentence, DISCLOSURE_WORDS)
}

/// Whether `sentence` has any of the `|`-separated `words` as a whole word.
fn has_any(sentence: &str, words: &str) -> bool {
    words
        .split('|')
        .any(|w| word_positions(sentence, w).next().is_some())
}
