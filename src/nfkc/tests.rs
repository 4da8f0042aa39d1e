//! The compact tables answer exactly as the `unicode-normalization` crate they come from.

use super::*;
use proptest::prelude::*;
use unicode_normalization::char::{canonical_combining_class, decompose_canonical};
use unicode_normalization::UnicodeNormalization;

fn all_chars() -> impl Iterator<Item = char> {
    (0..=0x10FFFF_u32).filter_map(char::from_u32)
}

fn crate_nfkc(text: &str) -> String {
    text.nfkc().collect()
}

#[test]
fn every_code_point_has_the_crates_class_and_decomposition() {
    let tables = tables();
    for c in all_chars() {
        assert_eq!(
            tables.class(c),
            canonical_combining_class(c),
            "class of {c:?}"
        );
        let mut want = String::new();
        unicode_normalization::char::decompose_compatible(c, |d| want.push(d));
        let got: String = tables
            .decompose(c.encode_utf8(&mut [0; 4]))
            .iter()
            .map(|p| p.1)
            .collect();
        assert_eq!(got, want, "decomposition of {c:?}");
    }
}

#[test]
fn every_code_point_has_the_crates_quick_check() {
    let tables = tables();
    for c in all_chars() {
        let want = match unicode_normalization::is_nfkc_quick(std::iter::once(c)) {
            unicode_normalization::IsNormalized::Yes => QuickCheck::Yes,
            unicode_normalization::IsNormalized::No => QuickCheck::No,
            unicode_normalization::IsNormalized::Maybe => QuickCheck::Maybe,
        };
        assert_eq!(tables.quick_check(c), want, "{c:?}");
        if !tables.is_active(c) {
            assert_eq!(want, QuickCheck::Yes, "{c:?}");
        }
    }
}

#[test]
fn every_code_point_normalizes_as_the_crate_does() {
    for c in all_chars() {
        let text = c.to_string();
        assert_eq!(nfkc(&text), crate_nfkc(&text), "{c:?}");
    }
}

/// Every primary composite is rebuilt from its canonical decomposition, so a missing
/// composition pair fails here; each decomposition is also tried after a starter and with a
/// combining mark of a lower class appended (reordering, blocking).
#[test]
fn every_decomposed_character_recomposes_as_the_crate_does() {
    for c in all_chars() {
        let mut decomposed = String::new();
        decompose_canonical(c, |d| decomposed.push(d));
        if decomposed.chars().eq([c]) {
            continue;
        }
        for text in [
            decomposed.clone(),
            format!("a{decomposed}"),
            format!("{decomposed}\u{0323}"), // dot below, class 220
            format!("{decomposed}\u{031B}"), // horn, class 216
            format!("{decomposed}\u{0301}\u{0301}"),
        ] {
            assert_eq!(nfkc(&text), crate_nfkc(&text), "{text:?}");
        }
    }
}

#[test]
fn ascii_and_cjk_ideographs_are_inert() {
    let tables = tables();
    for c in (0..0x80).chain(0x4E00..=0x9FFF) {
        assert!(!tables.in_active_ranges(c), "U+{c:04X}");
    }
}

/// Long text is normalised piece by piece between inert characters: what composes across a
/// piece's first character, and pieces at both ends, must come out as the crate's.
#[test]
fn mixed_text_normalizes_as_the_crate_does() {
    for text in [
        "用户喜欢喝咖啡，不喜欢茶（场景：喜好类；情绪：开心）。",
        "ＡＢＣ中e\u{0301}\u{0323}文ﬁ\u{1100}\u{1161}\u{11A8}가\u{11A8}，",
        "e\u{0301}",
        "\u{0301}e",
        "中\u{0301}\u{0323}",
        "a\u{0323}\u{0302}b\u{0302}\u{0323}，",
        "\u{1138B}\u{113C5}中\u{113C5}",
    ] {
        assert_eq!(nfkc(text), crate_nfkc(text), "{text:?}");
    }
}

#[test]
fn text_already_in_nfkc_is_borrowed() {
    for text in [
        "",
        "plain ascii, 123!",
        "过敏的事我记得",
        "한국어 텍스트",
        "café",
        "ễ",
        "é\u{0316}",
    ] {
        assert!(matches!(nfkc(text), Cow::Borrowed(_)), "{text:?}");
        assert_eq!(nfkc(text), crate_nfkc(text));
    }
    // The last: U+113C5 is U+113C2 twice, and the first U+113C2 composes with U+1138B.
    let composing = [
        "ＡＢＣ１２３",
        "ﬁle",
        "e\u{0301}",
        "\u{1100}\u{1161}",
        "a\u{0323}\u{0302}",
        "\u{1138B}\u{113C5}",
    ];
    for text in composing {
        assert!(matches!(nfkc(text), Cow::Owned(_)), "{text:?}");
        assert_eq!(nfkc(text), crate_nfkc(text));
    }
}

/// Characters that take part in normalization: starters that compose, every character that
/// composes with what precedes it, combining marks, Hangul, compatibility characters.
fn interesting_char() -> impl Strategy<Value = char> {
    let tables = tables();
    let mut pool: Vec<char> = tables
        .compositions
        .iter()
        .flat_map(|&((a, b), c)| [char::from_u32(a), char::from_u32(b), Some(c)])
        .flatten()
        .collect();
    pool.extend(
        tables
            .classes
            .iter()
            .filter_map(|&(first, _, _)| char::from_u32(first)),
    );
    pool.extend(
        tables
            .decompositions
            .iter()
            .step_by(7)
            .filter_map(|d| char::from_u32(d.code)),
    );
    pool.extend([
        'a', 'A', ' ', '中', '가', '각', '\u{1100}', '\u{1161}', '\u{11A8}', '\u{AC00}',
    ]);
    proptest::sample::select(pool)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(20_000))]

    #[test]
    fn sequences_normalize_as_the_crate_does(chars in proptest::collection::vec(interesting_char(), 0..12)) {
        let text: String = chars.into_iter().collect();
        prop_assert_eq!(nfkc(&text), crate_nfkc(&text));
    }

    #[test]
    fn any_text_normalizes_as_the_crate_does(text in "\\PC{0,24}") {
        prop_assert_eq!(nfkc(&text), crate_nfkc(&text));
    }
}
