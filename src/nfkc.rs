//! Unicode NFKC (UAX #15): full compatibility decomposition, canonical ordering, canonical
//! composition.
//!
//! The same normalization as the `unicode-normalization` crate, from the same data, stored
//! compactly: `build.rs` packs the crate's decompositions, combining classes and composition
//! pairs into delta-coded byte strings (~15 KB gzip in the npm wasm instead of the crate's
//! ~56 KB of hash tables), decoded once, on first use, into sorted tables. `tests.rs` checks
//! every code point and many sequences against the crate.
#![deny(
    clippy::indexing_slicing,
    clippy::string_slice,
    clippy::arithmetic_side_effects
)]

use crate::order::sort_by;
use std::borrow::Cow;
use std::sync::OnceLock;

static DECOMPOSITIONS: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/nfkc_decompositions.bin"));
static CLASSES: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/nfkc_classes.bin"));
static COMPOSITIONS: &str = include_str!(concat!(env!("OUT_DIR"), "/nfkc_compositions.txt"));

// Hangul syllables decompose and compose by arithmetic (Unicode §3.12).
const S_BASE: u32 = 0xAC00;
const L_BASE: u32 = 0x1100;
const V_BASE: u32 = 0x1161;
const T_BASE: u32 = 0x11A7;
const L_COUNT: u32 = 19;
const V_COUNT: u32 = 21;
const T_COUNT: u32 = 28;
const N_COUNT: u32 = V_COUNT * T_COUNT;
const S_COUNT: u32 = L_COUNT * N_COUNT;

/// `text` in NFKC: borrowed when it already is (all ASCII text is).
pub fn nfkc(text: &str) -> Cow<'_, str> {
    let tables = tables();
    if tables.is_nfkc(text) {
        return Cow::Borrowed(text);
    }
    // A character outside the active ranges neither changes, nor moves, nor composes with
    // what precedes it, and blocks what follows from composing with what precedes it: text
    // normalises piece by piece between such characters. Only the pieces with an active
    // character go through decomposition and composition: a Chinese sentence is mostly
    // ideographs around a few full-width commas.
    let mut out = String::with_capacity(text.len());
    let mut start = 0;
    let mut active = false;
    for (i, c) in text.char_indices() {
        let inert = !tables.is_active(c);
        if inert && i > start {
            tables.normalize_piece(text.get(start..i).unwrap_or_default(), active, &mut out);
            start = i;
            active = false;
        } else {
            active |= !inert;
        }
    }
    tables.normalize_piece(text.get(start..).unwrap_or_default(), active, &mut out);
    Cow::Owned(out)
}

struct Decomposition {
    code: u32,
    full: &'static str,
    /// NFKC gives the character back (it recomposes: "é").
    stable: bool,
}

struct Tables {
    /// Full compatibility decompositions by code point, ascending (no Hangul syllables).
    decompositions: Vec<Decomposition>,
    /// Runs of a non-zero canonical combining class: (first, last, class), ascending.
    classes: Vec<(u32, u32, u8)>,
    /// Primary composites: ((first, second), composite), ascending (no Hangul).
    compositions: Vec<((u32, u32), char)>,
    /// Code points that compose with a preceding character, ascending (Hangul jamo included).
    seconds: Vec<u32>,
    /// Ranges (first, last), ascending and disjoint, outside which a character neither
    /// decomposes, nor has a combining class, nor composes with what precedes it.
    active: Vec<(u32, u32)>,
}

#[derive(Debug, PartialEq, Eq)]
enum QuickCheck {
    Yes,
    No,
    /// The character composes with what precedes it.
    Maybe,
}

fn tables() -> &'static Tables {
    static TABLES: OnceLock<Tables> = OnceLock::new();
    TABLES.get_or_init(Tables::decode)
}

