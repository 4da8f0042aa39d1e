//! The MCP tools, defined once for both transports: the Worker's Streamable HTTP
//! endpoint (`worker/src/http/mcp.rs`) and the npm package's stdio server (`pkg/node/mcp.mjs`).
//! A transport authenticates the caller, then lists [`tools`] and runs [`Hippo::call_tool`].
//!
//! A tool is a route's operation with MCP-shaped arguments: its arguments become the route's
//! path parameters, query string and body, which [`Operation::parse`] parses as it parses an
//! HTTP request, and [`Hippo::execute_as`] runs with the route's access rule
//! ([`OpKind::scopes`], `api/access.rs`). So a tool answers what its route answers, and a
//! token sees what it would see on any surface: nothing sensitive.
//!
//! Each tool works on one NPC: a token's own (a tool call naming another is refused), or the
//! `npcid` argument for the admin.

pub use crate::api::Caller;
use crate::api::{Forgot, OpKind, Operation, PkgView, RawRequest, RelationshipView, Reply};
use crate::error::{Error, Result};
use crate::Hippo;
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

/// The protocol revisions the HTTP transport speaks, newest first. The npm stdio server
/// speaks what its SDK speaks.
pub const PROTOCOL_VERSIONS: [&str; 4] = ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"];

/// The tools as `tools/list` describes them (without `npcid`). Data, not code: compiled into
/// the Worker (feature `mcp-tools`), while the npm package ships it beside its wasm, which has
/// a size budget (`dist/*/mcp_tools.js`; its entry points hand it over with [`set_tools`]).
#[cfg(feature = "mcp-tools")]
pub const TOOLS_JSON: &str = include_str!("mcp_tools.json");

/// The tool list, parsed once.
static TOOLS: std::sync::OnceLock<Vec<Tool>> = std::sync::OnceLock::new();

/// Gives the core the tool list (the text of `mcp_tools.json`) where it is not compiled in;
/// only the first call counts. Until then there are no tools.
pub fn set_tools(json: &str) {
    let _ = TOOLS.set(crate::json::parse(json).unwrap_or_default());
}

/// One entry of `mcp_tools.json`.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Tool {
    name: String,
    title: String,
    description: String,
    read_only: bool,
    destructive: bool,
    input_schema: Value,
}

/// The operation whose access rule decides who may call a tool (a tool that runs several
/// runs operations of the same scopes).
fn tool_kind(name: &str) -> Option<OpKind> {
    Some(match name {
        "remember" => OpKind::AddMemories,
        "recall" => OpKind::Retrieve,
        "get_profile" => OpKind::GetPkg,
        "brief" => OpKind::Brief,
        "list_memories" => OpKind::ListMemories,
        "update_memory" => OpKind::UpdateMemory,
        "forget" => OpKind::DeleteMemory,
        "dream" => OpKind::Dream,
        _ => return None,
    })
}

fn all_tools() -> Vec<Tool> {
    // The file is checked by a test: it always parses.
    #[cfg(feature = "mcp-tools")]
    set_tools(TOOLS_JSON);
    TOOLS.get().cloned().unwrap_or_default()
}

fn find_tool(name: &str) -> Option<Tool> {
    all_tools().into_iter().find(|t| t.name == name)
}

fn may_call(caller: &Caller, tool: &Tool) -> bool {
    tool_kind(&tool.name).is_some_and(|kind| caller.may(kind))
}

/// The `tools/list` entries `caller` may call.
pub fn tools(caller: &Caller) -> Vec<Value> {
    let npcid = json!({"type": "string", "description": match caller {
        Caller::Admin => "the NPC (required with the admin token)",
        Caller::Token { .. } => "the token's NPC (may be left out)",
    }});
    all_tools()
        .into_iter()
        .filter(|t| may_call(caller, t))
        .map(|t| {
            let mut schema = t.input_schema;
            schema["type"] = json!("object");
            schema["properties"]["npcid"] = npcid.clone();
            if caller.is_admin() {
                let mut required = schema["required"].as_array().cloned().unwrap_or_default();
                required.push(json!("npcid"));
                schema["required"] = Value::Array(required);
            }
            schema["additionalProperties"] = json!(false);
            json!({
                "name": t.name,
                "title": t.title,
                "description": t.description,
                "inputSchema": schema,
                "annotations": {"readOnlyHint": t.read_only, "destructiveHint": t.destructive,
                                "idempotentHint": t.read_only, "openWorldHint": false},
            })
        })
        .collect()
}

