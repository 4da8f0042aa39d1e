//! The in-memory vector index: quantisation, the scan against an exact one, the partition's
//! near look-ups, removals across blocks (the suite every index runs is in `store::suite`).

use super::*;
use crate::store::int8::dot_i8;

#[test]
fn quantized_codes_round_trip_within_half_a_step() {
    let values: Vec<f32> = (0..37)
        .map(|i| ((i * 7919) % 200) as f32 / 100.0 - 1.0)
        .collect();
    let q = quantize(&values);
    let max = values.iter().fold(0f32, |m, v| m.max(v.abs()));
    assert!(q.codes.iter().any(|c| c.unsigned_abs() == 127));
    for (v, c) in values.iter().zip(&q.codes) {
        assert!((v - f32::from(*c) * q.scale).abs() <= max / 254.0 + 1e-6);
    }
    assert_eq!(quantize(&[0.0; 4]).scale, 0.0);
}

#[test]
fn integer_dot_matches_the_plain_sum_at_every_length() {
    for len in [0, 1, 15, 16, 17, 256, 300] {
        let a: Vec<i8> = (0..len).map(|i| ((i * 37) % 255) as u8 as i8).collect();
        let b: Vec<i8> = (0..len)
            .map(|i| ((i * 101 + 3) % 255) as u8 as i8)
            .collect();
        let plain: i32 = a.iter().zip(&b).map(|(x, y)| *x as i32 * *y as i32).sum();
        assert_eq!(dot_i8(&a, &b), plain, "length {len}");
        let f: Vec<f32> = a.iter().map(|x| f32::from(*x) * 0.5).collect();
        assert!(
            (dot_f32_i8(&f, &b) - plain as f32 * 0.5).abs() <= plain.abs() as f32 * 1e-5 + 1e-3
        );
    }
}

/// Unit vectors of `dim`, from a fixed-seed generator: `n` of them, and each one nudged
/// (cosine ≈ 0.95 to its original), as a restatement of a stored memory would be.
fn cloud(n: usize, dim: usize) -> (Vec<Vec<f32>>, Vec<Vec<f32>>) {
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 11) as f32 / (1u64 << 53) as f32 - 0.5
    };
    let unit = |v: Vec<f32>| crate::retrieval::embed::normalize_vector(v);
    let base: Vec<Vec<f32>> = (0..n)
        .map(|_| unit((0..dim).map(|_| next()).collect()))
        .collect();
    let nudged = base
        .iter()
        .map(|v| {
            unit(
                v.iter()
                    .map(|x| x + 0.3 * next() / (dim as f32).sqrt())
                    .collect(),
            )
        })
        .collect();
    (base, nudged)
}

/// Conflict resolution's look-up: one type of memory, `near`.
fn near_filter(memory_type: MemoryType) -> VectorFilter {
    VectorFilter {
        collections: vec![Collection::Memory],
        types: vec![memory_type],
        near: true,
        floor: None,
    }
}

fn item(id: usize, memory_type: MemoryType, values: Vec<f32>) -> VectorItem {
    VectorItem {
        id: format!("v{id}"),
        collection: Collection::Memory,
        memory_type,
        values,
    }
}

/// A space holding `base`, the `i`-th vector as memory `v{i}` of type `type_of(i)`.
fn filled(base: &[Vec<f32>], type_of: impl Fn(usize) -> MemoryType) -> VectorSpace {
    let mut space = VectorSpace::default();
    for (i, v) in base.iter().enumerate() {
        space.upsert(item(i, type_of(i), v.clone())).unwrap();
    }
    space
}

