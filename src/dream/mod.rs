//! The dream: Scan → Diary → Extraction → Cleanup (SPEC §2.5), built-in engines and the LLM layer.
