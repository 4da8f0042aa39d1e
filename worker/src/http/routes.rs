//! The route table: every route the Worker serves, once. The router is built from it and so
//! is `/openapi.json`, so the two cannot drift apart.

use crate::error::Surface;
use hippo::api::OpKind;
use worker::Method;

/// Who may call a route.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// No credentials (`/health`, `/openapi.json`, the fake provider).
    Public,
    /// `Authorization: Bearer <HIPPO_ADMIN_TOKEN>`.
    Admin,
    /// A memory_retrieval token (bound to one NPC).
    RetrievalToken,
    /// The admin token, or a token bound to one NPC whose scopes decide each tool (`/mcp`;
    /// the core's access rule, `hippo::api::Caller`).
    McpToken,
    /// `/__test/*`: compiled only into test builds (feature `test-hooks`), and there only with
    /// `HIPPO_TEST_HOOKS=1` and the admin token; absent from the OpenAPI document.
    #[cfg_attr(not(feature = "test-hooks"), allow(dead_code))]
    TestHook,
    /// The dashboard's static files: no credentials, no data; absent from the OpenAPI
    /// document (they are not JSON).
    Static,
}

/// What a route does: most routes are an operation of the core (parsed and run by
/// `hippo::api::Operation::parse` and `Hippo::execute`); the rest are the Worker's own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Core(OpKind),
    Health,
    OpenApi,
    Reembed,
    MemoryRetrieval,
    FakeRetrieval,
    Mcp,
    Dashboard,
    #[cfg(feature = "test-hooks")]
    StoreSuite,
    #[cfg(feature = "test-hooks")]
    MemorySync,
    #[cfg(feature = "test-hooks")]
    VectorSuite,
    #[cfg(feature = "test-hooks")]
    FetchProbe,
    #[cfg(feature = "test-hooks")]
    MemoryProbe,
}

/// A query parameter, for the OpenAPI document.
#[derive(Debug, Clone, Copy)]
pub struct QueryParam {
    pub name: &'static str,
    /// JSON Schema type: `string`, `integer` or `boolean`.
    pub kind: &'static str,
    pub description: &'static str,
}

#[derive(Debug, Clone)]
pub struct Route {
    pub method: Method,
    /// OpenAPI form: `/api/pkg/{npcid}`.
    pub path: &'static str,
    pub op: Op,
    pub access: Access,
    pub summary: &'static str,
    /// Component schema of the request body, if the route takes one.
    pub request: Option<&'static str>,
    /// Component schema of the 200 response.
    pub response: &'static str,
    pub query: &'static [QueryParam],
}

impl Op {
    /// Whether the route answers with memories it reinforces (its touches are queued).
    pub fn reinforces(&self) -> bool {
        matches!(
            self,
            Op::MemoryRetrieval
                | Op::FakeRetrieval
                | Op::Core(OpKind::SearchMemories | OpKind::Retrieve)
        )
    }

    /// Whether the route reads or writes an NPC's data, so must come after the touches this
    /// isolate has queued (everything but the retrievals and the data-free routes).
    pub fn follows_queued_touches(&self) -> bool {
        !self.reinforces() && !matches!(self, Op::Health | Op::OpenApi | Op::Dashboard)
    }
}

impl Route {
    pub fn surface(&self) -> Surface {
        Surface::of_path(self.path)
    }

    /// The path in the router's (matchit 0.7) syntax: `/api/pkg/:npcid`.
    pub fn router_path(&self) -> String {
        self.path
            .split('/')
            .map(
                |seg| match seg.strip_prefix('{').and_then(|s| s.strip_suffix('}')) {
                    Some(name) => format!(":{name}"),
                    None => seg.to_string(),
                },
            )
            .collect::<Vec<_>>()
            .join("/")
    }

    /// Whether `path` (a concrete request path) has this route's shape.
    pub fn matches_path(&self, path: &str) -> bool {
        let pattern: Vec<&str> = self.path.split('/').collect();
        let actual: Vec<&str> = path.split('/').collect();
        pattern.len() == actual.len()
            && pattern.iter().zip(&actual).all(|(p, a)| {
                if p.starts_with('{') {
                    !a.is_empty()
                } else {
                    p == a
                }
            })
    }
}

