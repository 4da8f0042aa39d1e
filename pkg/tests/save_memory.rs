//! What a snapshot save costs in wasm memory (which never shrinks back): the file is streamed
//! into JS arrays a chunk at a time, never built whole in wasm memory, and it is the same file
//! the whole-buffer encoding gives. Alone in its test binary so no earlier test leaves free
//! memory behind. Run under Node by `make test-npm`.
#![cfg(target_arch = "wasm32")]

use hippo::memory::{Memory, MemoryType};
use hippo::npc::Npc;
use hippo::ports::{Store, VectorIndex, VectorItem, Write, WriteBatch};
use hippo::time::Timestamp;
use hippo_wasm::storage::format::{self, Section, STORE_SECTION, VECTORS_SECTION};
use hippo_wasm::storage::{JsAdapter, PersistedState, PersistentStore, PersistentVectors};
use js_sys::Uint8Array;
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen_test::*;

mod support;
use support::wasm_bytes;

/// An adapter that keeps the saved array on the JS side (a copy into wasm would be measured).
fn adapter(saved: Rc<RefCell<Option<Uint8Array>>>) -> JsValue {
    let object = js_sys::Object::new();
    let load = Closure::<dyn FnMut() -> JsValue>::new(|| JsValue::NULL);
    let save = Closure::<dyn FnMut(Uint8Array)>::new(move |bytes: Uint8Array| {
        *saved.borrow_mut() = Some(bytes);
    });
    js_sys::Reflect::set(&object, &"load".into(), &load.into_js_value()).unwrap();
    js_sys::Reflect::set(&object, &"save".into(), &save.into_js_value()).unwrap();
    object.into()
}

#[wasm_bindgen_test]
async fn a_snapshot_save_streams_the_file_out_of_wasm_memory() {
    const MEMORIES: usize = 4_000;
    let saved = Rc::new(RefCell::new(None));
    let adapter = JsAdapter::from_option(&adapter(saved.clone()))
        .await
        .unwrap()
        .unwrap();
    let state = Rc::new(PersistedState::open(adapter).await.unwrap());
    let (store, vectors) = (
        PersistentStore(state.clone()),
        PersistentVectors(state.clone()),
    );
    let now = Timestamp(1_775_606_400_000);
    let mut batch = WriteBatch::new();
    batch.push(Write::PutNpc(Npc::new("npc", now)));
    let mut items = Vec::new();
    for i in 0..MEMORIES {
        let summary = format!(
            "记忆 {i}: {}",
            "用户喜欢在周末去海边散步，然后喝一杯咖啡。".repeat(8)
        );
        let memory = Memory::new(&format!("m{i:06}"), MemoryType::History, &summary, now);
        batch.push(Write::PutMemory { memory });
        items.push(VectorItem {
            id: format!("m{i:06}"),
            collection: Default::default(),
            memory_type: MemoryType::History,
            values: (0..256)
                .map(|d| ((i * 31 + d) % 97) as f32 - 48.0)
                .collect(),
        });
    }
    store.commit("npc", batch).await.unwrap();
    vectors.upsert("npc", items).await.unwrap();

    let before = wasm_bytes();
    state.flush().await.unwrap();
    let grown = wasm_bytes() - before;
    let file = saved.borrow().clone().expect("the flush saved a snapshot");
    let len = f64::from(file.length());
    assert!(len > 4_000_000.0, "a {len}-byte file is too small to tell");
    // The whole-buffer save grew wasm memory by about three times the file.
    assert!(
        grown <= len / 8.0,
        "a save of {len} bytes grew wasm memory by {grown} bytes"
    );
    let whole = format::encode(&[
        Section {
            tag: STORE_SECTION,
            bytes: state.store().unwrap().snapshot().unwrap(),
        },
        Section {
            tag: VECTORS_SECTION,
            bytes: state.vectors().unwrap().snapshot(),
        },
    ]);
    assert!(
        file.to_vec() == whole,
        "the streamed file differs from the encoded one"
    );
}
