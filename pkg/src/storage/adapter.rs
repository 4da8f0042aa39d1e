//! Where snapshots go: a JS adapter `{load(), save(bytes), close?()}`, either given by the
//! caller or made by a named storage kind (`{file: path}`, `{indexedDB: name}`) that the
//! platform's entry point registered (`node/` registers `file`, `browser/` `indexedDB`).

use super::format::{self, Written};
use crate::convert::{describe, method, port_error, settle};
use hippo::ports::PortResult;
use hippo::store::Sink;
use std::cell::RefCell;
use std::collections::BTreeMap;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

thread_local! {
    /// Storage kind (the option's key) → factory `(option) → adapter`.
    static KINDS: RefCell<BTreeMap<String, js_sys::Function>> = const { RefCell::new(BTreeMap::new()) };
}

/// Makes `{<kind>: …}` a valid `storage` option: `factory(option)` returns (a promise of) an
/// adapter. The package's entry points register `file` (Node) and `indexedDB` (browsers).
#[wasm_bindgen(js_name = registerStorage)]
pub fn register_storage(kind: String, factory: js_sys::Function) {
    KINDS.with(|kinds| kinds.borrow_mut().insert(kind, factory));
}

/// A JS object that loads and saves the whole store as bytes, and may append to what it saved
/// (`append(bytes)`: the next `load` returns the saved bytes followed by every appended byte).
pub struct JsAdapter {
    target: JsValue,
    load: js_sys::Function,
    save: js_sys::Function,
    append: Option<js_sys::Function>,
    close: Option<js_sys::Function>,
}

impl JsAdapter {
    /// The adapter for a `storage` option; `None` for `"memory"` (or no option).
    pub async fn from_option(option: &JsValue) -> Result<Option<JsAdapter>, hippo::Error> {
        if option.is_undefined()
            || option.is_null()
            || option.as_string().as_deref() == Some("memory")
        {
            return Ok(None);
        }
        if !option.is_object() {
            return Err(invalid_storage());
        }
        if let Some(adapter) = Self::from_object(option) {
            return Ok(Some(adapter));
        }
        let keys: Vec<String> = js_sys::Object::keys(option.unchecked_ref::<js_sys::Object>())
            .iter()
            .filter_map(|k| k.as_string())
            .collect();
        let [kind] = keys.as_slice() else {
            return Err(invalid_storage());
        };
        let factory = KINDS.with(|kinds| kinds.borrow().get(kind).cloned());
        let Some(factory) = factory else {
            return Err(hippo::Error::invalid(format!(
                "storage {{{kind}: ...}} is not available here ({{file}} needs Node, {{indexedDB}} a browser)"
            )));
        };
        // Factories only check their option (I/O waits for load/save): a throw is bad input.
        let refused =
            |e: JsValue| hippo::Error::invalid(format!("storage {kind}: {}", describe(&e)));
        let made = factory
            .call1(&JsValue::UNDEFINED, option)
            .map_err(refused)?;
        let made = settle(made).await.map_err(refused)?;
        Self::from_object(&made)
            .map(Some)
            .ok_or_else(|| hippo::Error::Internal(format!("storage {kind} made no adapter")))
    }

    fn from_object(object: &JsValue) -> Option<JsAdapter> {
        Some(JsAdapter {
            target: object.clone(),
            load: method(object, "load")?,
            save: method(object, "save")?,
            append: method(object, "append"),
            close: method(object, "close"),
        })
    }

    /// The last saved bytes (the adapter's own array, not copied into wasm memory), or `None`
    /// when nothing was ever saved.
    pub async fn load(&self) -> PortResult<Option<js_sys::Uint8Array>> {
        let loaded = self
            .load
            .call0(&self.target)
            .map_err(|e| port_error("storage load", e))?;
        let loaded = settle(loaded)
            .await
            .map_err(|e| port_error("storage load", e))?;
        if loaded.is_undefined() || loaded.is_null() {
            return Ok(None);
        }
        if loaded.is_instance_of::<js_sys::Uint8Array>()
            || loaded.is_instance_of::<js_sys::ArrayBuffer>()
        {
            return Ok(Some(js_sys::Uint8Array::new(&loaded)));
        }
        if let Some(view) = loaded.dyn_ref::<js_sys::DataView>() {
            return Ok(Some(js_sys::Uint8Array::new_with_byte_offset_and_length(
                &view.buffer(),
                view.byte_offset() as u32,
                view.byte_length() as u32,
            )));
        }
        Err(hippo::error::PortError::Backend(
            "storage load must return a Uint8Array, an ArrayBuffer or null".into(),
        ))
    }

