//! One thin handler per route: check access, read the path and body into the core's `api`
//! type, call the matching [`hippo::Hippo`] method, serialize its answer.

use super::auth::require_admin;
use super::body::{self, bool_param, number_param, param, query_pairs, API_LIMIT, RETRIEVAL_LIMIT};
use super::error::HttpError;
use super::routes::{Access, Op, Route};
use crate::app::App;
use crate::config::{self, Config};
use crate::{demo, test_hooks};
use hippo::api::*;
use hippo::engine::ListMemoriesQuery;
use hippo::engine::{LOG_PAGE_DEFAULT, NPC_PAGE_DEFAULT};
use hippo::ids::validate_npcid;
use hippo::retrieval::protocol::{parse_retrieval_request, ParsedRetrieval};
use serde::Serialize;
use serde_json::json;
use worker::{Request, Response, RouteContext};

type Reply = Result<Response, HttpError>;

fn ok_json<T: Serialize>(value: &T) -> Reply {
    Ok(Response::from_json(value)?)
}

fn ok_status() -> Reply {
    ok_json(&hippo::api::Ok::new())
}

/// Path parameters, validated: `npcid` by the core's rule (400), others non-empty.
struct Params<'a> {
    ctx: &'a RouteContext<()>,
}

impl Params<'_> {
    fn npcid(&self) -> Result<String, HttpError> {
        let npcid = self.ctx.param("npcid").cloned().unwrap_or_default();
        validate_npcid(&npcid)?;
        Ok(npcid)
    }

    fn get(&self, name: &str) -> Result<String, HttpError> {
        self.ctx
            .param(name)
            .filter(|v| !v.is_empty())
            .cloned()
            .ok_or_else(|| HttpError::bad_request(format!("missing path parameter {name}")))
    }
}

