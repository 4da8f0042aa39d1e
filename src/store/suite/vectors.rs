//! The vector index suite: one set of cases every [`VectorIndex`] runs unchanged (the
//! in-memory index here and in the npm package, the D1 index and the Vectorize adapter inside
//! the Worker). Each case works in its own NPC namespaces, named from the run's prefix.

use super::*;

type Hits = Vec<(String, f32)>;

fn item(id: &str, collection: Collection, memory_type: MemoryType, values: [f32; 4]) -> VectorItem {
    VectorItem {
        id: id.to_string(),
        collection,
        memory_type,
        values: values.to_vec(),
    }
}

fn other(id: &str, values: [f32; 4]) -> VectorItem {
    item(id, Collection::Memory, MemoryType::Other, values)
}

fn ids(hits: &Hits) -> Vec<&str> {
    hits.iter().map(|(id, _)| id.as_str()).collect()
}

const ALL: VectorFilter = VectorFilter {
    collections: Vec::new(),
    types: Vec::new(),
    near: false,
    floor: None,
};

pub(super) async fn nearest_first_by_cosine_within_filters(
    v: &dyn VectorIndex,
    p: &str,
) -> CaseResult {
    let (a, b) = (format!("{p}a"), format!("{p}b"));
    port!(v.upsert(
        &a,
        vec![
            item(
                "m1",
                Collection::Memory,
                MemoryType::Profile,
                [1.0, 0.0, 0.0, 0.0]
            ),
            // Lengths do not count, only directions: 0.8 from m1's direction.
            item(
                "m2",
                Collection::Memory,
                MemoryType::Preference,
                [4.0, 3.0, 0.0, 0.0]
            ),
            item(
                "c1",
                Collection::Content,
                MemoryType::History,
                [0.6, 0.8, 0.0, 0.0]
            ),
        ],
    ));
    // The same id in another NPC: neither overwrites nor leaks.
    port!(v.upsert(
        &b,
        vec![item(
            "m1",
            Collection::Memory,
            MemoryType::Profile,
            [0.0, 0.0, 1.0, 0.0]
        )]
    ));
    let q = [2.0, 0.0, 0.0, 0.0];
    let all = port!(v.query(&a, &q, 10, &ALL));
    check!(ids(&all) == ["m1", "m2", "c1"], "order {all:?}");
    // Within int8 rounding: the in-memory index keeps int8 codes (src/store/vectors.rs), so
    // its scores may differ from the exact cosine by the codes' rounding.
    check!(
        (all[0].1 - 1.0).abs() < 1e-2
            && (all[1].1 - 0.8).abs() < 1e-2
            && (all[2].1 - 0.6).abs() < 1e-2,
        "cosines {all:?}"
    );
    let top = port!(v.query(&a, &q, 2, &ALL));
    check!(ids(&top) == ["m1", "m2"], "topK {top:?}");
    let content = VectorFilter {
        collections: vec![Collection::Content],
        types: vec![],
        near: false,
        floor: None,
    };
    let got = port!(v.query(&a, &q, 10, &content));
    check!(ids(&got) == ["c1"], "collection filter {got:?}");
    let prefs = VectorFilter {
        collections: vec![Collection::Memory],
        types: vec![MemoryType::Preference],
        near: false,
        floor: None,
    };
    let got = port!(v.query(&a, &q, 10, &prefs));
    check!(ids(&got) == ["m2"], "collection and type filter {got:?}");
    let two_types = VectorFilter {
        collections: vec![],
        types: vec![MemoryType::Profile, MemoryType::History],
        near: false,
        floor: None,
    };
    let got = port!(v.query(&a, &q, 10, &two_types));
    check!(ids(&got) == ["m1", "c1"], "type filter {got:?}");
    let theirs = port!(v.query(&b, &q, 10, &ALL));
    check!(
        ids(&theirs) == ["m1"] && theirs[0].1.abs() < 1e-4,
        "B's space {theirs:?}"
    );
    let nobody = port!(v.query(&format!("{p}nobody"), &q, 10, &ALL));
    check!(nobody.is_empty(), "an empty namespace found {nobody:?}");
    Ok(())
}

pub(super) async fn ties_break_by_id(v: &dyn VectorIndex, p: &str) -> CaseResult {
    let npc = format!("{p}ties");
    let same = [0.0, 1.0, 1.0, 0.0];
    port!(v.upsert(
        &npc,
        vec![other("t3", same), other("t1", same), other("t2", same)]
    ));
    let got = port!(v.query(&npc, &same, 2, &ALL));
    check!(ids(&got) == ["t1", "t2"], "ties {got:?}");
    Ok(())
}

