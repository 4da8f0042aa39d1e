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

#[test]
fn the_streamed_snapshot_is_the_derived_json() {
    assert_eq!(
        MemoryStore::new().snapshot().unwrap(),
        MemoryStore::new().derived_snapshot()
    );
    let store = MemoryStore::new();
    futures::executor::block_on(assert_store_suite(&store, "a-"));
    futures::executor::block_on(assert_store_suite(&store, "b-"));
    let streamed = store.snapshot().unwrap();
    assert_eq!(
        String::from_utf8_lossy(&streamed),
        String::from_utf8_lossy(&store.derived_snapshot())
    );
    // The suite's data has every part the stream writes piece by piece: several NPCs, each
    // with memories after its other fields, and the fields after the NPCs.
    let json: serde_json::Value = serde_json::from_slice(&streamed[12..]).unwrap();
    let npcs = json["npcs"].as_object().unwrap();
    assert!(npcs.len() >= 2);
    let has = |field: &str| {
        npcs.values().any(|npc| {
            npc[field].as_object().is_some_and(|m| m.len() >= 2)
                || npc[field].as_array().is_some_and(|a| a.len() >= 2)
        })
    };
    for field in ["memories", "turns", "pkg", "pkg_sources"] {
        assert!(has(field), "no NPC with several {field}");
    }
    for field in ["tokens", "meta"] {
        assert!(!json[field].as_object().unwrap().is_empty(), "no {field}");
    }
}