const PAGE: QueryParam = QueryParam {
    name: "limit",
    kind: "integer",
    description: "page size",
};

/// `route!(Get "/api/pkg/{npcid}" => core GetPkg, …)` for an operation of the core,
/// `route!(Get "/health" => Health, …)` for one of the Worker's own.
macro_rules! route {
    ($method:ident $path:literal => core $op:ident, $($rest:tt)*) => {
        route!(@make $method $path, Op::Core(OpKind::$op), $($rest)*)
    };
    ($method:ident $path:literal => $op:ident, $($rest:tt)*) => {
        route!(@make $method $path, Op::$op, $($rest)*)
    };
    (@make $method:ident $path:literal, $op:expr, $access:ident, $summary:literal,
     req: $req:expr, resp: $resp:literal $(, query: $query:expr)?) => {
        Route {
            method: Method::$method,
            path: $path,
            op: $op,
            access: Access::$access,
            summary: $summary,
            request: $req,
            response: $resp,
            query: route!(@query $($query)?),
        }
    };
    (@query $query:expr) => { $query };
    (@query) => { &[] };
}

pub static ROUTES: &[Route] = &[
    route!(Get "/health" => Health, Public, "Liveness check",
        req: None, resp: "Ok"),
    route!(Get "/openapi.json" => OpenApi, Public, "This OpenAPI document",
        req: None, resp: "OpenApiDocument"),
    // ---- seed routes (SPEC §3.2) ----
    route!(Get "/api/pkg/{npcid}" => core GetPkg, Admin, "Query the character's PKG",
        req: None, resp: "PkgView"),
    route!(Put "/api/pkg/{npcid}" => core PutPkg, Admin, "Merge-update PKG fields",
        req: Some("PkgUpdateRequest"), resp: "PkgUpdateResponse"),
    route!(Get "/api/relationship/{npcid}" => core GetRelationship, Admin, "Query relationships",
        req: None, resp: "RelationshipView"),
    route!(Get "/api/diary/{npcid}" => core GetDiary, Admin, "Query the diary (dailies newest first)",
        req: None, resp: "DiaryView"),
    route!(Post "/api/dream/{npcid}" => core Dream, Admin,
        "Dream: Scan, Diary, Extraction, Cleanup (409 while another dream of the NPC runs)",
        req: None, resp: "DreamResponse",
        query: &[QueryParam { name: "dry_run", kind: "boolean",
            description: "compute every stage, write nothing" }]),
    // ---- ingestion and administration (SPEC §3.3) ----
    route!(Get "/api/npc" => core ListNpcs, Admin, "List NPCs (paged by npcid)",
        req: None, resp: "NpcList",
        query: &[QueryParam { name: "after", kind: "string",
            description: "the `next` of the previous page" }, PAGE]),
    route!(Get "/api/npc/{npcid}" => core GetNpc, Admin, "Read an NPC's settings and flags",
        req: None, resp: "NpcView"),
    route!(Put "/api/npc/{npcid}" => core PutNpc, Admin, "Create or update an NPC",
        req: Some("NpcUpsert"), resp: "NpcView"),
    route!(Delete "/api/npc/{npcid}" => core DeleteNpc, Admin,
        "Delete an NPC and everything of it (rows, vectors, tokens)",
        req: None, resp: "Ok"),
    route!(Post "/api/conversation/{npcid}" => core AppendConversation, Admin,
        "Append conversation turns (idempotent on session_id + turn index)",
        req: Some("ConversationAppend"), resp: "ConversationAppendResponse"),
    route!(Get "/api/conversation/{npcid}" => core GetConversation, Admin, "Read the conversation log",
        req: None, resp: "ConversationView",
        query: &[QueryParam { name: "since", kind: "integer",
            description: "only entries with seq greater than this" }, PAGE]),
    route!(Post "/api/relationship/{npcid}" => core PostRelationship, Admin,
        "Apply explicit entity operations", req: Some("EntityOpsRequest"),
        resp: "EntityOpsResponse"),
    route!(Post "/api/memories/{npcid}" => core AddMemories, Admin,
        "Add memories (conflict resolution decides insert / reinforce / supersede)",
        req: Some("AddMemoriesRequest"), resp: "AddMemoriesResponse"),
    route!(Get "/api/memories/{npcid}" => core ListMemories, Admin,
    "List memories with computed strength and tier", req: None, resp: "MemoryList",
    query: &[
        QueryParam { name: "types", kind: "string",
            description: "comma-separated memory types (empty: all)" },
        QueryParam { name: "collection", kind: "string",
            description: "memory (default), content, diary, emotion or all" },
        QueryParam { name: "include_superseded", kind: "boolean",
            description: "also list superseded memories" },
        QueryParam { name: "offset", kind: "integer", description: "skip this many" },
        PAGE,
    ]),
    route!(Patch "/api/memories/{npcid}/{id}" => core UpdateMemory, Admin,
        "Change a memory's summary, type, keywords, importance, sensitivity or pin",
        req: Some("MemoryPatch"), resp: "UpdateMemoryResponse"),
    route!(Delete "/api/memories/{npcid}/{id}" => core DeleteMemory, Admin,
        "Delete a memory (and its vector)", req: None, resp: "Ok"),
    route!(Delete "/api/memories/{npcid}" => core ForgetMemories, Admin,
        "Delete every memory of the NPC (profile, relationships, diary window and log stay)",
        req: None, resp: "Forgot",
        query: &[QueryParam { name: "confirm", kind: "string",
            description: "required: the npcid again" }]),
    route!(Post "/api/memories/{npcid}/search" => core SearchMemories, Admin,
        "Search with the retrieval ranking (debug: per-signal contributions)",
        req: Some("SearchRequest"), resp: "SearchResponse"),
    route!(Post "/api/npc/{npcid}/brief" => core Brief, Admin,
        "A session brief within a token budget: profile, constraints, people, pinned and \
         strong memories, recent diary, what a query is about; never sensitive",
        req: Some("BriefRequest"), resp: "BriefResponse"),
    route!(Post "/api/npc/{npcid}/tokens" => core IssueToken, Admin,
        "Issue a token bound to this NPC (shown once): memory_retrieval, or MCP read / write",
        req: Some("TokenRequest"), resp: "TokenIssued"),
    route!(Delete "/api/npc/{npcid}/tokens/{token_id}" => core RevokeToken, Admin,
        "Revoke a token", req: None, resp: "Ok"),
    route!(Get "/api/npc/{npcid}/export" => core ExportNpc, Admin,
        "Export the NPC's whole memory as one versioned document", req: None,
        resp: "NpcExport"),
    route!(Post "/api/npc/{npcid}/import" => core ImportNpc, Admin,
        "Import an export document into this NPC", req: Some("NpcExport"), resp: "NpcView"),
    route!(Post "/api/npc/{npcid}/vectors/rebuild" => core RebuildVectors, Admin,
        "Rebuild the NPC's vector index from D1 (the source of truth)", req: None,
        resp: "RebuildResponse"),
    route!(Post "/api/admin/reembed" => Reembed, Admin,
        "Adopt the configured embedder and re-embed every NPC, a page per call",
        req: None, resp: "ReembedResponse",
        query: &[QueryParam { name: "after", kind: "string",
            description: "the `next` of the previous call (absent on the first)" }]),
    // ---- memory_retrieval (SPEC §3.4) ----
    route!(Post "/memory_retrieval" => MemoryRetrieval, RetrievalToken,
        "Memories for a live conversation; the token decides the NPC",
        req: Some("RetrievalRequest"), resp: "RetrievalResponse"),
    route!(Post "/memory_retrieval/fake" => FakeRetrieval, Public,
        "Demo provider: the built-in character 01 (灵绯), no token",
        req: Some("RetrievalRequest"), resp: "RetrievalResponse"),
    // ---- MCP ----
    route!(Post "/mcp" => Mcp, McpToken,
        "MCP over Streamable HTTP (JSON-RPC 2.0): initialize, tools/list, tools/call",
        req: Some("JsonRpcRequest"), resp: "JsonRpcResponse"),
    // ---- the inspection dashboard ----
    route!(Get "/dashboard" => Dashboard, Static, "The inspection dashboard",
        req: None, resp: "Ok"),
    route!(Get "/dashboard/app.js" => Dashboard, Static, "The dashboard's script",
        req: None, resp: "Ok"),
    route!(Get "/dashboard/app.css" => Dashboard, Static, "The dashboard's styles",
        req: None, resp: "Ok"),
    // ---- test hooks (test builds only; HIPPO_TEST_HOOKS=1 and the admin token) ----
    #[cfg(feature = "test-hooks")]
    route!(Post "/__test/store-suite" => StoreSuite, TestHook,
        "Run the core's backend suite against D1", req: None, resp: "Ok"),
    #[cfg(feature = "test-hooks")]
    route!(Post "/__test/memory-sync" => MemorySync, TestHook,
        "Check isolates' copies of memories against SQL", req: None, resp: "Ok"),
    #[cfg(feature = "test-hooks")]
    route!(Post "/__test/vector-suite" => VectorSuite, TestHook,
        "Run the core's vector index suite against the configured index", req: None,
        resp: "Ok"),
    #[cfg(feature = "test-hooks")]
    route!(Post "/__test/fetch" => FetchProbe, TestHook,
        "One POST through the Worker's HTTP client (timeouts)", req: None, resp: "Ok"),
    #[cfg(feature = "test-hooks")]
    route!(Get "/__test/memory" => MemoryProbe, TestHook,
        "The isolate's wasm linear memory and vector cache sizes", req: None, resp: "Ok"),
];

