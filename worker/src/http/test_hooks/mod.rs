//! Test-only routes: they run Rust-side suites inside the real Worker so the Node tests can
//! assert on real bindings (D1 in Miniflare, a stand-in Vectorize). Compiled only with the
//! `test-hooks` feature (the test build, worker/build-test); served only with
//! `HIPPO_TEST_HOOKS=1` and the admin token (`http::handlers` checks both).
//! Test code: the request-path lints of `http` (no unchecked arithmetic or indexing) do not
//! apply to its fixtures.
#![allow(clippy::arithmetic_side_effects, clippy::indexing_slicing)]

mod memory_sync;

use crate::app::App;
use crate::d1::D1Store;
use crate::error::HttpError;
use crate::http::body::{self, query_pairs, API_LIMIT};
use crate::http::routes::Op;
use crate::net::fetch::FetchClient;
use hippo::error::PortError;
use hippo::ports::{HttpClient, HttpRequest, Store};
use hippo::store::suite::{run_store_suite, run_vector_suite};
use hippo::store::ShardedStore;
use serde::Deserialize;
use serde_json::{json, Value};
use std::rc::Rc;
use worker::{Request, Response};

/// Serves one `/__test/*` route (access was checked by the caller).
pub async fn serve(op: Op, req: &mut Request, app: &App) -> Result<Response, HttpError> {
    let answer = match op {
        Op::StoreSuite => store_suite(app, shard_param(req)?.as_deref()).await,
        Op::MemorySync => memory_sync(app, shard_param(req)?.as_deref()).await,
        Op::VectorSuite => vector_suite(app).await,
        Op::FetchProbe => {
            let bytes = body::read_limited(req, API_LIMIT).await?;
            fetch_probe(hippo::api::parse_body(&bytes)?).await
        }
        Op::MemoryProbe => memory_probe(),
        other => return Err(HttpError::internal(format!("{other:?} is not a test hook"))),
    };
    Ok(Response::from_json(&answer)?)
}

fn report(cases: Vec<(String, Result<(), String>)>) -> Value {
    let failed = cases.iter().filter(|(_, r)| r.is_err()).count();
    json!({
        "status": if failed == 0 { "ok" } else { "failed" },
        "failed": failed,
        "cases": cases.into_iter().map(|(name, r)| json!({
            "name": name,
            "ok": r.is_ok(),
            "error": r.err(),
        })).collect::<Vec<_>>(),
    })
}

/// A prefix no earlier run used, so runs against one database never collide.
fn run_prefix(kind: &str) -> String {
    format!(
        "{kind}{}-",
        hippo::ids::hex(&hippo::ids::random_bytes::<4>())
    )
}

/// `?shard=<binding>`: run on that shard's database alone (absent: the deployment's store).
fn shard_param(req: &Request) -> Result<Option<String>, HttpError> {
    Ok(hippo::api::param(&query_pairs(req)?, "shard").map(str::to_string))
}

/// The store with every memory read in SQL, of one shard or of the deployment.
fn sql_only(app: &App, shard: Option<&str>) -> Result<Rc<dyn Store>, HttpError> {
    let names: Vec<String> = match shard {
        Some(name) => vec![name.to_string()],
        None => app.config.shards.names().to_vec(),
    };
    let mut stores: Vec<Rc<dyn Store>> = Vec::new();
    for name in &names {
        let db = crate::app::database(&app.env, name)?;
        stores.push(Rc::new(D1Store::new(db, None, Default::default())));
    }
    if stores.len() == 1 {
        return Ok(stores.remove(0));
    }
    let sharded = ShardedStore::new(app.config.shards.clone(), stores)
        .map_err(|e| HttpError::internal(e.to_string()))?;
    Ok(Rc::new(sharded))
}

