//! The value a trigger needs after it (keyword + value rules): a secret, enough digits, an
//! amount, a house number, a handle. Without it a trigger is talk *about* the thing.

use super::*;

/// How far after a trigger (bytes) its value may start.
const VALUE_WINDOW: usize = 60;
/// How far before a trigger (bytes) an amount may stand ("a $20k loan").
const AMOUNT_BEFORE: usize = 30;

pub(super) fn value_after(s: &Scan, at: usize, end: usize, want: Want) -> Option<Range<usize>> {
    let limit = clause_end(s.raw, end).min(floor_char_boundary(s.raw, end + VALUE_WINDOW));
    match want {
        Want::SecretEn => secret_en(s, end, limit),
        Want::SecretEnStrict => secret_en(s, end, limit).filter(|v| {
            s.raw[v.clone()]
                .chars()
                .any(|c| c.is_ascii_digit() || (c.is_ascii_punctuation() && c != '\''))
        }),
        Want::SecretZh => secret_zh(s, end, limit),
        Want::Digits(n) | Want::ToldDigits(n) => s
            .runs
            .iter()
            .find(|r| r.span.start >= end && r.span.start < limit && r.digits.len() >= n)
            .map(|r| r.span.clone())
            .or_else(|| numeral_run(s.raw, end, limit, n.max(5)))
            .filter(|v| !matches!(want, Want::ToldDigits(_)) || a_secret_code(s, at..end, v)),
        Want::IdToken => ascii_tokens(s.raw, end, limit)
            .find(|t| {
                let token = &s.raw[t.clone()];
                token.len() >= 6
                    && token.bytes().any(|b| b.is_ascii_digit())
                    && token
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b == b'-')
            })
            .or_else(|| {
                s.runs
                    .iter()
                    .find(|r| r.span.start >= end && r.span.start < limit && r.digits.len() >= 6)
                    .map(|r| r.span.clone())
            }),
        Want::Amount => {
            let from = floor_char_boundary(s.raw, at.saturating_sub(AMOUNT_BEFORE));
            let from = s.raw[from..at]
                .rfind(CLAUSE_ENDS)
                .map_or(from, |i| from + i + 1);
            amount(s, from, limit)
        }
        Want::Place => place(s, end, limit),
        Want::Handle | Want::SocialHandle => ascii_tokens(s.raw, end, limit).find(|t| {
            is_handle(
                &s.raw.as_bytes()[t.clone()],
                matches!(want, Want::SocialHandle),
            )
        }),
    }
}

/// [`Want::Handle`] (`social` false) or [`Want::SocialHandle`] of one token: a markdown `\\_`
/// counts as `_`, and a profile's link ("twitter.com/name", "t.me/name"; `.` ends a token) is a
/// social handle.
fn is_handle(token: &[u8], social: bool) -> bool {
    let marked = |b: &u8| b.is_ascii_digit() || *b == b'_' || (social && *b == b'#');
    if !social {
        return (token.first() == Some(&b'@') && token.len() >= 3)
            || (token.len() >= 5 && token.iter().any(marked));
    }
    let name = |n: &[u8]| {
        n.iter()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'#' | b'\\'))
    };
    match token {
        [b'c', b'o', b'm', b'/', rest @ ..] | [b'm', b'e', b'/', rest @ ..] => {
            rest.len() >= 2 && name(rest)
        }
        [b'@', rest @ ..] => rest.len() >= 2,
        [first, ..] => {
            first.is_ascii_alphabetic()
                && token.len() >= 5
                && name(token)
                && token.iter().any(marked)
        }
        [] => false,
    }
}

/// A run of at least `min` Chinese digits (一三八…) in `from..limit`: a number said in words.
fn numeral_run(raw: &str, from: usize, limit: usize, min: usize) -> Option<Range<usize>> {
    const DIGITS: &str = "零〇一二三四五六七八九幺";
    let window = raw.get(from..limit)?;
    let mut start: Option<usize> = None;
    let mut count = 0;
    for (i, c) in window.char_indices().chain([(window.len(), ' ')]) {
        if DIGITS.contains(c) {
            start.get_or_insert(i);
            count += 1;
        } else if let Some(st) = start.take() {
            if count >= min {
                return Some(from + st..from + i);
            }
            count = 0;
        }
    }
    None
}