/// The routes whose pattern fits `path`, for 405 answers (`Allow`).
pub fn methods_for(path: &str) -> Vec<&'static Route> {
    ROUTES.iter().filter(|r| r.matches_path(path)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn routes_are_unique_and_convert_to_router_syntax() {
        let mut seen = HashSet::new();
        for r in ROUTES {
            assert!(
                seen.insert((r.method.to_string(), r.path)),
                "duplicate {r:?}"
            );
        }
        let pkg = ROUTES
            .iter()
            .find(|r| r.op == Op::Core(OpKind::RevokeToken))
            .unwrap();
        assert_eq!(pkg.router_path(), "/api/npc/:npcid/tokens/:token_id");
    }

    #[test]
    fn every_api_route_is_admin_and_every_admin_route_is_api() {
        for r in ROUTES {
            assert_eq!(
                r.path.starts_with("/api/"),
                r.access == Access::Admin,
                "{r:?}"
            );
            if r.path.starts_with("/api/")
                && r.path != "/api/npc"
                && !r.path.starts_with("/api/admin/")
            {
                assert!(r.path.contains("{npcid}"), "{r:?} must be scoped by npcid");
            }
        }
    }

    /// What a production build serves: no test hook at all (compiled out, not just off).
    #[cfg(not(feature = "test-hooks"))]
    #[test]
    fn production_builds_have_no_test_routes() {
        for r in ROUTES {
            assert!(
                r.access != Access::TestHook && !r.path.starts_with("/__test"),
                "{r:?}"
            );
        }
    }

    #[test]
    fn every_core_operation_has_one_route_and_every_route_a_method_the_router_takes() {
        for kind in OpKind::ALL {
            let routes = ROUTES.iter().filter(|r| r.op == Op::Core(kind)).count();
            // memory_retrieval runs `Retrieve` after resolving its NPC (token or demo).
            let want = usize::from(kind != OpKind::Retrieve);
            assert_eq!(routes, want, "{kind:?}");
        }
        for r in ROUTES {
            assert!(
                matches!(
                    r.method,
                    Method::Get | Method::Post | Method::Put | Method::Patch | Method::Delete
                ),
                "{r:?}"
            );
        }
    }

    #[test]
    fn path_shapes() {
        let r = ROUTES
            .iter()
            .find(|r| r.op == Op::Core(OpKind::DeleteMemory))
            .unwrap();
        assert!(r.matches_path("/api/memories/a/m1"));
        assert!(!r.matches_path("/api/memories/a"));
        assert!(!r.matches_path("/api/memories/a/"));
        let methods: Vec<String> = methods_for("/api/pkg/x")
            .iter()
            .map(|r| r.method.to_string())
            .collect();
        assert_eq!(methods, ["GET", "PUT"]);
    }
}
