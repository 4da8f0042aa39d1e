//! Packs the Unicode data NFKC needs into three compact byte strings for `src/nfkc.rs`.
//!
//! The data comes from the `unicode-normalization` crate (its public per-character API); only
//! its representation changes. The crate's perfect-hash tables of `u32`s cost the npm wasm
//! ~56 KB gzip; these delta-coded, UTF-8 forms ~15 KB (docs/BENCHMARKS.md "npm"). The tests
//! in `src/nfkc/tests.rs` check the result against the crate for every code point.
//!
//! Formats (`varint`: unsigned LEB128):
//! - `nfkc_decompositions.bin`: per code point with a full compatibility decomposition
//!   (Hangul syllables excluded: computed), ascending: `varint(code point − previous code
//!   point)`, `u8` byte length (high bit set when NFKC leaves the character as it is: "é"),
//!   the decomposition in UTF-8.
//! - `nfkc_classes.bin`: runs of consecutive code points with the same non-zero canonical
//!   combining class, ascending: `varint(first − previous run's end)`, `varint(length)`,
//!   `u8` class.
//! - `nfkc_compositions.txt`: the primary composites (Hangul excluded: computed) as UTF-8
//!   triples first, second, composite, sorted by (first, second).

use std::collections::HashMap;
use std::path::Path;
use unicode_normalization::char::{
    canonical_combining_class, compose, decompose_canonical, decompose_compatible,
};
use unicode_normalization::UnicodeNormalization;

const HANGUL_SYLLABLES: std::ops::RangeInclusive<u32> = 0xAC00..=0xD7A3;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let out_dir = std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR");
    let out = Path::new(&out_dir);
    let chars = || (0..=0x10FFFF_u32).filter_map(char::from_u32);
    let is_hangul_syllable = |c: char| HANGUL_SYLLABLES.contains(&(c as u32));

    let mut decompositions = Vec::new();
    let mut previous = 0;
    for c in chars().filter(|&c| !is_hangul_syllable(c)) {
        let mut full = String::new();
        decompose_compatible(c, |d| full.push(d));
        if full.chars().eq([c]) {
            continue;
        }
        varint(&mut decompositions, c as u32 - previous);
        previous = c as u32;
        assert!(full.len() < 0x80, "a decomposition under 128 bytes");
        // The high bit: NFKC gives the character back (a precomposed letter such as "é").
        let stable = std::iter::once(c).nfkc().eq([c]);
        decompositions.push(full.len() as u8 | if stable { 0x80 } else { 0 });
        decompositions.extend_from_slice(full.as_bytes());
    }

    let mut runs: Vec<(u32, u32, u8)> = Vec::new(); // (first, length, class)
    for c in chars() {
        let class = canonical_combining_class(c);
        if class == 0 {
            continue;
        }
        match runs.last_mut() {
            Some((first, length, last)) if *first + *length == c as u32 && *last == class => {
                *length += 1
            }
            _ => runs.push((c as u32, 1, class)),
        }
    }
    let mut classes = Vec::new();
    let mut end = 0;
    for (first, length, class) in runs {
        varint(&mut classes, first - end);
        varint(&mut classes, length);
        classes.push(class);
        end = first + length;
    }

    // A primary composite's full canonical decomposition is its first's followed by its
    // second's: every split of every decomposition names all the candidate pairs.
    let canonical = |c: char| {
        let mut full = Vec::new();
        decompose_canonical(c, |d| full.push(d));
        full
    };
    let mut by_decomposition: HashMap<Vec<char>, Vec<char>> = HashMap::new();
    for c in chars().filter(|&c| !is_hangul_syllable(c)) {
        let full = canonical(c);
        if full != [c] {
            by_decomposition.entry(full).or_default().push(c);
        }
    }
    // The characters whose full canonical decomposition is `full`.
    let decomposing_to = |full: &[char]| {
        let mut found = by_decomposition.get(full).cloned().unwrap_or_default();
        if let [c] = full {
            found.push(*c); // a character that does not decompose
        }
        found
    };
    let mut pairs = Vec::new();
    for (full, composites) in &by_decomposition {
        for split in 1..full.len() {
            for first in decomposing_to(&full[..split]) {
                for second in decomposing_to(&full[split..]) {
                    if let Some(c) = compose(first, second).filter(|c| composites.contains(c)) {
                        pairs.push((first, second, c));
                    }
                }
            }
        }
    }
    pairs.sort_unstable();
    pairs.dedup();
    let compositions: String = pairs.iter().flat_map(|&(a, b, c)| [a, b, c]).collect();

    write(out, "nfkc_decompositions.bin", &decompositions);
    write(out, "nfkc_classes.bin", &classes);
    write(out, "nfkc_compositions.txt", compositions.as_bytes());
}

fn varint(out: &mut Vec<u8>, mut n: u32) {
    while n >= 0x80 {
        out.push((n as u8 & 0x7F) | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

fn write(dir: &Path, name: &str, bytes: &[u8]) {
    std::fs::write(dir.join(name), bytes).expect("OUT_DIR is writable");
}
