//! Request bodies and query strings: size limits on the raw bytes, then JSON parsing.

use super::error::HttpError;
use serde::de::DeserializeOwned;
use worker::Request;

/// Body limit of `/api/*` (SPEC §3.1).
pub const API_LIMIT: usize = 256 * 1024;
/// Body limit of memory_retrieval (SPEC §3.1).
pub const RETRIEVAL_LIMIT: usize = 16 * 1024;

/// Reads the body, refusing more than `limit` bytes (413) before anything is parsed; a
/// declared `Content-Length` over the limit is refused without reading.
pub async fn read_limited(req: &mut Request, limit: usize) -> Result<Vec<u8>, HttpError> {
    let declared = req
        .headers()
        .get("content-length")
        .ok()
        .flatten()
        .and_then(|v| v.trim().parse::<usize>().ok());
    if declared.is_some_and(|n| n > limit) {
        return Err(HttpError::too_large(limit));
    }
    let bytes = req.bytes().await?;
    if bytes.len() > limit {
        return Err(HttpError::too_large(limit));
    }
    Ok(bytes)
}

/// Parses a JSON body; an empty body reads as `{}` (routes whose fields are all optional).
pub fn parse_json<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, HttpError> {
    let text = std::str::from_utf8(bytes)
        .map_err(|_| HttpError::bad_request("request body is not UTF-8"))?;
    let text = if text.trim().is_empty() { "{}" } else { text };
    serde_json::from_str(text)
        .map_err(|e| HttpError::bad_request(format!("invalid JSON body: {e}")))
}

pub async fn json<T: DeserializeOwned>(req: &mut Request, limit: usize) -> Result<T, HttpError> {
    parse_json(&read_limited(req, limit).await?)
}

/// The query string as (name, value) pairs.
pub fn query_pairs(req: &Request) -> Result<Vec<(String, String)>, HttpError> {
    Ok(req
        .url()?
        .query_pairs()
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect())
}

/// The last value of a query parameter.
pub fn param<'a>(pairs: &'a [(String, String)], name: &str) -> Option<&'a str> {
    pairs
        .iter()
        .rev()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
}

pub fn bool_param(pairs: &[(String, String)], name: &str) -> Result<bool, HttpError> {
    match param(pairs, name)
        .map(|v| v.trim().to_ascii_lowercase())
        .as_deref()
    {
        None | Some("") | Some("false") | Some("0") => Ok(false),
        Some("true") | Some("1") => Ok(true),
        Some(other) => Err(HttpError::bad_request(format!(
            "{name} must be true or false, got {other:?}"
        ))),
    }
}

pub fn number_param(
    pairs: &[(String, String)],
    name: &str,
    default: u64,
) -> Result<u64, HttpError> {
    match param(pairs, name).map(str::trim) {
        None | Some("") => Ok(default),
        Some(v) => v.parse::<u64>().map_err(|_| {
            HttpError::bad_request(format!("{name} must be a non-negative integer, got {v:?}"))
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn json_bodies() {
        #[derive(serde::Deserialize, Debug, PartialEq)]
        struct B {
            #[serde(default)]
            a: Option<u32>,
        }
        assert_eq!(parse_json::<B>(b"").unwrap(), B { a: None });
        assert_eq!(parse_json::<B>(br#"{"a": 2}"#).unwrap(), B { a: Some(2) });
        let err = parse_json::<B>(b"{oops").unwrap_err();
        assert_eq!(err.status, 400);
        assert!(err.message.starts_with("invalid JSON body"));
        assert_eq!(parse_json::<B>(&[0xff, 0xfe]).unwrap_err().status, 400);
    }

    #[test]
    fn query_parameters() {
        let p = pairs(&[("dry_run", "TRUE"), ("limit", "20"), ("x", "maybe")]);
        assert!(bool_param(&p, "dry_run").unwrap());
        assert!(!bool_param(&p, "missing").unwrap());
        assert_eq!(bool_param(&p, "x").unwrap_err().status, 400);
        assert_eq!(number_param(&p, "limit", 5).unwrap(), 20);
        assert_eq!(number_param(&p, "since", 0).unwrap(), 0);
        assert_eq!(number_param(&p, "x", 0).unwrap_err().status, 400);
    }
}
