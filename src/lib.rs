//! Hippo's memory core: every rule of the product, with no I/O.
//!
//! The core never talks to a database, a network or JS. It reaches the outside world only
//! through the traits in [`ports`] (store, vector index, embedder, LLM, HTTP client, clock),
//! which the Worker (`worker/`) and the npm package (`pkg/`) implement. [`engine::Hippo`] is
//! the one entry point both bindings call; each module below holds one concept's rules.
// Panics must be unreachable from input: see clippy.toml for what else is enforced.
#![deny(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::todo,
    clippy::unimplemented,
    clippy::unreachable
)]

pub mod api;
pub mod brief;
#[cfg(feature = "contract")]
pub mod contract;
pub mod conversation;
pub mod diary;
pub mod dream;
pub mod engine;
pub mod error;
pub mod ids;
pub mod json;
pub mod llm;
pub mod mcp;
pub mod memory;
mod nfkc;
pub mod npc;
mod order;
pub mod pkg;
pub mod ports;
pub mod relationship;
pub mod retrieval;
pub mod sensitive;
pub mod store;
pub mod text;
pub mod time;

pub use engine::Hippo;
pub use error::{Error, Result};