#[test]
fn a_near_query_reads_a_few_cells_and_finds_the_restated_vector() {
    let (base, nudged) = cloud(4000, 64);
    let mut space = filled(&base, |i| [MemoryType::Profile, MemoryType::History][i % 2]);
    // Edits: some removed (the last rows move into their slots), some replaced.
    for i in (0..4000).step_by(97) {
        space.remove(&format!("v{i}"));
    }
    for i in (1..4000).step_by(89).filter(|i| i % 97 != 0) {
        space
            .upsert(item(i, MemoryType::Profile, base[i].clone()))
            .unwrap();
    }
    let mut found = 0;
    let mut checked = 0;
    for (i, v) in nudged.iter().enumerate().filter(|(i, _)| i % 97 != 0) {
        let kind = if i % 89 == 1 || i % 2 == 0 {
            MemoryType::Profile
        } else {
            MemoryType::History
        };
        let near = space.query_near(v, 8, &near_filter(kind));
        checked += 1;
        found += usize::from(near.first().is_some_and(|(id, _)| *id == format!("v{i}")));
        assert!(near.iter().all(|(id, _)| {
            let n: usize = id[1..].parse().unwrap();
            n % 97 != 0
        }));
    }
    assert!(found * 100 >= checked * 97, "{found} of {checked}");
    let q = quantize(&nudged[1]);
    let mut partition = std::mem::take(&mut space.partition);
    let probed = partition.probe(&space, (Collection::Memory, MemoryType::History), &q.codes);
    assert!(
        probed.len() * 4 < space.len() / 2,
        "{} rows read",
        probed.len()
    );
    // Small kinds are scanned whole (exactly as `query`).
    let mut small = VectorSpace::default();
    for (i, v) in base.iter().take(300).enumerate() {
        small
            .upsert(item(i, MemoryType::Profile, v.clone()))
            .unwrap();
    }
    let f = near_filter(MemoryType::Profile);
    assert_eq!(
        small.query_near(&nudged[7], 8, &f),
        small.query(&nudged[7], 8, &f)
    );
}

/// A call's near look-ups are asked together ([`VectorSpace::query_near_each`]): each probed
/// cell is read once for all of them, and each answer must be what the look-up alone finds,
/// partitioned kinds and small ones, with and without a floor, and where rows repeat one
/// another (equal scores, which rows read in another order could keep differently).
#[test]
fn near_look_ups_asked_together_answer_as_each_alone() {
    let (base, nudged) = cloud(3000, 64);
    let type_of = |i: usize| [MemoryType::Profile, MemoryType::History][i % 2];
    let mut space = filled(&base, type_of);
    for i in 0..200 {
        space
            .upsert(item(3000 + i, type_of(i), base[i % 5].clone()))
            .unwrap();
    }
    for (i, v) in base.iter().take(300).enumerate() {
        space
            .upsert(item(4000 + i, MemoryType::Project, v.clone()))
            .unwrap();
    }
    let zero = vec![0.0; 64];
    let short = vec![1.0; 8];
    let mut asked: Vec<&[f32]> = nudged.iter().step_by(7).map(Vec::as_slice).collect();
    asked.extend([base[2].as_slice(), &zero, &short, base[3].as_slice()]);
    for memory_type in [
        MemoryType::Profile,
        MemoryType::Project,
        MemoryType::Constraint,
    ] {
        for floor in [None, Some(0.3)] {
            let filter = VectorFilter {
                floor,
                ..near_filter(memory_type)
            };
            let together = space.clone().query_near_each(&asked, 8, &filter);
            let mut alone = space.clone();
            let each: Vec<_> = asked
                .iter()
                .map(|v| alone.query_near(v, 8, &filter))
                .collect();
            assert_eq!(together, each, "{memory_type:?}, floor {floor:?}");
            if memory_type != MemoryType::Constraint {
                assert!(together.iter().filter(|a| !a.is_empty()).count() > asked.len() / 2);
            }
        }
    }
    // A look-up of several kinds is the exact query, for each.
    let filter = VectorFilter {
        types: vec![MemoryType::Profile, MemoryType::Project],
        ..near_filter(MemoryType::Profile)
    };
    let together = space.clone().query_near_each(&asked, 8, &filter);
    let each: Vec<_> = asked.iter().map(|v| space.query(v, 8, &filter)).collect();
    assert_eq!(together, each);
}