/// "password is X": the connector within the clause, then a token that names a secret.
fn secret_en(s: &Scan, end: usize, limit: usize) -> Option<Range<usize>> {
    let window = s.lower.get(end..limit)?;
    let connectors = [
        " is ",
        " was ",
        " are ",
        " will be ",
        "'s ",
        "’s ",
        ":",
        "=",
        " - ",
    ];
    let (pos, len) = connectors
        .iter()
        .filter_map(|c| window.find(c).map(|p| (p, c.len())))
        .min()?;
    let mut i = end + pos + len;
    loop {
        i += s.raw[i..].len() - s.raw[i..].trim_start_matches(SPACING).len();
        let word_end = s.raw[i..]
            .find(char::is_whitespace)
            .map_or(s.raw.len(), |j| i + j);
        let word = s.lower[i..word_end].trim_end_matches(|c: char| c.is_ascii_punctuation());
        if in_list(FILLER_WORDS, word) {
            i = word_end;
            continue;
        }
        break;
    }
    let value = quoted_or_token(s.raw, i)?;
    let text = &s.lower[value.clone()];
    let plain = text.trim_matches(|c: char| !c.is_alphanumeric());
    let ordinary_word = plain.bytes().all(|b| b.is_ascii_alphabetic())
        && ["ed", "ing", "ly"].iter().any(|end| plain.ends_with(end));
    if plain.chars().count() < 3
        || ordinary_word
        || in_list(NOT_A_SECRET, plain)
        || s.raw[value.end..].starts_with('?')
    {
        return None;
    }
    Some(value)
}

const OPEN_QUOTES: &[(char, char)] = &[
    ('"', '"'),
    ('\'', '\''),
    ('“', '”'),
    ('‘', '’'),
    ('「', '」'),
    ('『', '』'),
    ('`', '`'),
];

/// A quoted value at `i`, or the token there (up to whitespace, CJK or clause punctuation).
fn quoted_or_token(raw: &str, i: usize) -> Option<Range<usize>> {
    let first = raw.get(i..)?.chars().next()?;
    if let Some((_, close)) = OPEN_QUOTES.iter().find(|(open, _)| *open == first) {
        let start = i + first.len_utf8();
        let len = raw[start..].find(*close)?;
        return (len > 0).then_some(start..start + len);
    }
    let mut end = i;
    for c in raw[i..].chars() {
        if c.is_whitespace() || is_cjk(c) || "，。；！？、）】》".contains(c) {
            break;
        }
        end += c.len_utf8();
    }
    let token = raw[i..end].trim_end_matches(|c: char| ".,;:!?)]}\"'”’".contains(c));
    (!token.is_empty()).then_some(i..i + token.len())
}

/// "密码是X": after 密码 (not 密码箱 …), up to three filler characters, a connector, then a
/// value with Latin letters or digits, or three Chinese numerals, or a quoted value.
fn secret_zh(s: &Scan, end: usize, limit: usize) -> Option<Range<usize>> {
    if s.char_at(end)
        .is_some_and(|c| NOT_A_PASSWORD_AFTER.contains(&c))
    {
        return None;
    }
    let mut i = end;
    let mut filler = 0;
    let bare = s.raw[end..limit].trim_start_matches(SPACING);
    if bare.len() < s.raw[end..limit].len() && bare.starts_with(|c: char| c.is_ascii_alphanumeric())
    {
        // "开机密码 1qaz2wsx": a value right after the word, without 是.
        i = limit - bare.len();
        return zh_value(s, i);
    }
    let after_connector = loop {
        let rest = s.raw.get(i..limit)?;
        if let Some(c) = ZH_CONNECTORS.split('|').find(|c| rest.starts_with(c)) {
            break i + c.len();
        }
        let c = rest.chars().next()?;
        if c == ' ' || (is_cjk(c) && filler < 3 && !"吗呢么".contains(c)) {
            filler += usize::from(c != ' ');
            i += c.len_utf8();
        } else {
            return None;
        }
    };
    let rest = &s.raw[after_connector..];
    let skipped = rest.len() - rest.trim_start_matches(AFTER_ZH_CONNECTOR).len();
    zh_value(s, after_connector + skipped)
}

/// The value of "密码是…" at `i`.
fn zh_value(s: &Scan, i: usize) -> Option<Range<usize>> {
    let rest = &s.raw[i..];
    if ["什么", "多少", "啥", "吗"]
        .iter()
        .any(|q| rest.starts_with(q))
    {
        return None;
    }
    if let Some(first) = rest.chars().next() {
        if OPEN_QUOTES.iter().any(|(open, _)| *open == first) {
            return quoted_or_token(s.raw, i);
        }
    }
    let mut end = i;
    let (mut latin, mut numerals) = (0, 0);
    for c in rest.chars() {
        if c.is_ascii_alphanumeric() || (c.is_ascii_punctuation() && !",;!?".contains(c)) {
            latin += usize::from(c.is_ascii_alphanumeric());
        } else if ZH_NUMERALS.contains(c) || c == '个' {
            numerals += 1;
        } else {
            break;
        }
        end += c.len_utf8();
    }
    let value = s.raw[i..end].trim_end_matches(|c: char| c.is_ascii_punctuation());
    let ok = (latin >= 3 && latin == value.chars().filter(char::is_ascii_alphanumeric).count())
        || (latin == 0 && numerals >= 3);
    (ok && !value.is_empty()).then_some(i..i + value.len())
}

