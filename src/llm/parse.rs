//! Strict parsing and validation of LLM output.
//!
//! Accepted: one JSON object, bare, inside a Markdown fence, or with prose around it.
//! Rejected (as `Err` with the reason): output over [`MAX_RESPONSE_BYTES`], no object, invalid
//! JSON, a field of the wrong type, an unknown memory type or op, an update/delete of an
//! entity id we do not know, too many items, empty or oversized strings, numbers outside 0..1,
//! and a `sensitive` that is neither false nor a known category. Out-of-range importance or
//! confidence is rejected, not clamped: a model answering on another scale (say 0..10) would
//! otherwise turn every memory into a 1.0. Missing importance
//! or confidence take defaults. One bad item rejects the whole document: garbage never
//! becomes a write.

use crate::dream::extract::{ExtractedMemory, Extraction};
use crate::memory::conflict::Verdict;
use crate::memory::MemoryType;
use crate::pkg::PkgUpdate;
use crate::relationship::{EntityOp, OpKind};
use crate::sensitive::Category;
use crate::text::cut_chars;
use crate::time::Timestamp;
use serde_json::{Map, Value};

/// Longest LLM response we read.
pub const MAX_RESPONSE_BYTES: usize = 64 * 1024;
/// Most items of each list in an extraction.
pub const MAX_ITEMS: usize = 50;
// Longest memory summary an LLM may return, in characters: the memory_retrieval limit.
use crate::api::protocol::MAX_SUMMARY_CHARS;
/// Longest name, key, keyword, title or alias, in characters.
pub const MAX_SHORT_CHARS: usize = 128;
pub const DEFAULT_IMPORTANCE: f64 = 0.5;
pub const DEFAULT_CONFIDENCE: f64 = 0.7;

/// The one JSON object in an LLM response.
pub fn json_object(text: &str) -> Result<Map<String, Value>, String> {
    if text.len() > MAX_RESPONSE_BYTES {
        return Err(format!(
            "LLM output is {} bytes, over the {MAX_RESPONSE_BYTES}-byte cap",
            text.len()
        ));
    }
    let text = text.trim().trim_start_matches('\u{feff}');
    let inner = unfence(text);
    let start = inner.find('{').ok_or("LLM output holds no JSON object")?;
    let end = object_end(&inner[start..]).ok_or("LLM output has an unterminated JSON object")?;
    match crate::json::parse::<Value>(&inner[start..start + end]) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(_) => Err("LLM output is not a JSON object".into()),
        Err(e) => Err(format!("LLM output is not valid JSON: {e}")),
    }
}

/// The body of the first Markdown code fence, or the text itself.
fn unfence(text: &str) -> &str {
    let Some(open) = text.find("```") else {
        return text;
    };
    let after = &text[open + 3..];
    // Skip the language tag line ("```json").
    let body = after.find('\n').map_or(after, |nl| &after[nl + 1..]);
    body.find("```").map_or(body, |close| &body[..close])
}

/// Byte length of the JSON object at the start of `text` (which begins with `{`), matching
/// braces outside strings.
fn object_end(text: &str) -> Option<usize> {
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    for (i, c) in text.char_indices() {
        if in_string {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => in_string = true,
            '{' => depth += 1,
            '}' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            _ => {}
        }
    }
    None
}

/// The `diary` text, cut to `max_chars` at the last sentence end that fits.
pub fn parse_diary(text: &str, max_chars: usize) -> Result<String, String> {
    bounded_text(text, "diary", max_chars)
}

/// The merged `prior`, cut to `max_chars` at the last sentence end that fits.
pub fn parse_prior(text: &str, max_chars: usize) -> Result<String, String> {
    bounded_text(text, "prior", max_chars)
}

fn bounded_text(text: &str, key: &str, max_chars: usize) -> Result<String, String> {
    let map = json_object(text)?;
    let value = match map.get(key) {
        Some(Value::String(s)) => s.trim(),
        Some(other) => return Err(format!("LLM `{key}` is {}, not a string", kind(other))),
        None => return Err(format!("LLM output has no `{key}`")),
    };
    if value.is_empty() {
        return Err(format!("LLM `{key}` is empty"));
    }
    if value.chars().count() <= max_chars {
        return Ok(value.to_string());
    }
    let cut = cut_chars(value, max_chars);
    let at_sentence = cut
        .rfind(['。', '！', '？', '.', '!', '?', '\n'])
        .map(|i| &cut[..i + cut[i..].chars().next().map_or(1, char::len_utf8)])
        .filter(|s| s.chars().count() * 2 >= max_chars);
    Ok(at_sentence.unwrap_or(cut).trim().to_string())
}