#[test]
fn a_near_query_of_a_small_kind_reads_its_rows_only_and_answers_exactly() {
    let (base, nudged) = cloud(3000, 32);
    let mut space = VectorSpace::default();
    // 2,900 history rows and 100 profile rows, interleaved; then edits across kinds.
    let kind_of = |i: usize| match i % 30 {
        0 => MemoryType::Profile,
        _ => MemoryType::History,
    };
    for (i, v) in base.iter().enumerate() {
        space.upsert(item(i, kind_of(i), v.clone())).unwrap();
    }
    for i in (0..3000).step_by(41) {
        space.remove(&format!("v{i}"));
    }
    for i in (7..3000).step_by(53).filter(|i| i % 41 != 0) {
        space
            .upsert(item(i, MemoryType::Profile, base[i].clone()))
            .unwrap();
    }
    let profile = (Collection::Memory, MemoryType::Profile);
    let want: Vec<u32> = (0..space.len())
        .filter(|&slot| space.meta[slot] == profile)
        .map(|slot| slot as u32)
        .collect();
    assert!(
        want.len() > 100 && want.len() < crate::store::partition::MIN_ROWS,
        "{}",
        want.len()
    );
    let mut partition = std::mem::take(&mut space.partition);
    let mut probed = partition.probe(&space, profile, &quantize(&nudged[3]).codes);
    probed.sort_unstable();
    let absent = partition.probe(&space, (Collection::Memory, MemoryType::Style), &[]);
    space.partition = partition;
    assert_eq!(probed, want, "every profile row, nothing else");
    assert!(absent.is_empty());
    let f = near_filter(MemoryType::Profile);
    for v in nudged.iter().step_by(7) {
        assert_eq!(space.query_near(v, 8, &f), space.query(v, 8, &f));
    }
}

#[test]
fn removals_across_blocks_keep_every_other_row_whole() {
    // Rows whose codes name them, over three blocks; removals move rows between blocks.
    let dim = 3;
    let n = CodeRows::BLOCK * 2 + 5;
    let codes_of = |i: usize| vec![(i % 127) as i8, ((i / 127) % 127) as i8, 1];
    let mut space = VectorSpace::default();
    for i in 0..n {
        let q = Quantized {
            codes: codes_of(i),
            scale: 1.0,
        };
        let meta = (Collection::Memory, MemoryType::History);
        space.put(format!("v{i}"), meta, 1.0, q).unwrap();
    }
    let removed = |i: usize| i % 3 == 0 || i >= n - 7;
    for i in (0..n).filter(|i| removed(*i)) {
        space.remove(&format!("v{i}"));
    }
    assert_eq!(space.len(), (0..n).filter(|i| !removed(*i)).count());
    assert_eq!(space.codes.rows, space.len());
    assert_eq!(
        space.codes.blocks.len(),
        space.len().div_ceil(CodeRows::BLOCK)
    );
    for i in (0..n).filter(|i| !removed(*i)) {
        let slot = space.slot_of[format!("v{i}").as_str()] as usize;
        assert_eq!(space.row(slot), codes_of(i), "row of v{i}");
    }
    // Emptied and refilled.
    for i in (0..n).filter(|i| !removed(*i)) {
        space.remove(&format!("v{i}"));
    }
    assert!(space.codes.blocks.is_empty());
    space
        .upsert(item(1, MemoryType::Profile, vec![0.5; dim]))
        .unwrap();
    assert_eq!(space.row(0), [127, 127, 127]);
}

/// The scan keeps what a plain pass over every row would: the best integer scores of the
/// kinds the filter keeps (never a zero vector), rescored, across blocks of rows.
#[test]
fn the_scan_keeps_the_best_integer_scores_of_the_kinds_kept() {
    let (base, _) = cloud(2500, 48);
    let kinds = [
        (Collection::Memory, MemoryType::Profile),
        (Collection::Memory, MemoryType::History),
        (Collection::Content, MemoryType::Other),
    ];
    let mut space = VectorSpace::default();
    for (i, v) in base.iter().enumerate() {
        let (collection, memory_type) = kinds[i % 3];
        // Every 7th a zero vector: it has no direction and is never found.
        let values = if i % 7 == 0 { vec![0.0; 48] } else { v.clone() };
        space
            .upsert(VectorItem {
                id: format!("v{i:05}"),
                collection,
                memory_type,
                values,
            })
            .unwrap();
    }
    for (query, top_k, filter) in [
        (&base[1], 10usize, VectorFilter::default()),
        (
            &base[2],
            50,
            VectorFilter {
                collections: vec![Collection::Memory],
                types: vec![MemoryType::History],
                near: false,
                floor: None,
            },
        ),
        (
            &base[3],
            3000,
            VectorFilter {
                collections: vec![Collection::Content],
                ..VectorFilter::default()
            },
        ),
    ] {
        let q = quantize(query);
        let qnorm = dot(query, query).sqrt();
        let mut kept: Vec<(f32, usize)> = (0..space.len())
            .filter(|&slot| {
                let (collection, memory_type) = space.meta[slot];
                space.norms[slot] > 0.0
                    && (filter.collections.is_empty() || filter.collections.contains(&collection))
                    && (filter.types.is_empty() || filter.types.contains(&memory_type))
            })
            .map(|slot| {
                (
                    dot_i8(space.row(slot), &q.codes) as f32 * space.weights[slot],
                    slot,
                )
            })
            .collect();
        kept.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        kept.truncate(top_k.saturating_mul(RESCORE_FACTOR).max(RESCORE_MIN));
        let mut expected: Vec<(f32, &str)> = kept
            .iter()
            .map(|&(_, slot)| {
                let hit = space.rescored(query, qnorm, slot);
                (hit.score, hit.id)
            })
            .collect();
        expected.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(b.1)));
        expected.truncate(top_k);
        let found = space.query(query, top_k, &filter);
        let ids = |hits: Vec<&str>| hits.into_iter().map(str::to_string).collect::<Vec<_>>();
        assert_eq!(
            found.iter().map(|(id, _)| id.clone()).collect::<Vec<_>>(),
            ids(expected.iter().map(|e| e.1).collect()),
            "top {top_k}"
        );
        assert!(!found.is_empty());
    }
}

