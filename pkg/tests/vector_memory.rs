//! What the vector index costs in wasm memory per stored vector (which never shrinks back):
//! the int8 codes in blocks, so growing never holds two copies of every row. Alone in its test
//! binary so no earlier test leaves free memory behind. Run under Node by `make test-npm`.
#![cfg(target_arch = "wasm32")]

use hippo::memory::{Collection, MemoryType};
use hippo::ports::VectorItem;
use hippo::store::VectorSpace;
use wasm_bindgen_test::*;

mod support;
use support::wasm_bytes;

#[wasm_bindgen_test]
fn a_stored_vector_costs_its_codes_plus_a_little() {
    const ROWS: usize = 40_000;
    const DIM: usize = 256;
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut values = move || -> Vec<f32> {
        (0..DIM)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                (state >> 40) as f32 / (1u64 << 24) as f32 - 0.5
            })
            .collect()
    };
    let before = wasm_bytes();
    let mut space = VectorSpace::default();
    for i in 0..ROWS {
        let item = VectorItem {
            id: format!("mem_{i:020}"),
            collection: Collection::Memory,
            memory_type: MemoryType::History,
            values: values(),
        };
        space.upsert(item).unwrap();
    }
    let per_row = (wasm_bytes() - before) / ROWS as f64;
    assert_eq!(space.len(), ROWS);
    // One byte per dimension, plus id, scale, norm, metadata and the id map; a doubling
    // array of codes cost ~850 bytes per row here.
    assert!(
        per_row <= (DIM + 160) as f64,
        "{per_row:.0} bytes of wasm memory per {DIM}-dimension vector"
    );
}