pub fn parse_verdict(text: &str) -> Result<Verdict, String> {
    let word = match json_object(text) {
        Ok(map) => match map.get("verdict") {
            Some(Value::String(s)) => s.clone(),
            Some(other) => return Err(format!("LLM `verdict` is {}, not a string", kind(other))),
            None => return Err("LLM output has no `verdict`".into()),
        },
        // A bare word is a fair answer to a one-word question.
        Err(_) if text.len() <= 40 => text.to_string(),
        Err(e) => return Err(e),
    };
    Verdict::parse(&word)
        .ok_or_else(|| format!("LLM verdict {word:?} is not DUPLICATE, SUPERSEDES or DISTINCT"))
}

/// An extraction document. `known_entity_ids` are the NPC's entity ids: updates and deletes
/// may name only those.
pub fn parse_extraction(text: &str, known_entity_ids: &[String]) -> Result<Extraction, String> {
    let map = json_object(text)?;
    let mut out = Extraction::default();
    for (i, item) in list(&map, "entity_ops")?.iter().enumerate() {
        out.entity_ops
            .push(entity_op(item, known_entity_ids).map_err(|e| format!("entity_ops[{i}]: {e}"))?);
    }
    for (i, item) in list(&map, "pkg_updates")?.iter().enumerate() {
        out.pkg_updates
            .push(pkg_update(item).map_err(|e| format!("pkg_updates[{i}]: {e}"))?);
    }
    for (i, item) in list(&map, "memories")?.iter().enumerate() {
        out.memories
            .push(memory(item).map_err(|e| format!("memories[{i}]: {e}"))?);
    }
    Ok(out)
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// A list field: missing or null is empty; anything but an array is an error.
fn list<'a>(map: &'a Map<String, Value>, key: &str) -> Result<&'a [Value], String> {
    match map.get(key) {
        None | Some(Value::Null) => Ok(&[]),
        Some(Value::Array(items)) if items.len() > MAX_ITEMS => Err(format!(
            "`{key}` has {} items, over the cap of {MAX_ITEMS}",
            items.len()
        )),
        Some(Value::Array(items)) => Ok(items),
        Some(other) => Err(format!("`{key}` is {}, not an array", kind(other))),
    }
}

fn object(v: &Value) -> Result<&Map<String, Value>, String> {
    v.as_object()
        .ok_or_else(|| format!("is {}, not an object", kind(v)))
}

/// An optional string field, trimmed, at most `max` characters; empty counts as absent.
fn opt_string(map: &Map<String, Value>, key: &str, max: usize) -> Result<Option<String>, String> {
    match map.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if s.chars().count() > max => {
            Err(format!("`{key}` is over {max} characters"))
        }
        Some(Value::String(s)) => Ok(Some(s.trim().to_string()).filter(|s| !s.is_empty())),
        Some(other) => Err(format!("`{key}` is {}, not a string", kind(other))),
    }
}

fn required_string(map: &Map<String, Value>, key: &str, max: usize) -> Result<String, String> {
    opt_string(map, key, max)?.ok_or_else(|| format!("`{key}` is missing or empty"))
}

/// An optional list of short strings.
fn string_list(map: &Map<String, Value>, key: &str) -> Result<Option<Vec<String>>, String> {
    match map.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Array(items)) if items.len() > MAX_ITEMS => {
            Err(format!("`{key}` has too many items"))
        }
        Some(Value::Array(items)) => items
            .iter()
            .map(|v| match v {
                Value::String(s) if s.chars().count() <= MAX_SHORT_CHARS => {
                    Ok(s.trim().to_string())
                }
                Value::String(_) => Err(format!(
                    "an item of `{key}` is over {MAX_SHORT_CHARS} characters"
                )),
                other => Err(format!(
                    "an item of `{key}` is {}, not a string",
                    kind(other)
                )),
            })
            .filter(|r| r.as_ref().map_or(true, |s| !s.is_empty()))
            .collect::<Result<Vec<_>, _>>()
            .map(Some),
        Some(other) => Err(format!("`{key}` is {}, not an array", kind(other))),
    }
}

