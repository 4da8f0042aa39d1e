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
        Value::String(s) => s.trim().parse::<f64>().ok().map(floored),
        _ => None,
    })
}

pub fn text<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    Ok(match Value::deserialize(d)? {
        Value::String(s) => Some(s),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    })
}