impl Tables {
    fn decode() -> Tables {
        let mut decompositions = Vec::new();
        let mut bytes = DECOMPOSITIONS;
        let mut code = 0u32;
        while let Some(delta) = varint(&mut bytes) {
            let Some((&len, rest)) = bytes.split_first() else {
                break;
            };
            let Some((full, rest)) = rest.split_at_checked(usize::from(len & 0x7F)) else {
                break;
            };
            let Ok(full) = std::str::from_utf8(full) else {
                break;
            };
            code = code.saturating_add(delta);
            decompositions.push(Decomposition {
                code,
                full,
                stable: len & 0x80 != 0,
            });
            bytes = rest;
        }

        let mut classes = Vec::new();
        let mut bytes = CLASSES;
        let mut end = 0u32;
        while let (Some(gap), Some(len)) = (varint(&mut bytes), varint(&mut bytes)) {
            let Some((&class, rest)) = bytes.split_first() else {
                break;
            };
            let first = end.saturating_add(gap);
            end = first.saturating_add(len);
            classes.push((first, end.saturating_sub(1), class));
            bytes = rest;
        }

        let mut compositions = Vec::new();
        let mut triples = COMPOSITIONS.chars();
        while let (Some(a), Some(b), Some(c)) = (triples.next(), triples.next(), triples.next()) {
            compositions.push(((a as u32, b as u32), c));
        }

        let mut seconds: Vec<u32> = compositions.iter().map(|&((_, b), _)| b).collect();
        seconds.extend(V_BASE..V_BASE + V_COUNT);
        seconds.extend(T_BASE + 1..T_BASE + T_COUNT);
        sort_by(&mut seconds, u32::cmp);
        seconds.dedup();

        let mut points: Vec<(u32, u32)> = decompositions.iter().map(|d| (d.code, d.code)).collect();
        points.extend(classes.iter().map(|&(first, last, _)| (first, last)));
        points.extend(seconds.iter().map(|&c| (c, c)));
        sort_by(&mut points, |a, b| a.cmp(b));
        let mut active: Vec<(u32, u32)> = Vec::new();
        for (first, last) in points {
            match active.last_mut() {
                Some(range) if first <= range.1.saturating_add(1) => range.1 = range.1.max(last),
                _ => active.push((first, last)),
            }
        }

        Tables {
            decompositions,
            classes,
            compositions,
            seconds,
            active,
        }
    }

    /// Appends `piece` in NFKC: as it is when none of its characters is active.
    fn normalize_piece(&self, piece: &str, active: bool, out: &mut String) {
        if active {
            out.push_str(&self.compose(self.decompose(piece)));
        } else {
            out.push_str(piece);
        }
    }

    fn is_active(&self, c: char) -> bool {
        // ASCII and the CJK unified ideographs, most of any text, are outside every range
        // (checked against the tables by the tests).
        let c = c as u32;
        if c < 0x80 || (0x4E00..=0x9FFF).contains(&c) {
            return false;
        }
        self.in_active_ranges(c)
    }

    fn in_active_ranges(&self, c: u32) -> bool {
        let i = self.active.partition_point(|&(_, last)| last < c);
        self.active.get(i).is_some_and(|&(first, _)| first <= c)
    }

    fn decomposition(&self, c: char) -> Option<&Decomposition> {
        let i = self
            .decompositions
            .binary_search_by_key(&(c as u32), |d| d.code)
            .ok()?;
        self.decompositions.get(i)
    }

    fn class(&self, c: char) -> u8 {
        let c = c as u32;
        let i = self.classes.partition_point(|&(_, last, _)| last < c);
        match self.classes.get(i) {
            Some(&(first, _, class)) if first <= c => class,
            _ => 0,
        }
    }

    fn is_second(&self, c: char) -> bool {
        self.seconds.binary_search(&(c as u32)).is_ok()
    }

    /// The NFKC quick check (UAX #15 §9), with "maybe" taken as "no": true when normalizing
    /// `text` would return it unchanged.
    fn is_nfkc(&self, text: &str) -> bool {
        let mut last_class = 0;
        for c in text.chars() {
            if !self.is_active(c) {
                last_class = 0;
                continue;
            }
            if self.quick_check(c) != QuickCheck::Yes {
                return false;
            }
            let class = self.class(c);
            if class != 0 && last_class > class {
                return false;
            }
            last_class = class;
        }
        true
    }

    /// The character's NFKC_Quick_Check property.
    fn quick_check(&self, c: char) -> QuickCheck {
        let decomposition = self.decomposition(c);
        if decomposition.is_some_and(|d| !d.stable) {
            return QuickCheck::No;
        }
        // A character may compose with what precedes it, or starts with one that does
        // (U+113C5 is U+113C2 twice, and U+1138B + U+113C2 compose).
        let first = decomposition
            .and_then(|d| d.full.chars().next())
            .unwrap_or(c);
        if self.is_second(c) || self.is_second(first) {
            QuickCheck::Maybe
        } else {
            QuickCheck::Yes
        }
    }