/// Whether `name` is a tool (unknown tools are a protocol error, not a tool error).
pub fn is_tool(name: &str) -> bool {
    find_tool(name).is_some()
}

/// What a tool answers: its route's answer (typed, so each binding serializes it with the
/// serializer it already has for that route), or for `get_profile` the two routes' answers.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum ToolOutput {
    Route(Reply),
    Profile(Profile),
}

/// `get_profile`: the PKG and the relationship entities.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Profile {
    pub npcid: String,
    pub pkg: crate::pkg::Pkg,
    pub relationship: indexmap::IndexMap<String, crate::relationship::Entity>,
}

/// A query-string value of a scalar argument.
fn query_value(name: &str, value: &Value) -> Result<String> {
    match value {
        Value::String(s) => Ok(s.clone()),
        Value::Bool(b) => Ok(b.to_string()),
        Value::Number(n) => Ok(n.to_string()),
        _ => Err(Error::invalid(format!(
            "{name} must be a string, number or boolean"
        ))),
    }
}

/// One route request built from a tool's arguments.
#[derive(Default)]
struct Request {
    path: Vec<(&'static str, String)>,
    query: Vec<(String, String)>,
    body: Option<Value>,
}

impl Request {
    fn body(body: Map<String, Value>) -> Self {
        Request {
            body: Some(Value::Object(body)),
            ..Default::default()
        }
    }

    fn query(mut self, name: &str, value: Option<Value>) -> Result<Self> {
        match value {
            None | Some(Value::Null) => {}
            Some(Value::Array(items)) => {
                let values: Vec<String> = items
                    .iter()
                    .map(|v| query_value(name, v))
                    .collect::<Result<_>>()?;
                self.query.push((name.to_string(), values.join(",")));
            }
            Some(v) => self.query.push((name.to_string(), query_value(name, &v)?)),
        }
        Ok(self)
    }
}

impl Hippo {
    /// Runs tool `name` for `caller` with `arguments` (a JSON object). Errors are the core's:
    /// the transport reports them as tool errors (`isError`), except an unknown tool.
    pub async fn call_tool(
        &self,
        caller: &Caller,
        name: &str,
        arguments: Value,
    ) -> Result<ToolOutput> {
        let tool =
            find_tool(name).ok_or_else(|| Error::invalid(format!("unknown tool {name:?}")))?;
        if !may_call(caller, &tool) {
            let needs: Vec<&str> = tool_kind(name)
                .map_or(&[][..], OpKind::scopes)
                .iter()
                .map(|s| s.as_str())
                .collect();
            return Err(Error::Unauthorized(format!(
                "this token may not call {name}: it needs the {} scope",
                needs.join(" or ")
            )));
        }
        let Value::Object(mut args) = arguments else {
            return Err(Error::invalid("arguments must be a JSON object"));
        };
        if let Some(unknown) = args
            .keys()
            .find(|k| *k != "npcid" && tool.input_schema["properties"].get(k.as_str()).is_none())
        {
            return Err(Error::invalid(format!("unknown argument {unknown:?}")));
        }
        let npcid = match (caller, args.remove("npcid")) {
            (_, Some(Value::String(n))) => n,
            (Caller::Admin, None | Some(Value::Null)) => {
                return Err(Error::invalid("npcid is required with the admin token"))
            }
            (Caller::Token { npcid, .. }, None | Some(Value::Null)) => npcid.clone(),
            (_, Some(_)) => return Err(Error::invalid("npcid must be a string")),
        };
        let run = |kind: OpKind, request: Request| self.run_tool_op(caller, &npcid, kind, request);
        let output = match name {
            "remember" => match (args.remove("fact"), args.remove("turn")) {
                (Some(fact), None) => {
                    // One memory of POST /api/memories, written by this tool.
                    let mut memory = args;
                    if memory.contains_key("session_id") {
                        return Err(Error::invalid("session_id goes with a turn, not a fact"));
                    }
                    memory.insert("summary".into(), fact);
                    memory.entry("type").or_insert(json!("other"));
                    memory.insert("source".into(), json!("mcp"));
                    let mut body = Map::new();
                    body.insert("memories".into(), json!([memory]));
                    run(OpKind::AddMemories, Request::body(body)).await?
                }
                (None, Some(turn)) => {
                    // One turn of POST /api/conversation.
                    if let Some(extra) = args.keys().find(|k| *k != "session_id") {
                        return Err(Error::invalid(format!(
                            "{extra} goes with a fact, not a turn"
                        )));
                    }
                    let mut body = args;
                    body.insert("turns".into(), json!([turn]));
                    run(OpKind::AppendConversation, Request::body(body)).await?
                }
                _ => return Err(Error::invalid("give either fact or turn")),
            },
            "recall" => run(OpKind::Retrieve, Request::body(args)).await?,
            "brief" => run(OpKind::Brief, Request::body(args)).await?,
            "get_profile" => {
                let pkg = run(OpKind::GetPkg, Request::default()).await?;
                let relationship = run(OpKind::GetRelationship, Request::default()).await?;
                match (pkg, relationship) {
                    (
                        Reply::Pkg(PkgView { pkg, .. }),
                        Reply::Relationship(RelationshipView { relationship, .. }),
                    ) => {
                        return Ok(ToolOutput::Profile(Profile {
                            npcid,
                            pkg,
                            relationship,
                        }))
                    }
                    _ => return Err(Error::Internal("get_profile: unexpected replies".into())),
                }
            }
            "list_memories" => {
                let mut request = Request::default();
                for name in [
                    "types",
                    "collection",
                    "include_superseded",
                    "offset",
                    "limit",
                ] {
                    request = request.query(name, args.remove(name))?;
                }
                run(OpKind::ListMemories, request).await?
            }
            "update_memory" => {
                let id = match args.remove("id") {
                    Some(Value::String(id)) => id,
                    _ => return Err(Error::invalid("id is required (a string)")),
                };
                let mut request = Request::body(args);
                request.path.push(("id", id));
                run(OpKind::UpdateMemory, request).await?
            }
            "forget" => {
                let all = args.remove("all");
                let confirm = args.remove("confirm");
                match (args.remove("id"), all) {
                    (Some(Value::String(id)), None | Some(Value::Bool(false))) => {
                        let mut request = Request::default();
                        request.path.push(("id", id));
                        run(OpKind::DeleteMemory, request).await?;
                        // Both forms answer how many memories went.
                        Reply::Forgot(Forgot {
                            status: "ok".into(),
                            deleted: 1,
                        })
                    }
                    (None, Some(Value::Bool(true))) => {
                        // The route's rule: confirm names the NPC.
                        let request = Request::default().query("confirm", confirm)?;
                        run(OpKind::ForgetMemories, request).await?
                    }
                    _ => return Err(Error::invalid("give either id, or all: true with confirm")),
                }
            }
            "dream" => {
                let request = Request::default().query("dry_run", args.remove("dry_run"))?;
                run(OpKind::Dream, request).await?
            }
            other => {
                return Err(Error::Internal(format!(
                    "tool {other} has no implementation"
                )))
            }
        };
        Ok(ToolOutput::Route(output))
    }

