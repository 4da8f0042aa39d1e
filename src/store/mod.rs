//! Store implementations that live in the core: in memory (tests, npm, browser), the sharded
//! store over several backends, and the one backend test suite every store runs.

pub mod int8;
pub mod memory;
pub mod partition;
pub mod shard;
pub mod sharded;
#[cfg(feature = "testing")]
pub mod suite;
pub mod texts;
pub mod vectors;

pub use memory::MemoryStore;
pub use shard::ShardMap;
pub use sharded::{ShardedStore, ShardedVectorIndex};
pub use vectors::{MemoryVectorIndex, VectorSpace};

/// Where a snapshot is written piece by piece, so a large store is never one buffer in memory
/// (the npm package streams it into the JS bytes it saves). Not `std::io::Write`: its error
/// paths and a second copy of the serializers would cost the npm wasm kilobytes.
pub trait Sink {
    fn put(&mut self, bytes: &[u8]);
}

impl Sink for Vec<u8> {
    fn put(&mut self, bytes: &[u8]) {
        self.extend_from_slice(bytes);
    }
}
