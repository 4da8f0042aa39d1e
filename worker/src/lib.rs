//! Hippo as a Cloudflare Worker: the `/api` routes of the Hippo microservice and the
//! memory_retrieval endpoint, on D1 (source of truth) and Vectorize (vector index), calling
//! LLMs over `fetch`, dreaming on a Cron Trigger.
//!
//! - [`http`]: route table, router, auth, limits, error shapes, OpenAPI;
//! - [`app`]: the ports of a request, chosen from bindings and vars ([`config`]);
//! - [`d1`]: the D1 store and the D1-backed vector index; [`vectorize`]: the Vectorize index;
//! - [`net`]: `fetch`, embedding APIs and Workers AI; [`llm`]: the dream's chat LLM;
//! - [`demo`]: the fake provider's character; [`cron`]: scheduled dreaming;
//! - `test_hooks` (feature `test-hooks`, test builds only): suites run inside the Worker by
//!   the Node tests.
// Panics must be unreachable from input: see clippy.toml for what else is enforced.
#![deny(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::todo,
    clippy::unimplemented,
    clippy::unreachable
)]

pub mod app;
pub mod config;
pub mod cron;
pub mod d1;
pub mod dashboard;
pub mod demo;
pub mod error;
pub mod http;
pub mod llm;
pub mod net;
pub mod vectorize;

use hippo::engine::Deferred;
use std::cell::Cell;
use std::rc::Rc;
use worker::{event, Context, Env, Request, Response, ScheduleContext, ScheduledEvent};

#[event(start)]
fn start() {
    console_error_panic_hook::set_once();
}

thread_local! {
    /// Reinforcement queued by this isolate's retrievals, written after their answers.
    static REINFORCEMENT: Rc<Deferred> = Rc::new(Deferred::default());
    /// When the flush in flight started (ms), if one is: it drains the queue until empty,
    /// so touches queued meanwhile ride on it.
    static FLUSHING_SINCE: Cell<Option<f64>> = const { Cell::new(None) };
}

/// A flusher waits this long before its first write, so the touches of the retrievals that
/// answer meanwhile go in the same D1 batch (at 16 clients, ~160 retrievals/s: one write and
/// one memory revision per ~16 answers, not per one or two; every revision makes the next
/// sync read fetch the touched rows again). Only access counts wait; a lost flush loses only them.
const FLUSH_LINGER_MS: u64 = 100;
/// A flusher stops taking new touches after this long (a request's `waitUntil` is limited);
/// what is queued then goes with the next request's flusher.
const FLUSH_HANDOVER_MS: f64 = 5_000.0;
/// A flush older than this is presumed lost (its `waitUntil` was cut short): the next
/// request starts another.
const FLUSH_STALE_MS: f64 = 20_000.0;

#[event(fetch)]
async fn fetch(req: Request, env: Env, ctx: Context) -> worker::Result<Response> {
    // Reinforcement queued by retrievals is written after the answer is sent (`waitUntil`):
    // its D1 round trip is not in the answer's path, and concurrent retrievals of one NPC
    // share one write (docs/ARCHITECTURE.md).
    let queue = REINFORCEMENT.with(Rc::clone);
    let response = http::handle(req, env, queue.clone()).await;
    let now = js_sys::Date::now();
    let in_flight = FLUSHING_SINCE
        .with(Cell::get)
        .is_some_and(|since| now - since < FLUSH_STALE_MS);
    if !queue.is_empty() && !in_flight {
        FLUSHING_SINCE.with(|f| f.set(Some(now)));
        ctx.wait_until(async move {
            worker::Delay::from(std::time::Duration::from_millis(FLUSH_LINGER_MS)).await;
            while !queue.is_empty() && js_sys::Date::now() - now < FLUSH_HANDOVER_MS {
                flush_reinforcement(&queue).await;
            }
            FLUSHING_SINCE.with(|f| f.set(None));
        });
    }
    response
}

/// Commits what `queue` holds now; a failure is logged (only access counts are lost: the
/// answers were already sent).
pub(crate) async fn flush_reinforcement(queue: &Deferred) {
    let done = queue.flush().await;
    if done.failed > 0 {
        worker::console_error!(
            "reinforcement: {} of {} touches not written",
            done.failed,
            done.failed + done.committed
        );
    }
}

#[event(scheduled)]
async fn scheduled(event: ScheduledEvent, env: Env, _ctx: ScheduleContext) {
    let app = match app::App::for_cron(&env) {
        Ok(app) => app,
        Err(err) => {
            worker::console_error!("cron {}: not configured: {}", event.cron(), err.message);
            return;
        }
    };
    match cron::dream_due(&app.hippo).await {
        Ok(summary) => worker::console_log!(
            "cron {}: scanned={} dreamt={} failed={} cursor={}",
            event.cron(),
            summary.scanned,
            summary.dreamt,
            summary.failed,
            summary.cursor.as_deref().unwrap_or("-")
        ),
        Err(err) => worker::console_error!("cron {}: {err}", event.cron()),
    }
}
