//! The in-memory vector index: ranking, filters, replacement, deletion and snapshots.

use hippo::memory::{Collection, MemoryType};
use hippo::ports::{VectorFilter, VectorIndex, VectorItem};
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

fn ids(hits: &[(String, f32)]) -> Vec<&str> {
    hits.iter().map(|h| h.0.as_str()).collect()
}

#[test]
fn nearest_first_filtered_replaced_and_deleted() {
    let index = MemoryVectorIndex::new();
    let all = VectorFilter::default();
    run(index.upsert(
        "a",
        vec![
            item("x", MemoryType::Profile, [1.0, 0.0, 0.0]),
            item("y", MemoryType::Preference, [0.8, 0.6, 0.0]),
            item("z", MemoryType::Profile, [0.0, 0.0, 2.0]),
            item("w", MemoryType::Profile, [0.0, 1.0, 0.0]),
        ],
    ))
    .unwrap();
    run(index.upsert("b", vec![item("x", MemoryType::Profile, [1.0, 0.0, 0.0])])).unwrap();
    let hits = run(index.query("a", &[2.0, 0.0, 0.0], 2, &all)).unwrap();
    assert_eq!(ids(&hits), ["x", "y"]);
    assert!((hits[0].1 - 1.0).abs() < 1e-6 && (hits[1].1 - 0.8).abs() < 1e-6);
    let profiles = VectorFilter {
        collections: vec![],
        types: vec![MemoryType::Profile],
    };
    assert_eq!(
        ids(&run(index.query("a", &[1.0, 0.1, 0.0], 2, &profiles)).unwrap()),
        ["x", "w"]
    );
    // Replacing moves a vector; deleting from the middle keeps every other vector findable.
    run(index.upsert("a", vec![item("x", MemoryType::Profile, [0.0, 0.0, 1.0])])).unwrap();
    run(index.delete("a", &["y".into()])).unwrap();
    assert_eq!(index.count("a"), 3);
    assert_eq!(
        ids(&run(index.query("a", &[0.0, 0.0, 1.0], 2, &all)).unwrap()),
        ["x", "z"]
    );
    assert_eq!(
        ids(&run(index.query("a", &[0.0, 1.0, 0.0], 1, &all)).unwrap()),
        ["w"]
    );
    // Ties break by id; other NPCs are separate; a wrong dimension is refused.
    assert_eq!(
        ids(&run(index.query("a", &[0.0, 0.0, 1.0], 3, &all)).unwrap()),
        ["x", "z", "w"]
    );
    assert_eq!(index.count("b"), 1);
    assert!(run(index.upsert(
        "a",
        vec![VectorItem {
            values: vec![1.0; 4],
            ..item("v", MemoryType::Other, [0.0; 3])
        }]
    ))
    .is_err());
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
