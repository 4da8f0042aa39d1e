//! What ranking reads of a stored text, computed once per text and remembered: its distinct
//! terms with their counts and the order of its terms; the everyday topics they touch
//! ([`super::topics`]); for a summary, the same of each of its sentences; once asked, what the
//! sensitivity detector finds in it. Ranking then walks the
//! query's terms and a candidate's side by side, instead of tokenizing and hashing every
//! token of every candidate's summary, sentences and context on every query — most of the
//! time of a retrieval over a year of conversation, whose candidates are long turns with
//! their neighbours as context (docs/BENCHMARKS.md, "Retrieve latency at 10k records").
//! Remembered per thread (an isolate, a process), in one memo bounded by [`MEMO_TEXTS`]: a
//! text's sentences are only split when it is ranked as a summary.
#![deny(
    clippy::indexing_slicing,
    clippy::string_slice,
    clippy::arithmetic_side_effects
)]

use super::tokenize::tokenize;
use super::topics::TopicSet;
use crate::sensitive::Category;
use std::cell::{OnceCell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::OnceLock;

/// A term to look up in [`TextTerms`], with its fingerprint computed once (a query's terms
/// are looked up in every candidate's texts).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Term<'a> {
    text: &'a str,
    print: u64,
}

impl<'a> Term<'a> {
    pub fn new(text: &'a str) -> Self {
        Term {
            text,
            print: fingerprint(text),
        }
    }

    pub fn text(&self) -> &'a str {
        self.text
    }

    /// The order [`TextTerms`] and [`Lookup`] keep terms in.
    fn key(&self) -> (u64, &'a str) {
        (self.print, self.text)
    }
}

/// Query terms to look up in many texts, each with a value (the caller's index for it),
/// sorted as [`TextTerms`] keeps its own: a text and the lookup are walked side by side.
#[derive(Debug, Clone, PartialEq)]
pub struct Lookup<'a> {
    terms: Vec<(Term<'a>, usize)>,
}

