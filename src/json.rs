//! JSON text → Rust values through one reader type.
//!
//! serde_json compiles a type's deserializer once for each reader type it is read with
//! (`from_str` and `from_slice` are two). Every parse of text in the core and the bindings
//! goes through [`parse`], the slice reader the store snapshot and the retrieval body are
//! read with anyway, so each type is compiled once (the npm wasm has a size budget). The
//! answers, and the error messages, are serde_json's `from_str`'s.

use serde::de::DeserializeOwned;

/// `serde_json::from_str`, through the slice reader.
pub fn parse<T: DeserializeOwned>(text: &str) -> serde_json::Result<T> {
    serde_json::from_slice(text.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    #[test]
    fn parses_and_fails_as_from_str_does() {
        for text in [
            r#"{"a": [1, 2.5, "x\u00e9\ud83d\ude00"], "b": null}"#,
            "",
            "{",
            r#"{"a": 1,}"#,
            "[1, 2]\n  x",
            r#""\ud800""#,
        ] {
            let want = serde_json::from_str::<Value>(text).map_err(|e| e.to_string());
            assert_eq!(
                parse::<Value>(text).map_err(|e| e.to_string()),
                want,
                "{text:?}"
            );
        }
    }
}
