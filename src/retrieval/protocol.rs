//! memory_retrieval semantics (SPEC §3.4, seeds/memory-retrieval-protocol.zh.txt) as pure
//! functions: parse a request body, render ranked memories as the response body.
//!
//! Parsing is lenient where a live platform's model might be sloppy and strict only where an
//! answer is impossible:
//! - unknown fields are ignored; `live_id` and `reason` are kept for logging, never ranked;
//! - `query` must be a string that is non-empty after trimming, else [`Error::InvalidInput`];
//! - `max_results`: an integer (or a float, floored; or a numeric string) is clamped to
//!   1..=10; anything else (missing, null, a word, a bool) means the default 5. A conversation
//!   is never interrupted with a 400 over a result count;
//! - `memory_types`: a list of names (or one comma-separated string); unknown names ignored;
//! - `time_hint`: a string, else ignored;
//! - a body over [`MAX_REQUEST_BYTES`] is [`Error::TooLarge`]; a body that is not a JSON
//!   object is [`Error::InvalidInput`].
//!
//! Rendering: `summary` at most [`MAX_SUMMARY_CHARS`] characters (cut on a character boundary,
//! ending in "…"); the whole serialized body at most [`MAX_BODY_BYTES`] by dropping the
//! lowest-ranked items (JSON is never cut); `updated_at` RFC 3339; `confidence` is the memory's
//! trust clamped to 0..1, never the score; nothing found → `{"memories": []}`.

use super::rank::Ranked;
pub use super::voice::Voice;
use crate::api::{
    RetrievalRequest, RetrievalResponse, RetrievedMemory, SearchHit, SearchResponse, SourceTurn,
};
use crate::error::{Error, Result};
use crate::memory::MemoryType;
use serde_json::Value;

pub const DEFAULT_MAX_RESULTS: usize = 5;
pub const MAX_RESULTS_LIMIT: usize = 10;
pub const MAX_SUMMARY_CHARS: usize = 500;
pub const MAX_BODY_BYTES: usize = 16 * 1024;
pub const MAX_REQUEST_BYTES: usize = 64 * 1024;

/// A memory_retrieval request, validated.
#[derive(Debug, Clone, PartialEq)]
pub struct ParsedRetrieval {
    /// Trimmed, non-empty.
    pub query: String,
    /// Known types only; empty = all.
    pub memory_types: Vec<MemoryType>,
    pub time_hint: Option<String>,
    /// 1..=10.
    pub max_results: usize,
    /// For logs only.
    pub reason: Option<String>,
    /// For logs only (the token decides the scope, never the body).
    pub live_id: Option<String>,
}

/// Parses a raw request body.
pub fn parse_retrieval_request(body: &[u8]) -> Result<ParsedRetrieval> {
    if body.len() > MAX_REQUEST_BYTES {
        return Err(Error::TooLarge(format!(
            "request body is over {MAX_REQUEST_BYTES} bytes"
        )));
    }
    let value: Value = serde_json::from_slice(body)
        .map_err(|e| Error::invalid(format!("request body is not valid JSON: {e}")))?;
    let Value::Object(fields) = value else {
        return Err(Error::invalid("request body must be a JSON object"));
    };
    let query = match fields.get("query") {
        Some(Value::String(q)) => q.clone(),
        Some(_) => return Err(Error::invalid("query must be a string")),
        None => String::new(),
    };
    let text = |name: &str| match fields.get(name) {
        Some(Value::String(s)) => Some(s.clone()),
        Some(Value::Number(n)) => Some(n.to_string()),
        _ => None,
    };
    let memory_types = match fields.get("memory_types") {
        Some(Value::Array(items)) => items
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect(),
        Some(Value::String(s)) => s.split(',').map(str::to_string).collect(),
        _ => Vec::new(),
    };
    build(
        query,
        &memory_types,
        text("time_hint"),
        clamp_max_results(fields.get("max_results")),
        text("reason"),
        text("live_id"),
    )
}

impl ParsedRetrieval {
    /// Validates an already deserialized request (the engine's entry point).
    pub fn from_request(req: &RetrievalRequest) -> Result<Self> {
        let live_id = req.live_id.as_ref().and_then(|v| match v {
            Value::String(s) => Some(s.clone()),
            Value::Number(n) => Some(n.to_string()),
            _ => None,
        });
        build(
            req.query.clone().unwrap_or_default(),
            req.memory_types.as_deref().unwrap_or_default(),
            req.time_hint.clone(),
            clamp_max_results(req.max_results.as_ref()),
            req.reason.clone(),
            live_id,
        )
    }
}

