//! The dream's LLM through the Workers AI binding (`HIPPO_LLM_MODEL=@cf/…`).

use async_trait::async_trait;
use hippo::error::PortError;
use hippo::ports::{ChatMessage, Llm, PortResult};
use serde::{Deserialize, Serialize};

pub struct WorkersAiLlm {
    ai: worker::Ai,
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
    pub fn new(ai: worker::Ai, model: &str) -> Self {
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
        let output: ChatOutput = self
            .ai
            .run(&self.model, input)
            .await
            .map_err(|e| PortError::Backend(format!("Workers AI {}: {e}", self.model)))?;
        output.response.ok_or_else(|| {
            PortError::Backend(format!("Workers AI {}: no response text", self.model))
        })
    }
}
