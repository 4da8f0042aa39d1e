//! The in-memory store runs the backend suite, also after a snapshot round trip.

use hippo::store::suite::assert_store_suite;
use hippo::store::MemoryStore;

#[test]
fn memory_store_passes_the_backend_suite() {
    let store = MemoryStore::new();
    futures::executor::block_on(assert_store_suite(&store, "a-"));
    // A second run on the same store must not be disturbed by the first run's data.
    futures::executor::block_on(assert_store_suite(&store, "b-"));
}

#[test]
fn restored_snapshot_passes_the_backend_suite_and_keeps_data() {
    let store = MemoryStore::new();
    futures::executor::block_on(assert_store_suite(&store, "a-"));
    let restored = MemoryStore::restore(&store.snapshot().unwrap()).expect("snapshot restores");
    assert_eq!(restored.snapshot().unwrap(), store.snapshot().unwrap());
    futures::executor::block_on(assert_store_suite(&restored, "c-"));
}

#[test]
fn snapshot_rejects_foreign_and_future_bytes() {
    assert!(MemoryStore::restore(b"not a snapshot at all").is_err());
    let mut future = MemoryStore::new().snapshot().unwrap();
    future[8] = 99;
    assert!(MemoryStore::restore(&future).is_err());
}
