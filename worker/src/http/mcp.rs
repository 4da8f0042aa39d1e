//! MCP over Streamable HTTP at `POST /mcp`: a small JSON-RPC 2.0 layer over the core's tools
//! (`hippo::mcp`), with no Rust MCP SDK (none builds for wasm32 without a runtime the Worker
//! lacks). Stateless: every POST carries its own credentials and is answered with one JSON
//! object; no session ids, no server-sent events (`GET /mcp` is 405, as the transport allows).
//!
//! It answers `initialize` (revisions 2025-03-26 to 2025-11-25, what the official TypeScript
//! SDK speaks) and `server/discover` (2026-07-28, which drops `initialize`), `ping`,
//! `tools/list` and `tools/call`; notifications and responses get 202.

use super::auth::constant_time_eq;
use super::body::{self, API_LIMIT};
use crate::app::App;
use crate::error::{HttpError, Surface};
use hippo::mcp::{self, Caller, PROTOCOL_VERSIONS};
use hippo::Error;
use serde_json::{json, Value};
use worker::{Request, Response};

/// JSON-RPC 2.0 error codes.
const PARSE_ERROR: i64 = -32700;
const INVALID_REQUEST: i64 = -32600;
const METHOD_NOT_FOUND: i64 = -32601;
const INVALID_PARAMS: i64 = -32602;
const INTERNAL_ERROR: i64 = -32603;

/// The revision `initialize` answers when the client asks for one we do not speak: the
/// newest that still has `initialize`.
const INITIALIZE_FALLBACK: &str = "2025-11-25";

const INSTRUCTIONS: &str = "Hippo is the long-term memory of one character's user. Use \
    `brief` at the start of a session, `recall` before answering about the user's life, \
    `remember` for what the user says (a turn) or a fact worth keeping, and `dream` to \
    consolidate. Every tool works on one NPC.";

fn rpc_error(id: &Value, code: i64, message: impl Into<String>) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message.into()}})
}