/// A number in 0..1, or the default when missing.
fn unit(map: &Map<String, Value>, key: &str, default: f64) -> Result<f64, String> {
    match map.get(key) {
        None | Some(Value::Null) => Ok(default),
        Some(Value::Number(n)) => match n.as_f64() {
            Some(x) if (0.0..=1.0).contains(&x) => Ok(x),
            _ => Err(format!("`{key}` is {n}, outside 0..1")),
        },
        Some(other) => Err(format!("`{key}` is {}, not a number", kind(other))),
    }
}

fn entity_op(v: &Value, known: &[String]) -> Result<EntityOp, String> {
    let map = object(v)?;
    let op = match required_string(map, "op", 16)?
        .to_ascii_lowercase()
        .as_str()
    {
        "add" => OpKind::Add,
        "update" => OpKind::Update,
        "delete" => OpKind::Delete,
        other => return Err(format!("unknown op {other:?}")),
    };
    let id = opt_string(map, "id", 64)?;
    let name = opt_string(map, "name", MAX_SHORT_CHARS)?;
    match (&op, &id) {
        (OpKind::Add, Some(id)) => {
            return Err(format!(
                "an add carries the id {id:?}; ids are ours to assign"
            ))
        }
        (OpKind::Add, None) if name.is_none() => return Err("an add has no name".into()),
        (_, Some(id)) if !known.contains(id) => return Err(format!("unknown entity id {id:?}")),
        (_, None) if name.is_none() => {
            return Err("an update or delete names no entity (no id, no name)".into())
        }
        _ => {}
    }
    Ok(EntityOp {
        op,
        id,
        name,
        alias: string_list(map, "alias")?,
        title: string_list(map, "title")?,
        remark: opt_string(map, "remark", 1024)?,
    })
}

fn pkg_update(v: &Value) -> Result<PkgUpdate, String> {
    let map = object(v)?;
    let key = required_string(map, "key", MAX_SHORT_CHARS)?;
    let value = match map.get("value") {
        Some(Value::String(s)) if s.chars().count() > crate::pkg::MAX_TEXT_CHARS => {
            return Err(format!(
                "`value` is over {} characters",
                crate::pkg::MAX_TEXT_CHARS
            ))
        }
        Some(Value::String(s)) => Value::String(s.trim().to_string()),
        Some(Value::Array(_)) => Value::Array(
            string_list(map, "value")?
                .unwrap_or_default()
                .into_iter()
                .map(Value::String)
                .collect(),
        ),
        Some(other) => {
            return Err(format!(
                "`value` is {}, not a string or an array of strings",
                kind(other)
            ))
        }
        None => return Err("`value` is missing".into()),
    };
    Ok(PkgUpdate { key, value })
}

fn memory(v: &Value) -> Result<ExtractedMemory, String> {
    let map = object(v)?;
    let summary = required_string(map, "summary", MAX_SUMMARY_CHARS)?;
    let type_name = required_string(map, "type", 32)?;
    let memory_type = MemoryType::parse(&type_name)
        .ok_or_else(|| format!("unknown memory type {type_name:?}"))?;
    let event_time = match opt_string(map, "event_time", 64)? {
        None => None,
        Some(t) => {
            Some(Timestamp::parse(&t).ok_or_else(|| format!("`event_time` {t:?} is not a date"))?)
        }
    };
    let sensitive = sensitivity(map)?;
    Ok(ExtractedMemory {
        summary,
        memory_type,
        keywords: string_list(map, "keywords")?.unwrap_or_default(),
        importance: unit(map, "importance", DEFAULT_IMPORTANCE)?,
        confidence: unit(map, "confidence", DEFAULT_CONFIDENCE)?,
        event_time,
        sensitive: sensitive.is_some(),
        sensitive_category: sensitive,
        pinned: false,
    })
}

/// `sensitive`: `false`, null or missing (not sensitive), a category name, or `true`
/// (sensitive for a reason not named: `other`). Anything else rejects the document, as an
/// unknown memory type does.
fn sensitivity(map: &Map<String, Value>) -> Result<Option<Category>, String> {
    match map.get("sensitive") {
        None | Some(Value::Null) | Some(Value::Bool(false)) => Ok(None),
        Some(Value::Bool(true)) => Ok(Some(Category::Other)),
        Some(Value::String(name)) => Category::parse(name).map(Some).ok_or_else(|| {
            format!(
                "`sensitive` {name:?} is not false or one of {}",
                Category::NAMES
            )
        }),
        Some(other) => Err(format!(
            "`sensitive` is {}, not false or a category",
            kind(other)
        )),
    }
}

#[cfg(test)]
mod tests;