/// A sum of money in `from..limit`: a currency sign and digits, digits and a unit, or (in
/// Chinese) three or more digits, or numerals with 万 / 千 / 元 / 块.
fn amount(s: &Scan, from: usize, limit: usize) -> Option<Range<usize>> {
    const UNITS: &[&str] = &[
        "k", "m", "grand", "dollars", "dollar", "bucks", "usd", "eur", "euros", "euro", "pounds",
        "gbp", "yuan", "rmb", "cny", "万", "千", "元", "块", "w", "美元", "刀",
    ];
    for r in s
        .runs
        .iter()
        .filter(|r| r.span.start >= from && r.span.start < limit)
    {
        let before = s.char_before(r.span.start);
        if before.is_some_and(|c| "$€£¥￥".contains(c)) {
            return Some(r.span.start - before.map_or(0, char::len_utf8)..r.span.end);
        }
        let after = s.lower[r.span.end..].trim_start_matches(' ');
        let unit = UNITS.iter().find(|u| {
            after.starts_with(*u)
                && !after[u.len()..].starts_with(|c: char| c.is_ascii_alphabetic())
        });
        if let Some(u) = unit {
            let end = s.raw.len() - after.len() + u.len();
            return Some(r.span.start..end);
        }
        let chinese_context = s.raw[from..limit].chars().any(is_cjk);
        if chinese_context && r.digits.len() >= 3 && !r.glued {
            return Some(r.span.clone());
        }
    }
    // Chinese numerals with a unit: 五万, 两千块, 六千.
    let window = s.raw.get(from..limit)?;
    let mut start = None;
    let mut last = ' ';
    for (i, c) in window.char_indices().chain([(window.len(), ' ')]) {
        if ZH_NUMERALS.contains(c) {
            start.get_or_insert(i);
        } else if let Some(st) = start.take() {
            if "万千元块".contains(c) {
                return Some(from + st..from + i + c.len_utf8());
            }
            if "千百".contains(last) && window[st..i].chars().count() >= 2 {
                return Some(from + st..from + i);
            }
        }
        last = c;
    }
    None
}

/// A house number in `from..limit`: any digit in English ("I live at 12 …"); in Chinese,
/// digits followed by 号, 栋, 幢, 单元, 弄 or 室 (not 2室1厅, a flat's layout).
fn place(s: &Scan, from: usize, limit: usize) -> Option<Range<usize>> {
    let chinese = s.raw[from..limit].chars().any(is_cjk);
    s.runs
        .iter()
        .filter(|r| r.span.start >= from && r.span.start < limit)
        .find_map(|r| {
            if !chinese {
                return Some(r.span.clone());
            }
            zh_house_number(s, r).map(|(span, _)| span)
        })
}

/// A house number right after digits: the span with its marker, and the marker.
pub(super) fn zh_house_number(s: &Scan, r: &Run) -> Option<(Range<usize>, &'static str)> {
    let after = &s.raw[r.span.end..];
    let marker = ["号楼", "号", "栋", "幢", "单元", "弄", "室"]
        .into_iter()
        .find(|m| after.starts_with(m))?;
    let rest = &after[marker.len()..];
    if marker == "室" && (rest.starts_with('厅') || r.digits.len() < 3) {
        return None;
    }
    Some((r.span.start..r.span.end + marker.len(), marker))
}

/// Whether a bare "code" and the digits found after it are a secret: said with a connector
/// right before the digits ("the code is 0412", "the code for my phone is 0412", "code:
/// 4821"), not a kind of code that is public ("zip code is 98101", "status code 200", "hex
/// code of #545B70", "goods code: 8700000000"), nor a name in source text (`status_code ==
/// 200`, `"code": 200`). On LongMemEval_S turns every bare "code" the detector flagged was one
/// of those, a product's name ("WASD Code 104") or a year after a title.
fn a_secret_code(s: &Scan, code: Range<usize>, value: &Range<usize>) -> bool {
    let bytes = s.raw.as_bytes();
    let glued = |b: Option<&u8>| b.is_some_and(|b| matches!(b, b'_' | b'.' | b'"' | b'\'' | b'`'));
    if glued(code.start.checked_sub(1).and_then(|i| bytes.get(i))) || glued(bytes.get(code.end)) {
        return false;
    }
    if preceding_words(&s.lower, code.start, 1)
        .first()
        .is_some_and(|w| in_list(PUBLIC_CODE_KINDS, w))
    {
        return false;
    }
    // What is between, less the spaces and quotes (any non-ASCII byte: “0412”) before the value.
    let mut between = &s.lower.as_bytes()[code.end..value.start.max(code.end)];
    while let [rest @ .., last] = between {
        match last.is_ascii_whitespace() || matches!(last, b'"' | b'\'') || !last.is_ascii() {
            true => between = rest,
            false => break,
        }
    }
    [&b" is"[..], b" was", b":"]
        .iter()
        .any(|c| between.ends_with(c))
        || (between.ends_with(b"=") && !between.ends_with(b"=="))
}