/// Serves `route`: access first (503/401), then the route's own work.
pub async fn serve(route: &Route, mut req: Request, ctx: RouteContext<()>) -> Reply {
    // Routes that need neither configuration nor storage.
    match route.op {
        Op::Health => return ok_json(&json!({ "status": "ok" })),
        Op::OpenApi => return ok_json(&super::openapi::document()),
        Op::Dashboard => return dashboard_asset(route.path),
        _ => {}
    }
    let var = |name: &str| Config::env_var(&ctx.env, name);
    let authorization = req.headers().get("authorization")?;
    match route.access {
        Access::Admin => require_admin(
            config::admin_token(var).as_deref(),
            authorization.as_deref(),
        )?,
        Access::TestHook if !config::test_hooks(var) => {
            return Err(HttpError::route_not_found(
                req.method().as_ref(),
                &req.path(),
            ));
        }
        _ => {}
    }
    // Only now the rest of the configuration: its errors name variables (503).
    let app = App::from_env(&ctx.env)?;
    let params = Params { ctx: &ctx };
    let hippo = &app.hippo;
    match route.op {
        Op::Health | Op::OpenApi | Op::Dashboard => unreachable!("served above"),
        Op::ListNpcs => {
            let q = query_pairs(&req)?;
            let limit = number_param(&q, "limit", NPC_PAGE_DEFAULT as u64)? as usize;
            ok_json(&hippo.list_npcs(param(&q, "after"), limit).await?)
        }
        Op::GetNpc => ok_json(&hippo.get_npc(&params.npcid()?).await?),
        Op::PutNpc => {
            let npcid = params.npcid()?;
            let upsert: NpcUpsert = body::json(&mut req, API_LIMIT).await?;
            ok_json(&hippo.upsert_npc(&npcid, upsert).await?)
        }
        Op::DeleteNpc => {
            hippo.delete_npc(&params.npcid()?).await?;
            ok_status()
        }
        Op::GetPkg => ok_json(&hippo.get_pkg(&params.npcid()?).await?),
        Op::PutPkg => {
            let npcid = params.npcid()?;
            let update: PkgUpdateRequest = body::json(&mut req, API_LIMIT).await?;
            ok_json(&hippo.update_pkg(&npcid, update).await?)
        }
        Op::GetRelationship => ok_json(&hippo.get_relationships(&params.npcid()?).await?),
        Op::PostRelationship => {
            let npcid = params.npcid()?;
            let ops: EntityOpsRequest = body::json(&mut req, API_LIMIT).await?;
            ok_json(&hippo.apply_entity_ops(&npcid, ops).await?)
        }
        Op::GetDiary => ok_json(&hippo.get_diary(&params.npcid()?).await?),
        Op::Dream => {
            let npcid = params.npcid()?;
            let dry_run = bool_param(&query_pairs(&req)?, "dry_run")?;
            let report = hippo.dream(&npcid, dry_run).await?;
            ok_json(&DreamResponse {
                status: "ok".into(),
                report,
            })
        }
        Op::AppendConversation => {
            let npcid = params.npcid()?;
            let append: ConversationAppend = body::json(&mut req, API_LIMIT).await?;
            ok_json(&hippo.append_conversation(&npcid, append).await?)
        }
        Op::GetConversation => {
            let npcid = params.npcid()?;
            let q = query_pairs(&req)?;
            let since = number_param(&q, "since", 0)?;
            let limit = number_param(&q, "limit", LOG_PAGE_DEFAULT as u64)? as usize;
            ok_json(&hippo.get_conversation(&npcid, since, limit).await?)
        }
        Op::AddMemories => {
            let npcid = params.npcid()?;
            let add: AddMemoriesRequest = body::json(&mut req, API_LIMIT).await?;
            ok_json(&hippo.add_memories(&npcid, add).await?)
        }
        Op::ListMemories => {
            let npcid = params.npcid()?;
            ok_json(&hippo.list_memories(&npcid, list_query(&req)?).await?)
        }
        Op::UpdateMemory => {
            let npcid = params.npcid()?;
            let id = params.get("id")?;
            let patch: MemoryPatch = body::json(&mut req, API_LIMIT).await?;
            ok_json(&hippo.update_memory(&npcid, &id, patch).await?)
        }
        Op::DeleteMemory => {
            let npcid = params.npcid()?;
            hippo.delete_memory(&npcid, &params.get("id")?).await?;
            ok_status()
        }
        Op::SearchMemories => {
            let npcid = params.npcid()?;
            let search: SearchRequest = body::json(&mut req, API_LIMIT).await?;
            ok_json(&hippo.search(&npcid, search).await?)
        }
        Op::Brief => {
            let npcid = params.npcid()?;
            let request: BriefRequest = body::json(&mut req, API_LIMIT).await?;
            ok_json(&hippo.brief(&npcid, request).await?)
        }
        Op::IssueToken => {
            let npcid = params.npcid()?;
            let request: TokenRequest = body::json(&mut req, API_LIMIT).await?;
            ok_json(&hippo.issue_token(&npcid, request).await?)
        }
        Op::RevokeToken => {
            let npcid = params.npcid()?;
            hippo.revoke_token(&npcid, &params.get("token_id")?).await?;
            ok_status()
        }
        Op::ExportNpc => ok_json(&hippo.export_npc(&params.npcid()?).await?),
        Op::ImportNpc => {
            let npcid = params.npcid()?;
            let doc: NpcExport = body::json(&mut req, API_LIMIT).await?;
            ok_json(&hippo.import_npc(&npcid, doc).await?)
        }
        Op::RebuildVectors => {
            let vectors = hippo.rebuild_vectors(&params.npcid()?).await?;
            ok_json(&json!({ "status": "ok", "vectors": vectors }))
        }
        Op::Reembed => {
            let after = param(&query_pairs(&req)?, "after").map(str::to_string);
            ok_json(&reembed(&app, after).await?)
        }
        Op::MemoryRetrieval => {
            let header = authorization
                .ok_or_else(|| HttpError::unauthorized("missing Authorization token"))?;
            let npcid = hippo.resolve_token(&header).await?;
            let parsed = retrieval_body(&mut req).await?;
            retrieve(&app, Some(&npcid), parsed).await
        }
        Op::FakeRetrieval => {
            let parsed = retrieval_body(&mut req).await?;
            retrieve(&app, None, parsed).await
        }
        Op::Mcp => {
            let admin = config::admin_token(var);
            Ok(super::mcp::serve(&app, admin.as_deref(), &mut req)
                .await
                .unwrap_or_else(|err| super::mcp::error_response(&err)))
        }
        Op::StoreSuite => ok_json(&test_hooks::store_suite(&app).await),
        Op::MemorySync => ok_json(&test_hooks::memory_sync(&app).await),
        Op::VectorSuite => ok_json(&test_hooks::vector_suite(&app).await),
        Op::FetchProbe => {
            let probe: test_hooks::FetchProbe = body::json(&mut req, API_LIMIT).await?;
            ok_json(&test_hooks::fetch_probe(probe).await)
        }
        Op::MemoryProbe => ok_json(&test_hooks::memory_probe()),
    }
}

