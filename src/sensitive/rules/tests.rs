use super::*;

/// What [`street_addresses`] finds, by listing every word first (as it did before it went
/// from digit to digit); the same rule for each word ([`street_word`]).
fn street_addresses_by_words(s: &Scan, out: &mut Vec<Finding>) {
    // Words are runs of ASCII letters, digits and apostrophes, so bytes will do: a byte of a
    // non-ASCII character ends a word as the character does (decoding characters here was
    // most of the detector's cost on long texts with a number).
    let words: Vec<Range<usize>> = {
        let mut v = Vec::new();
        let mut start = None;
        let bytes = s.raw.as_bytes().iter().copied();
        for (i, b) in bytes.chain([b' ']).enumerate() {
            match (b.is_ascii_alphanumeric() || b == b'\'', start) {
                (true, None) => start = Some(i),
                (false, Some(st)) => {
                    v.push(st..i);
                    start = None;
                }
                _ => {}
            }
        }
        v
    };
    for (i, w) in words.iter().enumerate() {
        let number = &s.raw[w.clone()];
        let digits = number.bytes().take_while(u8::is_ascii_digit).count();
        if !(1..=5).contains(&digits) || number.len() > digits + 1 {
            continue;
        }
        for (k, candidate) in words.iter().enumerate().skip(i + 1).take(5) {
            if !spaced(s.raw.as_bytes(), words[k - 1].end..candidate.start) {
                break;
            }
            match street_word(&s.raw[candidate.clone()], k - i) {
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

/// What [`decimals`] found before it went from run to run: a loop over every byte.
fn decimals_by_bytes(s: &Scan) -> Vec<(Range<usize>, f64)> {
    let bytes = s.raw.as_bytes();
    let mut decimals: Vec<(Range<usize>, f64)> = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let start = i;
        let mut j = i + usize::from(bytes[i] == b'-');
        let int_start = j;
        while j < bytes.len() && bytes[j].is_ascii_digit() {
            j += 1;
        }
        let int_len = j - int_start;
        if (1..=3).contains(&int_len) && bytes.get(j) == Some(&b'.') {
            let frac_start = j + 1;
            let mut k = frac_start;
            while k < bytes.len() && bytes[k].is_ascii_digit() {
                k += 1;
            }
            let boundary = start == 0 || !bytes[start - 1].is_ascii_alphanumeric();
            if k - frac_start >= 4 && boundary {
                decimals.push((start..k, decimal_value(&s.raw[start..k])));
                i = k;
                continue;
            }
        }
        i = j.max(i + 1);
    }
    decimals
}

/// Texts built from pieces of addresses, decimals and what sits around them, from a
/// fixed-seed generator: the fast scans find what the word-by-word and byte-by-byte
/// definitions above find, span for span.
#[test]
fn addresses_and_decimals_are_found_as_by_their_definitions() {
    const PIECES: &[&str] = &[
        "12",
        "221B",
        "7",
        "123456",
        "1600",
        "-",
        "--",
        ".",
        ",",
        "，",
        " ",
        "  ",
        "'",
        "Baker",
        "Street",
        "street",
        "Avenue",
        "Rd",
        "Elm",
        "1st",
        "42nd",
        "3rd",
        "Xth",
        "abc",
        "x9",
        "9x",
        "é",
        "北京",
        "住在",
        "39.9042",
        "-116.4074",
        "3.14159",
        "0.0001",
        "12.34",
        "999.99999",
        "1.2345.6789",
        "\n",
        "O'Neil",
        "39.9042, ",
        "12 Elm ",
        "Street ",
        "-33.8688,116.4074",
    ];
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = |n: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % n as u64) as usize
    };
    let mut texts: Vec<String> = vec![String::new(), "1".into(), "-1.2345".into()];
    for _ in 0..20_000 {
        let len = 1 + next(12);
        texts.push((0..len).map(|_| PIECES[next(PIECES.len())]).collect());
    }
    let (mut addresses, mut found_decimals) = (0, 0);
    for text in &texts {
        let scan = Scan::new(text);
        let (mut fast, mut defined) = (Vec::new(), Vec::new());
        street_addresses(&scan, &mut fast);
        street_addresses_by_words(&scan, &mut defined);
        assert_eq!(fast, defined, "{text:?}");
        addresses += fast.len();
        let fast = decimals(&scan);
        assert_eq!(fast, decimals_by_bytes(&scan), "{text:?}");
        found_decimals += fast.len();
    }
    // The texts hold both, often.
    assert!(
        addresses > 50 && found_decimals > 300,
        "{addresses} / {found_decimals}"
    );
}

#[test]
fn a_street_word_ends_an_address_only_after_a_name() {
    // "12 Street" names no street; "12 Elm Street" and "300 East 57th Street" do.
    assert_eq!(street_word("Street", 1), StreetWord::Name);
    assert_eq!(street_word("Street", 2), StreetWord::Suffix);
    assert_eq!(street_word("57th", 2), StreetWord::Name);
    assert_eq!(street_word("street", 2), StreetWord::Other);
    assert_eq!(street_word("the", 1), StreetWord::Other);
}

#[test]
fn decimal_values_match_the_float_parser() {
    for text in [
        "39.9042",
        "-33.8688",
        "116.4074",
        "-180.00000",
        "90.0000",
        "90.00001",
        "0.0001",
        "999.99999999",
        "1.23456789012345678",
    ] {
        let want: f64 = text.parse().expect("a decimal");
        let got = decimal_value(text);
        assert!((got - want).abs() < 1e-9, "{text}: {got} vs {want}");
        assert_eq!(got.abs() <= 90.0, want.abs() <= 90.0, "{text}");
    }
}
