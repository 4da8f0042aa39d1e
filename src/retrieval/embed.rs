//! The built-in embedder: deterministic feature hashing, no model file, identical in every
//! runtime (native, wasm in Workers, Node and browsers).
//!
//! Features of a text, each hashed (FNV-1a + a 64-bit finaliser) to one of [`DIMENSION`]
//! coordinates with a hash-derived sign (signed hashing keeps collisions unbiased):
//! - every index term of the core tokenizer (stemmed words, numbers, CJK unigrams and bigrams);
//! - character trigrams of each Latin word with boundary marks (`^re`, `rea`, …, `ng$`), which
//!   give fuzzy matching across inflections, compounds and typos the stemmer misses;
//! - adjacent word pairs, so "ice cream" is more than "ice" + "cream".
//!
//! A feature's weights are summed and damped with a square root (sublinear term frequency),
//! then the vector is scaled to unit length. It is a bag of surface features: it finds
//! paraphrases that share words or word pieces, not synonyms. A real embedding model (SPEC
//! §2.6) replaces it when configured.

use super::embed_cache::{text_key, EmbeddingCache};
use super::tokenize::{cjk_term_slices, normalize, segments, word_term, Segment};
use crate::ports::{EmbedKind, Embedder, PortResult, SimilarityThresholds};
use async_trait::async_trait;
use std::cell::RefCell;
use std::rc::Rc;

/// Vector size: small enough for 100k memories per NPC in a browser tab (100 MB at f32 would
/// be too much at 1024), large enough that hash collisions stay rare for memory-sized texts.
pub const DIMENSION: usize = 256;
pub const NAME: &str = "hippo-builtin-v1";

const WORD_WEIGHT: f32 = 1.0;
const TRIGRAM_WEIGHT: f32 = 0.25;
const PAIR_WEIGHT: f32 = 0.5;
const CJK_UNIGRAM_WEIGHT: f32 = 0.5;
const CJK_BIGRAM_WEIGHT: f32 = 1.0;

/// Thresholds for conflict resolution (SPEC §2.3). Measured: over 42k pairs of LoCoMo turns
/// at least 50 turns apart (`hippo-bench locomo` prints the distribution), cosine p50 0.14,
/// p99 0.40, p99.9 0.54, max 0.85 (two short "Thanks!" turns by one speaker). So: at or above
/// 0.85, the same fact restated (the unit tests check word-order, case and punctuation
/// variants, and 很-style insertions); 0.55 to 0.85, the same subject possibly with another
/// value ("favourite drink is tea" / "… is coffee"), which the LLM or the rules decide; below
/// 0.55, new. The band only triggers a check, never a merge, so erring wide is safe. In
/// retrieval, a candidate found only by its vector needs 0.2.
pub const THRESHOLDS: SimilarityThresholds = SimilarityThresholds {
    duplicate: 0.85,
    ambiguous: 0.55,
    relevant: 0.2,
};

#[derive(Debug, Clone, Copy, Default)]
pub struct BuiltinEmbedder;

impl BuiltinEmbedder {
    pub fn new() -> Self {
        BuiltinEmbedder
    }

