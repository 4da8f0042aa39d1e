//! The dream: Scan → Diary → Extraction → Cleanup (SPEC §2.5), built-in engines and the LLM layer.

pub mod emotion;
pub mod extract;
pub mod llm;
pub mod pipeline;
pub mod provenance;
pub mod summarize;
pub mod text;
pub mod when;

pub use extract::{extract, EmotionSnippet, ExtractedMemory, Extraction};