/// Several queries with one filter (conflict resolution asks a call's new memories
/// together): each answer is what `query` answers for that vector alone, in the order asked,
/// with an answer (empty) for a vector that can find nothing and for an NPC with no vectors.
pub(super) async fn queries_asked_together_answer_as_each_alone(
    v: &dyn VectorIndex,
    p: &str,
) -> CaseResult {
    let npc = format!("{p}each");
    port!(v.upsert(
        &npc,
        vec![
            item(
                "e1",
                Collection::Memory,
                MemoryType::Profile,
                [1.0, 0.2, 0.0, 0.0]
            ),
            item(
                "e2",
                Collection::Memory,
                MemoryType::Profile,
                [0.1, 1.0, 0.3, 0.0]
            ),
            item(
                "e3",
                Collection::Memory,
                MemoryType::Profile,
                [0.0, 0.4, 1.0, 0.2]
            ),
            item(
                "e4",
                Collection::Memory,
                MemoryType::History,
                [0.9, 0.0, 0.0, 0.4]
            ),
        ],
    ));
    let asked: [&[f32]; 4] = [
        &[1.0, 0.0, 0.0, 0.0],
        &[0.0, 0.0, 0.0, 0.0],
        &[0.0, 1.0, 0.9, 0.0],
        &[0.2, 0.3, 0.1, 1.0],
    ];
    for filter in [
        ALL,
        VectorFilter {
            collections: vec![Collection::Memory],
            types: vec![MemoryType::Profile],
            near: true,
            floor: Some(0.3),
        },
    ] {
        let together = port!(v.query_each(&npc, &asked, 2, &filter));
        check!(together.len() == asked.len(), "{} answers", together.len());
        for (vector, got) in asked.iter().zip(&together) {
            let alone = port!(v.query(&npc, vector, 2, &filter));
            check!(
                ids(got) == ids(&alone)
                    && got
                        .iter()
                        .zip(&alone)
                        .all(|(x, y)| (x.1 - y.1).abs() < 1e-4),
                "{filter:?} {vector:?}: {got:?} together, {alone:?} alone"
            );
        }
        check!(!together[0].is_empty(), "the first finds e1: {together:?}");
    }
    let nobody = port!(v.query_each(&format!("{p}nobody"), &asked, 2, &ALL));
    check!(
        nobody.len() == asked.len() && nobody.iter().all(Vec::is_empty),
        "an empty namespace answered {nobody:?}"
    );
    Ok(())
}

pub(super) async fn upserts_replace_and_deletes_keep_the_rest(
    v: &dyn VectorIndex,
    p: &str,
) -> CaseResult {
    let (a, b) = (format!("{p}da"), format!("{p}db"));
    for npc in [&a, &b] {
        port!(v.upsert(
            npc,
            vec![
                other("x", [1.0, 0.0, 0.0, 0.0]),
                other("y", [0.0, 1.0, 0.0, 0.0]),
                other("z", [0.0, 0.0, 1.0, 0.0]),
            ],
        ));
    }
    // Replacing moves a vector (and may change its filterable fields).
    port!(v.upsert(
        &a,
        vec![item(
            "x",
            Collection::Content,
            MemoryType::History,
            [0.0, 0.0, 0.0, 1.0]
        )]
    ));
    let got = port!(v.query(&a, &[0.0, 0.0, 0.0, 1.0], 1, &ALL));
    check!(ids(&got) == ["x"], "replaced vector {got:?}");
    let memories = VectorFilter {
        collections: vec![Collection::Memory],
        types: vec![],
        near: false,
        floor: None,
    };
    let got = port!(v.query(&a, &[0.0, 0.0, 0.0, 1.0], 10, &memories));
    check!(!ids(&got).contains(&"x"), "old collection kept {got:?}");
    // Deleting from the middle keeps every other vector findable; unknown ids are no error.
    port!(v.delete(&a, &["y".to_string(), "never-stored".to_string()]));
    let got = port!(v.query(&a, &[0.0, 1.0, 0.0, 0.0], 10, &ALL));
    check!(
        ids(&got).len() == 2 && !ids(&got).contains(&"y"),
        "after delete {got:?}"
    );
    let got = port!(v.query(&a, &[0.0, 0.0, 1.0, 0.0], 1, &ALL));
    check!(ids(&got) == ["z"], "a neighbour of the deleted one {got:?}");
    port!(v.delete_npc(&a));
    let got = port!(v.query(&a, &[1.0, 1.0, 1.0, 1.0], 10, &ALL));
    check!(got.is_empty(), "after delete_npc {got:?}");
    let got = port!(v.query(&b, &[1.0, 0.0, 0.0, 0.0], 10, &ALL));
    check!(ids(&got) == ["x", "y", "z"], "other NPC touched {got:?}");
    // The namespace can be filled again.
    port!(v.upsert(&a, vec![other("fresh", [1.0, 0.0, 0.0, 0.0])]));
    let got = port!(v.query(&a, &[1.0, 0.0, 0.0, 0.0], 10, &ALL));
    check!(ids(&got) == ["fresh"], "refilled {got:?}");
    Ok(())
}

