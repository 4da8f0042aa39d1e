//! Function words that carry no retrieval signal, in English and Chinese.
//!
//! English: pronouns, articles, auxiliaries, prepositions, conjunctions and their common
//! contractions (checked before stemming, on the lowercased word). Chinese: single characters
//! that are particles, pronouns or copulas (dropped as unigrams; bigrams containing them are kept,
//! so "喜欢" still matches) and a few question / pronoun bigrams that appear in almost every
//! question a user asks.
#![deny(
    clippy::indexing_slicing,
    clippy::string_slice,
    clippy::arithmetic_side_effects
)]

/// Sorted, so lookups are a binary search.
const ENGLISH: &[&str] = &[
    "a",
    "about",
    "above",
    "after",
    "again",
    "against",
    "all",
    "am",
    "an",
    "and",
    "any",
    "are",
    "aren't",
    "as",
    "at",
    "be",
    "because",
    "been",
    "before",
    "being",
    "below",
    "between",
    "both",
    "but",
    "by",
    "can",
    "could",
    "couldn't",
    "did",
    "didn't",
    "do",
    "does",
    "doesn't",
    "doing",
    "don't",
    "down",
    "during",
    "each",
    "few",
    "for",
    "from",
    "further",
    "had",
    "hadn't",
    "has",
    "hasn't",
    "have",
    "haven't",
    "having",
    "he",
    "he'd",
    "he'll",
    "he's",
    "her",
    "here",
    "here's",
    "hers",
    "herself",
    "him",
    "himself",
    "his",
    "how",
    "how's",
    "i",
    "i'd",
    "i'll",
    "i'm",
    "i've",
    "if",
    "in",
    "into",
    "is",
    "isn't",
    "it",
    "it's",
    "its",
    "itself",
    "just",
    "let's",
    "me",
    "more",
    "most",
    "my",
    "myself",
    "no",
    "nor",
    "not",
    "now",
    "of",
    "off",
    "on",
    "once",
    "only",
    "or",
    "other",
    "ought",
    "our",
    "ours",
    "ourselves",
    "out",
    "over",
    "own",
    "same",
    "shan't",
    "she",
    "she'd",
    "she'll",
    "she's",
    "should",
    "shouldn't",
    "so",
    "some",
    "such",
    "than",
    "that",
    "that's",
    "the",
    "their",
    "theirs",
    "them",
    "themselves",
    "then",
    "there",
    "there's",
    "these",
    "they",
    "they'd",
    "they'll",
    "they're",
    "they've",
    "this",
    "those",
    "through",
    "to",
    "too",
    "under",
    "until",
    "up",
    "very",
    "was",
    "wasn't",
    "we",
    "we'd",
    "we'll",
    "we're",
    "we've",
    "were",
    "weren't",
    "what",
    "what's",
    "when",
    "when's",
    "where",
    "where's",
    "which",
    "while",
    "who",
    "who's",
    "whom",
    "why",
    "why's",
    "will",
    "with",
    "won't",
    "would",
    "wouldn't",
    "you",
    "you'd",
    "you'll",
    "you're",
    "you've",
    "your",
    "yours",
    "yourself",
    "yourselves",
];

/// Single CJK characters dropped as unigrams, sorted for binary search (a `&str` search would
/// run a substring searcher for every CJK character tokenized).
const CHINESE_CHARS: &[char] = &[
    '与', '个', '么', '之', '也', '了', '他', '们', '你', '其', '又', '及', '吗', '吧', '呀', '呢',
    '和', '咱', '哦', '啊', '嘛', '在', '她', '它', '就', '很', '您', '我', '把', '是', '有', '的',
    '着', '给', '而', '被', '让', '过', '还', '这', '那', '都',
];

/// CJK bigrams dropped (pronouns, question words, connectives), as character pairs sorted for
/// binary search (pairs compare without decoding a string per probe).
const CHINESE_BIGRAMS: &[[char; 2]] = &[
    ['一', '下'],
    ['一', '个'],
    ['为', '什'],
    ['什', '么'],
    ['他', '们'],
    ['但', '是'],
    ['你', '们'],
    ['可', '以'],
    ['哪', '个'],
    ['因', '为'],
    ['她', '们'],
    ['如', '果'],
    ['已', '经'],
    ['怎', '么'],
    ['我', '们'],
    ['所', '以'],
    ['然', '后'],
    ['还', '是'],
    ['这', '个'],
    ['那', '个'],
];

pub fn is_english_stopword(word: &str) -> bool {
    ENGLISH.binary_search(&word).is_ok()
}

pub fn is_chinese_stop_char(c: char) -> bool {
    CHINESE_CHARS.binary_search(&c).is_ok()
}

pub fn is_chinese_stop_bigram(a: char, b: char) -> bool {
    CHINESE_BIGRAMS.binary_search(&[a, b]).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_are_sorted_for_binary_search() {
        assert!(ENGLISH.windows(2).all(|w| w[0] < w[1]));
        assert!(CHINESE_BIGRAMS.windows(2).all(|w| w[0] < w[1]));
        assert!(CHINESE_CHARS.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn lookups() {
        assert!(is_english_stopword("the"));
        assert!(is_english_stopword("don't"));
        assert!(!is_english_stopword("book"));
        assert!(is_chinese_stop_char('的'));
        assert!(is_chinese_stop_char('么') && is_chinese_stop_char('与'));
        assert!(!is_chinese_stop_char('书'));
        assert!(is_chinese_stop_bigram('什', '么'));
        assert!(!is_chinese_stop_bigram('喜', '欢'));
    }
}
