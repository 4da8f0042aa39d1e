//! Shared by the wasm memory tests (each alone in its test binary, so no earlier test leaves
//! free memory behind for it to reuse).

use js_sys::WebAssembly;
use wasm_bindgen::JsCast;

/// The bytes of this module's linear memory (it grows and never shrinks back).
pub fn wasm_bytes() -> f64 {
    let memory: WebAssembly::Memory = wasm_bindgen::memory().unchecked_into();
    memory
        .buffer()
        .unchecked_into::<js_sys::ArrayBuffer>()
        .byte_length() as f64
}
