//! The int8 dot products as the package runs them: built with simd128 (as
//! `scripts/build-pkg.sh` builds the package), where `hippo::store::int8::Query` widens the
//! query once and scores rows with it (one row, or a block of rows as a scan does),
//! checked against the plain sum at every length around the 16-code step and at the extremes.
//! Run under Node by `make test-npm` (`wasm-bindgen-test-runner`).
#![cfg(target_arch = "wasm32")]

use hippo::retrieval::embed::dot;
use hippo::store::int8::{dot_f32_i8, dot_i8, Query};
use wasm_bindgen_test::*;

fn plain(a: &[i8], b: &[i8]) -> i32 {
    a.iter()
        .zip(b)
        .map(|(x, y)| i32::from(*x) * i32::from(*y))
        .sum()
}

#[wasm_bindgen_test]
fn the_tested_build_is_the_simd_one() {
    assert!(
        cfg!(target_feature = "simd128"),
        "run with RUSTFLAGS=\"-C target-feature=+simd128\" (make test-npm does)"
    );
}

#[wasm_bindgen_test]
fn simd_dot_matches_the_plain_sum_at_every_length() {
    for len in (0..=70).chain([255, 256, 257, 384, 1024]) {
        let a: Vec<i8> = (0..len).map(|i| ((i * 37) % 255) as u8 as i8).collect();
        let b: Vec<i8> = (0..len)
            .map(|i| ((i * 101 + 3) % 255) as u8 as i8)
            .collect();
        assert_eq!(dot_i8(&a, &b), plain(&a, &b), "length {len}");
        assert_eq!(Query::new(&b).dot(&a), plain(&a, &b), "length {len}");
    }
}

#[wasm_bindgen_test]
fn simd_dot_holds_the_extremes() {
    for (x, y) in [
        (127i8, 127i8),
        (-128, -128),
        (-128, 127),
        (127, -127),
        (0, -128),
    ] {
        let (a, b) = (vec![x; 4096], vec![y; 4096]);
        let expected = i32::from(x) * i32::from(y) * 4096;
        assert_eq!(dot_i8(&a, &b), expected);
        assert_eq!(Query::new(&b).dot(&a), expected);
        let mut out = [0; 3];
        Query::new(&b).dot_rows(&[a.clone(), a.clone(), a].concat(), &mut out);
        assert_eq!(out, [expected; 3]);
    }
    // Slices of different lengths: the shorter one's length counts.
    let (a, b) = (vec![3i8; 40], vec![-2i8; 33]);
    assert_eq!(dot_i8(&a, &b), -6 * 33);
    assert_eq!(Query::new(&b).dot(&a), -6 * 33);
    assert_eq!(Query::new(&a).dot(&b), -6 * 33);
}

#[wasm_bindgen_test]
fn row_dots_match_the_plain_sum() {
    // An odd and an even number of rows.
    for rows_count in [3, 4] {
        for dim in [1, 15, 16, 17, 48, 255, 256, 257] {
            let query: Vec<i8> = (0..dim).map(|i| ((i * 37) % 255) as u8 as i8).collect();
            let rows: Vec<i8> = (0..rows_count * dim)
                .map(|i| ((i * 101 + 3) % 255) as u8 as i8)
                .collect();
            let mut out = [i32::MIN; 5];
            Query::new(&query).dot_rows(&rows, &mut out);
            for (r, row) in rows.chunks_exact(dim).enumerate() {
                assert_eq!(out[r], plain(row, &query), "dim {dim}, row {r}");
            }
            assert_eq!(
                out[rows_count..],
                [i32::MIN; 5][rows_count..],
                "only whole rows"
            );
        }
    }
}

/// The float dots' definition (`embed::dot`'s plain loop): eight lanes, lane `i` adding the
/// products of the elements `i` mod 8 of the whole chunks both slices have, in order, the
/// lanes then summed in order, then the products of each slice's leftovers. The simd128
/// kernels must give it to the bit: a rescored cosine sits beside thresholds, and a last-bit
/// change moved a decision once (the twenty-seventh session's `year` run).
fn eight_lanes(a: &[f32], b: &[f32]) -> f32 {
    let mut acc = [0f32; 8];
    for (x, y) in a.chunks_exact(8).zip(b.chunks_exact(8)) {
        for i in 0..8 {
            acc[i] += x[i] * y[i];
        }
    }
    let (a_tail, b_tail) = (a.chunks_exact(8).remainder(), b.chunks_exact(8).remainder());
    let tail: f32 = a_tail.iter().zip(b_tail).map(|(x, y)| x * y).sum();
    acc.iter().sum::<f32>() + tail
}

/// Values of every magnitude and sign (a sum of them rounds at every step).
fn floats(len: usize, seed: u32) -> Vec<f32> {
    (0..len as u32)
        .map(|i| {
            let x = i
                .wrapping_mul(2_654_435_761)
                .wrapping_add(seed.wrapping_mul(40_503));
            let sign = if x & 1 == 0 { 1.0 } else { -1.0 };
            sign * (x % 10_007) as f32 * [1e-7, 1e-3, 0.37, 3.1e4][(x >> 3) as usize % 4]
        })
        .collect()
}

#[wasm_bindgen_test]
fn simd_float_dots_are_the_eight_lane_sums_to_the_bit() {
    for len in (0..=40).chain([255, 256, 257, 384, 1024]) {
        let (a, b) = (floats(len, 1), floats(len, 2));
        assert_eq!(
            dot(&a, &b).to_bits(),
            eight_lanes(&a, &b).to_bits(),
            "dot, length {len}"
        );
        let codes: Vec<i8> = (0..len)
            .map(|i| ((i * 101 + 3) % 256) as u8 as i8)
            .collect();
        let wide: Vec<f32> = codes.iter().map(|&c| f32::from(c)).collect();
        assert_eq!(
            dot_f32_i8(&a, &codes).to_bits(),
            eight_lanes(&a, &wide).to_bits(),
            "dot_f32_i8, length {len}"
        );
    }
    // Slices of different lengths: `dot` as its plain loop has it, `dot_f32_i8` over the
    // shorter length.
    for (x, y) in [(40, 33), (33, 40), (16, 9), (7, 64), (0, 8)] {
        let (a, b) = (floats(x, 3), floats(y, 4));
        assert_eq!(
            dot(&a, &b).to_bits(),
            eight_lanes(&a, &b).to_bits(),
            "dot, {x} × {y}"
        );
        let codes: Vec<i8> = (0..y).map(|i| (i as i8).wrapping_mul(37)).collect();
        let wide: Vec<f32> = codes.iter().map(|&c| f32::from(c)).collect();
        let n = x.min(y);
        assert_eq!(
            dot_f32_i8(&a, &codes).to_bits(),
            eight_lanes(&a[..n], &wide[..n]).to_bits(),
            "dot_f32_i8, {x} × {y}"
        );
    }
    // The largest codes overflow to infinity as the plain loop does.
    let (a, codes) = (vec![-3.0e38f32; 16], vec![-128i8; 16]);
    assert_eq!(dot_f32_i8(&a, &codes), f32::INFINITY);
}
