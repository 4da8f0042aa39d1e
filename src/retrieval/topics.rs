//! Everyday topics: what a memory is about when it shares no word with the query. A user
//! who found "a great pizza place" is reminded of the restaurant with their parents and the
//! picnic in the park, not of what they said about pizza, because they said nothing. Lexical
//! ranking cannot see that; without an embedding model nothing else can. A small lexicon
//! (`topics.txt`: a topic a line, then its terms) names the topics a text touches, and
//! ranking's `topic` signal (see [`super::rank`]) gives a candidate the share of the query's
//! topics it shares. A text's topics are read from the terms ranking has analysed already.
//!
//! The lexicon is Chinese only, for now: with 212 English stems beside it LongMemEval_S dev's
//! R@10 rose 0.858 → 0.875, but they cost 870 B of gzip the package does not have (SPEC §6:
//! 600 KiB; docs/BENCHMARKS.md, "Everyday topics"). English stems work as they are.
#![deny(
    clippy::indexing_slicing,
    clippy::string_slice,
    clippy::arithmetic_side_effects
)]

/// The topics a text touches, a bit each ([`TOPICS`] of them).
pub type TopicSet = u32;

const LEXICON: &str = include_str!("topics.txt");

/// The lexicon's lines: a topic each.
fn lines() -> std::str::Split<'static, char> {
    LEXICON.strip_suffix('\n').unwrap_or(LEXICON).split('\n')
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

    #[test]
    fn the_lexicon_has_the_topics_it_says_and_its_words_are_terms() {
        use crate::retrieval::tokenize::tokenize;
        assert_eq!(lines().count(), TOPICS);
        for (topic, line) in lines().enumerate() {
            for term in line.split(' ').skip(1) {
                // A Chinese word's terms are its characters and its bigram; an English
                // word's, its stem.
                let terms = tokenize(term);
                assert!(terms.iter().any(|t| t == term), "{term:?} is no term");
                assert!(term.is_ascii() || term.chars().count() <= 2, "{term:?}");
                assert!(topics_in(term) >> topic & 1 == 1, "{term:?}");
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
        // A word's characters apart are not the word: 冰 and 淇 in other words.
        assert_eq!(topics_in("冰箱里的水淋湿了淇河"), 0);
        // A character of a two-character word is no topic alone: 运 of 运动.
        assert_eq!(topics_in("今天运气不错"), 0);
        assert_eq!(topics_in(""), 0);
    }
}