pub(super) async fn large_upserts(v: &dyn VectorIndex, p: &str) -> CaseResult {
    const N: usize = 1201;
    let npc = format!("{p}bulk");
    let items: Vec<VectorItem> = (0..N)
        .map(|i| {
            let angle = i as f32 / N as f32 * std::f32::consts::FRAC_PI_2;
            other(&format!("mem_{i:05}"), [angle.cos(), angle.sin(), 0.0, 0.0])
        })
        .collect();
    port!(v.upsert(&npc, items));
    let got = port!(v.query(&npc, &[0.0, 1.0, 0.0, 0.0], 3, &ALL));
    check!(
        ids(&got) == ["mem_01200", "mem_01199", "mem_01198"],
        "bulk {got:?}"
    );
    let got = port!(v.query(&npc, &[1.0, 0.0, 0.0, 0.0], 1, &ALL));
    check!(ids(&got) == ["mem_00000"], "bulk first {got:?}");
    port!(v.delete_npc(&npc));
    let got = port!(v.query(&npc, &[0.0, 1.0, 0.0, 0.0], 3, &ALL));
    check!(got.is_empty(), "bulk delete_npc left {got:?}");
    Ok(())
}

/// Runs every vector index case; returns each case's name and outcome.
/// An index that reads vectors back by id scores exactly the ids asked for, within the
/// NPC, as its query does; one that cannot answers nothing (conflict resolution then embeds
/// the texts), never a wrong id.
pub(super) async fn similarities_by_id_agree_with_the_query(
    v: &dyn VectorIndex,
    p: &str,
) -> CaseResult {
    let (a, b) = (format!("{p}sim-a"), format!("{p}sim-b"));
    port!(v.upsert(
        &a,
        vec![
            other("m1", [1.0, 0.0, 0.0, 0.0]),
            other("m2", [4.0, 3.0, 0.0, 0.0]),
            other("m3", [1.0, 1.0, 1.0, 0.0]),
        ],
    ));
    port!(v.upsert(&b, vec![other("x1", [1.0, 0.0, 0.0, 0.0])]));
    let query = [1.0, 0.0, 0.0, 0.0];
    let asked: Vec<String> = ["m2", "m3", "x1", "gone"].map(String::from).to_vec();
    let mut got: Hits = port!(v.similarities(&a, &query, &asked));
    if got.is_empty() {
        return Ok(());
    }
    got.sort_by(|x, y| x.0.cmp(&y.0));
    check!(ids(&got) == ["m2", "m3"], "similarities in {a}: {got:?}");
    let queried: Hits = port!(v.query(&a, &query, 3, &ALL));
    for (id, s) in &got {
        let from_query = queried.iter().find(|(q, _)| q == id).map(|(_, s)| *s);
        check!(
            from_query.is_some_and(|q| (q - s).abs() < 1e-4),
            "{id}: {s} by id, {from_query:?} by query"
        );
    }
    Ok(())
}

pub async fn run_vector_suite(index: &dyn VectorIndex, prefix: &str) -> Vec<(String, CaseResult)> {
    let mut out = Vec::new();
    macro_rules! case {
        ($name:ident) => {
            out.push((stringify!($name).to_string(), $name(index, prefix).await));
        };
    }
    case!(nearest_first_by_cosine_within_filters);
    case!(ties_break_by_id);
    case!(upserts_replace_and_deletes_keep_the_rest);
    case!(large_upserts);
    case!(similarities_by_id_agree_with_the_query);
    case!(queries_asked_together_answer_as_each_alone);
    out
}
