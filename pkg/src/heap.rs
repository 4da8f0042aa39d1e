//! The package's allocator: the standard one (dlmalloc), with the wasm memory grown in steps
//! of a sixteenth of itself (at least 1 MiB) instead of the few pages an allocation needs.
//!
//! V8 counts a wasm memory as external memory, and in Node every `memory.grow` of a large
//! memory was followed by a scavenge and a full mark-compact ("external memory pressure" in
//! `--trace-gc`), 1–13 ms each. After an import of 100k memories the first 500 retrievals
//! grew the 130 MB memory 73 times, 1–13 pages at a time: the calls that grew it were the
//! slowest 15% (docs/BENCHMARKS.md, "The package's heap"). A step of a sixteenth makes those
//! a handful; the pages of a step not yet used are reserved, not touched, so they cost
//! address space rather than resident memory.

use core::arch::wasm32::memory_size;
use std::alloc::{GlobalAlloc, Layout, System};

/// The standard allocator, growing the memory in large steps.
pub struct Stepped;

/// Bytes in a wasm page.
const PAGE: usize = 65_536;

impl Stepped {
    /// After an allocation that grew the memory from `before` pages: one block of a
    /// sixteenth of the memory taken and given back, which dlmalloc keeps as free space at
    /// its top (memory never shrinks), so the next allocations grow nothing.
    fn grew(before: usize) {
        let pages = memory_size::<0>();
        if pages == before {
            return;
        }
        let Ok(step) = Layout::from_size_align((pages * PAGE / 16).max(1 << 20), 16) else {
            return;
        };
        // SAFETY: a non-zero layout; the block is freed with the layout it was taken with.
        unsafe {
            let block = System.alloc(step);
            if !block.is_null() {
                System.dealloc(block, step);
            }
        }
    }
}

// SAFETY: every call is the standard allocator's; `grew` only allocates and frees a block
// of its own after the call has returned.
unsafe impl GlobalAlloc for Stepped {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let before = memory_size::<0>();
        let block = System.alloc(layout);
        Self::grew(before);
        block
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let before = memory_size::<0>();
        let block = System.alloc_zeroed(layout);
        Self::grew(before);
        block
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let before = memory_size::<0>();
        let block = System.realloc(ptr, layout, new_size);
        Self::grew(before);
        block
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout)
    }
}
