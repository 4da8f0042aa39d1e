//! Store implementations that live in the core: in memory (tests, npm, browser), and the one
//! backend test suite every store runs.

pub mod memory;
pub mod partition;
#[cfg(feature = "testing")]
pub mod suite;
pub mod vectors;

pub use memory::MemoryStore;
pub use vectors::{MemoryVectorIndex, VectorSpace};
