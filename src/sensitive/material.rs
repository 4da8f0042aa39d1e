//! Conversation material without its sensitive sentences: what a dream turns into
//! conversation chunks, emotion snippets and the diary.
//!
//! A sentence is left out when the detector finds anything in it, and also when it repeats a
//! secret value stated anywhere in the same batch ("Got it, hunter2xyz is safe with me").
//! Whole sentences go, not just the value: "my password is [redacted], don't tell anyone"
//! still tells what was confided and invites the question, and for health or sexuality the
//! detected term is not the secret, the sentence is. The other sentences of the turn stay, so
//! the hiking trip mentioned next to a password is still found.

use super::detect;
use crate::text::sentence_spans;

/// Shortest value whose repetition elsewhere is left out too (shorter ones are common words
/// and numbers).
const MIN_REPEATED_VALUE_CHARS: usize = 4;

/// Each text of one batch without its sensitive sentences, trimmed (empty when nothing safe
/// is left).
pub fn keep_safe_sentences<S: AsRef<str>>(texts: &[S]) -> Vec<String> {
    let mut values: Vec<String> = Vec::new();
    let judged: Vec<Vec<(std::ops::Range<usize>, bool)>> = texts
        .iter()
        .map(|text| {
            let text = text.as_ref();
            sentence_spans(text)
                .into_iter()
                .map(|span| {
                    let sentence = &text[span.clone()];
                    let findings = detect(sentence);
                    for value in findings.iter().filter_map(|f| f.value.clone()) {
                        let value = sentence[value].trim().to_lowercase();
                        if value.chars().count() >= MIN_REPEATED_VALUE_CHARS
                            && !values.contains(&value)
                        {
                            values.push(value);
                        }
                    }
                    (span, findings.is_empty())
                })
                .collect()
        })
        .collect();
    texts
        .iter()
        .zip(judged)
        .map(|(text, sentences)| {
            let text = text.as_ref();
            let mut out = String::new();
            let mut previous_end = 0;
            for (span, clean) in sentences {
                let sentence = &text[span.clone()];
                let lower = sentence.to_lowercase();
                if clean && !values.iter().any(|v| lower.contains(v.as_str())) {
                    if !out.is_empty() {
                        out.push_str(&text[previous_end..span.start]);
                    }
                    out.push_str(sentence);
                }
                previous_end = span.end;
            }
            out
        })
        .collect()
}

/// `text` without its sensitive sentences (a diary entry an LLM wrote, a merged `prior`).
pub fn without_sensitive_sentences(text: &str) -> String {
    keep_safe_sentences(&[text]).pop().unwrap_or_default()
}
