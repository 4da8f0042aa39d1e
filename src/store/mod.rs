//! Store implementations that live in the core: in memory (tests, npm, browser), the sharded
//! store over several backends, and the one backend test suite every store runs.

pub mod int8;
pub mod memory;
pub mod partition;
pub mod shard;
pub mod sharded;
#[cfg(feature = "testing")]
pub mod suite;
pub mod vectors;

pub use memory::MemoryStore;
pub use shard::ShardMap;
pub use sharded::{ShardedStore, ShardedVectorIndex};
pub use vectors::{MemoryVectorIndex, VectorSpace};
