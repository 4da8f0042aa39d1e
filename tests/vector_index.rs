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

fn ids(hits: &[(String, f32)]) -> Vec<&str> {
    hits.iter().map(|h| h.0.as_str()).collect()
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
    // Read a piece at a time, each exactly as large as asked (every boundary falls inside a
    // field somewhere), whole or cut short.
    let in_pieces = |bytes: &[u8]| {
        let mut at = 0;
        MemoryVectorIndex::restore_from(&mut |n| {
            let end = (at + n).min(bytes.len());
            let piece = bytes[at..end].to_vec();
            at = end;
            piece
        })
    };
    assert_eq!(in_pieces(&bytes).unwrap().snapshot(), bytes);
    assert!(in_pieces(&bytes[..bytes.len() - 3]).is_err());
    // Over several pieces (the reader asks for 1 MiB at a time): rows cut at the seams.
    let large = MemoryVectorIndex::new();
    let rows = (0..6000)
        .map(|i| VectorItem {
            id: format!("row-{i}"),
            collection: Collection::Memory,
            memory_type: MemoryType::Other,
            values: (0..256).map(|d| ((i * 7 + d) % 13) as f32 - 6.0).collect(),
        })
        .collect();
    run(large.upsert("n", rows)).unwrap();
    let bytes = large.snapshot();
    assert!(bytes.len() > 3 << 20 >> 1, "{} bytes", bytes.len());
    assert_eq!(in_pieces(&bytes).unwrap().snapshot(), bytes);
    assert!(in_pieces(&bytes[..bytes.len() - 1]).is_err());
}

#[test]
fn a_version_1_snapshot_of_f32_values_still_restores() {
    let mut bytes = b"HIPPOVX\0".to_vec();
    bytes.extend_from_slice(&1u32.to_le_bytes());
    for (id, values) in [("a", [1.0f32, 0.0, 0.0]), ("b", [0.0, 0.5, 0.5])] {
        for s in ["n", id] {
            bytes.extend_from_slice(&(s.len() as u32).to_le_bytes());
            bytes.extend_from_slice(s.as_bytes());
        }
        bytes.push(0); // memory
        bytes.extend_from_slice(&5u32.to_le_bytes());
        bytes.extend_from_slice(b"other");
        bytes.extend_from_slice(&3u32.to_le_bytes());
        for v in values {
            bytes.extend_from_slice(&v.to_le_bytes());
        }
    }
    let index = MemoryVectorIndex::restore(&bytes).unwrap();
    let hits = run(index.query("n", &[0.0, 1.0, 1.0], 2, &VectorFilter::default())).unwrap();
    assert_eq!(ids(&hits), ["b", "a"]);
    assert!((hits[0].1 - 1.0).abs() < 1e-3);
}

/// Quantised scan plus rescoring against the exact cosine over real embeddings: the top 10
/// mostly agree, and the scores returned are within the codes' rounding of the exact ones.
#[test]
fn quantised_neighbours_agree_with_exact_cosine() {
    use hippo::retrieval::embed::{cosine, BuiltinEmbedder};
    let embedder = BuiltinEmbedder::new();
    let topics = [
        "tea", "hiking", "咖啡", "北京", "dentist", "piano", "猫", "ramen",
    ];
    let texts: Vec<String> = (0..3000)
        .map(|i| {
            format!(
                "{} {} note {} {}",
                topics[i % 8],
                topics[(i / 8) % 8],
                i % 97,
                ["on monday", "with Sara", "周末", "last year"][i % 4]
            )
        })
        .collect();
    let vectors: Vec<Vec<f32>> = texts.iter().map(|t| embedder.embed_text(t)).collect();
    let index = MemoryVectorIndex::new();
    run(index.upsert(
        "n",
        vectors
            .iter()
            .enumerate()
            .map(|(i, v)| VectorItem {
                id: format!("m{i:04}"),
                collection: Collection::Memory,
                memory_type: MemoryType::Other,
                values: v.clone(),
            })
            .collect(),
    ))
    .unwrap();
    let (mut agreed, mut asked) = (0, 0);
    for q in [
        "tea with Sara",
        "北京 周末 hiking",
        "piano note 12",
        "猫 ramen last year",
    ] {
        let qv = embedder.embed_text(q);
        let mut exact: Vec<(usize, f32)> =
            vectors.iter().map(|v| cosine(&qv, v)).enumerate().collect();
        exact.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        let hits = run(index.query("n", &qv, 10, &VectorFilter::default())).unwrap();
        for (id, score) in &hits {
            let i: usize = id[1..].parse().unwrap();
            assert!((score - cosine(&qv, &vectors[i])).abs() < 0.02, "{id}");
        }
        let top: Vec<String> = exact[..10]
            .iter()
            .map(|(i, _)| format!("m{i:04}"))
            .collect();
        agreed += hits.iter().filter(|(id, _)| top.contains(id)).count();
        asked += 10;
    }
    assert!(agreed * 10 >= asked * 9, "{agreed} of {asked} agree");
}
