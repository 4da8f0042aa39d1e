//! The core's shared backend suite on the npm package's persisted store, under Node
//! (`wasm-bindgen-test-runner`; see the `test-npm` make target), plus what persistence adds:
//! reopening from the saved bytes, and rolling back when a save fails. (The API saves at the
//! end of each call; here `flush` stands for that.)
#![cfg(target_arch = "wasm32")]

use hippo::ports::{Store, Write, WriteBatch};
use hippo::store::suite::{run_store_suite, run_vector_suite};
use hippo_wasm::storage::{JsAdapter, PersistedState, PersistentStore, PersistentVectors};
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen_test::*;

/// A JS adapter object `{load(), save(bytes)}` over bytes held here; `fail` makes saves throw.
struct Disk {
    bytes: RefCell<Option<Vec<u8>>>,
    saves: Cell<usize>,
    fail: Cell<bool>,
}

impl Disk {
    fn new() -> Rc<Disk> {
        Rc::new(Disk {
            bytes: RefCell::new(None),
            saves: Cell::new(0),
            fail: Cell::new(false),
        })
    }

    fn adapter_object(self: &Rc<Self>) -> JsValue {
        let object = js_sys::Object::new();
        let disk = self.clone();
        let load = Closure::<dyn FnMut() -> JsValue>::new(move || match &*disk.bytes.borrow() {
            Some(bytes) => js_sys::Uint8Array::from(&bytes[..]).into(),
            None => JsValue::NULL,
        });
        let disk = self.clone();
        let save = Closure::<dyn FnMut(js_sys::Uint8Array) -> Result<JsValue, JsValue>>::new(
            move |bytes: js_sys::Uint8Array| {
                if disk.fail.get() {
                    return Err(js_sys::Error::new("disk full").into());
                }
                *disk.bytes.borrow_mut() = Some(bytes.to_vec());
                disk.saves.set(disk.saves.get() + 1);
                Ok(JsValue::UNDEFINED)
            },
        );
        js_sys::Reflect::set(&object, &"load".into(), &load.into_js_value()).unwrap();
        js_sys::Reflect::set(&object, &"save".into(), &save.into_js_value()).unwrap();
        object.into()
    }

    async fn open(self: &Rc<Self>) -> Rc<PersistedState> {
        let adapter = JsAdapter::from_option(&self.adapter_object())
            .await
            .unwrap()
            .expect("an adapter object is an adapter");
        Rc::new(PersistedState::open(adapter).await.unwrap())
    }
}

fn failures(results: Vec<(String, Result<(), String>)>) -> Vec<String> {
    assert!(
        results.len() >= 4,
        "the suite ran only {} cases",
        results.len()
    );
    results
        .into_iter()
        .filter_map(|(name, r)| r.err().map(|e| format!("{name}: {e}")))
        .collect()
}

#[wasm_bindgen_test]
async fn suite_passes_in_memory() {
    let store = PersistentStore(Rc::new(PersistedState::in_memory()));
    assert_eq!(
        failures(run_store_suite(&store, "mem-").await),
        Vec::<String>::new()
    );
}

#[wasm_bindgen_test]
async fn vector_suite_passes_persisted() {
    let disk = Disk::new();
    let state = disk.open().await;
    let vectors = PersistentVectors(state.clone());
    assert_eq!(
        failures(run_vector_suite(&vectors, "vec-").await),
        Vec::<String>::new()
    );
    state.flush().await.unwrap();
    assert_eq!(disk.saves.get(), 1, "one save for everything changed");
}

#[wasm_bindgen_test]
async fn suite_passes_persisted_and_the_saved_bytes_reopen_to_the_same_data() {
    let disk = Disk::new();
    let state = disk.open().await;
    let store = PersistentStore(state.clone());
    assert_eq!(
        failures(run_store_suite(&store, "disk-").await),
        Vec::<String>::new()
    );
    assert_eq!(disk.saves.get(), 0, "mutations wait for the flush");
    state.flush().await.unwrap();
    assert_eq!(disk.saves.get(), 1, "one save for everything changed");
    state.flush().await.unwrap();
    assert_eq!(disk.saves.get(), 1, "nothing left to save");

    let reopened = PersistentStore(disk.open().await);
    let before = store.list_npcs(None, 1000).await.unwrap();
    let after = reopened.list_npcs(None, 1000).await.unwrap();
    assert!(!after.is_empty(), "the suite leaves NPCs behind to compare");
    assert_eq!(after, before);
    for npc in &before {
        let id = &npc.npcid;
        assert_eq!(
            reopened.pkg(id).await.unwrap(),
            store.pkg(id).await.unwrap()
        );
        assert_eq!(
            reopened.entities(id).await.unwrap(),
            store.entities(id).await.unwrap()
        );
        assert_eq!(
            reopened.diary(id).await.unwrap(),
            store.diary(id).await.unwrap()
        );
        assert_eq!(
            reopened.turns(id, 0, 10_000).await.unwrap(),
            store.turns(id, 0, 10_000).await.unwrap()
        );
        let all = Default::default();
        assert_eq!(
            reopened.memories(id, &all).await.unwrap(),
            store.memories(id, &all).await.unwrap()
        );
    }
}

#[wasm_bindgen_test]
async fn a_failed_save_rolls_back_to_what_was_saved() {
    let disk = Disk::new();
    let state = disk.open().await;
    let store = PersistentStore(state.clone());
    let put = |name: &str| {
        let mut npc = hippo::npc::Npc::new("npc", hippo::time::Timestamp(0));
        npc.display_name = name.into();
        WriteBatch {
            writes: vec![Write::PutNpc(npc)],
            expect_version: None,
        }
    };
    store.commit("npc", put("saved")).await.unwrap();
    state.flush().await.unwrap();

    disk.fail.set(true);
    store.commit("npc", put("lost")).await.unwrap();
    let error = state.flush().await.unwrap_err();
    assert!(error.to_string().contains("disk full"), "{error}");
    let npc = store.npc("npc").await.unwrap().unwrap();
    assert_eq!(
        npc.display_name, "saved",
        "the failed change is rolled back"
    );
    state
        .flush()
        .await
        .expect("nothing is pending after a rollback");

    disk.fail.set(false);
    store.commit("npc", put("later")).await.unwrap();
    state.flush().await.unwrap();
    let reopened = PersistentStore(disk.open().await);
    assert_eq!(
        reopened.npc("npc").await.unwrap().unwrap().display_name,
        "later"
    );
}