    /// The unit-length vector of `text` (all zeros when the text has no features).
    pub fn embed_text(&self, text: &str) -> Vec<f32> {
        // (hash, weight) in the order the features come; summed per hash below.
        let mut features: Vec<(u64, f32)> = Vec::new();
        let normalized = normalize(text);
        let mut previous_word: Option<String> = None;
        let mut marked = String::new();
        let mut bounds: Vec<usize> = Vec::new();
        for segment in segments(&normalized) {
            match segment {
                Segment::Word(word) => {
                    let Some(term) = word_term(word) else {
                        previous_word = None;
                        continue;
                    };
                    features.push((hash(b'w', &[&term]), WORD_WEIGHT));
                    if let Some(prev) = &previous_word {
                        features.push((hash(b'p', &[prev, " ", &term]), PAIR_WEIGHT));
                    }
                    marked.clear();
                    marked.push('^');
                    marked.push_str(word);
                    marked.push('$');
                    bounds.clear();
                    bounds.extend(marked.char_indices().map(|(i, _)| i));
                    bounds.push(marked.len());
                    // More than four characters with the marks: every window of three.
                    if bounds.len() > 5 {
                        for w in bounds.windows(4) {
                            let (Some(&from), Some(&to)) = (w.first(), w.get(3)) else {
                                continue;
                            };
                            let gram = marked.get(from..to).unwrap_or_default();
                            features.push((hash(b't', &[gram]), TRIGRAM_WEIGHT));
                        }
                    }
                    previous_word = Some(term);
                }
                Segment::Cjk(run) => {
                    previous_word = None;
                    cjk_term_slices(run, |term, unigram| {
                        let weight = if unigram {
                            CJK_UNIGRAM_WEIGHT
                        } else {
                            CJK_BIGRAM_WEIGHT
                        };
                        features.push((hash(b'c', &[term]), weight));
                    });
                }
            }
        }
        // By hash: the features are added to the vector in hash order, so a text's vector is
        // the same to the bit every time (rounding shows the order of a sum). A feature's
        // repeats all carry its kind's one weight, so their order among themselves cannot
        // show, and the sort need not be stable (the shared stable sort, which permutes
        // through a dynamic comparison, was a fifth of an embedding).
        features.sort_unstable_by_key(|f| f.0);
        let mut vector = vec![0f32; DIMENSION];
        let mut i = 0;
        while let Some(&(h, first)) = features.get(i) {
            let mut weight = first;
            i += 1;
            while let Some(&(_, w)) = features.get(i).filter(|f| f.0 == h) {
                debug_assert_eq!(w.to_bits(), first.to_bits(), "one feature, one weight");
                weight += w;
                i += 1;
            }
            let sign = if h >> 63 == 0 { 1.0 } else { -1.0 };
            vector[(h % DIMENSION as u64) as usize] += sign * weight.sqrt();
        }
        normalize_vector(vector)
    }
}

/// `values` scaled to unit length (a zero vector stays zero): the port's contract for every
/// embedder's output, and the one place any binding or index normalizes a vector.
pub fn normalize_vector(mut values: Vec<f32>) -> Vec<f32> {
    // A serial sum, not [`dot`]: the built-in embedder's vectors stay bit-identical to the
    // ones already stored.
    let norm = values.iter().map(|v| v * v).sum::<f32>().sqrt();
    if norm > 0.0 {
        values.iter_mut().for_each(|v| *v /= norm);
    }
    values
}

/// Whether two texts say the same thing in nearly the same words, by the built-in embedder's
/// own duplicate level (its features are the words, whatever embedder serves): conflict
/// resolution's no-LLM rules take it as a duplicate.
pub fn same_words(a: &str, b: &str) -> bool {
    let e = BuiltinEmbedder::new();
    words_alike(&e.embed_text(a), &e.embed_text(b))
}

/// [`same_words`] with each text's vector from `cache` when it was embedded before, under the
/// built-in embedder's key (the vectors retrieval caches when the built-in embedder serves are
/// these): a memory near many new ones is compared with each, and embedding it again for
/// every verdict was a twentieth of a fill's instructions. `a_vector`, when given, is the
/// built-in embedder's vector of exactly `a` (a new memory's, embedded by the plan).
pub fn same_words_cached(
    cache: &RefCell<EmbeddingCache>,
    (a, a_vector): (&str, Option<&[f32]>),
    b: &str,
) -> bool {
    let embedder = format!("{NAME}:{DIMENSION}");
    let vector = |text: &str| -> Rc<[f32]> {
        let key = text_key(&embedder, text);
        if let Some(v) = cache.borrow_mut().get(&key) {
            return v;
        }
        let v: Rc<[f32]> = BuiltinEmbedder::new().embed_text(text).into();
        cache.borrow_mut().insert(key, v.clone());
        v
    };
    let b = vector(b);
    match a_vector {
        Some(a) => words_alike(a, &b),
        None => words_alike(&vector(a), &b),
    }
}

fn words_alike(a: &[f32], b: &[f32]) -> bool {
    cosine(a, b) >= THRESHOLDS.duplicate
}

/// Cosine similarity; 0 when either vector is zero or the lengths differ.
pub fn cosine(a: &[f32], b: &[f32]) -> f32 {
    if a.len() != b.len() {
        return 0.0;
    }
    // Three passes of [`dot`]'s eight lanes: one serial chain of adds per sum made conflict
    // resolution's comparisons within a call a twentieth of a fill.
    let (dot_ab, na, nb) = (dot(a, b), dot(a, a), dot(b, b));
    if na == 0.0 || nb == 0.0 {
        0.0
    } else {
        dot_ab / (na.sqrt() * nb.sqrt())
    }
}