fn rpc_result(id: &Value, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

fn json_response(body: &Value, status: u16) -> Result<Response, HttpError> {
    Ok(Response::from_json(body)?.with_status(status))
}

/// Who the `Authorization` header names: the admin token, else a token bound to one NPC
/// (any scope; what it may call is decided per tool). 401 otherwise.
async fn caller(app: &App, admin: Option<&str>, header: Option<&str>) -> Result<Caller, HttpError> {
    let header = header.ok_or_else(|| {
        HttpError::unauthorized("missing Authorization: Bearer <admin or MCP token>")
    })?;
    let bearer = header
        .trim()
        .split_once(char::is_whitespace)
        .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
        .map(|(_, token)| token.trim());
    if let (Some(expected), Some(given)) = (admin, bearer) {
        if constant_time_eq(given, expected) {
            return Ok(Caller::Admin);
        }
    }
    Ok(app.hippo.resolve_caller(header).await?)
}

/// Serves one POST to `/mcp`. Transport failures (credentials, origin, version header, body)
/// are HTTP errors with a JSON-RPC body; everything after is a JSON-RPC answer.
pub async fn serve(
    app: &App,
    admin: Option<&str>,
    req: &mut Request,
) -> Result<Response, HttpError> {
    let headers = req.headers();
    // DNS rebinding: a browser page of another origin must not reach the endpoint.
    if let Some(origin) = headers.get("origin")? {
        let url = req.url()?;
        let own = url.origin().ascii_serialization();
        if origin != own {
            return Err(HttpError::new(
                403,
                "forbidden",
                format!("origin {origin} is not allowed"),
            ));
        }
    }
    if let Some(version) = headers.get("mcp-protocol-version")? {
        if !PROTOCOL_VERSIONS.contains(&version.trim()) {
            return Err(HttpError::bad_request(format!(
                "unsupported MCP-Protocol-Version {version}; supported: {}",
                PROTOCOL_VERSIONS.join(", ")
            )));
        }
    }
    let authorization = headers.get("authorization")?;
    let caller = caller(app, admin, authorization.as_deref()).await?;
    let bytes = body::read_limited(req, API_LIMIT).await?;
    let message: Value = match serde_json::from_slice(&bytes) {
        Ok(v) => v,
        Err(e) => {
            return json_response(
                &rpc_error(&Value::Null, PARSE_ERROR, format!("parse error: {e}")),
                400,
            )
        }
    };
    let Some(object) = message.as_object() else {
        // Batches were removed from the protocol in 2025-06-18.
        return json_response(
            &rpc_error(
                &Value::Null,
                INVALID_REQUEST,
                "expected one JSON-RPC message object",
            ),
            400,
        );
    };
    if object.get("jsonrpc") != Some(&json!("2.0")) {
        return json_response(
            &rpc_error(&Value::Null, INVALID_REQUEST, "jsonrpc must be \"2.0\""),
            400,
        );
    }
    let id = object.get("id").cloned();
    let method = object.get("method").and_then(Value::as_str);
    let (id, method) = match (id, method) {
        (Some(id), Some(method)) if id.is_string() || id.is_number() => (id, method),
        // A notification (no id), or the client's answer to a request of ours (we send
        // none): accepted, nothing to answer.
        (None, Some(_)) => return Ok(Response::empty()?.with_status(202)),
        (Some(_), None) if object.contains_key("result") || object.contains_key("error") => {
            return Ok(Response::empty()?.with_status(202))
        }
        _ => {
            return json_response(
                &rpc_error(
                    &Value::Null,
                    INVALID_REQUEST,
                    "a request needs a string or number id and a method",
                ),
                400,
            )
        }
    };
    let params = object.get("params").cloned().unwrap_or_else(|| json!({}));
    let answer = RpcAnswer::Value(match method {
        "initialize" => {
            let asked = params.get("protocolVersion").and_then(Value::as_str);
            let version = asked
                .filter(|v| PROTOCOL_VERSIONS.contains(v) && *v != PROTOCOL_VERSIONS[0])
                .unwrap_or(INITIALIZE_FALLBACK);
            rpc_result(&id, server_description(version))
        }
        "server/discover" => rpc_result(&id, server_description(PROTOCOL_VERSIONS[0])),
        "ping" => rpc_result(&id, json!({})),
        "tools/list" => rpc_result(&id, json!({ "tools": mcp::tools(&caller) })),
        "tools/call" => return answer_response(call(app, &caller, &id, &params).await),
        other => rpc_error(&id, METHOD_NOT_FOUND, format!("method not found: {other}")),
    });
    answer_response(answer)
}

fn answer_response(answer: RpcAnswer) -> Result<Response, HttpError> {
    match answer {
        RpcAnswer::Value(value) => json_response(&value, 200),
        RpcAnswer::Raw(text) => {
            let mut response = Response::ok(text)?;
            response
                .headers_mut()
                .set("content-type", "application/json")?;
            Ok(response)
        }
    }
}

fn server_description(version: &str) -> Value {
    json!({
        "protocolVersion": version,
        "capabilities": { "tools": { "listChanged": false } },
        "serverInfo": { "name": "hippo", "title": "Hippo memory", "version": env!("CARGO_PKG_VERSION") },
        "instructions": INSTRUCTIONS,
    })
}

/// `tools/call`: an unknown tool or malformed params is a protocol error; what the tool
/// itself refuses (bad arguments, scope, unknown NPC or memory) is a result with `isError`,
/// so the model can read it and correct itself; a failure of ours is an internal error.
async fn call(app: &App, caller: &Caller, id: &Value, params: &Value) -> RpcAnswer {
    let Some(name) = params.get("name").and_then(Value::as_str) else {
        return RpcAnswer::Value(rpc_error(
            id,
            INVALID_PARAMS,
            "params.name (the tool) is required",
        ));
    };
    if !mcp::is_tool(name) {
        return RpcAnswer::Value(rpc_error(
            id,
            INVALID_PARAMS,
            format!("unknown tool: {name}"),
        ));
    }
    let arguments = params
        .get("arguments")
        .cloned()
        .unwrap_or_else(|| json!({}));
    match app.hippo.call_tool(caller, name, arguments).await {
        Ok(output) => match serde_json::to_string(&output) {
            // The answer as text and as structured content: one serialization, spliced in.
            Ok(text) => RpcAnswer::Raw(format!(
                "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"result\":{{\"content\":[{{\"type\":\"text\",\"text\":{quoted}}}],\"structuredContent\":{text},\"isError\":false}}}}",
                quoted = Value::String(text.clone()),
            )),
            Err(e) => RpcAnswer::Value(rpc_error(id, INTERNAL_ERROR, e.to_string())),
        },
        Err(
            err @ (Error::InvalidInput(_)
            | Error::NotFound(_)
            | Error::Unauthorized(_)
            | Error::Busy(_)
            | Error::TooLarge(_)),
        ) => RpcAnswer::Value(rpc_result(
            id,
            json!({
                "content": [{ "type": "text", "text": format!("{}: {err}", err.code()) }],
                "isError": true,
            }),
        )),
        Err(err) => {
            let http = HttpError::from(err);
            worker::console_error!("mcp {name}: {}", http.message);
            RpcAnswer::Value(rpc_error(id, INTERNAL_ERROR, http.message))
        }
    }
}

/// A JSON-RPC answer: built as a value, or already serialized (a tool's output).
enum RpcAnswer {
    Value(Value),
    Raw(String),
}

/// An HTTP-level failure on `/mcp`, in the JSON-RPC shape; a 401 says how to authenticate.
pub fn error_response(err: &HttpError) -> worker::Result<Response> {
    let mut response = err.response(Surface::Mcp)?;
    if err.status == 401 {
        response
            .headers_mut()
            .set("www-authenticate", "Bearer realm=\"hippo-mcp\"")?;
    }
    Ok(response)
}
