//! The dream's chat LLM over `fetch`: the core's OpenAI-compatible client
//! (`POST {url}/chat/completions`, one retry on 5xx or timeout) on the Worker's HTTP client.

use hippo::llm::OpenAiChat;
use hippo::ports::{HttpClient, Llm};
use std::rc::Rc;

/// How long one completion may take before it is aborted, unless `HIPPO_LLM_TIMEOUT_MS` says. A dream makes a few calls; the
/// Worker's own limit is CPU time, not wall time, so waiting is cheap.
pub const LLM_TIMEOUT_MS: u32 = 60_000;

pub fn openai_chat(
    http: Rc<dyn HttpClient>,
    url: &str,
    key: Option<String>,
    model: &str,
    timeout_ms: u32,
) -> Rc<dyn Llm> {
    Rc::new(OpenAiChat {
        http,
        base_url: url.to_string(),
        api_key: key.unwrap_or_default(),
        model: model.to_string(),
        timeout_ms,
    })
}
