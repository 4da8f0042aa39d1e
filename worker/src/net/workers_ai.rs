//! Workers AI through the `AI` binding: the dream's LLM (`HIPPO_LLM_MODEL=@cf/…`) and text
//! embeddings (`HIPPO_EMBED=workers-ai`).
//!
//! The binding is reached like Vectorize: a `wasm_bindgen` extern type taken from `Env` by
//! name, with inputs serialized JSON-compatible. (workers-rs' `Ai` checks the binding's JS class
//! name, which rules out stand-ins in tests; this needs only a `run(model, inputs)` method.)

use async_trait::async_trait;
use hippo::error::PortError;
use hippo::ports::{ChatMessage, Llm, PortResult};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

#[wasm_bindgen]
extern "C" {
    /// The runtime's Workers AI binding object.
    pub type WorkersAiSys;

    #[wasm_bindgen(method, catch)]
    fn run(this: &WorkersAiSys, model: &str, inputs: JsValue) -> Result<js_sys::Promise, JsValue>;
}

/// The safe face of the `AI` binding.
#[derive(Clone)]
pub struct WorkersAi {
    sys: Rc<WorkersAiSys>,
}

impl WorkersAi {
    /// The binding named `name` in `env`, if the deployment has one.
    pub fn from_env(env: &worker::Env, name: &str) -> Option<WorkersAi> {
        let value = js_sys::Reflect::get(env.as_ref(), &JsValue::from_str(name)).ok()?;
        if value.is_undefined() || value.is_null() {
            return None;
        }
        Some(WorkersAi {
            sys: Rc::new(value.unchecked_into()),
        })
    }

    /// Runs `model` on `inputs` and reads its output as `T`.
    pub async fn run<I: Serialize, T: DeserializeOwned>(
        &self,
        model: &str,
        inputs: &I,
    ) -> PortResult<T> {
        let fail = |what: &str, detail: String| {
            PortError::Backend(format!("Workers AI {model}: {what}: {detail}"))
        };
        let inputs = inputs
            .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
            .map_err(|e| fail("inputs", e.to_string()))?;
        let js_error = |e: JsValue| {
            e.dyn_ref::<js_sys::Error>()
                .map(|e| String::from(e.message()))
                .unwrap_or_else(|| format!("{e:?}"))
        };
        let promise = self
            .sys
            .run(model, inputs)
            .map_err(|e| fail("run", js_error(e)))?;
        let output = JsFuture::from(promise)
            .await
            .map_err(|e| fail("run", js_error(e)))?;
        serde_wasm_bindgen::from_value(output).map_err(|e| fail("output", e.to_string()))
    }
}

/// The dream's LLM on a Workers AI text-generation model.
pub struct WorkersAiLlm {
    ai: WorkersAi,
    model: String,
}

#[derive(Serialize)]
struct ChatInput<'a> {
    messages: Vec<&'a ChatMessage>,
    max_tokens: u32,
}

#[derive(Deserialize)]
struct ChatOutput {
    #[serde(default)]
    response: Option<String>,
}

impl WorkersAiLlm {
    pub fn new(ai: WorkersAi, model: &str) -> Self {
        WorkersAiLlm {
            ai,
            model: model.to_string(),
        }
    }
}

#[async_trait(?Send)]
impl Llm for WorkersAiLlm {
    async fn complete(&self, system: &str, messages: &[ChatMessage]) -> PortResult<String> {
        let system = ChatMessage {
            role: "system".into(),
            content: system.to_string(),
        };
        let input = ChatInput {
            messages: std::iter::once(&system).chain(messages).collect(),
            max_tokens: 2048,
        };
        let output: ChatOutput = self.ai.run(&self.model, &input).await?;
        output.response.ok_or_else(|| {
            PortError::Backend(format!("Workers AI {}: no response text", self.model))
        })
    }
}
