//! Persistence for the npm package: the core's in-memory store, saved as one versioned file
//! through a JS adapter (a file in Node, IndexedDB in browsers, or the caller's own).

pub mod adapter;
pub mod format;
pub mod persistent;

pub use adapter::JsAdapter;
pub use persistent::PersistentStore;

/// The store for a `storage` option: `"memory"`, `{file}`, `{indexedDB}`, or an adapter.
pub async fn open_storage(option: &wasm_bindgen::JsValue) -> Result<PersistentStore, hippo::Error> {
    match JsAdapter::from_option(option).await? {
        None => Ok(PersistentStore::in_memory()),
        Some(adapter) => PersistentStore::open(adapter).await,
    }
}
