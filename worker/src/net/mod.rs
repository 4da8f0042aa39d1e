//! Everything the Worker reaches over the network: `fetch`, embedding APIs, Workers AI.

pub mod embed;
pub mod fetch;
pub mod workers_ai;