    /// Full compatibility decomposition, in canonical order: (class, character) pairs.
    fn decompose(&self, text: &str) -> Vec<(u8, char)> {
        let mut out: Vec<(u8, char)> = Vec::with_capacity(text.len());
        let mut push = |c: char| out.push((self.class(c), c));
        for c in text.chars() {
            if let Some(jamo) = hangul_decomposition(c) {
                jamo.into_iter().flatten().for_each(&mut push);
            } else if let Some(d) = self.decomposition(c) {
                d.full.chars().for_each(&mut push);
            } else {
                push(c);
            }
        }
        // Canonical ordering: each run of non-starters sorted by class, stably (an insertion
        // sort: runs are a few marks long).
        for run in out.split_mut(|&(class, _)| class == 0) {
            for end in 1..run.len() {
                let mut i = end;
                while let Some(before) = i.checked_sub(1) {
                    if run.get(before).map(|p| p.0) <= run.get(i).map(|p| p.0) {
                        break;
                    }
                    run.swap(before, i);
                    i = before;
                }
            }
        }
        out
    }

    /// Canonical composition of a decomposed, canonically ordered text.
    fn compose(&self, decomposed: Vec<(u8, char)>) -> String {
        let mut out = String::with_capacity(decomposed.len());
        // The last starter, not yet written, and the characters after it that did not
        // compose with it (with the class of the last of them).
        let mut starter: Option<char> = None;
        let mut skipped: Vec<char> = Vec::new();
        let mut last_class: Option<u8> = None;
        for (class, c) in decomposed {
            let Some(first) = starter else {
                if class == 0 {
                    starter = Some(c);
                } else {
                    out.push(c);
                }
                continue;
            };
            // `c` is blocked from the starter by a skipped character of the same or a
            // higher class (or by any, when `c` is a starter itself).
            let blocked = last_class.is_some_and(|last| last >= class);
            if !blocked {
                if let Some(composite) = self.composition(first, c) {
                    starter = Some(composite);
                    continue;
                }
            }
            if class == 0 {
                out.push(first);
                out.extend(skipped.drain(..));
                starter = Some(c);
                last_class = None;
            } else {
                skipped.push(c);
                last_class = Some(class);
            }
        }
        out.extend(starter);
        out.extend(skipped);
        out
    }

    fn composition(&self, first: char, second: char) -> Option<char> {
        if let Some(syllable) = hangul_composition(first, second) {
            return Some(syllable);
        }
        let i = self
            .compositions
            .binary_search_by_key(&(first as u32, second as u32), |&(pair, _)| pair)
            .ok()?;
        self.compositions.get(i).map(|&(_, composite)| composite)
    }
}

// The arithmetic below stays within the Hangul ranges the range checks admit.
#[allow(clippy::arithmetic_side_effects)]
/// A Hangul syllable's jamo: leading consonant, vowel and, if any, trailing consonant.
fn hangul_decomposition(c: char) -> Option<[Option<char>; 3]> {
    let index = (c as u32).checked_sub(S_BASE).filter(|&i| i < S_COUNT)?;
    let l = char::from_u32(L_BASE + index / N_COUNT);
    let v = char::from_u32(V_BASE + (index % N_COUNT) / T_COUNT);
    let t = Some(index % T_COUNT)
        .filter(|&t| t != 0)
        .and_then(|t| char::from_u32(T_BASE + t));
    Some([l, v, t])
}

#[allow(clippy::arithmetic_side_effects)]
/// Leading consonant + vowel → syllable; syllable without a trailing consonant + trailing
/// consonant → syllable.
fn hangul_composition(first: char, second: char) -> Option<char> {
    let (a, b) = (first as u32, second as u32);
    if (L_BASE..L_BASE + L_COUNT).contains(&a) && (V_BASE..V_BASE + V_COUNT).contains(&b) {
        let index = ((a - L_BASE) * V_COUNT + (b - V_BASE)) * T_COUNT;
        return char::from_u32(S_BASE + index);
    }
    let index = a.checked_sub(S_BASE).filter(|&i| i < S_COUNT)?;
    if index % T_COUNT == 0 && (T_BASE + 1..T_BASE + T_COUNT).contains(&b) {
        return char::from_u32(a + (b - T_BASE));
    }
    None
}

/// Reads one unsigned LEB128 number off the front of `bytes`.
fn varint(bytes: &mut &[u8]) -> Option<u32> {
    let mut value = 0u32;
    for shift in (0..32).step_by(7) {
        let (&byte, rest) = bytes.split_first()?;
        *bytes = rest;
        value |= u32::from(byte & 0x7F) << shift;
        if byte & 0x80 == 0 {
            return Some(value);
        }
    }
    None
}

#[cfg(test)]
mod tests;