impl<'a> Lookup<'a> {
    /// A term may come more than once, with different values: each is found.
    pub fn new(terms: impl IntoIterator<Item = (&'a str, usize)>) -> Self {
        let mut terms: Vec<(Term<'a>, usize)> =
            terms.into_iter().map(|(t, v)| (Term::new(t), v)).collect();
        crate::order::sort_by(&mut terms, |(a, _), (b, _)| a.key().cmp(&b.key()));
        Lookup { terms }
    }
}

/// FNV-1a over the term's bytes: lookups compare integers, and compare the text only where
/// the fingerprints are equal.
fn fingerprint(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The terms of one text.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TextTerms {
    /// The fingerprints of the distinct terms, ascending (equal ones: by text).
    prints: Box<[u64]>,
    /// The distinct terms in the order of `prints`, each with how often it occurs.
    counts: Box<[(Box<str>, u32)]>,
    /// The text's terms in reading order, as positions in `counts`.
    sequence: Box<[u32]>,
}

impl TextTerms {
    /// The terms of `text`, as [`tokenize`] gives them.
    pub fn new(text: &str) -> Self {
        Self::from_tokens(&tokenize(text))
    }

    /// The terms of a text already tokenized.
    pub fn from_tokens(tokens: &[String]) -> Self {
        let mut distinct: Vec<(u64, &str)> = tokens
            .iter()
            .map(|t| (fingerprint(t), t.as_str()))
            .collect();
        crate::order::sort_by(&mut distinct, |a, b| a.cmp(b));
        distinct.dedup();
        let mut terms = TextTerms {
            prints: distinct.iter().map(|(p, _)| *p).collect(),
            counts: distinct.iter().map(|(_, t)| ((*t).into(), 0)).collect(),
            sequence: Box::default(),
        };
        let mut sequence = Vec::with_capacity(tokens.len());
        for token in tokens {
            // Every token is among the distinct ones.
            let at = terms.position(Term::new(token)).unwrap_or_default();
            if let Some((_, n)) = terms.counts.get_mut(at as usize) {
                *n = n.saturating_add(1);
            }
            sequence.push(at);
        }
        terms.sequence = sequence.into();
        terms
    }

    /// The distinct terms.
    pub fn distinct(&self) -> impl Iterator<Item = &str> {
        self.counts.iter().map(|(t, _)| &**t)
    }

    /// The everyday topics the text touches ([`super::topics`]): those of its terms.
    pub fn topics(&self) -> TopicSet {
        static LEXICON: OnceLock<Lookup<'static>> = OnceLock::new();
        let lexicon = LEXICON.get_or_init(|| Lookup::new(super::topics::terms()));
        let mut set = 0;
        self.matches(lexicon, |topic, _| set |= 1 << topic);
        set
    }

    /// How many terms the text has, repeats counted.
    pub fn len(&self) -> usize {
        self.sequence.len()
    }

    pub fn is_empty(&self) -> bool {
        self.sequence.is_empty()
    }

    fn position(&self, term: Term) -> Option<u32> {
        let first = self.prints.partition_point(|&p| p < term.print);
        let equal = self
            .prints
            .get(first..)?
            .iter()
            .take_while(|&&p| p == term.print);
        let found = equal.count();
        let at = (first..first.saturating_add(found))
            .find(|&i| self.counts.get(i).is_some_and(|(t, _)| &**t == term.text))?;
        u32::try_from(at).ok()
    }

    /// Calls `found(value, count)` for each term of `lookup` that the text holds: one walk
    /// over both sorted lists.
    pub fn matches(&self, lookup: &Lookup, mut found: impl FnMut(usize, u32)) {
        let mut mine = self.prints.iter().zip(self.counts.iter()).peekable();
        let mut wanted = lookup.terms.iter().peekable();
        while let (Some((&print, (text, count))), Some((term, value))) =
            (mine.peek(), wanted.peek())
        {
            match (print, &**text).cmp(&term.key()) {
                std::cmp::Ordering::Less => {
                    mine.next();
                }
                std::cmp::Ordering::Greater => {
                    wanted.next();
                }
                // The next wanted term may be the same again, with another value.
                std::cmp::Ordering::Equal => {
                    found(*value, *count);
                    wanted.next();
                }
            }
        }
    }

    /// How often `term` occurs.
    pub fn count(&self, term: Term) -> u32 {
        self.position(term)
            .and_then(|at| self.counts.get(at as usize))
            .map_or(0, |(_, n)| *n)
    }

    /// Whether `first` is directly followed by `second` somewhere in the text.
    pub fn adjacent(&self, first: Term, second: Term) -> bool {
        let (Some(a), Some(b)) = (self.position(first), self.position(second)) else {
            return false;
        };
        self.sequence.windows(2).any(|w| w == [a, b])
    }
}

/// A stored text as ranking reads it: its terms, and, once asked, the terms of each of its
/// sentences (a summary's; the whole text when it has no sentence) and what the
/// sensitivity detector finds in it. The lazy parts are computed from the text the caller
/// passes, which must be the one this was made from ([`analysed`] keeps them together).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Analysed {
    pub whole: TextTerms,
    sentences: OnceCell<Vec<TextTerms>>,
    category: OnceCell<Option<Category>>,
    /// The everyday topics the text touches ([`super::topics`]).
    pub topics: TopicSet,
}

impl Analysed {
    pub fn new(text: &str) -> Self {
        let whole = TextTerms::new(text);
        Analysed {
            topics: whole.topics(),
            whole,
            sentences: OnceCell::new(),
            category: OnceCell::new(),
        }
    }

    /// The terms of each sentence of `text`.
    pub fn sentences(&self, text: &str) -> &[TextTerms] {
        self.sentences.get_or_init(|| {
            let mut parts = crate::text::sentences(text);
            if parts.is_empty() {
                parts.push(text);
            }
            parts.into_iter().map(TextTerms::new).collect()
        })
    }
}

/// Texts the memo remembers before it starts over: what a retrieval ranks over a year of
/// daily conversation (each candidate's summary and context) fits many times.
pub const MEMO_TEXTS: usize = 32_768;

thread_local! {
    static MEMO: RefCell<HashMap<Box<str>, Rc<Analysed>>> = RefCell::new(HashMap::new());
}

/// [`Analysed::new`], remembered.
pub fn analysed(text: &str) -> Rc<Analysed> {
    if let Some(found) = MEMO.with(|m| m.borrow().get(text).cloned()) {
        return found;
    }
    let made = Rc::new(Analysed::new(text));
    MEMO.with(|m| {
        let mut m = m.borrow_mut();
        if m.len() >= MEMO_TEXTS {
            m.clear();
        }
        m.insert(text.into(), made.clone());
    });
    made
}

/// [`crate::sensitive::category_of`] of a text, remembered with its terms: retrieval judges
/// every text it ranks near the top, the same stored texts query after query.
pub fn sensitive_category(text: &str) -> Option<Category> {
    *analysed(text)
        .category
        .get_or_init(|| crate::sensitive::category_of(text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_term_looked_up_under_several_values_is_found_for_each() {
        let text = TextTerms::new("ice cream after the game");
        let lookup = Lookup::new([("cream", 0), ("game", 1), ("cream", 2), ("tea", 3)]);
        let mut found = Vec::new();
        text.matches(&lookup, |value, count| found.push((value, count)));
        found.sort();
        assert_eq!(found, [(0, 1), (1, 1), (2, 1)]);
    }

    #[test]
    fn counts_order_and_adjacency_are_those_of_the_tokens() {
        for text in [
            "I love ice cream, and ice cream loves me",
            "我对花生过敏，花生酱也不行。",
            "",
            "Alice's 2023 trip",
        ] {
            let tokens = tokenize(text);
            let terms = TextTerms::new(text);
            assert_eq!(terms.len(), tokens.len(), "{text}");
            for t in &tokens {
                let n = tokens.iter().filter(|x| *x == t).count();
                assert_eq!(terms.count(Term::new(t)) as usize, n, "{text}: {t}");
            }
            assert_eq!(terms.count(Term::new("absent")), 0);
            for w in tokens.windows(2) {
                assert!(
                    terms.adjacent(Term::new(&w[0]), Term::new(&w[1])),
                    "{text}: {w:?}"
                );
            }
        }
        let terms = TextTerms::new("ice cream and cold cream");
        let t = Term::new;
        assert!(terms.adjacent(t("ice"), t("cream")));
        assert!(!terms.adjacent(t("cream"), t("ice")));
        assert!(!terms.adjacent(t("ice"), t("cold")));
    }

    #[test]
    fn a_lookup_finds_what_counting_each_term_finds() {
        let text = TextTerms::new("我对花生过敏，花生酱也不行。 Peanut butter, peanuts!");
        let words = ["花生", "peanut", "butter", "absent", "过敏", "生"];
        let lookup = Lookup::new(words.iter().enumerate().map(|(i, w)| (*w, i)));
        let mut found = vec![0; words.len()];
        text.matches(&lookup, |i, n| found[i] = n);
        let want: Vec<u32> = words.iter().map(|w| text.count(Term::new(w))).collect();
        assert_eq!(found, want);
        assert_eq!(found[0], 2);
    }

    #[test]
    fn terms_with_the_same_fingerprint_are_told_apart_by_their_text() {
        // Two distinct terms forced onto one fingerprint: lookups compare the text.
        let mut terms = TextTerms::new("alpha beta beta");
        terms.prints = vec![7, 7].into();
        let forged = |text| Term { text, print: 7 };
        assert_eq!(terms.count(forged("alpha")), 1);
        assert_eq!(terms.count(forged("beta")), 2);
        assert_eq!(terms.count(forged("gamma")), 0);
    }

    #[test]
    fn a_summary_has_its_sentences_and_the_memo_stays_bounded() {
        let text = "I got an air fryer. It is great! 我很开心。";
        let s = analysed(text);
        assert_eq!(s.sentences(text).len(), 3);
        assert_eq!(s.sentences(text)[1], TextTerms::new("It is great!"));
        assert_eq!(s.whole, TextTerms::new(text));
        assert_eq!(
            analysed("no break here").sentences("no break here").len(),
            1
        );
        let secret = "my password is hunter2xyz";
        assert_eq!(
            sensitive_category(secret),
            crate::sensitive::category_of(secret)
        );
        assert!(sensitive_category(secret).is_some());
        assert_eq!(sensitive_category("I like tea"), None);
        for i in 0..=MEMO_TEXTS {
            analysed(&format!("text {i}"));
        }
        assert!(MEMO.with(|m| m.borrow().len()) <= MEMO_TEXTS);
        assert_eq!(analysed("text 7").whole, TextTerms::new("text 7"));
    }
}
