//! Tokens: API keys and tokens by their well-known prefixes, private key blocks, e-mail.

use super::*;

/// API keys by prefix, private key blocks, e-mail addresses.
pub(super) fn tokens(s: &Scan, out: &mut Vec<Finding>) {
    if let Some(at) = s.raw.find("-----BEGIN") {
        if s.raw[at..].contains("PRIVATE KEY") {
            let end = s.raw[at..].find("-----END").map_or(s.raw.len(), |e| at + e);
            out.push(Finding {
                category: Category::Credentials,
                span: at..end,
                value: Some(at..end),
            });
        }
    }
    // The shortest key is a prefix and ten more characters.
    for t in ascii_tokens(s.raw, 0, s.raw.len()).filter(|t| t.len() >= 14) {
        let token = &s.raw[t.clone()];
        let key = TOKEN_PREFIXES.iter().any(|(prefix, rest)| {
            token.starts_with(prefix)
                && token[prefix.len()..]
                    .bytes()
                    .filter(|b| b.is_ascii_alphanumeric() || *b == b'_' || *b == b'-')
                    .count()
                    >= *rest
        });
        if key {
            out.push(Finding {
                category: Category::Credentials,
                span: t.clone(),
                value: Some(t),
            });
        }
    }
    for (at, _) in s.raw.match_indices('@') {
        if let Some(email) = email_around(s.raw, at) {
            out.push(Finding {
                category: Category::Contact,
                span: email.clone(),
                value: Some(email),
            });
        }
    }
}

fn email_around(raw: &str, at: usize) -> Option<Range<usize>> {
    let local = |b: u8| b.is_ascii_alphanumeric() || b"._%+-".contains(&b);
    let domain = |b: u8| b.is_ascii_alphanumeric() || b".-".contains(&b);
    let bytes = raw.as_bytes();
    let mut start = at;
    while start > 0 && local(bytes[start - 1]) {
        start -= 1;
    }
    let mut end = at + 1;
    while end < bytes.len() && domain(bytes[end]) {
        end += 1;
    }
    let host = raw[at + 1..end].trim_end_matches('.');
    let end = at + 1 + host.len();
    let tld = host.rsplit('.').next().unwrap_or("");
    (start < at
        && host.contains('.')
        && tld.len() >= 2
        && tld.bytes().all(|b| b.is_ascii_alphabetic()))
    .then_some(start..end)
}