/// The core's backend suite against the Worker's store (D1): as the routes run it (memories
/// read through the isolate's copy), and with every memory read in SQL. `shard`: against that
/// shard's database alone; otherwise against the deployment's (sharded) store.
pub async fn store_suite(app: &App, shard: Option<&str>) -> Value {
    let mut cases: Vec<(String, Result<(), String>)> = Vec::new();
    let cached: Result<Rc<dyn Store>, HttpError> = match shard {
        None => Ok(app.hippo.ports().store.clone()),
        Some(name) => crate::app::database(&app.env, name).map(|db| {
            let isolate = Some(crate::d1::memory_cache::isolate());
            Rc::new(D1Store::new(db, isolate, Default::default())) as Rc<dyn Store>
        }),
    };
    for (variant, store) in [("cached", cached), ("sql", sql_only(app, shard))] {
        match store {
            Ok(store) => {
                for (name, result) in run_store_suite(&*store, &run_prefix("s")).await {
                    cases.push((format!("{variant}/{name}"), result));
                }
            }
            Err(err) => cases.push((variant.into(), Err(err.message))),
        }
    }
    report(cases)
}

/// Isolates' copies of memories against SQL, across writes of other isolates, in the default
/// database or in `shard`'s.
pub async fn memory_sync(app: &App, shard: Option<&str>) -> Value {
    let db = crate::app::database(&app.env, shard.unwrap_or(crate::app::DB_BINDING));
    let cases = match db {
        Ok(db) => memory_sync::run(db, &run_prefix("m")).await,
        Err(err) => vec![("setup".into(), Err(err.message))],
    };
    report(cases)
}

/// The core's vector index suite against whichever index the Worker runs (D1, or the
/// Vectorize adapter when `VECTORS` is bound).
pub async fn vector_suite(app: &App) -> Value {
    let index = app.hippo.ports().vectors.clone();
    report(run_vector_suite(&*index, &run_prefix("v")).await)
}

/// `POST /__test/fetch`: one request through [`FetchClient`].
#[derive(Debug, Deserialize)]
pub struct FetchProbe {
    url: String,
    timeout_ms: u32,
}

/// What the HTTP client made of one request: status, or the kind of failure, and how long
/// it took (a timeout must end the wait near `timeout_ms`, however long the server takes).
pub async fn fetch_probe(probe: FetchProbe) -> Value {
    let started = js_sys::Date::now();
    let result = FetchClient
        .post(HttpRequest {
            url: probe.url,
            headers: vec![("content-type".into(), "application/json".into())],
            body: "{}".into(),
            timeout_ms: probe.timeout_ms,
        })
        .await;
    let elapsed_ms = js_sys::Date::now() - started;
    match result {
        Ok(response) => {
            json!({ "status": response.status, "body": response.body, "ms": elapsed_ms })
        }
        Err(PortError::Timeout(m)) => json!({ "error": "timeout", "message": m, "ms": elapsed_ms }),
        Err(e) => json!({ "error": "backend", "message": e.to_string(), "ms": elapsed_ms }),
    }
}

/// `GET /__test/memory`: what this isolate's wasm holds. Linear memory never shrinks, so a
/// size that keeps growing under a steady load is a Rust-side leak (or an unbounded cache).
pub fn memory_probe() -> Value {
    let (npcs, items) = crate::d1::vector_cache::size();
    let memories = crate::d1::memory_cache::isolate();
    let memories = memories.borrow();
    json!({
        "wasm_memory_bytes": wasm_memory_bytes(),
        "vector_cache": {
            "npcs": npcs,
            "items": items,
            "capacity": crate::d1::vector_cache::CAPACITY,
        },
        "memory_cache": {
            "npcs": memories.npcs(),
            "memories": memories.held(),
            "capacity": crate::d1::memory_cache::CAPACITY,
        },
    })
}

fn wasm_memory_bytes() -> usize {
    #[cfg(target_arch = "wasm32")]
    return core::arch::wasm32::memory_size::<0>() * 65536;
    #[cfg(not(target_arch = "wasm32"))]
    return 0;
}