#[test]
fn extreme_codes_do_not_overflow() {
    let a = vec![-127i8; 4096];
    assert_eq!(dot_i8(&a, &a), 127 * 127 * 4096);
}

#[test]
fn a_floor_leaves_out_only_hits_below_it() {
    // Dense unit vectors and sparse ones (a few large components, as the built-in embedder
    // makes: the query's quantisation error is largest there), and their restatements.
    let dim = 64;
    let (dense, nudged) = cloud(1500, dim);
    let sparse: Vec<Vec<f32>> = dense
        .iter()
        .map(|v| {
            let kept = v
                .iter()
                .enumerate()
                .map(|(i, x)| if i % 9 == 0 { *x } else { 0.0 });
            crate::retrieval::embed::normalize_vector(kept.collect())
        })
        .collect();
    let mut space = VectorSpace::default();
    for (id, values) in dense.iter().chain(&sparse).enumerate() {
        space
            .upsert(item(id, MemoryType::Profile, values.clone()))
            .unwrap();
    }
    let mut compared = 0;
    for query in nudged.iter().chain(&sparse).step_by(7) {
        for floor in [-1.0, 0.0, 0.3, 0.6, 0.78, 0.9, 0.99] {
            let every = space.query(query, 8, &VectorFilter::default());
            let floored = VectorFilter {
                floor: Some(floor),
                ..VectorFilter::default()
            };
            let kept: Vec<_> = every.into_iter().filter(|(_, s)| *s >= floor).collect();
            let answer: Vec<_> = space
                .query(query, 8, &floored)
                .into_iter()
                .filter(|(_, s)| *s >= floor)
                .collect();
            assert_eq!(answer, kept, "floor {floor}");
            compared += kept.len();
        }
    }
    assert!(
        compared > 1000,
        "the floors kept too little to compare: {compared}"
    );
}

/// The integer scan and rescoring of `slots` alone, every one kept, for one query.
fn scan_of(space: &VectorSpace, query: &[f32], slots: &[u32]) -> Vec<(String, f32)> {
    let q = quantize(query);
    let filter = VectorFilter::default();
    let mut lists = [Shortlist::new(query, &q, slots.len(), &filter)];
    let codes = [Query::new(&q.codes)];
    space.scan_runs(
        &runs_of(slots),
        &codes,
        &[0],
        &mut lists,
        &KindMask::new(&filter),
    );
    let [list] = lists;
    space.rescored_list(query, list, slots.len())
}