/// One of the dashboard's static files, with its security headers.
fn dashboard_asset(path: &str) -> Reply {
    let (kind, body) =
        crate::dashboard::asset(path).ok_or_else(|| HttpError::route_not_found("GET", path))?;
    let mut response = Response::ok(body)?;
    let headers = response.headers_mut();
    headers.set("content-type", kind)?;
    for (name, value) in crate::dashboard::SECURITY_HEADERS {
        headers.set(name, value)?;
    }
    Ok(response)
}

/// A memory_retrieval body: 413 over 16 KiB (before parsing), then the protocol's lenient
/// parse (unknown fields ignored, `max_results` clamped; 400 only for a missing query or a
/// body that is not a JSON object).
async fn retrieval_body(req: &mut Request) -> Result<ParsedRetrieval, HttpError> {
    let bytes = body::read_limited(req, RETRIEVAL_LIMIT).await?;
    Ok(parse_retrieval_request(&bytes)?)
}

/// memory_retrieval for `npcid` (`None`: the fake provider's character 01): rank, and log one
/// line (`reason` is logged, never ranked).
async fn retrieve(app: &App, npcid: Option<&str>, parsed: ParsedRetrieval) -> Reply {
    let started = js_sys::Date::now();
    let reason: String = parsed
        .reason
        .as_deref()
        .unwrap_or("")
        .chars()
        .take(120)
        .collect();
    let request = RetrievalRequest {
        live_id: parsed.live_id.map(serde_json::Value::String),
        query: Some(parsed.query),
        reason: parsed.reason,
        memory_types: Some(
            parsed
                .memory_types
                .iter()
                .map(|t| t.as_str().to_string())
                .collect(),
        ),
        time_hint: parsed.time_hint,
        max_results: Some(json!(parsed.max_results)),
    };
    let response = match npcid {
        Some(npcid) => app.hippo.retrieve(npcid, request).await?,
        None => demo::retrieve(&app.hippo, request).await?,
    };
    let npcid = npcid.unwrap_or(demo::DEMO_NPCID);
    worker::console_log!(
        "memory_retrieval npc={npcid} results={} ms={} reason={reason:?}",
        response.memories.len(),
        (js_sys::Date::now() - started) as i64
    );
    ok_json(&response)
}

/// NPCs re-embedded per `POST /api/admin/reembed` call (Worker CPU and subrequest limits).
const REEMBED_NPCS_PER_CALL: usize = 20;

/// Re-embeds NPCs with the configured embedder, a page at a time: the first call (no
/// `after`) records the configured embedder as the database's; pass `next` until it is absent.
async fn reembed(app: &App, after: Option<String>) -> Result<serde_json::Value, HttpError> {
    let hippo = &app.hippo;
    let embedder = match &after {
        None => hippo.adopt_embedder().await?,
        Some(_) => {
            let e = &hippo.ports().embedder;
            format!("{}:{}", e.name(), e.dimension())
        }
    };
    let page = hippo
        .list_npcs(after.as_deref(), REEMBED_NPCS_PER_CALL)
        .await?;
    let mut vectors = 0;
    for npc in &page.npcs {
        vectors += hippo.rebuild_vectors(&npc.npcid).await?;
    }
    Ok(json!({
        "status": "ok",
        "embedder": embedder,
        "npcs": page.npcs.len(),
        "vectors": vectors,
        "next": page.next,
    }))
}

/// `GET /api/memories/{npcid}?types=a,b&collection=&include_superseded=&offset=&limit=`.
fn list_query(req: &Request) -> Result<ListMemoriesQuery, HttpError> {
    let q = query_pairs(req)?;
    let types = q
        .iter()
        .filter(|(k, _)| k == "types" || k == "type")
        .flat_map(|(_, v)| v.split(','))
        .map(|t| t.trim().to_string())
        .filter(|t| !t.is_empty())
        .collect();
    let limit = match param(&q, "limit") {
        Some(_) => Some(number_param(&q, "limit", 0)?.clamp(1, 1000) as usize),
        None => None,
    };
    Ok(ListMemoriesQuery {
        types,
        collection: param(&q, "collection").map(str::to_string),
        include_superseded: bool_param(&q, "include_superseded")?,
        offset: number_param(&q, "offset", 0)? as usize,
        limit,
    })
}
