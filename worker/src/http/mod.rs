//! The HTTP surface: the route table, the router built from it, and the error shapes.
#![deny(
    clippy::indexing_slicing,
    clippy::string_slice,
    clippy::arithmetic_side_effects
)]

pub mod auth;
pub mod body;
mod handlers;
pub mod mcp;
pub mod openapi;
pub mod routes;
#[cfg(feature = "test-hooks")]
pub mod test_hooks;

use crate::error::{HttpError, Surface};
use hippo::engine::Deferred;
use routes::{Route, ROUTES};
use std::rc::Rc;
use worker::{Env, Method, Request, Response, RouteContext, Router};

async fn run_route(
    route: &'static Route,
    req: Request,
    ctx: RouteContext<Rc<Deferred>>,
) -> worker::Result<Response> {
    let surface = route.surface();
    // Touches wait up to `FLUSH_LINGER_MS` for company; any other request of this isolate
    // (a write, a delete, an export) first commits them, so a client that retrieves, then
    // deletes or re-imports an NPC, never has an older touch land on the newer rows.
    if route.op.follows_queued_touches() && !ctx.data.is_empty() {
        crate::flush_reinforcement(&ctx.data).await;
    }
    match handlers::serve(route, req, ctx).await {
        Ok(response) => Ok(response),
        Err(err) => err.response(surface),
    }
}

/// The router of [`ROUTES`]: one registration per table entry. `deferred` is where the
/// request's retrievals queue their reinforcement.
fn router(deferred: Rc<Deferred>) -> Router<'static, Rc<Deferred>> {
    let mut router = Router::with_data(deferred);
    for route in ROUTES {
        let path = route.router_path();
        let handler = move |req, ctx| run_route(route, req, ctx);
        router = match route.method {
            Method::Get => router.get_async(&path, handler),
            Method::Post => router.post_async(&path, handler),
            Method::Put => router.put_async(&path, handler),
            Method::Delete => router.delete_async(&path, handler),
            Method::Patch => router.patch_async(&path, handler),
            // The route table uses only the five methods above (a test checks it).
            _ => router,
        };
    }
    router
}

/// Whether a response is the router's own plain-text 404/405 (our handlers answer JSON).
fn is_router_fallback(response: &Response) -> bool {
    matches!(response.status_code(), 404 | 405)
        && !response
            .headers()
            .get("content-type")
            .ok()
            .flatten()
            .is_some_and(|t| t.starts_with("application/json"))
}

/// Answers one request. Unknown paths (404) and wrong methods (405, with `Allow`) get the
/// JSON error shape of their surface, like every other error. Reinforcement writes of its
/// retrievals are left in `deferred`, for the caller to flush once the answer is sent.
pub async fn handle(req: Request, env: Env, deferred: Rc<Deferred>) -> worker::Result<Response> {
    let method = req.method();
    let path = req.path();
    let surface = Surface::of_path(&path);
    let response = match router(deferred).run(req, env).await {
        Ok(response) => response,
        Err(err) => return HttpError::from(err).response(surface),
    };
    if !is_router_fallback(&response) {
        return Ok(response);
    }
    let allowed: Vec<String> = routes::methods_for(&path)
        .iter()
        .filter(|r| r.method != method)
        .map(|r| r.method.to_string())
        .collect();
    if allowed.is_empty() {
        return HttpError::route_not_found(method.as_ref(), &path).response(surface);
    }
    let mut response = HttpError::method_not_allowed(method.as_ref(), &path).response(surface)?;
    response.headers_mut().set("allow", &allowed.join(", "))?;
    Ok(response)
}
