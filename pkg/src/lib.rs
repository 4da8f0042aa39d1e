//! The npm package binding of Hippo: the core's [`hippo::Hippo`] as a JS class whose async
//! methods take and return the HTTP API's JSON shapes.
//!
//! Layers, each in one module: [`convert`] (every JS ⇄ Rust conversion and error mapping),
//! [`js_ports`] (embedder, LLM and clock over JS callbacks), [`storage`] (the persisted
//! in-memory store), [`options`] (what `Hippo.open` accepts), [`js_api`] (the class).
//! The core never sees a JS value.
// Panics must be unreachable from input: see clippy.toml for what else is enforced.
#![deny(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::todo,
    clippy::unimplemented,
    clippy::unreachable
)]

pub mod convert;
#[cfg(target_arch = "wasm32")]
pub mod heap;
pub mod js_api;
pub mod js_ports;
pub mod options;
pub mod shapes;
pub mod storage;

use wasm_bindgen::prelude::*;

/// The wasm memory grows in large steps (each growth cost Node a full garbage collection).
#[cfg(target_arch = "wasm32")]
#[global_allocator]
static ALLOCATOR: heap::Stepped = heap::Stepped;

/// Panics print their message to the console instead of an opaque `unreachable`.
#[wasm_bindgen(start)]
pub fn start() {
    console_error_panic_hook::set_once();
}