#[test]
fn similarities_are_the_scan_of_the_rows_asked_for() {
    // What `similarities` answered before it rescored each row directly: a scan of the asked
    // rows alone, every one kept. More rows than a scan's smallest shortlist, every kind, a
    // zero vector (never a hit), an id asked twice and ids the space does not hold.
    let (base, nudged) = cloud(300, 48);
    let mut space = filled(&base, |i| MemoryType::ALL[i % 8]);
    space
        .upsert(item(300, MemoryType::Profile, vec![0.0; 48]))
        .unwrap();
    let mut ids: Vec<String> = (0..301).step_by(3).map(|i| format!("v{i}")).collect();
    ids.extend(["v3".to_string(), "v999".to_string(), "gone".to_string()]);
    for query in [&nudged[3], &nudged[200], &base[7]] {
        let slots: Vec<u32> = ids
            .iter()
            .filter_map(|id| space.slot_of.get(id.as_str()).copied())
            .collect();
        let scanned = scan_of(&space, query, &slots);
        let direct = space.similarities(query, &ids);
        assert_eq!(direct, scanned);
        // Every held row but the zero vector, the one asked twice twice.
        assert_eq!(direct.len(), 101 - 1 + 1);
        assert_eq!(direct.iter().filter(|(id, _)| id == "v3").count(), 2);
    }
    assert!(space.similarities(&[0.0; 48], &ids).is_empty());
    assert!(space.similarities(&nudged[3][..47], &ids).is_empty());
}

#[test]
fn rows_laid_out_by_cell_keep_every_vector_and_answer_and_a_cell_is_one_run() {
    let (base, nudged) = cloud(3000, 32);
    let kind_of = |i: usize| [MemoryType::Profile, MemoryType::History][i % 2];
    let mut space = filled(&base, kind_of);
    // Edits before the layout: removals move the last rows, replacements change kinds.
    let removed = |i: usize| i % 37 == 0;
    for i in (0..3000).filter(|i| removed(*i)) {
        space.remove(&format!("v{i}"));
    }
    let kind_of = |i: usize| {
        if i % 43 == 1 {
            MemoryType::Profile
        } else {
            kind_of(i)
        }
    };
    for i in (1..3000).step_by(43).filter(|i| !removed(*i)) {
        space
            .upsert(item(i, MemoryType::Profile, base[i].clone()))
            .unwrap();
    }
    let every_kind = VectorFilter::default();
    let kept: Vec<String> = (0..3000)
        .filter(|i| !removed(*i))
        .map(|i| format!("v{i}"))
        .collect();
    let before: Vec<_> = nudged
        .iter()
        .step_by(101)
        .map(|v| space.query(v, 8, &every_kind))
        .collect();
    let similar_before = space.similarities(&nudged[5], &kept);

    // The first near look-up lays out the rows added so far and builds the kind's cells;
    // the second lays them out again, cell by cell.
    let history = near_filter(MemoryType::History);
    space.query_near(&nudged[2], 8, &history);
    space.query_near(&nudged[2], 8, &history);
    assert!(!space.partition.wants_layout(space.len()));

    for i in (0..3000).filter(|i| !removed(*i)) {
        let slot = space.slot_of[format!("v{i}").as_str()] as usize;
        assert_eq!(*space.ids[slot], format!("v{i}"));
        assert_eq!(space.row(slot), quantize(&base[i]).codes, "row of v{i}");
        assert_eq!(space.meta[slot], (Collection::Memory, kind_of(i)));
    }
    let after: Vec<_> = nudged
        .iter()
        .step_by(101)
        .map(|v| space.query(v, 8, &every_kind))
        .collect();
    assert_eq!(after, before);
    assert_eq!(space.similarities(&nudged[5], &kept), similar_before);
    // A snapshot written in the new order restores the same answers.
    let index = MemoryVectorIndex::new();
    index.npcs.borrow_mut().insert("n".into(), space.clone());
    let restored = MemoryVectorIndex::restore(&index.snapshot()).unwrap();
    let restored = restored.npcs.borrow()["n"].clone();
    for v in nudged.iter().step_by(101) {
        assert_eq!(
            restored.query(v, 8, &every_kind),
            space.query(v, 8, &every_kind)
        );
    }

    // A look-up reads each probed cell as one run of adjacent rows.
    let mut partition = std::mem::take(&mut space.partition);
    let probed = partition.probe(
        &space,
        (Collection::Memory, MemoryType::History),
        &quantize(&nudged[4]).codes,
    );
    space.partition = partition;
    let runs = 1 + probed.windows(2).filter(|w| w[1] != w[0] + 1).count();
    assert!(
        probed.len() > 100 && runs <= crate::store::partition::PROBES,
        "{} rows in {runs} runs",
        probed.len()
    );
    // Near answers are still those of the rows' own vectors.
    let near = space.query_near(&nudged[4], 8, &history);
    let exact = space.query(&nudged[4], 8, &history);
    assert_eq!(near.first(), exact.first());
}

