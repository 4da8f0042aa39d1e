//! How the two read routes (memory_retrieval and search) read their fields: leniently where
//! a live platform's model may be sloppy, strictly only where no answer is possible. One rule
//! per field name, shared by [`super::RetrievalRequest`] and [`super::SearchRequest`], and so
//! by every runtime (the Worker, the npm package and MCP parse the same types).
//!
//! - `query`: a string, else a 400 (its emptiness is checked by the validated form);
//! - `memory_types`: a list of names or one comma-separated string; items that are not
//!   strings, and any other JSON, are ignored;
//! - `max_results`: an integer, a float (floored) or a numeric string; anything else
//!   (null, a word, a bool) means the route's default. Each route clamps it;
//! - `time_hint`, `reason`, `live_id`: a string (or a number, as its text), else ignored.

use serde::de::{Deserializer, Error as _};
use serde::Deserialize;
use serde_json::Value;

pub fn query<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    match Value::deserialize(d)? {
        Value::String(s) => Ok(s),
        _ => Err(D::Error::custom("query must be a string")),
    }
}

pub fn names<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<String>>, D::Error> {
    Ok(match Value::deserialize(d)? {
        Value::Array(items) => Some(
            items
                .into_iter()
                .filter_map(|item| match item {
                    Value::String(s) => Some(s),
                    _ => None,
                })
                .collect(),
        ),
        Value::String(s) => Some(s.split(',').map(str::to_string).collect()),
        _ => None,
    })
}

pub fn count<'de, D: Deserializer<'de>>(d: D) -> Result<Option<i64>, D::Error> {
    let floored = |f: f64| f.floor() as i64;
    Ok(match Value::deserialize(d)? {
        Value::Number(n) => n.as_i64().or_else(|| n.as_f64().map(floored)),
        Value::String(s) => floor_decimal(s.trim()),
        _ => None,
    })
}

/// The floor of a decimal string ("12", "12.7", "-2.5", ".5"), by the integer parser: std's
/// float parser was 5 KB of the package's wasm for this one use. Exponents are not read.
fn floor_decimal(s: &str) -> Option<i64> {
    let (whole, fraction) = s.split_once('.').unwrap_or((s, ""));
    let digits = |t: &str| t.bytes().all(|b| b.is_ascii_digit());
    let (negative, magnitude) = match whole.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, whole.strip_prefix('+').unwrap_or(whole)),
    };
    if !digits(magnitude) || !digits(fraction) || magnitude.is_empty() && fraction.is_empty() {
        return None;
    }
    let n: i64 = if magnitude.is_empty() {
        0
    } else {
        whole.parse().ok()?
    };
    if negative && fraction.bytes().any(|b| b != b'0') {
        n.checked_sub(1)
    } else {
        Some(n)
    }
}

pub fn text<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    Ok(match Value::deserialize(d)? {
        Value::String(s) => Some(s),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::floor_decimal;

    #[test]
    fn floors_decimal_strings_as_the_float_parser_did() {
        for text in [
            "0",
            "12",
            "+12",
            "-12",
            "12.7",
            "12.",
            ".5",
            "-.5",
            "-2.5",
            "-2.0",
            "-0.5",
            "0.000",
            "9223372036854775807",
            "-9223372036854775808",
            "7.999999999999",
        ] {
            let by_float = text.parse::<f64>().ok().map(|f| f.floor() as i64);
            assert_eq!(floor_decimal(text), by_float, "{text:?}");
        }
        for text in [
            "", ".", "-", "+", "-.", "abc", "1.2.3", "1,5", "--1", "1e3", "inf", "NaN", " 1",
        ] {
            assert_eq!(floor_decimal(text), None, "{text:?}");
        }
    }
}
