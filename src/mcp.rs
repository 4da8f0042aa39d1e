//! The MCP tools (issue 16), defined once for both transports: the Worker's Streamable HTTP
//! endpoint (`worker/src/http/mcp.rs`) and the npm package's stdio server (`pkg/mcp/`). A
//! transport authenticates the caller, then lists [`tools`] and runs [`Hippo::call_tool`].
//!
//! Each tool works on one NPC: a token's own (a tool call naming another is refused), or the
//! `npcid` argument for the admin. Reading tools need the `read` scope (`recall` also takes
//! `retrieval`), writing tools `write`; the admin may do everything. For a token, sensitive
//! memories follow the memory_retrieval rule: never shown, and invisible to
//! `update_memory` and `forget`.

use crate::api::*;
use crate::error::{Error, Result};
use crate::ids::validate_npcid;
use crate::memory::MemoryInput;
use crate::ports::Scope;
use crate::sensitive;
use crate::Hippo;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

/// The protocol revisions the HTTP transport speaks, newest first. The npm stdio server
/// speaks what its SDK speaks.
pub const PROTOCOL_VERSIONS: [&str; 4] = ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"];

/// Who is calling.
#[derive(Debug, Clone, PartialEq)]
pub enum Caller {
    /// The admin token: every NPC, every tool, sensitive memories shown (marked).
    Admin,
    /// A token bound to `npcid` with `scopes`.
    Token { npcid: String, scopes: Vec<Scope> },
}

impl Caller {
    fn admin(&self) -> bool {
        matches!(self, Caller::Admin)
    }

    fn may(&self, tool: &Tool) -> bool {
        match self {
            Caller::Admin => true,
            Caller::Token { scopes, .. } => tool.scopes.iter().any(|s| scopes.contains(s)),
        }
    }
}

/// The tools as `tools/list` describes them (without `npcid`), plus the scopes that allow
/// each (any one is enough). Data, not code: kept as JSON it costs the Worker bundle little.
const TOOLS_JSON: &str = include_str!("mcp_tools.json");

/// One entry of `mcp_tools.json`.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Tool {
    name: String,
    title: String,
    description: String,
    scopes: Vec<Scope>,
    read_only: bool,
    destructive: bool,
    input_schema: Value,
}

fn all_tools() -> Vec<Tool> {
    // The file is compiled in and checked by a test: it always parses.
    serde_json::from_str(TOOLS_JSON).unwrap_or_default()
}

fn find_tool(name: &str) -> Option<Tool> {
    all_tools().into_iter().find(|t| t.name == name)
}

