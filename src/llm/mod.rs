//! The LLM layer (SPEC §2.6): prompts for the dream's stages and for conflict resolution's
//! verdict, strict parsing of what comes back, and an OpenAI-compatible chat client over the
//! HTTP-client port.
//!
//! Nothing an LLM says is written before [`parse`] has validated it; a response that fails
//! validation is an `Err(String)` the dream reports as its stage's error, never a partial
//! write.

pub mod openai;
pub mod parse;
pub mod prompts;

pub use openai::OpenAiChat;
pub use prompts::Prompt;

use crate::memory::conflict::Verdict;
use crate::ports::Llm;

/// The LLM's DUPLICATE / SUPERSEDES / DISTINCT for a new fact against a stored one; `None`
/// when the call fails or the answer is not a verdict (the caller falls back to the rules).
pub async fn ask_verdict(model: &dyn Llm, new: &str, old: &str) -> Option<Verdict> {
    let prompt = prompts::verdict(old, new);
    let answer = model
        .complete(&prompt.system, &prompt.messages)
        .await
        .ok()?;
    parse::parse_verdict(&answer).ok()
}
