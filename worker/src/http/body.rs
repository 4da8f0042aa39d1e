//! Request bodies and query strings: the size limit, counted while the body streams in.
//! Parsing is the core's (`hippo::api::Operation::parse`).

use crate::error::HttpError;
use futures_util::StreamExt;
use wasm_bindgen::JsCast;
use worker::Request;

/// Body limit of `/api/*` (SPEC §3.1). memory_retrieval's is the core's
/// (`hippo::api::protocol::MAX_REQUEST_BYTES`), which the npm package applies too.
pub const API_LIMIT: usize = 256 * 1024;

/// Reads the body, refusing more than `limit` bytes (413) before anything is parsed. A
/// declared `Content-Length` over the limit is refused without reading; a body without one
/// (chunked) is read a chunk at a time and refused as soon as the count passes the limit,
/// the rest left unread (the stream is cancelled), so an endless body costs at most `limit`
/// bytes of memory. A chunk is measured before it is copied into wasm memory.
pub async fn read_limited(req: &mut Request, limit: usize) -> Result<Vec<u8>, HttpError> {
    let declared = req
        .headers()
        .get("content-length")
        .ok()
        .flatten()
        .and_then(|v| v.trim().parse::<u64>().ok());
    if declared.is_some_and(|n| usize::try_from(n).map_or(true, |n| n > limit)) {
        return Err(HttpError::too_large(limit));
    }
    let Some(raw) = req.inner().body() else {
        return Ok(Vec::new());
    };
    let mut chunks = wasm_streams::ReadableStream::from_raw(raw)
        .try_into_stream()
        .map_err(|_| HttpError::bad_request("the request body was already read"))?;
    let mut body = Vec::new();
    while let Some(chunk) = chunks.next().await {
        let chunk: js_sys::Uint8Array = chunk
            .ok()
            .and_then(|c| c.dyn_into().ok())
            .ok_or_else(|| HttpError::bad_request("the request body could not be read"))?;
        let len = usize::try_from(chunk.length()).unwrap_or(usize::MAX);
        if len > limit.saturating_sub(body.len()) {
            drain(&mut chunks, body.len().saturating_add(len)).await;
            return Err(HttpError::too_large(limit));
        }
        let start = body.len();
        body.resize(start.saturating_add(len), 0);
        if let Some(dest) = body.get_mut(start..) {
            chunk.copy_to(dest);
        }
    }
    Ok(body)
}

/// How far past its limit a refused body is still read (and dropped, never copied into wasm
/// memory) before the answer: a client that sent a little too much gets its 413, where
/// answering with bytes unread lets the runtime reset the connection instead.
const DRAIN_LIMIT: usize = 1024 * 1024;

/// Reads and drops the rest of a refused body up to [`DRAIN_LIMIT`] bytes in all; past that,
/// dropping the stream cancels the rest (an endless body is not read to its end).
async fn drain(chunks: &mut wasm_streams::readable::IntoStream<'static>, mut read: usize) {
    while read <= DRAIN_LIMIT {
        let Some(Ok(chunk)) = chunks.next().await else {
            return;
        };
        let len = chunk
            .dyn_into::<js_sys::Uint8Array>()
            .map_or(0, |c| usize::try_from(c.length()).unwrap_or(usize::MAX));
        read = read.saturating_add(len.max(1));
    }
}

/// The query string as (name, value) pairs.
pub fn query_pairs(req: &Request) -> Result<Vec<(String, String)>, HttpError> {
    Ok(req
        .url()?
        .query_pairs()
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect())
}
