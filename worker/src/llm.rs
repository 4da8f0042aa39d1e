//! The dream's chat LLM over `fetch` (OpenAI-compatible `POST {url}/chat/completions`).

use crate::http::error::HttpError;
use hippo::ports::{HttpClient, Llm};
use std::rc::Rc;

/// The core's OpenAI-compatible chat client over the Worker's HTTP client.
pub fn openai_chat(
    _http: Rc<dyn HttpClient>,
    _url: &str,
    _key: Option<String>,
    _model: &str,
) -> Result<Rc<dyn Llm>, HttpError> {
    // PENDING-DREAM-MERGE: the core's client lands with the dream branch.
    Err(HttpError::not_configured(
        "HIPPO_LLM_URL: the OpenAI-compatible chat client is not in this build yet",
    ))
}
