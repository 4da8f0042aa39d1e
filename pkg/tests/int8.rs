//! The int8 dot products as the package runs them: built with simd128 (as
//! `scripts/build-pkg.sh` builds the package), where `hippo::store::int8::Query` widens the
//! query once and scores rows with it (one row, or a block of rows as a scan does),
//! checked against the plain sum at every length around the 16-code step and at the extremes.
//! Run under Node by `make test-npm` (`wasm-bindgen-test-runner`).
#![cfg(target_arch = "wasm32")]

use hippo::store::int8::{dot_i8, Query};
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
