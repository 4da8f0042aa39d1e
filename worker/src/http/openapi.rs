//! `GET /openapi.json`: OpenAPI 3.1, generated from the route table (paths, methods, auth,
//! parameters, errors) plus the component schemas in `openapi_components.json`, which
//! `make contract` writes from the Rust wire types (src/contract.rs) and the hand-written
//! `openapi_handwritten.json`; edit those, not the components file.

use super::routes::{Access, Op, Route, ROUTES};
use crate::error::Surface;
use serde_json::{json, Map, Value};

const COMPONENTS: &str = include_str!("openapi_components.json");

fn schema_ref(name: &str) -> Value {
    json!({ "$ref": format!("#/components/schemas/{name}") })
}

fn json_content(schema: Value) -> Value {
    json!({ "application/json": { "schema": schema } })
}

fn error_response(description: &str, surface: Surface) -> Value {
    let schema = match surface {
        Surface::Retrieval => "RetrievalError",
        Surface::Mcp => "JsonRpcResponse",
        Surface::Api => "ApiError",
    };
    json!({ "description": description, "content": json_content(schema_ref(schema)) })
}

fn path_params(route: &Route) -> Vec<Value> {
    route
        .path
        .split('/')
        .filter_map(|seg| seg.strip_prefix('{')?.strip_suffix('}'))
        .map(|name| {
            let schema = if name == "npcid" {
                json!({
                    "type": "string",
                    "pattern": "^[A-Za-z0-9_.:-]{1,64}$",
                    "description": "not . or .. (URL normalisation removes those segments)"
                })
            } else {
                json!({ "type": "string" })
            };
            json!({ "name": name, "in": "path", "required": true, "schema": schema })
        })
        .collect()
}

fn operation(route: &Route) -> Value {
    let retrieval = route.access == Access::RetrievalToken || route.op == Op::FakeRetrieval;
    let mut op = Map::new();
    op.insert("operationId".into(), json!(format!("{:?}", route.op)));
    op.insert("summary".into(), json!(route.summary));
    let tag = if retrieval {
        "memory_retrieval"
    } else if route.path.starts_with("/api/") {
        "api"
    } else {
        "service"
    };
    op.insert("tags".into(), json!([tag]));
    let mut parameters = path_params(route);
    parameters.extend(route.query.iter().map(|q| {
        // Every integer query parameter is a count, an offset or a sequence number.
        let schema = match q.kind {
            "integer" => json!({ "type": "integer", "minimum": 0 }),
            kind => json!({ "type": kind }),
        };
        json!({ "name": q.name, "in": "query", "required": false,
                "description": q.description, "schema": schema })
    }));
    if !parameters.is_empty() {
        op.insert("parameters".into(), Value::Array(parameters));
    }
    if let Some(request) = route.request {
        op.insert(
            "requestBody".into(),
            json!({ "required": true, "content": json_content(schema_ref(request)) }),
        );
    }
    let mut responses = Map::new();
    responses.insert(
        "200".into(),
        json!({ "description": "OK", "content": json_content(schema_ref(route.response)) }),
    );
    let mut error = |status: &str, why: &str| {
        responses.insert(status.into(), error_response(why, route.surface()));
    };
    match route.access {
        Access::Admin => {
            op.insert("security".into(), json!([{ "adminToken": [] }]));
            error("400", "invalid npcid, parameters or body");
            error("401", "missing or wrong admin token");
            if route.path.contains("{npcid}") {
                error("404", "unknown NPC or item");
            }
            error(
                "503",
                "HIPPO_ADMIN_TOKEN (or another setting) is not configured",
            );
        }
        Access::RetrievalToken => {
            op.insert("security".into(), json!([{ "retrievalToken": [] }]));
            error("400", "invalid_request (e.g. empty query)");
            error(
                "401",
                "unauthorized: missing, unknown, revoked or expired token",
            );
        }
        Access::McpToken => {
            op.insert(
                "security".into(),
                json!([{ "adminToken": [] }, { "mcpToken": [] }]),
            );
            error(
                "400",
                "not one JSON-RPC 2.0 message, or an unsupported MCP-Protocol-Version",
            );
            error("401", "missing or wrong admin or MCP token");
            error("403", "an Origin other than the Worker's");
        }
        Access::Public if retrieval => error("400", "invalid_request (e.g. empty query)"),
        Access::Public | Access::TestHook | Access::Static => {}
    }
    if route.op == Op::Core(hippo::api::OpKind::Dream) {
        error("409", "a dream of this NPC is already running");
    }
    if route.request.is_some() {
        error(
            "413",
            "body over the limit (256 KiB on /api, 16 KiB on memory_retrieval)",
        );
    }
    if route.op != Op::Health && route.op != Op::OpenApi {
        error("500", "internal error");
    }
    op.insert("responses".into(), Value::Object(responses));
    Value::Object(op)
}