/// Dot product: the cosine of two unit vectors (what [`BuiltinEmbedder::embed_text`] returns),
/// at a third of the cost of [`cosine`].
///
/// Eight independent accumulators let the loop pipeline and vectorize (a plain `.sum()` is
/// one serial chain of float adds): brute-force vector search is this loop, per memory.
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    return simd128::dot(a, b);
    #[allow(unreachable_code)]
    let mut acc = [0.0f32; 8];
    let (a_chunks, b_chunks) = (a.chunks_exact(8), b.chunks_exact(8));
    let tail: f32 = a_chunks
        .remainder()
        .iter()
        .zip(b_chunks.remainder())
        .map(|(x, y)| x * y)
        .sum();
    for (x, y) in a_chunks.zip(b_chunks) {
        for i in 0..8 {
            acc[i] += x[i] * y[i];
        }
    }
    acc.iter().sum::<f32>() + tail
}

/// The eight-lane float sums in wasm's SIMD, bit for bit those of the plain loops: lane `i`
/// adds the products of the elements `i` mod 8 in the same order, and the lanes are summed as
/// there. The package is compiled for size (opt-level "s"), where LLVM leaves those loops
/// scalar: a fill rescored and compared vectors at a quarter of the speed.
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
pub(crate) mod simd128 {
    use core::arch::wasm32::*;

    /// [`super::dot`], at any two lengths as there: the whole chunks both have, then the
    /// products of the two slices' leftovers past their own whole chunks.
    pub fn dot(a: &[f32], b: &[f32]) -> f32 {
        let (a_whole, b_whole) = (a.len() - a.len() % 8, b.len() - b.len() % 8);
        let whole = a_whole.min(b_whole);
        let (mut low, mut high) = (f32x4_splat(0.0), f32x4_splat(0.0));
        let mut at = 0;
        while at < whole {
            // SAFETY: `at + 8 <= whole`, within both; unaligned loads are allowed.
            unsafe {
                let (x, y) = (
                    a.as_ptr().add(at) as *const v128,
                    b.as_ptr().add(at) as *const v128,
                );
                low = f32x4_add(low, f32x4_mul(v128_load(x), v128_load(y)));
                high = f32x4_add(high, f32x4_mul(v128_load(x.add(1)), v128_load(y.add(1))));
            }
            at += 8;
        }
        let tail: f32 = a[a_whole..]
            .iter()
            .zip(&b[b_whole..])
            .map(|(x, y)| x * y)
            .sum();
        lanes_sum(low, high) + tail
    }

    /// Lanes 0–3 then 4–7, summed in order as the plain loops sum their array.
    pub fn lanes_sum(low: v128, high: v128) -> f32 {
        let mut lanes = [0f32; 8];
        // SAFETY: `lanes` holds two vectors' worth of f32; unaligned stores are allowed.
        unsafe {
            v128_store(lanes.as_mut_ptr() as *mut v128, low);
            v128_store(lanes.as_mut_ptr().add(4) as *mut v128, high);
        }
        lanes.iter().sum::<f32>()
    }
}