/// The `tools/list` entries `caller` may call.
pub fn tools(caller: &Caller) -> Vec<Value> {
    let npcid = json!({"type": "string", "description": match caller {
        Caller::Admin => "the NPC (required with the admin token)",
        Caller::Token { .. } => "the token's NPC (may be left out)",
    }});
    all_tools()
        .into_iter()
        .filter(|t| caller.may(t))
        .map(|t| {
            let mut schema = t.input_schema;
            schema["type"] = json!("object");
            schema["properties"]["npcid"] = npcid.clone();
            if caller.admin() {
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

fn args<T: DeserializeOwned>(mut value: Value) -> Result<T> {
    if let Some(map) = value.as_object_mut() {
        map.remove("npcid");
    }
    // Through the text: the bindings already parse these types from JSON text.
    serde_json::from_str(&value.to_string())
        .map_err(|e| Error::invalid(format!("invalid arguments: {e}")))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RememberArgs {
    #[serde(default)]
    fact: Option<String>,
    #[serde(default, rename = "type")]
    memory_type: Option<String>,
    #[serde(default)]
    importance: Option<f64>,
    #[serde(default)]
    pinned: bool,
    #[serde(default)]
    sensitive: bool,
    #[serde(default)]
    turn: Option<TurnArg>,
    #[serde(default)]
    session_id: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TurnArg {
    role: String,
    content: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RecallArgs {
    query: String,
    #[serde(default)]
    memory_types: Option<Vec<String>>,
    #[serde(default)]
    time_hint: Option<String>,
    #[serde(default)]
    max_results: Option<i64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Empty {}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ListArgs {
    #[serde(default)]
    types: Vec<String>,
    #[serde(default)]
    include_superseded: bool,
    #[serde(default)]
    offset: usize,
    #[serde(default)]
    limit: Option<usize>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ForgetArgs {
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    all: bool,
    #[serde(default)]
    confirm: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DreamArgs {
    #[serde(default)]
    dry_run: bool,
}

/// Whether the detector flags anything in `value`'s JSON text.
fn flagged<T: serde::Serialize>(value: &T) -> bool {
    sensitive::category_of(&serde_json::to_string(value).unwrap_or_default()).is_some()
}

/// What a tool answers: the answer of the matching route, typed, so each binding serializes
/// it with the serializer it already has for that route (a `serde_json::Value` detour costs
/// the wasm builds a serializer of every response type again).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum ToolOutput {
    Added(AddMemoriesResponse),
    Appended(ConversationAppendResponse),
    Found(SearchResponse),
    Profile(Profile),
    Brief(BriefResponse),
    Memories(MemoryList),
    Updated(UpdateMemoryResponse),
    Forgot(Forgot),
    Dreamt(DreamResponse),
}

/// `get_profile`: the PKG and the relationship entities.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Profile {
    pub npcid: String,
    pub pkg: crate::pkg::Pkg,
    pub relationship: indexmap::IndexMap<String, crate::relationship::Entity>,
}

/// `forget`: how many memories were deleted.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Forgot {
    pub status: &'static str,
    pub deleted: usize,
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
        if !arguments.is_object() {
            return Err(Error::invalid("arguments must be a JSON object"));
        }
        if !caller.may(&tool) {
            let needs: Vec<&str> = tool.scopes.iter().map(|s| s.as_str()).collect();
            return Err(Error::Unauthorized(format!(
                "this token may not call {name}: it needs the {} scope",
                needs.join(" or ")
            )));
        }
        let named = match arguments.get("npcid") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s.clone()),
            Some(_) => return Err(Error::invalid("npcid must be a string")),
        };
        let npcid = match (caller, named) {
            (Caller::Admin, Some(n)) => n,
            (Caller::Admin, None) => {
                return Err(Error::invalid("npcid is required with the admin token"))
            }
            (Caller::Token { npcid, .. }, Some(n)) if &n != npcid => {
                return Err(Error::Unauthorized(format!(
                    "this token is bound to another NPC, not {n}"
                )))
            }
            (Caller::Token { npcid, .. }, _) => npcid.clone(),
        };
        validate_npcid(&npcid)?;
        let admin = caller.admin();
        match name {
            "remember" => {
                let a: RememberArgs = args(arguments)?;
                match (a.fact, a.turn) {
                    (Some(fact), None) => {
                        let input = MemoryInput {
                            summary: fact,
                            memory_type: a.memory_type.unwrap_or_else(|| "other".into()),
                            keywords: Vec::new(),
                            confidence: None,
                            importance: a.importance,
                            source: Some("mcp".into()),
                            event_time: None,
                            expires_at: None,
                            sensitive: a.sensitive,
                            sensitive_category: None,
                            pinned: a.pinned,
                        };
                        let request = AddMemoriesRequest {
                            memories: vec![input],
                        };
                        Ok(ToolOutput::Added(self.add_memories(&npcid, request).await?))
                    }
                    (None, Some(turn)) => {
                        let request = ConversationAppend {
                            session_id: a.session_id,
                            turns: vec![TurnInput {
                                role: turn.role,
                                content: turn.content,
                                ts: None,
                                index: None,
                                emotion: None,
                            }],
                            summary: None,
                        };
                        Ok(ToolOutput::Appended(
                            self.append_conversation(&npcid, request).await?,
                        ))
                    }
                    _ => Err(Error::invalid("give either fact or turn")),
                }
            }
            "recall" => {
                let a: RecallArgs = args(arguments)?;
                let request = SearchRequest {
                    query: a.query,
                    memory_types: a.memory_types,
                    max_results: a.max_results,
                    time_hint: a.time_hint,
                    // The admin sees sensitive items (marked); a token never does.
                    include_sensitive: admin,
                    include_archived: false,
                    debug: false,
                };
                Ok(ToolOutput::Found(self.search(&npcid, request).await?))
            }
            "get_profile" => {
                let _: Empty = args(arguments)?;
                let mut pkg = self.get_pkg(&npcid).await?;
                let mut relationship = self.get_relationships(&npcid).await?;
                if !admin {
                    // As memory_retrieval judges these items: by kind, then by what they say.
                    pkg.pkg.retain(|key, value| {
                        sensitive::key_category(key).is_none() && !flagged(value)
                    });
                    relationship
                        .relationship
                        .retain(|_, entity| !flagged(entity));
                }
                Ok(ToolOutput::Profile(Profile {
                    npcid,
                    pkg: pkg.pkg,
                    relationship: relationship.relationship,
                }))
            }
            "brief" => {
                let request: BriefRequest = args(arguments)?;
                Ok(ToolOutput::Brief(self.brief(&npcid, request).await?))
            }
            "list_memories" => {
                let a: ListArgs = args(arguments)?;
                let query = crate::engine::ListMemoriesQuery {
                    types: a.types,
                    collection: None,
                    include_superseded: a.include_superseded,
                    offset: a.offset,
                    limit: a.limit,
                };
                let mut list = self.list_memories(&npcid, query).await?;
                if !admin {
                    list.memories.retain(|m| !m.memory.sensitive);
                    list.count = list.memories.len();
                }
                Ok(ToolOutput::Memories(list))
            }
            "update_memory" => {
                let mut a = arguments;
                let id = match a.as_object_mut().and_then(|m| m.remove("id")) {
                    Some(Value::String(id)) => id,
                    _ => return Err(Error::invalid("id is required (a string)")),
                };
                let patch: MemoryPatch = args(a)?;
                if !admin {
                    self.require_visible(&npcid, &id).await?;
                    if patch.sensitive == Some(false) {
                        return Err(Error::Unauthorized(
                            "only the admin may clear a memory's sensitive mark".into(),
                        ));
                    }
                }
                Ok(ToolOutput::Updated(
                    self.update_memory(&npcid, &id, patch).await?,
                ))
            }
            "forget" => {
                let a: ForgetArgs = args(arguments)?;
                match (a.id, a.all) {
                    (Some(id), false) => {
                        if !admin {
                            self.require_visible(&npcid, &id).await?;
                        }
                        self.delete_memory(&npcid, &id).await?;
                        Ok(ToolOutput::Forgot(Forgot {
                            status: "ok",
                            deleted: 1,
                        }))
                    }
                    (None, true) => {
                        if a.confirm.as_deref() != Some(npcid.as_str()) {
                            return Err(Error::invalid(format!(
                                "forgetting every memory needs confirm: \"{npcid}\""
                            )));
                        }
                        let deleted = self.forget_all_memories(&npcid).await?;
                        Ok(ToolOutput::Forgot(Forgot {
                            status: "ok",
                            deleted,
                        }))
                    }
                    _ => Err(Error::invalid("give either id, or all: true with confirm")),
                }
            }
            "dream" => {
                let a: DreamArgs = args(arguments)?;
                let report = self.dream(&npcid, a.dry_run).await?;
                Ok(ToolOutput::Dreamt(DreamResponse {
                    status: "ok".into(),
                    report,
                }))
            }
            other => Err(Error::Internal(format!(
                "tool {other} has no implementation"
            ))),
        }
    }

    /// 404 for a memory a token may not see (sensitive), as for one that does not exist.
    async fn require_visible(&self, npcid: &str, id: &str) -> Result<()> {
        let found = self
            .ports()
            .store
            .memories_by_id(npcid, &[id.to_string()])
            .await?;
        match found.first() {
            Some(m) if !m.sensitive => Ok(()),
            _ => Err(Error::not_found(format!("memory {id} does not exist"))),
        }
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
            assert!(!t.scopes.is_empty(), "{}", t.name);
            assert!(t.input_schema["properties"].is_object(), "{}", t.name);
        }
    }
}