/// The routes the document describes: all but the test hooks and the dashboard's files.
pub fn documented_routes() -> impl Iterator<Item = &'static Route> {
    ROUTES
        .iter()
        .filter(|r| !matches!(r.access, Access::TestHook | Access::Static))
}

#[allow(
    clippy::expect_used,
    reason = "compiled-in JSON, parsed by the tests: no request can change it"
)]
pub fn document() -> Value {
    let mut paths = Map::new();
    for route in documented_routes() {
        let item = paths
            .entry(route.path.to_string())
            .or_insert_with(|| json!({}));
        item[route.method.to_string().to_lowercase()] = operation(route);
    }
    let schemas: Value = serde_json::from_str(COMPONENTS).expect("openapi_components.json is JSON");
    json!({
        "openapi": "3.1.0",
        "info": {
            "title": "Hippo",
            "version": env!("CARGO_PKG_VERSION"),
            "description": "Memory engine for AI characters: the Hippo microservice (/api) and \
                            the memory_retrieval endpoint of live digital-human platforms."
        },
        "paths": paths,
        "components": {
            "schemas": schemas,
            "securitySchemes": {
                "adminToken": { "type": "http", "scheme": "bearer",
                    "description": "HIPPO_ADMIN_TOKEN" },
                "retrievalToken": { "type": "apiKey", "in": "header", "name": "Authorization",
                    "description": "A token from POST /api/npc/{npcid}/tokens, bare or as \
                                    `Bearer <token>`" },
                "mcpToken": { "type": "http", "scheme": "bearer",
                    "description": "A token from POST /api/npc/{npcid}/tokens with the read \
                                    and/or write scope, bound to one NPC" }
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refs(value: &Value, out: &mut Vec<String>) {
        match value {
            Value::Object(map) => {
                if let Some(Value::String(r)) = map.get("$ref") {
                    out.push(r.clone());
                }
                map.values().for_each(|v| refs(v, out));
            }
            Value::Array(items) => items.iter().for_each(|v| refs(v, out)),
            _ => {}
        }
    }

    #[test]
    fn every_route_of_the_table_is_documented_once() {
        let doc = document();
        let mut operations = 0;
        for (path, item) in doc["paths"].as_object().unwrap() {
            for (method, op) in item.as_object().unwrap() {
                operations += 1;
                let route = documented_routes()
                    .find(|r| r.path == path && r.method.to_string().to_lowercase() == *method)
                    .unwrap_or_else(|| panic!("{method} {path} is not a route"));
                assert_eq!(op["operationId"], format!("{:?}", route.op));
                assert!(op["responses"]["200"].is_object());
            }
        }
        assert_eq!(operations, documented_routes().count());
        assert!(doc["paths"].get("/__test/store-suite").is_none());
    }

    #[test]
    fn every_schema_reference_resolves() {
        let doc = document();
        let mut all = Vec::new();
        refs(&doc, &mut all);
        assert!(!all.is_empty());
        for r in all {
            let name = r.strip_prefix("#/components/schemas/").expect("local ref");
            assert!(
                doc["components"]["schemas"].get(name).is_some(),
                "unresolved {r}"
            );
        }
    }

    #[test]
    fn admin_routes_declare_auth_and_errors() {
        let doc = document();
        let put_pkg = &doc["paths"]["/api/pkg/{npcid}"]["put"];
        assert_eq!(put_pkg["security"], json!([{ "adminToken": [] }]));
        for status in ["400", "401", "404", "413", "500", "503"] {
            assert!(put_pkg["responses"][status].is_object(), "{status}");
        }
        let retrieval = &doc["paths"]["/memory_retrieval"]["post"];
        assert_eq!(
            retrieval["responses"]["401"]["content"]["application/json"]["schema"]["$ref"],
            "#/components/schemas/RetrievalError"
        );
    }
}
