//! `Hippo.open({storage, embed?, llm?, clock?})`: checks the options and assembles the
//! core's ports from them. Without `embed` or `llm` the core's built-in engines serve.
#![deny(
    clippy::indexing_slicing,
    clippy::string_slice,
    clippy::arithmetic_side_effects
)]

use crate::convert::property;
use crate::js_ports::{JsClock, JsEmbedder, JsLlm};
use crate::storage::{open_storage, PersistedState, PersistentStore, PersistentVectors};
use hippo::engine::Ports;
use hippo::ports::{Embedder, Llm};
use hippo::retrieval::embed::BuiltinEmbedder;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

const KNOWN: [&str; 4] = ["storage", "embed", "llm", "clock"];

/// The assembled ports, plus the persisted state itself (for `flush` and `close`).
pub struct Opened {
    pub ports: Ports,
    pub state: Rc<PersistedState>,
}

pub async fn open(options: JsValue) -> Result<Opened, hippo::Error> {
    let options = if options.is_undefined() || options.is_null() {
        js_sys::Object::new().into()
    } else if options.is_object() {
        options
    } else {
        return Err(hippo::Error::invalid(
            "Hippo.open takes an options object {storage, embed?, llm?, clock?}",
        ));
    };
    for key in js_sys::Object::keys(options.unchecked_ref::<js_sys::Object>()).iter() {
        let key = key.as_string().unwrap_or_default();
        if !KNOWN.contains(&key.as_str()) {
            return Err(hippo::Error::invalid(format!(
                "unknown option {key:?} (expected one of: {})",
                KNOWN.join(", ")
            )));
        }
    }
    let clock = Rc::new(JsClock::from_option(property(&options, "clock"))?);
    let embedder: Rc<dyn Embedder> = match present(property(&options, "embed")) {
        Some(option) => Rc::new(JsEmbedder::from_option(option).await?),
        None => Rc::new(BuiltinEmbedder::new()),
    };
    let llm: Option<Rc<dyn Llm>> = match present(property(&options, "llm")) {
        Some(option) => Some(Rc::new(JsLlm::from_option(option)?)),
        None => None,
    };
    let state = Rc::new(open_storage(&property(&options, "storage")).await?);
    let ports = Ports {
        store: Rc::new(PersistentStore(state.clone())),
        vectors: Rc::new(PersistentVectors(state.clone())),
        embedder,
        llm,
        clock,
    };
    Ok(Opened { ports, state })
}

fn present(value: JsValue) -> Option<JsValue> {
    (!value.is_undefined() && !value.is_null()).then_some(value)
}