    /// Saves a file of these sections, each streamed into JS arrays as it is written (never
    /// whole in wasm memory); resolves only once they are durable (the adapter's promise).
    /// Answers the file's length.
    pub async fn save_sections(&self, sections: &[Written<'_>]) -> PortResult<usize> {
        let mut file = JsChunks::default();
        file.put(&format::file_header());
        for (tag, write) in sections {
            let mut body = JsChunks::default();
            write(&mut body)
                .map_err(|why| hippo::error::PortError::Backend(format!("storage save: {why}")))?;
            body.flush();
            file.put(&format::section_header(*tag, body.len));
            file.flush();
            file.chunks = file.chunks.concat(&body.chunks);
            file.len = file.len.saturating_add(body.len);
        }
        file.flush();
        let len = u32::try_from(file.len).map_err(|_| {
            hippo::error::PortError::Backend("storage save: the file is over 4 GB".into())
        })?;
        let whole = js_sys::Uint8Array::new_with_length(len);
        let mut at = 0;
        for chunk in file.chunks.iter() {
            let chunk: js_sys::Uint8Array = chunk.unchecked_into();
            whole.set(&chunk, at);
            at = at.saturating_add(chunk.length());
        }
        drop(file);
        call_with_array(&self.target, &self.save, &whole, "storage save").await?;
        Ok(whole.length() as usize)
    }

    pub fn can_append(&self) -> bool {
        self.append.is_some()
    }

    /// Appends the bytes to what was saved; resolves once they are durable.
    pub async fn append(&self, bytes: &[u8]) -> PortResult<()> {
        let append = self.append.as_ref().ok_or_else(|| {
            hippo::error::PortError::Backend("storage append: the adapter has no append".into())
        })?;
        // A copy, not a view of wasm memory: the adapter may keep it past this call.
        let array = js_sys::Uint8Array::from(bytes);
        call_with_array(&self.target, append, &array, "storage append").await
    }

    /// Lets the adapter release what it holds (a database connection).
    pub async fn close(&self) -> PortResult<()> {
        if let Some(close) = &self.close {
            let closed = close
                .call0(&self.target)
                .map_err(|e| port_error("storage close", e))?;
            settle(closed)
                .await
                .map_err(|e| port_error("storage close", e))?;
        }
        Ok(())
    }
}

async fn call_with_array(
    target: &JsValue,
    function: &js_sys::Function,
    array: &js_sys::Uint8Array,
    context: &str,
) -> PortResult<()> {
    let done = function
        .call1(target, array)
        .map_err(|e| port_error(context, e))?;
    settle(done).await.map_err(|e| port_error(context, e))?;
    Ok(())
}

/// Bytes kept as JS arrays of about [`JsChunks::CHUNK`] bytes, through a buffer in wasm
/// memory of that size (or of one larger piece).
#[derive(Default)]
struct JsChunks {
    chunks: js_sys::Array,
    buffer: Vec<u8>,
    len: usize,
}

impl JsChunks {
    const CHUNK: usize = 64 << 10;

    fn flush(&mut self) {
        if !self.buffer.is_empty() {
            self.chunks
                .push(&js_sys::Uint8Array::from(self.buffer.as_slice()));
            self.buffer.clear();
        }
    }
}

impl Sink for JsChunks {
    fn put(&mut self, bytes: &[u8]) {
        self.len = self.len.saturating_add(bytes.len());
        self.buffer.extend_from_slice(bytes);
        if self.buffer.len() >= Self::CHUNK {
            self.flush();
        }
    }
}

fn invalid_storage() -> hippo::Error {
    hippo::Error::invalid(
        "storage must be \"memory\", {file: path}, {indexedDB: name} or an adapter {load(), save(bytes)}",
    )
}
