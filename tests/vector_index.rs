//! The in-memory vector index: the shared vector index suite, and what only it does (counts,
//! dimension checks, snapshots).

use hippo::memory::{Collection, MemoryType};
use hippo::ports::{VectorFilter, VectorIndex, VectorItem};
use hippo::store::suite::assert_vector_suite;
use hippo::store::MemoryVectorIndex;

fn item(id: &str, t: MemoryType, values: [f32; 3]) -> VectorItem {
    VectorItem {
        id: id.into(),
        collection: Collection::Memory,
        memory_type: t,
        values: values.to_vec(),
    }
}

fn run<F: std::future::Future>(f: F) -> F::Output {
    futures::executor::block_on(f)
}

#[test]
fn memory_index_passes_the_vector_suite() {
    let index = MemoryVectorIndex::new();
    run(assert_vector_suite(&index, "a-"));
    // Again on the same index: runs never see each other's namespaces.
    run(assert_vector_suite(&index, "b-"));
}

/// What only the in-memory index promises: its count, and refusing a vector of another
/// dimension than the ones it holds.
#[test]
fn counts_and_refuses_another_dimension() {
    let index = MemoryVectorIndex::new();
    run(index.upsert(
        "a",
        vec![
            item("x", MemoryType::Profile, [1.0, 0.0, 0.0]),
            item("y", MemoryType::Profile, [0.0, 1.0, 0.0]),
        ],
    ))
    .unwrap();
    run(index.upsert("b", vec![item("x", MemoryType::Profile, [1.0, 0.0, 0.0])])).unwrap();
    assert_eq!(index.count("a"), 2);
    assert!(run(index.upsert(
        "a",
        vec![VectorItem {
            values: vec![1.0; 4],
            ..item("v", MemoryType::Other, [0.0; 3])
        }]
    ))
    .is_err());
    assert_eq!(index.count("a"), 2);
    run(index.delete_npc("a")).unwrap();
    assert_eq!(index.count("a"), 0);
    assert_eq!(index.count("b"), 1);
}

#[test]
fn snapshot_round_trip_is_exact() {
    let index = MemoryVectorIndex::new();
    run(index.upsert(
        "n",
        (0..50)
            .map(|i| {
                item(
                    &format!("m{i}"),
                    MemoryType::Other,
                    [i as f32 * 0.3, 1.0 / (i + 1) as f32, 0.7],
                )
            })
            .collect(),
    ))
    .unwrap();
    run(index.delete("n", &["m7".into(), "m0".into()])).unwrap();
    let bytes = index.snapshot();
    let restored = MemoryVectorIndex::restore(&bytes).unwrap();
    assert_eq!(restored.snapshot(), bytes);
    let q = [0.5, 0.5, 0.5];
    let all = VectorFilter::default();
    assert_eq!(
        run(restored.query("n", &q, 10, &all)).unwrap(),
        run(index.query("n", &q, 10, &all)).unwrap()
    );
    assert!(MemoryVectorIndex::restore(&bytes[..bytes.len() - 3]).is_err());
}
