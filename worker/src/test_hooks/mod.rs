//! Test-only routes (`HIPPO_TEST_HOOKS=1`): they run Rust-side suites inside the real Worker
//! so the Node tests can assert on real bindings (D1 in Miniflare, a stand-in Vectorize).

mod memory_sync;

use crate::app::App;
use crate::d1::D1Store;
use crate::net::fetch::FetchClient;
use hippo::error::PortError;
use hippo::memory::{Collection, MemoryType};
use hippo::ports::{HttpClient, HttpRequest};
use hippo::ports::{VectorFilter, VectorIndex, VectorItem};
use hippo::store::suite::run_store_suite;
use serde::Deserialize;
use serde_json::{json, Value};

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

/// The core's backend suite against the Worker's store (D1): as the routes run it (memories
/// read through the isolate's copy), and with every memory read in SQL.
pub async fn store_suite(app: &App) -> Value {
    let store = app.hippo.ports().store.clone();
    let mut cases: Vec<(String, Result<(), String>)> = Vec::new();
    for (name, result) in run_store_suite(&*store, &run_prefix("s")).await {
        cases.push((format!("cached/{name}"), result));
    }
    match app.db() {
        Ok(db) => {
            let sql_only = D1Store::with_memory_cache(db, None);
            for (name, result) in run_store_suite(&sql_only, &run_prefix("s")).await {
                cases.push((format!("sql/{name}"), result));
            }
        }
        Err(err) => cases.push(("sql".into(), Err(err.message))),
    }
    report(cases)
}

/// Isolates' copies of memories against SQL, across writes of other isolates.
pub async fn memory_sync(app: &App) -> Value {
    let cases = match app.db() {
        Ok(db) => memory_sync::run(db, &run_prefix("m")).await,
        Err(err) => vec![("setup".into(), Err(err.message))],
    };
    report(cases)
}

fn item(id: &str, collection: Collection, memory_type: MemoryType, values: [f32; 4]) -> VectorItem {
    VectorItem {
        id: id.to_string(),
        collection,
        memory_type,
        values: values.to_vec(),
    }
}

macro_rules! check {
    ($cond:expr, $($msg:tt)+) => {
        let ok: bool = $cond;
        if !ok {
            return Err(format!($($msg)+));
        }
    };
}

fn ids(hits: &[(String, f32)]) -> Vec<&str> {
    hits.iter().map(|(id, _)| id.as_str()).collect()
}

async fn namespaces_top_k_and_filters(v: &dyn VectorIndex, p: &str) -> Result<(), String> {
    let (a, b) = (format!("{p}a"), format!("{p}b"));
    let err = |e: hippo::error::PortError| e.to_string();
    v.upsert(
        &a,
        vec![
            item(
                "m1",
                Collection::Memory,
                MemoryType::Profile,
                [1.0, 0.0, 0.0, 0.0],
            ),
            item(
                "m2",
                Collection::Memory,
                MemoryType::Preference,
                [0.8, 0.6, 0.0, 0.0],
            ),
            item(
                "c1",
                Collection::Content,
                MemoryType::History,
                [0.6, 0.8, 0.0, 0.0],
            ),
        ],
    )
    .await
    .map_err(err)?;
    // Same id in another NPC: must neither overwrite nor leak.
    v.upsert(
        &b,
        vec![item(
            "m1",
            Collection::Memory,
            MemoryType::Profile,
            [0.0, 0.0, 1.0, 0.0],
        )],
    )
    .await
    .map_err(err)?;
    let q = [1.0, 0.0, 0.0, 0.0];
    let all = v
        .query(&a, &q, 10, &VectorFilter::default())
        .await
        .map_err(err)?;
    check!(ids(&all) == ["m1", "m2", "c1"], "order {all:?}");
    check!(
        (all[0].1 - 1.0).abs() < 1e-4,
        "cosine of identical vectors {all:?}"
    );
    let top = v
        .query(&a, &q, 2, &VectorFilter::default())
        .await
        .map_err(err)?;
    check!(ids(&top) == ["m1", "m2"], "topK {top:?}");
    let content = VectorFilter {
        collections: vec![Collection::Content],
        types: vec![],
    };
    let got = v.query(&a, &q, 10, &content).await.map_err(err)?;
    check!(ids(&got) == ["c1"], "collection filter {got:?}");
    let prefs = VectorFilter {
        collections: vec![Collection::Memory],
        types: vec![MemoryType::Preference],
    };
    let got = v.query(&a, &q, 10, &prefs).await.map_err(err)?;
    check!(ids(&got) == ["m2"], "type filter {got:?}");
    let other = v
        .query(&b, &q, 10, &VectorFilter::default())
        .await
        .map_err(err)?;
    check!(
        ids(&other) == ["m1"] && other[0].1.abs() < 1e-4,
        "B's space {other:?}"
    );
    Ok(())
}

