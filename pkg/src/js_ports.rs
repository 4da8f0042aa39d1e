//! The core's ports implemented over JS callbacks: `embed(texts, kind)`, `llm.complete(messages,
//! system)` and `clock()`. Each checks what JS hands back before the core sees it.
#![deny(
    clippy::indexing_slicing,
    clippy::string_slice,
    clippy::arithmetic_side_effects
)]

use crate::convert::{describe, method, port_error, property, settle, to_js};
use async_trait::async_trait;
use hippo::error::PortError;
use hippo::ports::{
    ChatMessage, Clock, EmbedKind, Embedder, Llm, PortResult, SimilarityThresholds,
};
use hippo::retrieval::model_embed::unit_vectors;
use hippo::time::Timestamp;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// An [`Embedder`] over `embed(texts, kind) → Float32Array[]` (or arrays of numbers, sync or
/// async); `kind` is `"query"` or `"document"` (models such as e5 embed them differently).
pub struct JsEmbedder {
    callback: js_sys::Function,
    name: String,
    dimension: usize,
    thresholds: SimilarityThresholds,
}

impl JsEmbedder {
    /// From the `embed` option: a function, or `{name, dimension, embed, thresholds?}`.
    /// A bare function is probed once here to learn its dimension.
    pub async fn from_option(option: JsValue) -> Result<Self, hippo::Error> {
        if let Some(callback) = option.dyn_ref::<js_sys::Function>() {
            let mut embedder = JsEmbedder {
                callback: callback.clone(),
                name: "custom".into(),
                dimension: 0,
                thresholds: SimilarityThresholds::SENTENCE,
            };
            let probe = embedder
                .call(EmbedKind::Document, &["dimension probe".to_string()])
                .await
                .map_err(hippo::Error::Port)?;
            embedder.dimension = probe.first().map_or(0, Vec::len);
            embedder.check_dimension()?;
            return Ok(embedder);
        }
        let callback = method(&option, "embed").ok_or_else(|| {
            hippo::Error::invalid("embed must be a function or {name, dimension, embed}")
        })?;
        let name = property(&option, "name")
            .as_string()
            .filter(|n| !n.trim().is_empty())
            .ok_or_else(|| hippo::Error::invalid("embed.name must be a non-empty string"))?;
        let dimension = property(&option, "dimension").as_f64().unwrap_or(0.0);
        let thresholds = thresholds_option(&property(&option, "thresholds"))?;
        let embedder = JsEmbedder {
            callback,
            name,
            dimension: if dimension.fract() == 0.0 && dimension > 0.0 {
                dimension as usize
            } else {
                0
            },
            thresholds,
        };
        embedder.check_dimension()?;
        Ok(embedder)
    }

    fn check_dimension(&self) -> Result<(), hippo::Error> {
        if (1..=8192).contains(&self.dimension) {
            Ok(())
        } else {
            Err(hippo::Error::invalid(
                "embed.dimension must be an integer between 1 and 8192",
            ))
        }
    }

    /// Calls the callback and converts its answer, without checking the dimension.
    async fn call(&self, kind: EmbedKind, texts: &[String]) -> PortResult<Vec<Vec<f32>>> {
        let input = to_js(texts).map_err(|e| PortError::Backend(e.to_string()))?;
        let returned = self
            .callback
            .call2(&JsValue::UNDEFINED, &input, &kind.as_str().into())
            .map_err(|e| port_error("embed", e))?;
        let vectors = settle(returned).await.map_err(|e| port_error("embed", e))?;
        if !js_sys::Array::is_array(&vectors) {
            return Err(PortError::Backend(
                "embed must return an array of vectors".into(),
            ));
        }
        let vectors: Vec<Vec<f32>> = js_sys::Array::from(&vectors)
            .iter()
            .map(|v| js_sys::Float32Array::new(&v).to_vec())
            .collect();
        if vectors.len() != texts.len() {
            return Err(PortError::Backend(format!(
                "embed returned {} vectors for {} texts",
                vectors.len(),
                texts.len()
            )));
        }
        Ok(vectors)
    }
}

