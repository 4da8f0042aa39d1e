//! The dream's rules (SPEC §2.5), free of the engine and of I/O: the built-in extractor and
//! summarizer, emotion, the records kept of the log and where a fact came from (the words and
//! dates they read are [`crate::text`] and [`crate::time`]). The stages that read, apply these rules and commit are the engine's
//! (`engine::dream`); the LLM's prompts and parsing are in `crate::llm`.

pub mod emotion;
pub mod extract;
pub mod provenance;
pub mod records;
pub mod summarize;

pub use extract::{extract, EmotionSnippet, ExtractedMemory, Extraction};
