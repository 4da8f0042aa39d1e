//! Street addresses and map coordinates, found from the digits of a text.

use super::*;

/// "221B Baker Street": a house number, one to four capitalized words, a street word.
pub(super) fn street_addresses(s: &Scan, out: &mut Vec<Finding>) {
    // Words are runs of ASCII letters, digits and apostrophes, so bytes will do: a byte of a
    // non-ASCII character ends a word as the character does (decoding characters here was
    // most of the detector's cost on long texts with a number). Only a word that starts with
    // a digit starts an address, so the scan goes from digit to digit and reads the words
    // after a house number only (listing every word of a long text was a fifth of the
    // detector's time on conversation turns).
    let bytes = s.raw.as_bytes();
    let mut at = 0;
    while let Some(d) = bytes[at..].iter().position(u8::is_ascii_digit) {
        let start = at + d;
        let w = start..word_end(bytes, start);
        at = w.end;
        let inside_word = start > 0 && is_word_byte(bytes[start - 1]);
        let digits = bytes[w.clone()]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
        if inside_word || !(1..=5).contains(&digits) || w.len() > digits + 1 {
            continue;
        }
        let mut next = w.end;
        for k in 1..=5 {
            let Some(candidate) = next_word(bytes, next).filter(|c| spaced(bytes, next..c.start))
            else {
                break;
            };
            next = candidate.end;
            match street_word(&s.raw[candidate.clone()], k) {
                StreetWord::Suffix => {
                    out.push(address(w.start..candidate.end));
                    break;
                }
                StreetWord::Name => {}
                StreetWord::Other => break,
            }
        }
    }
}

/// What the `k`-th word after a house number is to the address (`k` from 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum StreetWord {
    /// A capitalised street word after at least one other: the address ends here.
    Suffix,
    /// Part of the street's name: capitalised, or an ordinal ("57th").
    Name,
    /// Anything else: no address.
    Other,
}

pub(super) fn street_word(word: &str, k: usize) -> StreetWord {
    let capitalised = word.starts_with(|c: char| c.is_ascii_uppercase());
    if k > 1 && capitalised && in_list(STREET_SUFFIXES, &word.to_ascii_lowercase()) {
        return StreetWord::Suffix;
    }
    let ordinal = word.len() > 2
        && word[..word.len() - 2].bytes().all(|b| b.is_ascii_digit())
        && ["st", "nd", "rd", "th"].contains(&&word[word.len() - 2..]);
    match capitalised || ordinal {
        true => StreetWord::Name,
        false => StreetWord::Other,
    }
}

pub(super) fn address(span: Range<usize>) -> Finding {
    Finding {
        category: Category::PreciseLocation,
        span: span.clone(),
        value: Some(span),
    }
}

/// Whether the bytes between two words of an address are spaces only: "42 Elm Street", not a
/// numbered list's "1. **Lodge Food Court**" or "Method 3: Google Drive" (most of what the
/// detector called an address in a sample of real conversation turns).
pub(super) fn spaced(bytes: &[u8], gap: Range<usize>) -> bool {
    !gap.is_empty() && bytes[gap].iter().all(|b| matches!(b, b' ' | b'\t'))
}

/// The value of `-?d+.d+` (the shape [`coordinates`] found), close enough for its range
/// checks: std's float parser was 5 KB of the package's wasm for this one use.
pub(super) fn decimal_value(text: &str) -> f64 {
    let (negative, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let (mut value, mut scale, mut fraction) = (0.0, 1.0, false);
    for b in digits.bytes() {
        if b == b'.' {
            fraction = true;
        } else if fraction {
            scale /= 10.0;
            value += f64::from(b - b'0') * scale;
        } else {
            value = value * 10.0 + f64::from(b - b'0');
        }
    }
    if negative {
        -value
    } else {
        value
    }
}

/// "39.9042, 116.4074": a latitude and a longitude with four or more decimals, side by side and
/// on their own. A longer list of such decimals ("0.0088, 0.0177, 0.0265, …", a pasted array)
/// is data, not a place: it was most of what the detector flagged in a sample of real
/// conversation turns.
pub(super) fn coordinates(s: &Scan, out: &mut Vec<Finding>) {
    coordinate_pairs(s, &decimals(s), out);
}

/// Every `-?d{1,3}.d{4,}` of the text not glued to a letter or digit before it, with its value.
/// A decimal's whole part is a whole run of digits, a `-` right before it its sign: the scan
/// goes from run to run (a loop over every byte was a fifth of the detector's time on
/// conversation turns with a number).
pub(super) fn decimals(s: &Scan) -> Vec<(Range<usize>, f64)> {
    let bytes = s.raw.as_bytes();
    let run_end = |from: usize| {
        let rest = &bytes[from..];
        from + rest
            .iter()
            .position(|b| !b.is_ascii_digit())
            .unwrap_or(rest.len())
    };
    let mut decimals: Vec<(Range<usize>, f64)> = Vec::new();
    let mut at = 0;
    while let Some(d) = bytes[at..].iter().position(u8::is_ascii_digit) {
        let int_start = at + d;
        let j = run_end(int_start);
        at = j;
        let start = int_start - usize::from(int_start > 0 && bytes[int_start - 1] == b'-');
        if (1..=3).contains(&(j - int_start)) && bytes.get(j) == Some(&b'.') {
            let k = run_end(j + 1);
            let boundary = start == 0 || !bytes[start - 1].is_ascii_alphanumeric();
            if k - (j + 1) >= 4 && boundary {
                decimals.push((start..k, decimal_value(&s.raw[start..k])));
                at = k;
            }
        }
    }
    decimals
}

/// The pairs of `decimals` that read as a latitude and a longitude: next to each other (at
/// most three commas or spaces between), in range, and with no other decimal next to either.
fn coordinate_pairs(s: &Scan, decimals: &[(Range<usize>, f64)], out: &mut Vec<Finding>) {
    let side_by_side = |a: &Range<usize>, b: &Range<usize>| {
        let between = &s.raw[a.end..b.start];
        between.len() <= 3 && between.chars().all(|c| c == ',' || c == ' ' || c == '，')
    };
    for (i, pair) in decimals.windows(2).enumerate() {
        let [(a, lat), (b, lon)] = pair else { continue };
        let listed_before = i > 0 && side_by_side(&decimals[i - 1].0, a);
        let listed_after = decimals.get(i + 2).is_some_and(|(c, _)| side_by_side(b, c));
        if side_by_side(a, b)
            && !listed_before
            && !listed_after
            && lat.abs() <= 90.0
            && lon.abs() <= 180.0
        {
            out.push(Finding {
                category: Category::PreciseLocation,
                span: a.start..b.end,
                value: Some(a.start..b.end),
            });
        }
    }
}