async fn deletes(v: &dyn VectorIndex, p: &str) -> Result<(), String> {
    let (a, b) = (format!("{p}da"), format!("{p}db"));
    let err = |e: hippo::error::PortError| e.to_string();
    for npc in [&a, &b] {
        v.upsert(
            npc,
            vec![
                item(
                    "x",
                    Collection::Memory,
                    MemoryType::Other,
                    [1.0, 0.0, 0.0, 0.0],
                ),
                item(
                    "y",
                    Collection::Memory,
                    MemoryType::Other,
                    [0.0, 1.0, 0.0, 0.0],
                ),
            ],
        )
        .await
        .map_err(err)?;
    }
    v.delete(&a, &["x".to_string()]).await.map_err(err)?;
    let q = [1.0, 0.0, 0.0, 0.0];
    let got = v
        .query(&a, &q, 10, &VectorFilter::default())
        .await
        .map_err(err)?;
    check!(ids(&got) == ["y"], "after delete {got:?}");
    v.delete_npc(&a).await.map_err(err)?;
    let got = v
        .query(&a, &q, 10, &VectorFilter::default())
        .await
        .map_err(err)?;
    check!(got.is_empty(), "after delete_npc {got:?}");
    let got = v
        .query(&b, &q, 10, &VectorFilter::default())
        .await
        .map_err(err)?;
    check!(ids(&got) == ["x", "y"], "other NPC touched {got:?}");
    Ok(())
}

async fn large_upserts(v: &dyn VectorIndex, p: &str) -> Result<(), String> {
    let npc = format!("{p}bulk");
    let err = |e: hippo::error::PortError| e.to_string();
    let items: Vec<VectorItem> = (0..1201)
        .map(|i| {
            let angle = i as f32 / 1201.0 * std::f32::consts::FRAC_PI_2;
            item(
                &format!("mem_{i:05}"),
                Collection::Memory,
                MemoryType::Other,
                [angle.cos(), angle.sin(), 0.0, 0.0],
            )
        })
        .collect();
    v.upsert(&npc, items).await.map_err(err)?;
    let got = v
        .query(&npc, &[0.0, 1.0, 0.0, 0.0], 3, &VectorFilter::default())
        .await
        .map_err(err)?;
    check!(
        ids(&got) == ["mem_01200", "mem_01199", "mem_01198"],
        "bulk {got:?}"
    );
    v.delete_npc(&npc).await.map_err(err)?;
    let got = v
        .query(&npc, &[0.0, 1.0, 0.0, 0.0], 3, &VectorFilter::default())
        .await
        .map_err(err)?;
    check!(got.is_empty(), "bulk delete_npc left {got:?}");
    Ok(())
}

/// The vector-index contract against whichever index the Worker runs (D1, or Vectorize
/// when `VECTORS` is bound).
pub async fn vector_suite(app: &App) -> Value {
    let index = app.hippo.ports().vectors.clone();
    let p = run_prefix("v");
    let mut cases = Vec::new();
    cases.push((
        "namespaces_top_k_and_filters".to_string(),
        namespaces_top_k_and_filters(&*index, &p).await,
    ));
    cases.push(("deletes".to_string(), deletes(&*index, &p).await));
    cases.push((
        "large_upserts".to_string(),
        large_upserts(&*index, &p).await,
    ));
    report(cases)
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