    /// Parses one route request of `kind` for `npcid` as the HTTP binding does, and runs it
    /// for `caller`.
    async fn run_tool_op(
        &self,
        caller: &Caller,
        npcid: &str,
        kind: OpKind,
        request: Request,
    ) -> Result<Reply> {
        let body = match &request.body {
            Some(body) => serde_json::to_vec(body)
                .map_err(|e| Error::Internal(format!("tool arguments: {e}")))?,
            None => Vec::new(),
        };
        let mut path: Vec<(&str, &str)> = vec![("npcid", npcid)];
        path.extend(request.path.iter().map(|(k, v)| (*k, v.as_str())));
        let raw = RawRequest {
            path: &path,
            query: &request.query,
            body: &body,
        };
        let op = Operation::parse(kind, &raw)?;
        self.execute_as(caller, op).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tool_file_parses_and_every_tool_is_implemented() {
        let tools: Vec<Tool> = serde_json::from_str(TOOLS_JSON).expect("mcp_tools.json parses");
        let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "remember",
                "recall",
                "get_profile",
                "brief",
                "list_memories",
                "update_memory",
                "forget",
                "dream"
            ]
        );
        for t in &tools {
            assert!(tool_kind(&t.name).is_some(), "{}", t.name);
            assert!(t.input_schema["properties"].is_object(), "{}", t.name);
            // What the tool list promises matches what the access rule allows.
            let kind = tool_kind(&t.name).unwrap_or(OpKind::ListNpcs);
            let writes = kind.scopes().contains(&crate::ports::Scope::Write);
            assert_eq!(t.read_only, !writes, "{}", t.name);
        }
    }
}
