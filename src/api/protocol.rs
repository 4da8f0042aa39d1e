//! memory_retrieval semantics (SPEC §3.4, seeds/memory-retrieval-protocol.zh.txt) as pure
//! functions: parse a request body, render ranked memories as the response body.
//!
//! Parsing: the body is read as [`RetrievalRequest`], whose fields follow the lenient rules
//! of `api::lenient` (shared with the search route); unknown fields are ignored. Then
//! [`ParsedRetrieval::from_request`] validates it: `query` non-empty after trimming, else
//! [`Error::InvalidInput`]; `max_results` clamped to 1..=10 (default 5: a conversation is never
//! interrupted with a 400 over a result count); unknown memory types dropped. A body over
//! [`MAX_REQUEST_BYTES`] is [`Error::TooLarge`] (the Worker refuses it while it streams in,
//! with the same error); a body that is not a JSON object is [`Error::InvalidInput`].
//!
//! Rendering: `summary` at most [`MAX_SUMMARY_CHARS`] characters (cut on a character boundary,
//! ending in "…"); the whole serialized body at most [`MAX_BODY_BYTES`] by dropping the
//! lowest-ranked items (JSON is never cut); `updated_at` RFC 3339; `confidence` is the memory's
//! trust clamped to 0..1, never the score; nothing found → `{"memories": []}`.

use crate::api::{
    RetrievalRequest, RetrievalResponse, RetrievedMemory, SearchHit, SearchResponse, SourceTurn,
};
use crate::error::{Error, Result};
use crate::memory::MemoryType;
use crate::retrieval::rank::Ranked;
pub use crate::retrieval::voice::Voice;
use crate::text::for_character;

pub const DEFAULT_MAX_RESULTS: usize = 5;
pub const MAX_RESULTS_LIMIT: usize = 10;
pub const MAX_SUMMARY_CHARS: usize = 500;
pub const MAX_BODY_BYTES: usize = 16 * 1024;
/// The body limit of memory_retrieval (SPEC §3.1: 16 KiB), for every runtime: the Worker
/// reads at most this much, the npm package and MCP `recall` refuse a longer request alike.
pub const MAX_REQUEST_BYTES: usize = 16 * 1024;

/// A memory_retrieval request, validated: what the engine runs.
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

/// Parses a raw request body (the one parse of every runtime: `api::Operation::parse`).
pub fn parse_retrieval_request(body: &[u8]) -> Result<ParsedRetrieval> {
    if body.len() > MAX_REQUEST_BYTES {
        return Err(body_too_large(MAX_REQUEST_BYTES));
    }
    // Read as a JSON value first, only for its depth limit: hostile nesting is a 400 even
    // inside a field the request then ignores (serde skips those without a limit). Reading
    // the request from this value instead would cost the npm wasm a second deserializer.
    crate::api::parse_body::<serde_json::Value>(body)?;
    ParsedRetrieval::from_request(crate::api::parse_body(body)?)
}

/// The error of a body over `limit` bytes, in the Worker's words too.
pub fn body_too_large(limit: usize) -> Error {
    Error::TooLarge(format!("request body is larger than {} KiB", limit / 1024))
}

impl ParsedRetrieval {
    /// Validates a request as sent.
    pub fn from_request(req: RetrievalRequest) -> Result<Self> {
        let query = req.query.trim().to_string();
        if query.is_empty() {
            return Err(Error::invalid("query is required and must not be empty"));
        }
        Ok(ParsedRetrieval {
            query,
            memory_types: memory_types(req.memory_types.as_deref()),
            time_hint: req
                .time_hint
                .map(|h| h.trim().to_string())
                .filter(|h| !h.is_empty()),
            max_results: req
                .max_results
                .map_or(DEFAULT_MAX_RESULTS, |n| clamp_count(n, MAX_RESULTS_LIMIT)),
            reason: req.reason,
            live_id: req.live_id,
        })
    }
}

/// The known types among `names`, each once, in type order (empty = all). Unknown names are
/// ignored (SPEC §2.4).
pub fn memory_types(names: Option<&[String]>) -> Vec<MemoryType> {
    let wanted: Vec<MemoryType> = names
        .unwrap_or_default()
        .iter()
        .filter_map(|n| MemoryType::parse(n))
        .collect();
    // No sort: its code would be one more copy in the wasm builds.
    MemoryType::ALL
        .into_iter()
        .filter(|t| wanted.contains(t))
        .collect()
}

/// A requested count clamped to 1..=`max`.
pub fn clamp_count(n: i64, max: usize) -> usize {
    n.clamp(1, i64::try_from(max).unwrap_or(i64::MAX)) as usize
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
        let after = size.saturating_add(len).saturating_add(separator);
        if after > MAX_BODY_BYTES {
            break;
        }
        size = after;
        kept.push(item);
    }
    kept
}

#[cfg(test)]
#[path = "protocol_tests.rs"]
mod tests;
