//! Numbers that identify by their own shape: a 身份证号 with a valid check digit and birth
//! date, an SSN, a Luhn-valid card number, Chinese mobile and international phone numbers.

use super::*;

pub(super) fn identifying_numbers(s: &Scan, out: &mut Vec<Finding>) {
    for r in s.runs.iter().filter(|r| !r.glued) {
        let text = &s.raw[r.span.clone()];
        let digits = r.digits.as_bytes();
        let resident_id = digits.len() == 18 && is_resident_id(&r.digits);
        let card = (13..=19).contains(&digits.len())
            && matches!(digits[0], b'2'..=b'6')
            && luhn(&r.digits)
            && !digits.iter().all(|b| *b == digits[0]);
        // A Chinese mobile number: 1, then 3–9, then nine digits.
        let mobile = digits.len() == 11 && digits[0] == b'1' && matches!(digits[1], b'3'..=b'9');
        let category = if resident_id || is_ssn(text) {
            Some(Category::GovernmentId)
        } else if card {
            Some(Category::Finance)
        } else if mobile || (r.plus && digits.len() >= 8) {
            Some(Category::Contact)
        } else {
            None
        };
        if let Some(category) = category {
            let start = r.span.start - usize::from(r.plus);
            out.push(Finding {
                category,
                span: start..r.span.end,
                value: Some(r.span.clone()),
            });
        }
        // A Chinese house number on its own: 建国路88号, 3单元, 5号楼, 1502室.
        if let Some((house, marker)) = zh_house_number(s, r) {
            let on_a_street = s
                .char_before(r.span.start)
                .is_some_and(|c| ZH_STREET_CHARS.contains(&c));
            let standalone = match marker {
                "号" | "弄" => on_a_street,
                "栋" | "幢" => false,
                _ => true,
            };
            if standalone {
                let start = if on_a_street {
                    r.span.start - s.char_before(r.span.start).map_or(0, char::len_utf8)
                } else {
                    r.span.start
                };
                out.push(Finding {
                    category: Category::PreciseLocation,
                    span: start..house.end,
                    value: Some(house),
                });
            }
        }
    }
}

/// A 18-character 身份证号: a birth date in place and the ISO 7064 MOD 11-2 check character.
pub(in crate::sensitive) fn is_resident_id(id: &str) -> bool {
    const WEIGHTS: [u32; 17] = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2];
    const CHECK: &[u8; 11] = b"10X98765432";
    let bytes = id.as_bytes();
    if bytes.len() != 18 || !bytes[..17].iter().all(u8::is_ascii_digit) {
        return false;
    }
    let sum: u32 = bytes[..17]
        .iter()
        .zip(WEIGHTS)
        .map(|(b, w)| u32::from(b - b'0') * w)
        .sum();
    let number = |r: Range<usize>| id[r].parse::<u32>().unwrap_or(0);
    let (year, month, day) = (number(6..10), number(10..12), number(12..14));
    CHECK[(sum % 11) as usize] == bytes[17].to_ascii_uppercase()
        && (1900..=2099).contains(&year)
        && (1..=12).contains(&month)
        && (1..=31).contains(&day)
}

/// `AAA-GG-SSSS` with a possible area (not 000, 666 or 9xx), group and serial.
fn is_ssn(text: &str) -> bool {
    let parts: Vec<&str> = text.split('-').collect();
    matches!(parts.as_slice(), [a, g, s] if a.len() == 3 && g.len() == 2 && s.len() == 4
        && *a != "000" && *a != "666" && !a.starts_with('9') && *g != "00" && *s != "0000")
}

pub(in crate::sensitive) fn luhn(digits: &str) -> bool {
    let mut sum = 0;
    for (i, b) in digits.bytes().rev().enumerate() {
        if !b.is_ascii_digit() {
            return false;
        }
        let mut d = u32::from(b - b'0');
        if i % 2 == 1 {
            d *= 2;
            if d > 9 {
                d -= 9;
            }
        }
        sum += d;
    }
    sum % 10 == 0
}
