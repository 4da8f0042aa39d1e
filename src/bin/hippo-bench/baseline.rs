//! The reference BM25 of data/locomo/README.md: k1 1.2, b 0.75, lowercase words, English
//! stopwords, no stemming, one field; Chinese (any CJK ideograph) as single characters, the
//! usual character-level baseline for Chinese retrieval (a run of Chinese characters as one
//! "word" would only match identical runs). Deliberately independent of the core's tokenizer.

use std::collections::HashMap;

const K1: f64 = 1.2;
const B: f64 = 0.75;

/// The common English stopword list (NLTK's) of such baselines.
const STOPWORDS: &[&str] = &[
    "i",
    "me",
    "my",
    "myself",
    "we",
    "our",
    "ours",
    "ourselves",
    "you",
    "you're",
    "you've",
    "you'll",
    "you'd",
    "your",
    "yours",
    "yourself",
    "yourselves",
    "he",
    "him",
    "his",
    "himself",
    "she",
    "she's",
    "her",
    "hers",
    "herself",
    "it",
    "it's",
    "its",
    "itself",
    "they",
    "them",
    "their",
    "theirs",
    "themselves",
    "what",
    "which",
    "who",
    "whom",
    "this",
    "that",
    "that'll",
    "these",
    "those",
    "am",
    "is",
    "are",
    "was",
    "were",
    "be",
    "been",
    "being",
    "have",
    "has",
    "had",
    "having",
    "do",
    "does",
    "did",
    "doing",
    "a",
    "an",
    "the",
    "and",
    "but",
    "if",
    "or",
    "because",
    "as",
    "until",
    "while",
    "of",
    "at",
    "by",
    "for",
    "with",
    "about",
    "against",
    "between",
    "into",
    "through",
    "during",
    "before",
    "after",
    "above",
    "below",
    "to",
    "from",
    "up",
    "down",
    "in",
    "out",
    "on",
    "off",
    "over",
    "under",
    "again",
    "further",
    "then",
    "once",
    "here",
    "there",
    "when",
    "where",
    "why",
    "how",
    "all",
    "any",
    "both",
    "each",
    "few",
    "more",
    "most",
    "other",
    "some",
    "such",
    "no",
    "nor",
    "not",
    "only",
    "own",
    "same",
    "so",
    "than",
    "too",
    "very",
    "s",
    "t",
    "can",
    "will",
    "just",
    "don",
    "don't",
    "should",
    "should've",
    "now",
    "d",
    "ll",
    "m",
    "o",
    "re",
    "ve",
    "y",
    "ain",
    "aren",
    "aren't",
    "couldn",
    "couldn't",
    "didn",
    "didn't",
    "doesn",
    "doesn't",
    "hadn",
    "hadn't",
    "hasn",
    "hasn't",
    "haven",
    "haven't",
    "isn",
    "isn't",
    "ma",
    "mightn",
    "mightn't",
    "mustn",
    "mustn't",
    "needn",
    "needn't",
    "shan",
    "shan't",
    "shouldn",
    "shouldn't",
    "wasn",
    "wasn't",
    "weren",
    "weren't",
    "won",
    "won't",
    "wouldn",
    "wouldn't",
];

fn is_han(c: char) -> bool {
    matches!(c as u32, 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF | 0x20000..=0x2FA1F)
}

pub fn words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for word in text
        .to_lowercase()
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty() && !STOPWORDS.contains(w))
    {
        if !word.chars().any(is_han) {
            out.push(word.to_string());
            continue;
        }
        let mut latin = String::new();
        for c in word.chars() {
            if is_han(c) {
                if !latin.is_empty() {
                    out.push(std::mem::take(&mut latin));
                }
                out.push(c.to_string());
            } else {
                latin.push(c);
            }
        }
        if !latin.is_empty() {
            out.push(latin);
        }
    }
    out
}

pub struct Bm25 {
    docs: Vec<(String, HashMap<String, f64>, f64)>,
    df: HashMap<String, usize>,
    avg_len: f64,
}

impl Bm25 {
    pub fn new(items: &[(String, String)]) -> Self {
        let mut df: HashMap<String, usize> = HashMap::new();
        let docs: Vec<_> = items
            .iter()
            .map(|(id, text)| {
                let terms = words(text);
                let mut tf: HashMap<String, f64> = HashMap::new();
                for t in &terms {
                    *tf.entry(t.clone()).or_default() += 1.0;
                }
                for t in tf.keys() {
                    *df.entry(t.clone()).or_default() += 1;
                }
                (id.clone(), tf, terms.len() as f64)
            })
            .collect();
        let avg_len = docs.iter().map(|d| d.2).sum::<f64>() / docs.len().max(1) as f64;
        Bm25 { docs, df, avg_len }
    }

    /// Ids best first (ties by position), the top `k`.
    pub fn search(&self, query: &str, k: usize) -> Vec<String> {
        let mut terms = words(query);
        terms.dedup();
        let n = self.docs.len() as f64;
        let mut scored: Vec<(usize, f64)> = self
            .docs
            .iter()
            .enumerate()
            .map(|(i, (_, tf, len))| {
                let s = terms
                    .iter()
                    .map(|t| {
                        let f = tf.get(t).copied().unwrap_or(0.0);
                        let df = *self.df.get(t).unwrap_or(&0) as f64;
                        let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
                        idf * f * (K1 + 1.0) / (f + K1 * (1.0 - B + B * len / self.avg_len))
                    })
                    .sum();
                (i, s)
            })
            .collect();
        scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        scored
            .into_iter()
            .take(k)
            .map(|(i, _)| self.docs[i].0.clone())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn chinese_is_characters_and_english_is_words() {
        assert_eq!(
            super::words("我喜欢Rust and 游泳"),
            ["我", "喜", "欢", "rust", "游", "泳"]
        );
        assert_eq!(super::words("What do I like?"), ["like"]);
    }
}
