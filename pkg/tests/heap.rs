//! The package's allocator (`hippo_wasm::heap`): the wasm memory grows in steps, so that
//! allocations after a growth find room instead of growing it again (each growth of a large
//! memory cost a full garbage collection in Node). Run under Node by `make test-npm`.
#![cfg(target_arch = "wasm32")]

// Linked for its `#[global_allocator]`: nothing else of the package is called here.
extern crate hippo_wasm;

use core::arch::wasm32::memory_size;
use std::hint::black_box;
use wasm_bindgen_test::*;

#[wasm_bindgen_test]
fn after_a_growth_the_next_megabyte_of_allocations_grows_nothing() {
    // Larger than anything free before: the memory grows.
    let before = memory_size::<0>();
    let big = black_box(Vec::<u8>::with_capacity(8 << 20));
    let grown = memory_size::<0>();
    assert!(grown > before, "8 MiB fit in the memory there was");
    // The standard allocator alone grows by what a request needs, rounded to 64 KiB: these
    // 240 blocks of 4 KiB (960 KiB, under the 1 MiB smallest step) would have grown it
    // again every sixteen blocks.
    let small: Vec<Vec<u8>> = (0..240)
        .map(|_| black_box(Vec::with_capacity(4096)))
        .collect();
    assert_eq!(memory_size::<0>(), grown, "grew again within the step");
    drop((big, small));
}
