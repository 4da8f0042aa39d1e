//! One thin handler per route: check access, then hand the route's path parameters, query
//! string and body bytes to the core (`hippo::api::Operation::parse`, then
//! `Hippo::execute`) and serialize its answer. The two retrieval routes resolve their NPC
//! first (the token, or the demo character) and parse with the same protocol function.

use super::auth::require_admin;
use super::body::{self, query_pairs, API_LIMIT};
use super::routes::{Access, Op, Route};
use crate::app::App;
use crate::config::{self, Config};
use crate::demo;
use crate::error::HttpError;
use hippo::api::protocol::{parse_retrieval_request, ParsedRetrieval, MAX_REQUEST_BYTES};
use hippo::api::{param, Caller, Operation, RawRequest, Reply as CoreReply};
use hippo::engine::Deferred;
use serde::Serialize;
use std::rc::Rc;
use worker::{Request, Response, RouteContext};

type Reply = Result<Response, HttpError>;

fn ok_json<T: Serialize>(value: &T) -> Reply {
    Ok(Response::from_json(value)?)
}

/// The values of the route's `{name}` path segments, as the router matched them.
fn path_params<'a>(
    route: &Route,
    ctx: &'a RouteContext<Rc<Deferred>>,
) -> Vec<(&'static str, &'a str)> {
    route
        .path
        .split('/')
        .filter_map(|seg| seg.strip_prefix('{').and_then(|s| s.strip_suffix('}')))
        .map(|name| (name, ctx.param(name).map_or("", String::as_str)))
        .collect()
}

/// Serves `route`: access first (503/401), then the route's own work.
pub async fn serve(route: &Route, mut req: Request, ctx: RouteContext<Rc<Deferred>>) -> Reply {
    // Routes that need neither configuration nor storage.
    match route.op {
        Op::Health => return ok_json(&hippo::api::Ok::new()),
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
        Access::TestHook => require_admin(
            config::admin_token(var).as_deref(),
            authorization.as_deref(),
        )?,
        _ => {}
    }
    // Only now the rest of the configuration: its errors name variables (503).
    let app = App::from_env(&ctx.env, ctx.data.clone())?;
    let hippo = &app.hippo;
    match route.op {
        Op::Health => ok_json(&hippo::api::Ok::new()),
        Op::OpenApi => ok_json(&super::openapi::document()),
        Op::Dashboard => dashboard_asset(route.path),
        Op::Core(kind) => {
            let body = match route.request {
                Some(_) => body::read_limited(&mut req, API_LIMIT).await?,
                None => Vec::new(),
            };
            let query = query_pairs(&req)?;
            let path = path_params(route, &ctx);
            let raw = RawRequest {
                path: &path,
                query: &query,
                body: &body,
            };
            ok_json(&hippo.execute(Operation::parse(kind, &raw)?).await?)
        }
        Op::Reembed => {
            let after = param(&query_pairs(&req)?, "after").map(str::to_string);
            ok_json(&hippo.reembed_page(after.as_deref()).await?)
        }
        Op::MemoryRetrieval => {
            let header = authorization
                .ok_or_else(|| HttpError::unauthorized("missing Authorization token"))?;
            let caller = hippo.resolve_caller(&header).await?;
            let parsed = retrieval_body(&mut req).await?;
            retrieve(&app, Some(&caller), parsed).await
        }
        Op::FakeRetrieval => {
            let parsed = retrieval_body(&mut req).await?;
            retrieve(&app, None, parsed).await
        }
        Op::Mcp => {
            let admin = config::admin_token(var);
            match super::mcp::serve(&app, admin.as_deref(), &mut req).await {
                Ok(response) => Ok(response),
                Err(err) => Ok(super::mcp::error_response(&err)?),
            }
        }
        #[cfg(feature = "test-hooks")]
        Op::StoreSuite | Op::MemorySync | Op::VectorSuite | Op::FetchProbe | Op::MemoryProbe => {
            crate::http::test_hooks::serve(route.op, &mut req, &app).await
        }
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

/// A memory_retrieval body: 413 over the core's limit (counted while it streams in), then the
/// protocol's lenient parse (unknown fields ignored, `max_results` clamped; 400 only for a
/// missing query or a body that is not a JSON object): what `Operation::parse` does for
/// `OpKind::Retrieve`, and so what the npm package does.
async fn retrieval_body(req: &mut Request) -> Result<ParsedRetrieval, HttpError> {
    let bytes = body::read_limited(req, MAX_REQUEST_BYTES).await?;
    Ok(parse_retrieval_request(&bytes)?)
}

/// memory_retrieval for `npcid` (`None`: the fake provider's character 01): rank, and log one
/// line (`reason` is logged, never ranked).
async fn retrieve(app: &App, caller: Option<&Caller>, parsed: ParsedRetrieval) -> Reply {
    let started = js_sys::Date::now();
    let reason: String = parsed
        .reason
        .as_deref()
        .unwrap_or("")
        .chars()
        .take(120)
        .collect();
    let (npcid, response) = match caller {
        Some(caller) => {
            let npcid = caller.npcid().ok_or_else(|| {
                HttpError::unauthorized("memory_retrieval takes a token bound to an NPC")
            })?;
            let op = Operation::Retrieve {
                npcid: npcid.to_string(),
                request: parsed,
            };
            // The one access rule: the token's scopes allow `Retrieve` on its own NPC.
            match app.hippo.execute_as(caller, op).await? {
                CoreReply::Retrieval(response) => (npcid, response),
                _ => {
                    return Err(HttpError::from(hippo::Error::Internal(
                        "memory_retrieval answered another reply".into(),
                    )))
                }
            }
        }
        None => (demo::DEMO_NPCID, demo::retrieve(&app.hippo, parsed).await?),
    };
    worker::console_log!(
        "memory_retrieval npc={npcid} results={} ms={} reason={reason:?}",
        response.memories.len(),
        (js_sys::Date::now() - started) as i64
    );
    ok_json(&response)
}
