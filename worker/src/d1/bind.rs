//! Values bound to D1 statements, and D1 errors as port errors.
//!
//! D1 facts that shape this: at most 100 bound parameters per statement (callers chunk with
//! [`MAX_PARAMS`]), no named parameters, and a BLOB must be bound as a `Uint8Array`.

use hippo::error::PortError;
use serde::Serialize;
use wasm_bindgen::JsValue;
use worker::{D1Database, D1PreparedStatement};

/// D1's limit of bound parameters per statement.
pub const MAX_PARAMS: usize = 100;

pub fn text(s: &str) -> JsValue {
    JsValue::from_str(s)
}

pub fn int(i: i64) -> JsValue {
    JsValue::from_f64(i as f64)
}

pub fn uint(u: u64) -> JsValue {
    JsValue::from_f64(u as f64)
}

pub fn real(f: f64) -> JsValue {
    JsValue::from_f64(f)
}

pub fn flag(b: bool) -> JsValue {
    int(b as i64)
}

pub fn opt_text(s: Option<&str>) -> JsValue {
    s.map_or(JsValue::NULL, text)
}

pub fn opt_int(i: Option<i64>) -> JsValue {
    i.map_or(JsValue::NULL, int)
}

#[allow(
    clippy::expect_used,
    reason = "bound values are plain data (lists of strings, settings): they always serialize"
)]
pub fn json<T: Serialize + ?Sized>(value: &T) -> JsValue {
    text(&serde_json::to_string(value).expect("plain data serializes"))
}

pub fn bytes(b: &[u8]) -> JsValue {
    js_sys::Uint8Array::from(b).into()
}

/// `?2, ?3, …` for `n` parameters starting at `first`.
pub fn placeholders(first: usize, n: usize) -> String {
    (first..first + n)
        .map(|i| format!("?{i}"))
        .collect::<Vec<_>>()
        .join(", ")
}

pub fn statement(
    db: &D1Database,
    sql: &str,
    params: &[JsValue],
) -> Result<D1PreparedStatement, PortError> {
    debug_assert!(params.len() <= MAX_PARAMS, "too many parameters: {sql}");
    db.prepare(sql).bind(params).map_err(backend)
}

/// Runs statements in one round trip (and one transaction); the first failing statement's
/// error is the batch's.
pub async fn batch(
    db: &D1Database,
    statements: Vec<D1PreparedStatement>,
) -> Result<Vec<worker::D1Result>, PortError> {
    let results = db.batch(statements).await.map_err(backend)?;
    if let Some(err) = results.iter().find_map(|r| r.error()) {
        return Err(classify(&err));
    }
    Ok(results)
}

/// A D1 failure as a port error. A broken precondition of a write batch (see the
/// `commit_guard` table) or a unique key taken by a concurrent writer is a conflict: the
/// caller may re-read and retry. Everything else is a backend failure.
pub fn backend(err: worker::Error) -> PortError {
    let message = match &err {
        // SQLite's own message, without workers-rs' debug dump of the JS error and its stack.
        worker::Error::D1(e) => e.cause(),
        other => other.to_string(),
    };
    classify(&message)
}

pub fn classify(message: &str) -> PortError {
    if message.contains("version_conflict") || message.contains("UNIQUE constraint failed") {
        PortError::Conflict(message.to_string())
    } else if message.contains("npc_missing") {
        PortError::Backend("the NPC does not exist".into())
    } else {
        PortError::Backend(format!("D1: {message}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_are_numbered_from_first() {
        assert_eq!(placeholders(2, 3), "?2, ?3, ?4");
        assert_eq!(placeholders(1, 0), "");
    }

    #[test]
    fn guard_failures_are_conflicts_or_missing_npcs() {
        assert!(matches!(
            classify("D1_ERROR: CHECK constraint failed: version_conflict: SQLITE_CONSTRAINT"),
            PortError::Conflict(_)
        ));
        assert!(matches!(
            classify("UNIQUE constraint failed: turns.npcid, turns.seq"),
            PortError::Conflict(_)
        ));
        assert_eq!(
            classify("CHECK constraint failed: npc_missing"),
            PortError::Backend("the NPC does not exist".into())
        );
        assert!(
            matches!(classify("no such table: x"), PortError::Backend(m) if m.starts_with("D1: "))
        );
    }
}
