//! Persistence for the npm package: the core's in-memory store and vector index, saved as one
//! versioned file through a JS adapter (a file in Node, IndexedDB in browsers, or the
//! caller's own).

pub mod adapter;
pub mod format;
pub mod log;
pub mod ports;
pub mod state;

pub use adapter::JsAdapter;
pub use ports::{PersistentStore, PersistentVectors};
pub use state::PersistedState;

/// The state for a `storage` option: `"memory"`, `{file}`, `{indexedDB}`, or an adapter.
pub async fn open_storage(option: &wasm_bindgen::JsValue) -> Result<PersistedState, hippo::Error> {
    match JsAdapter::from_option(option).await? {
        None => Ok(PersistedState::in_memory()),
        Some(adapter) => PersistedState::open(adapter).await,
    }
}