#[test]
fn a_near_look_up_scores_each_probed_row_as_similarities_does_across_blocks() {
    // 3,000 rows of one kind: three blocks of codes, cells laid out across their bounds.
    let (base, nudged) = cloud(3000, 32);
    let mut space = filled(&base, |_| MemoryType::Profile);
    let kind = (Collection::Memory, MemoryType::Profile);
    let filter = near_filter(MemoryType::Profile);
    let mut crossed = false;
    for v in nudged.iter().step_by(37) {
        // Every probed row kept (the shortlist is larger than the cells), rescored.
        let near = space.query_near(v, 10_000, &filter);
        let mut partition = std::mem::take(&mut space.partition);
        let probed = partition.probe(&space, kind, &quantize(v).codes);
        space.partition = partition;
        let block = |slot: &u32| *slot as usize >> CodeRows::BLOCK_BITS;
        crossed |= probed
            .windows(2)
            .any(|w| w[1] == w[0] + 1 && block(&w[0]) != block(&w[1]));
        let ids: Vec<String> = probed
            .iter()
            .map(|&slot| space.ids[slot as usize].to_string())
            .collect();
        assert!(ids.len() > 100);
        assert_eq!(near, space.similarities(v, &ids));
    }
    assert!(crossed, "no probed run crossed a block's bound");
}

#[test]
fn a_rescored_score_is_within_the_declared_error_of_the_exact_cosine() {
    use crate::retrieval::embed::cosine;
    // The worst case: one coordinate sets the step, every other sits exactly half a step from
    // a code (rounded to an even code, 0), and the query points along the rounding error, so
    // the exact cosine is all error and the rescored one is 0.
    for dim in [8, 96, 384, 1024] {
        let mut stored = vec![0.5f32; dim];
        stored[0] = 127.0;
        let mut query = vec![1.0f32; dim];
        query[0] = 0.0;
        let mut space = VectorSpace::default();
        space
            .upsert(item(0, MemoryType::Profile, stored.clone()))
            .unwrap();
        let exact = cosine(&query, &stored);
        let scored = space.similarities(&query, &["v0".to_string()])[0].1;
        let error = rescored_error(dim);
        assert!((scored - exact).abs() <= error, "{dim}: {scored} / {exact}");
        assert!(
            (scored - exact).abs() >= 0.9 * (error - 1e-3),
            "{dim}: bound not tight"
        );
    }
    // Random vectors stay well within it.
    let (base, nudged) = cloud(200, 384);
    let space = filled(&base, |_| MemoryType::Profile);
    let ids: Vec<String> = (0..200).map(|i| format!("v{i}")).collect();
    for query in nudged.iter().step_by(20) {
        for (id, scored) in space.similarities(query, &ids) {
            let i: usize = id[1..].parse().unwrap();
            let exact = cosine(query, &base[i]);
            assert!((scored - exact).abs() <= rescored_error(384), "{id}");
        }
    }
}

#[test]
fn a_deleted_npc_leaves_nothing_in_a_snapshot_and_starts_again_at_any_dimension() {
    let index = MemoryVectorIndex::new();
    let run = |f: std::pin::Pin<Box<dyn std::future::Future<Output = PortResult<()>> + '_>>| {
        futures::executor::block_on(f).unwrap()
    };
    run(Box::pin(index.upsert(
        "a",
        vec![item(1, MemoryType::Profile, vec![1.0, 0.0, 0.0])],
    )));
    run(Box::pin(index.upsert(
        "b",
        vec![item(2, MemoryType::Profile, vec![0.0, 1.0, 0.0])],
    )));
    run(Box::pin(index.delete_npc("a")));
    assert_eq!(index.count("a"), 0);
    // The snapshot holds b's vector only: restored, a is unknown.
    let restored = MemoryVectorIndex::restore(&index.snapshot()).unwrap();
    assert_eq!(restored.npcs.borrow().keys().collect::<Vec<_>>(), ["b"]);
    // The same id starts empty, at another dimension.
    run(Box::pin(index.upsert(
        "a",
        vec![item(3, MemoryType::Profile, vec![0.0, 0.0, 0.0, 1.0])],
    )));
    let hits = index.npcs.borrow()["a"].query(&[0.0, 0.0, 0.0, 1.0], 5, &VectorFilter::default());
    assert_eq!(hits.len(), 1);
    assert_eq!(hits[0].0, "v3");
}
