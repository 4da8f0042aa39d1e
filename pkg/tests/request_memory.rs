//! What a large request costs in wasm memory, which never shrinks back: the request's JSON
//! text must cross as about its UTF-8 bytes, not three bytes per UTF-16 unit (wasm-bindgen's
//! string passing reserves that for any text with a non-ASCII character). Alone in its test
//! binary so no earlier test leaves free memory behind. Run under Node by `make test-npm`.
#![cfg(target_arch = "wasm32")]

use hippo_wasm::convert::request_json;
use js_sys::{JsString, Object, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen_test::*;

mod support;
use support::wasm_bytes;

#[wasm_bindgen_test]
fn a_large_request_grows_wasm_memory_by_about_its_text() {
    const UNITS: u32 = 8_000_000;
    // Made on the JS side: one non-ASCII character, then ASCII (as most JSON is).
    let text = JsString::from("é").concat(&JsString::from("a").repeat(UNITS as i32));
    let request = Object::new();
    Reflect::set(&request, &JsValue::from_str("text"), &text).unwrap();
    let before = wasm_bytes();
    let json = request_json(request.into()).unwrap();
    let grown = wasm_bytes() - before;
    assert_eq!(json.len(), UNITS as usize + 13);
    assert!(json.starts_with("{\"text\":\"éaaa"));
    // The text itself is 8 MB; the old hand-over grew memory by ~34 MB.
    assert!(
        grown <= 1.5 * f64::from(UNITS),
        "wasm memory grew by {grown} bytes for a {UNITS}-unit request"
    );
}
