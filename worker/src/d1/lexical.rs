//! The FTS5 side of the D1 store: what text a memory is indexed under, and MATCH expressions.
//!
//! FTS5 has no Chinese segmenter, so the core tokenizes (Latin stems, CJK unigrams and
//! bigrams) and FTS5 only sees space-separated tokens. The document model is the core's BM25F
//! one ([`DocTerms`]): a keyword counts [`KEYWORD_BOOST`] times, so each keyword token is
//! repeated that many times; the weighted length goes into `lex_len` for [`term_stats`].
//!
//! [`KEYWORD_BOOST`]: hippo::retrieval::lexical::KEYWORD_BOOST
//! [`term_stats`]: hippo::ports::Store::term_stats

use hippo::memory::Memory;
use hippo::retrieval::lexical::DocTerms;

/// The indexed text of a memory (tokens, space-separated) and its weighted length.
pub fn lexical_document(memory: &Memory) -> (String, f64) {
    let doc = DocTerms::new(&memory.summary, &memory.keywords, "");
    let mut terms: Vec<(&String, &f64)> = doc.tf.iter().collect();
    terms.sort_by(|a, b| a.0.cmp(b.0)); // deterministic text for the same memory
    let mut text = String::new();
    for (term, tf) in terms {
        for _ in 0..tf.round().max(1.0) as usize {
            if !text.is_empty() {
                text.push(' ');
            }
            text.push_str(term);
        }
    }
    (text, doc.len)
}

/// The token naming an NPC in the FTS `npc` column: `n` + the uppercase hex of its bytes
/// (the same as SQL's `'n' || hex(npcid)` in the insert trigger). Hex keeps it one token.
pub fn npc_token(npcid: &str) -> String {
    let mut out = String::with_capacity(1 + npcid.len() * 2);
    out.push('n');
    for b in npcid.bytes() {
        out.push_str(&format!("{b:02X}"));
    }
    out
}

/// A term as an FTS5 string literal: always quoted, so no term is read as an operator.
fn quoted(term: &str) -> String {
    format!("\"{}\"", term.replace('"', "\"\""))
}

/// MATCH expression: the NPC's documents containing any of `terms`. `None` without terms.
pub fn any_term_query(npcid: &str, terms: &[String]) -> Option<String> {
    let mut seen = std::collections::HashSet::new();
    let alternatives: Vec<String> = terms
        .iter()
        .filter(|t| !t.trim().is_empty() && seen.insert(t.as_str()))
        .map(|t| quoted(t))
        .collect();
    if alternatives.is_empty() {
        return None;
    }
    Some(format!(
        "npc:{} AND lex:({})",
        quoted(&npc_token(npcid)),
        alternatives.join(" OR ")
    ))
}

/// MATCH expression: the NPC's documents containing `term` (for document frequencies).
pub fn one_term_query(npcid: &str, term: &str) -> String {
    format!("npc:{} AND lex:{}", quoted(&npc_token(npcid)), quoted(term))
}

#[cfg(test)]
mod tests {
    use super::*;
    use hippo::memory::{Collection, MemoryType};
    use hippo::time::Timestamp;

    fn memory(summary: &str, keywords: &[&str]) -> Memory {
        Memory {
            id: "m".into(),
            memory_type: MemoryType::Other,
            summary: summary.into(),
            keywords: keywords.iter().map(|k| k.to_string()).collect(),
            confidence: 1.0,
            importance: 0.5,
            source: "test".into(),
            created_at: Timestamp(0),
            updated_at: Timestamp(0),
            last_accessed_at: Timestamp(0),
            access_count: 0,
            encounter_count: 1,
            event_time: None,
            expires_at: None,
            sensitive: false,
            superseded_by: None,
            collection: Collection::Memory,
            emotion: None,
        }
    }

    #[test]
    fn keywords_count_twice_and_length_is_weighted() {
        let (text, len) = lexical_document(&memory("用户对花生过敏", &["peanut"]));
        let tokens: Vec<&str> = text.split(' ').collect();
        assert_eq!(tokens.iter().filter(|t| **t == "peanut").count(), 2);
        assert!(tokens.contains(&"花生") && tokens.contains(&"过敏"));
        assert_eq!(len, tokens.len() as f64);
    }

    #[test]
    fn npc_token_matches_sql_hex() {
        assert_eq!(npc_token("a.b-1"), "n612E622D31");
        assert_ne!(npc_token("a.b"), npc_token("a-b"));
    }

    #[test]
    fn queries_quote_every_term() {
        let q = any_term_query("x", &["or".into(), "a\"b".into(), "or".into()]).unwrap();
        assert_eq!(q, "npc:\"n78\" AND lex:(\"or\" OR \"a\"\"b\")");
        assert!(any_term_query("x", &[]).is_none());
        assert_eq!(one_term_query("x", "书"), "npc:\"n78\" AND lex:\"书\"");
    }
}