fn thresholds_option(value: &JsValue) -> Result<SimilarityThresholds, hippo::Error> {
    if value.is_undefined() || value.is_null() {
        return Ok(SimilarityThresholds::SENTENCE);
    }
    let read = |key: &str| property(value, key).as_f64().map(|v| v as f32);
    let relevant = match property(value, "relevant") {
        v if v.is_undefined() || v.is_null() => Some(SimilarityThresholds::SENTENCE.relevant),
        v => v.as_f64().map(|v| v as f32),
    };
    match (read("duplicate"), read("ambiguous"), relevant) {
        (Some(duplicate), Some(ambiguous), Some(relevant))
            if (0.0..=1.0).contains(&ambiguous)
                && ambiguous <= duplicate
                && duplicate <= 1.0
                && (0.0..=1.0).contains(&relevant) =>
        {
            Ok(SimilarityThresholds {
                duplicate,
                ambiguous,
                relevant,
            })
        }
        _ => Err(hippo::Error::invalid(
            "embed.thresholds must be {duplicate, ambiguous, relevant?} with 0 <= ambiguous <= duplicate <= 1 and 0 <= relevant <= 1",
        )),
    }
}

#[async_trait(?Send)]
impl Embedder for JsEmbedder {
    fn name(&self) -> &str {
        &self.name
    }

    fn dimension(&self) -> usize {
        self.dimension
    }

    fn thresholds(&self) -> SimilarityThresholds {
        self.thresholds
    }

    async fn embed(&self, kind: EmbedKind, texts: &[String]) -> PortResult<Vec<Vec<f32>>> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        let vectors = self.call(kind, texts).await?;
        unit_vectors(vectors, self.dimension, "embed", "")
    }
}

/// An [`Llm`] over `llm.complete(messages, system) → string` (sync or async).
pub struct JsLlm {
    target: JsValue,
    complete: js_sys::Function,
}

impl JsLlm {
    pub fn from_option(option: JsValue) -> Result<Self, hippo::Error> {
        let complete = method(&option, "complete").ok_or_else(|| {
            hippo::Error::invalid("llm must be an object with a complete(messages, system) method")
        })?;
        Ok(JsLlm {
            target: option,
            complete,
        })
    }
}

#[async_trait(?Send)]
impl Llm for JsLlm {
    async fn complete(&self, system: &str, messages: &[ChatMessage]) -> PortResult<String> {
        let messages = to_js(messages).map_err(|e| PortError::Backend(e.to_string()))?;
        let returned = self
            .complete
            .call2(&self.target, &messages, &system.into())
            .map_err(|e| port_error("llm.complete", e))?;
        let text = settle(returned)
            .await
            .map_err(|e| port_error("llm.complete", e))?;
        text.as_string().ok_or_else(|| {
            PortError::Backend(format!(
                "llm.complete must return a string, got {}",
                describe(&text)
            ))
        })
    }
}

/// The [`Clock`]: `Date.now()`, or the `clock()` option (milliseconds or a `Date`).
pub struct JsClock {
    callback: Option<js_sys::Function>,
}

impl JsClock {
    /// Checks the callback once, so a wrong clock fails `open` rather than a later call.
    pub fn from_option(option: JsValue) -> Result<Self, hippo::Error> {
        if option.is_undefined() || option.is_null() {
            return Ok(JsClock { callback: None });
        }
        let callback = option.dyn_into::<js_sys::Function>().map_err(|_| {
            hippo::Error::invalid("clock must be a function returning milliseconds")
        })?;
        let clock = JsClock {
            callback: Some(callback),
        };
        clock.read().ok_or_else(|| {
            hippo::Error::invalid("clock() must return milliseconds since the epoch or a Date")
        })?;
        Ok(clock)
    }

    fn read(&self) -> Option<i64> {
        let callback = self.callback.as_ref()?;
        let value = callback.call0(&JsValue::UNDEFINED).ok()?;
        let ms = match value.dyn_ref::<js_sys::Date>() {
            Some(date) => date.get_time(),
            None => value.as_f64()?,
        };
        ms.is_finite().then_some(ms as i64)
    }
}

impl Clock for JsClock {
    /// A clock callback that throws after `open` falls back to `Date.now()`: time must not
    /// stop the engine.
    fn now(&self) -> Timestamp {
        Timestamp(self.read().unwrap_or_else(|| js_sys::Date::now() as i64))
    }
}