/// FNV-1a over a kind byte and the text, then a splitmix64 finaliser for well-mixed high bits.
fn hash(kind: u8, parts: &[&str]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let bytes = parts.iter().flat_map(|p| p.as_bytes());
    for &byte in std::iter::once(&kind).chain(bytes) {
        h ^= byte as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h ^= h >> 30;
    h = h.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    h ^= h >> 27;
    h = h.wrapping_mul(0x94d0_49bb_1331_11eb);
    h ^ (h >> 31)
}

#[async_trait(?Send)]
impl Embedder for BuiltinEmbedder {
    fn name(&self) -> &str {
        NAME
    }

    fn dimension(&self) -> usize {
        DIMENSION
    }

    fn thresholds(&self) -> SimilarityThresholds {
        THRESHOLDS
    }

    fn semantic(&self) -> bool {
        false
    }

    /// Queries and documents are embedded alike: the features are the same words.
    async fn embed(&self, _kind: EmbedKind, texts: &[String]) -> PortResult<Vec<Vec<f32>>> {
        Ok(texts.iter().map(|t| self.embed_text(t)).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dot_matches_the_naive_sum_and_normalize_gives_unit_length() {
        let a: Vec<f32> = (0..19).map(|i| i as f32).collect();
        let naive: f32 = a.iter().map(|x| x * x).sum();
        assert_eq!(dot(&a, &a), naive);
        assert_eq!(normalize_vector(vec![3.0, 4.0]), vec![0.6, 0.8]);
        assert_eq!(normalize_vector(vec![0.0, 0.0]), vec![0.0, 0.0]);
    }

    #[test]
    fn same_words_from_the_cache_answer_as_embedded_each_time() {
        let pairs = [
            ("The user likes green tea", "the user likes GREEN tea a lot"),
            ("The user likes green tea", "The user lives in Berlin"),
            ("用户最喜欢的饮料是咖啡", "用户很喜欢喝咖啡"),
            ("用户最喜欢的饮料是咖啡", "The user likes green tea"),
        ];
        let cache = RefCell::new(EmbeddingCache::default());
        for _ in 0..2 {
            for (a, b) in pairs {
                assert_eq!(
                    same_words_cached(&cache, (a, None), b),
                    same_words(a, b),
                    "{a} / {b}"
                );
                let a_vector = BuiltinEmbedder::new().embed_text(a);
                assert_eq!(
                    same_words_cached(&cache, (a, Some(&a_vector)), b),
                    same_words(a, b),
                    "{a} / {b}"
                );
            }
        }
        // Held under the built-in embedder's key, as the built-in embedder embeds them: a
        // retrieval with the built-in embedder reads the same entries.
        let e = BuiltinEmbedder::new();
        let key = format!("{}:{}", e.name(), e.dimension());
        for text in pairs.iter().flat_map(|(a, b)| [*a, *b]) {
            let held = cache.borrow_mut().get(&text_key(&key, text)).unwrap();
            let embedded =
                futures::executor::block_on(e.embed(EmbedKind::Document, &[text.to_string()]))
                    .unwrap();
            assert_eq!(&*held, embedded[0].as_slice(), "{text}");
        }
        assert_eq!(cache.borrow().len(), 5, "one entry per text");
    }

    #[test]
    fn the_same_text_always_gives_bit_identical_vectors() {
        // Features share buckets, and the order a bucket's weights are summed in shows in the
        // low bits: many texts, each embedded several times, must agree to the bit.
        let words = [
            "ice", "cream", "tacos", "noodles", "海边", "散步", "朋友", "books", "films", "周末",
        ];
        for n in 0..200 {
            let text: Vec<&str> = (0..12)
                .map(|i| words[(n * 7 + i * 3 + n / 5) % words.len()])
                .collect();
            let text = format!("{n} {}", text.join(" "));
            let first = BuiltinEmbedder::new().embed_text(&text);
            for _ in 0..5 {
                let again = BuiltinEmbedder::new().embed_text(&text);
                assert!(
                    first
                        .iter()
                        .zip(&again)
                        .all(|(a, b)| a.to_bits() == b.to_bits()),
                    "embedding of {text:?} differs between calls"
                );
            }
        }
    }

    /// Vectors already stored (every NPC's index, every exported file) were made by earlier
    /// builds: the same text must give the same bits in every later one. The fingerprints
    /// were taken from the embedder before it stopped allocating per feature (2026-12-03).
    #[test]
    fn vectors_match_the_ones_earlier_builds_stored() {
        let fingerprint = |text: &str| {
            let mut h: u64 = 0xcbf2_9ce4_8422_2325;
            for x in BuiltinEmbedder::new().embed_text(text) {
                h = (h ^ u64::from(x.to_bits())).wrapping_mul(0x0100_0000_01b3);
            }
            h
        };
        let texts = [
            "The user likes jasmine tea 我喜欢茉莉花茶",
            "Caroline's sister doesn\u{2019}t eat ice-cream; she's allergic (since 2019)",
            "用户喜欢喝咖啡，不喜欢茶（场景：喜好类；情绪：开心）。",
            "ＡＢＣ full-width ｆｏｒｍｓ and ﬁle ligatures, naïve café",
            "what's the the of a an 的了吗 什么",
            "supercalifragilistic x yz 1234567 2023-10-06",
            "",
        ];
        let got: Vec<u64> = texts.iter().map(|t| fingerprint(t)).collect();
        assert_eq!(
            got,
            [
                16216836651385086503,
                848282448803626453,
                15890696603731765261,
                2313346861834554075,
                8357341197234845477,
                1029748491028812544,
                15567473145155401509,
            ]
        );
    }

    fn sim(a: &str, b: &str) -> f32 {
        let e = BuiltinEmbedder::new();
        cosine(&e.embed_text(a), &e.embed_text(b))
    }

    #[test]
    fn vectors_are_unit_length_and_deterministic() {
        let e = BuiltinEmbedder::new();
        let v = e.embed_text("The user likes jasmine tea 我喜欢茉莉花茶");
        assert_eq!(v.len(), DIMENSION);
        let norm: f32 = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        assert!((norm - 1.0).abs() < 1e-5);
        assert_eq!(v, e.embed_text("The user likes jasmine tea 我喜欢茉莉花茶"));
        assert!(e.embed_text("?!").iter().all(|&x| x == 0.0));
    }

    #[test]
    fn restatements_are_duplicates_and_unrelated_texts_are_new() {
        let t = THRESHOLDS;
        assert!(sim("The user likes jasmine tea", "the user likes Jasmine tea!") >= t.duplicate);
        assert!(sim("用户喜欢茉莉花茶", "用户很喜欢茉莉花茶") >= t.duplicate);
        assert!(
            sim(
                "The user likes jasmine tea",
                "The user plays football on Sundays"
            ) < t.ambiguous
        );
        assert!(sim("用户喜欢茉莉花茶", "用户下周要去北京出差") < t.ambiguous);
    }

    #[test]
    fn same_subject_with_another_value_is_ambiguous() {
        let t = THRESHOLDS;
        let s = sim(
            "The user's favourite drink is jasmine tea",
            "The user's favourite drink is black coffee",
        );
        assert!(s >= t.ambiguous && s < t.duplicate, "{s}");
        let s = sim("用户最喜欢的饮料是茉莉花茶", "用户最喜欢的饮料是黑咖啡");
        assert!(s >= t.ambiguous && s < t.duplicate, "{s}");
    }

    #[test]
    fn word_pieces_match_across_inflections() {
        assert!(sim("adoption agencies", "adopting a child") > sim("adoption agencies", "a child"));
    }

    #[test]
    fn dot_equals_cosine_for_embeddings() {
        let e = BuiltinEmbedder::new();
        let (a, b) = (
            e.embed_text("green tea please"),
            e.embed_text("绿茶 green tea"),
        );
        assert!((dot(&a, &b) - cosine(&a, &b)).abs() < 1e-5);
        assert!(dot(&a, &b) > 0.0);
    }

    #[test]
    fn cosine_in_lanes_is_the_plain_cosine() {
        let plain = |a: &[f32], b: &[f32]| {
            let d: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
            let n = |v: &[f32]| v.iter().map(|x| x * x).sum::<f32>().sqrt();
            d / (n(a) * n(b))
        };
        for len in [1, 7, 8, 9, 19, 256, 384] {
            let a: Vec<f32> = (0..len)
                .map(|i| ((i * 7 % 13) as f32 - 6.0) / 5.0)
                .collect();
            let b: Vec<f32> = (0..len)
                .map(|i| ((i * 5 % 11) as f32 - 4.0) / 3.0)
                .collect();
            assert!(
                (cosine(&a, &b) - plain(&a, &b)).abs() < 1e-5,
                "length {len}"
            );
            assert!((cosine(&a, &a) - 1.0).abs() < 1e-5, "length {len}");
        }
    }

    #[test]
    fn cosine_edge_cases() {
        assert_eq!(cosine(&[1.0, 0.0], &[1.0]), 0.0);
        assert_eq!(cosine(&[0.0, 0.0], &[1.0, 0.0]), 0.0);
        assert!((cosine(&[1.0, 1.0], &[2.0, 2.0]) - 1.0).abs() < 1e-6);
    }

    #[test]
    fn embedder_trait_reports_name_dimension_and_vectors() {
        let e = BuiltinEmbedder::new();
        assert_eq!(e.name(), NAME);
        assert_eq!(e.dimension(), DIMENSION);
        let texts = vec!["a cat".to_string(), "猫".to_string()];
        let out = futures::executor::block_on(e.embed(EmbedKind::Document, &texts)).unwrap();
        assert_eq!(out, vec![e.embed_text("a cat"), e.embed_text("猫")]);
        let as_query = futures::executor::block_on(e.embed(EmbedKind::Query, &texts)).unwrap();
        assert_eq!(as_query, out, "words are words, whatever the kind");
        assert!(!e.semantic());
    }
}
