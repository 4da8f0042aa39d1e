//! The LLM layer (SPEC §2.6): prompts for the dream's stages, strict parsing of what comes
//! back, and an OpenAI-compatible chat client over the HTTP-client port.
//!
//! Nothing an LLM says is written before [`parse`] has validated it; a response that fails
//! validation is an `Err(String)` the pipeline reports, never a partial write.

pub mod openai;
pub mod parse;
pub mod prompts;

pub use openai::OpenAiChat;
pub use parse::Verdict;
pub use prompts::Prompt;
