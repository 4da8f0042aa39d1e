//! Everyday topics: what a memory is about when it shares no word with the query. A user
//! who found "a great pizza place" is reminded of the restaurant with their parents and the
//! picnic in the park, not of what they said about pizza, because they said nothing. Lexical
//! ranking cannot see that; without an embedding model nothing else can. A small lexicon
//! (`topics.txt`: a topic a line, then its terms) names the topics a text touches, and
//! ranking's `topic` signal (see [`super::rank`]) gives a candidate the share of the query's
//! topics it shares. A text's topics are read from the terms ranking has analysed already.
//!
//! The lexicon holds Chinese words and English stems (212 of them lifted LongMemEval_S dev's
//! R@10 from 0.858 to 0.875; docs/BENCHMARKS.md, "Everyday topics"). The npm package ships it
//! beside its wasm, which has a size budget (SPEC §6: 600 KiB gzip).
#![deny(
    clippy::indexing_slicing,
    clippy::string_slice,
    clippy::arithmetic_side_effects
)]

use crate::text::{word_list, WordList};

/// The topics a text touches, a bit each ([`TOPICS`] of them).
pub type TopicSet = u32;

static LEXICON: WordList = word_list!("retrieval/topics.txt");

/// Gives the core the lexicon (the text of `topics.txt`) where it is not compiled in (the npm
/// package, [`WordList`]), before the first text is read for topics. Until then no text
/// touches a topic.
pub fn set_lexicon(text: &str) {
    LEXICON.set(text);
}

/// The lexicon's lines: a topic each.
fn lines() -> impl Iterator<Item = &'static str> {
    let text = LEXICON.text();
    text.strip_suffix('\n').unwrap_or(text).split('\n')
}

/// How many topics the lexicon has (a test holds it to the file; a set holds 32).
pub const TOPICS: usize = 22;

/// Every term of the lexicon with its topic's place (a term may say several topics), for
/// [`super::terms`] to find in texts. The file holds terms as the tokenizer makes them, so
/// nothing is tokenized: a Chinese word of one or two characters, English stems. A longer
/// Chinese word is written as its telling bigram ("冰淇" for 冰淇淋); a character of a
/// two-character word alone is no topic.
pub fn terms() -> Vec<(&'static str, usize)> {
    let mut terms = Vec::new();
    for (topic, line) in lines().enumerate() {
        let mut words = line.split(' ');
        // The first word names the topic, for people reading the file.
        words.next();
        for term in words {
            terms.push((term, topic));
        }
    }
    terms
}

/// The topics in a set, as bit positions.
pub fn each(set: TopicSet) -> impl Iterator<Item = usize> {
    (0..TOPICS).filter(move |&t| set >> t & 1 == 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::retrieval::terms::TextTerms;

    fn topics_in(text: &str) -> TopicSet {
        TextTerms::new(text).topics()
    }

    /// What English words add to their stems.
    const ENDINGS: [&str; 10] = ["", "e", "s", "es", "l", "al", "ous", "ion", "ate", "ant"];

    #[test]
    fn the_lexicon_has_the_topics_it_says_and_its_words_are_terms() {
        use crate::retrieval::tokenize::tokenize;
        assert_eq!(lines().count(), TOPICS);
        for (topic, line) in lines().enumerate() {
            for term in line.split(' ').skip(1) {
                // A Chinese word's terms are its characters and its bigram; an English
                // word's, its stem.
                // An English stem is a word's term, not always its own ("coffe" of coffee):
                // some word that ends it does.
                let made = |word: &str| tokenize(word).iter().any(|t| t == term);
                let word = ENDINGS
                    .iter()
                    .map(|e| format!("{term}{e}"))
                    .find(|w| made(w));
                let Some(word) = word else {
                    panic!("{term:?} is no term")
                };
                assert!(term.is_ascii() || term.chars().count() <= 2, "{term:?}");
                assert!(topics_in(&word) >> topic & 1 == 1, "{term:?}");
            }
        }
    }

    #[test]
    fn a_text_touches_the_topics_of_its_words() {
        let food = 1 << 0;
        let family = 1 << 15;
        assert_eq!(
            lines().nth(15).and_then(|l| l.split(' ').next()),
            Some("family")
        );
        let found = topics_in("周末和爸爸妈妈去了一家新开的餐厅");
        assert_eq!(found, food | family);
        assert_eq!(topics_in("My dad and I baked cookies"), food | family);
        // A word's characters apart are not the word: 冰 and 淇 in other words.
        assert_eq!(topics_in("冰箱里的水淋湿了淇河"), 0);
        // A character of a two-character word is no topic alone: 运 of 运动.
        assert_eq!(topics_in("今天运气不错"), 0);
        assert_eq!(topics_in(""), 0);
    }
}