fn build(
    query: String,
    memory_types: &[String],
    time_hint: Option<String>,
    max_results: usize,
    reason: Option<String>,
    live_id: Option<String>,
) -> Result<ParsedRetrieval> {
    let query = query.trim().to_string();
    if query.is_empty() {
        return Err(Error::invalid("query is required and must not be empty"));
    }
    let mut types = Vec::new();
    for t in memory_types
        .iter()
        .filter_map(|name| MemoryType::parse(name))
    {
        if !types.contains(&t) {
            types.push(t);
        }
    }
    Ok(ParsedRetrieval {
        query,
        memory_types: types,
        time_hint: time_hint
            .map(|h| h.trim().to_string())
            .filter(|h| !h.is_empty()),
        max_results,
        reason,
        live_id,
    })
}

/// `max_results` as sent (any JSON) → 1..=10, default 5 (see the module docs).
pub fn clamp_max_results(value: Option<&Value>) -> usize {
    let n = match value {
        Some(Value::Number(n)) => n.as_i64().or_else(|| n.as_f64().map(|f| f.floor() as i64)),
        Some(Value::String(s)) => s.trim().parse::<f64>().ok().map(|f| f.floor() as i64),
        _ => None,
    };
    n.map_or(DEFAULT_MAX_RESULTS, clamp_count)
}

/// A requested count clamped to 1..=10.
pub fn clamp_count(n: i64) -> usize {
    n.clamp(1, MAX_RESULTS_LIMIT as i64) as usize
}

/// At most [`MAX_SUMMARY_CHARS`] characters, "…" marking a cut.
pub fn truncate_summary(summary: &str) -> String {
    if summary.chars().count() <= MAX_SUMMARY_CHARS {
        return summary.to_string();
    }
    let mut cut: String = summary.chars().take(MAX_SUMMARY_CHARS - 1).collect();
    cut.push('…');
    cut
}

fn trust(confidence: f64) -> f64 {
    if confidence.is_finite() {
        confidence.clamp(0.0, 1.0)
    } else {
        0.0
    }
}

/// The memory_retrieval response body for ranked memories (best first); verbatim items are
/// voiced for the character ([`Voice`]).
pub fn render_retrieval(ranked: &[Ranked], voice: &Voice) -> RetrievalResponse {
    let items = ranked.iter().map(|r| {
        let c = &r.candidate;
        let text = voice.render(c);
        RetrievedMemory {
            id: for_character(&c.id),
            summary: truncate_summary(&for_character(text.as_deref().unwrap_or(&c.summary))),
            memory_type: c.memory_type.as_str().to_string(),
            confidence: trust(c.confidence),
            updated_at: c.updated_at.to_rfc3339(),
            source: for_character(&c.source),
        }
    });
    RetrievalResponse {
        memories: within_body_limit(items, r#"{"memories":[]}"#.len()),
    }
}

/// Text as memory_retrieval hands it to a live character: without the explicit bidi
/// formatting characters (embeddings, overrides, isolates: U+202A-U+202E, U+2066-U+2069),
/// which can make text read differently from what it says ("Trojan Source"), and without
/// control characters other than newline and tab. Stored text keeps them (exports and the
/// admin search show it as written); the implicit marks (LRM, RLM, ALM) stay, they reorder
/// nothing on their own.
pub fn for_character(text: &str) -> String {
    text.chars()
        .filter(|&c| {
            !matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
                && (!c.is_control() || c == '\n' || c == '\t')
        })
        .collect()
}

/// The search route's response: the same items with their score (and signals in debug mode),
/// and with `sources` (one list per item, asked with `include_sources`), which count toward
/// the body limit like the rest of the item.
pub fn render_search(ranked: &[Ranked], sources: Option<Vec<Vec<SourceTurn>>>) -> SearchResponse {
    let mut sources = sources.map(Vec::into_iter);
    let items = ranked.iter().map(|r| {
        let c = &r.candidate;
        SearchHit {
            id: c.id.clone(),
            summary: truncate_summary(&c.summary),
            memory_type: c.memory_type.as_str().to_string(),
            confidence: trust(c.confidence),
            updated_at: c.updated_at.to_rfc3339(),
            source: c.source.clone(),
            score: r.score,
            sensitive: c.sensitive,
            sensitive_category: c.sensitive_category,
            signals: r.signals.clone(),
            sources: sources.as_mut().map(|all| all.next().unwrap_or_default()),
        }
    });
    SearchResponse {
        memories: within_body_limit(items, r#"{"memories":[]}"#.len()),
    }
}

/// The longest prefix of `items` whose JSON array, inside an envelope of `envelope` bytes,
/// stays within [`MAX_BODY_BYTES`].
fn within_body_limit<T: serde::Serialize>(
    items: impl Iterator<Item = T>,
    envelope: usize,
) -> Vec<T> {
    let mut size = envelope;
    let mut kept = Vec::new();
    for item in items {
        let len = serde_json::to_vec(&item).map_or(usize::MAX, |b| b.len());
        let separator = usize::from(!kept.is_empty());
        if size.saturating_add(len + separator) > MAX_BODY_BYTES {
            break;
        }
        size += len + separator;
        kept.push(item);
    }
    kept
}

#[cfg(test)]
#[path = "protocol_tests.rs"]
mod tests;
