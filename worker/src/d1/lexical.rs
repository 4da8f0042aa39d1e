//! The FTS5 side of the D1 store: what text a memory is indexed under, and MATCH expressions.
//!
//! FTS5 has no Chinese segmenter, so the core tokenizes (Latin stems, CJK unigrams and
//! bigrams) and FTS5 only sees space-separated tokens. The document model is the core's BM25F
//! one ([`DocTerms`]): summary and keywords go into the `lex` column, a keyword repeated
//! [`KEYWORD_BOOST`] times; the context goes into the `ctx` column, which queries weight
//! [`CONTEXT_WEIGHT`]. The weighted length goes into `lex_len` for [`term_stats`].
//!
//! [`KEYWORD_BOOST`]: hippo::retrieval::lexical::KEYWORD_BOOST
//! [`CONTEXT_WEIGHT`]: hippo::retrieval::lexical::CONTEXT_WEIGHT
//! [`term_stats`]: hippo::ports::Store::term_stats

use hippo::memory::Memory;
use hippo::retrieval::lexical::{DocTerms, CONTEXT_WEIGHT, KEYWORD_BOOST};
use hippo::retrieval::tokenize::tokenize;

/// The indexed text of a memory, by column.
#[derive(Debug, Clone, PartialEq)]
pub struct LexicalDocument {
    /// Summary and keyword tokens (keywords repeated), space-separated.
    pub lex: String,
    /// Context tokens, space-separated.
    pub ctx: String,
    /// The core's weighted document length.
    pub len: f64,
}

pub fn lexical_document(memory: &Memory) -> LexicalDocument {
    let mut lex = tokenize(&memory.summary);
    let repeats = KEYWORD_BOOST.round().max(1.0) as usize;
    for keyword in &memory.keywords {
        let tokens = tokenize(keyword);
        for _ in 0..repeats {
            lex.extend(tokens.iter().cloned());
        }
    }
    LexicalDocument {
        lex: lex.join(" "),
        ctx: tokenize(&memory.context).join(" "),
        len: DocTerms::new(&memory.summary, &memory.keywords, &memory.context).len,
    }
}

/// `bm25()` of `memory_fts` with the core's field weights (npc 0, lex 1, ctx CONTEXT_WEIGHT).
pub fn bm25_expression() -> String {
    format!("bm25(memory_fts, 0.0, 1.0, {CONTEXT_WEIGHT:?})")
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
        "npc:{} AND {{lex ctx}}:({})",
        quoted(&npc_token(npcid)),
        alternatives.join(" OR ")
    ))
}

/// MATCH expression: the NPC's documents containing `term` (for document frequencies).
pub fn one_term_query(npcid: &str, term: &str) -> String {
    format!(
        "npc:{} AND {{lex ctx}}:{}",
        quoted(&npc_token(npcid)),
        quoted(term)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use hippo::memory::MemoryType;
    use hippo::time::Timestamp;

    fn memory(summary: &str, keywords: &[&str]) -> Memory {
        Memory {
            keywords: keywords.iter().map(|k| k.to_string()).collect(),
            confidence: 1.0,
            source: "test".into(),
            ..Memory::new("m", MemoryType::Other, summary, Timestamp(0))
        }
    }

    #[test]
    fn keywords_count_twice_context_apart_and_length_is_weighted() {
        let mut m = memory("用户对花生过敏", &["peanut"]);
        m.context = "Assistant: the aquarium on Sunday".into();
        let doc = lexical_document(&m);
        let tokens: Vec<&str> = doc.lex.split(' ').collect();
        assert_eq!(tokens.iter().filter(|t| **t == "peanut").count(), 2);
        assert!(tokens.contains(&"花生") && tokens.contains(&"过敏"));
        assert!(!tokens.contains(&"aquarium") && doc.ctx.contains("aquarium"));
        let ctx_tokens = doc.ctx.split(' ').count() as f64;
        assert_eq!(doc.len, tokens.len() as f64 + ctx_tokens * CONTEXT_WEIGHT);
        assert_eq!(
            bm25_expression(),
            format!("bm25(memory_fts, 0.0, 1.0, {CONTEXT_WEIGHT:?})")
        );
    }

    #[test]
    fn npc_token_matches_sql_hex() {
        assert_eq!(npc_token("a.b-1"), "n612E622D31");
        assert_ne!(npc_token("a.b"), npc_token("a-b"));
    }

    #[test]
    fn queries_quote_every_term() {
        let q = any_term_query("x", &["or".into(), "a\"b".into(), "or".into()]).unwrap();
        assert_eq!(q, "npc:\"n78\" AND {lex ctx}:(\"or\" OR \"a\"\"b\")");
        assert!(any_term_query("x", &[]).is_none());
        assert_eq!(
            one_term_query("x", "书"),
            "npc:\"n78\" AND {lex ctx}:\"书\""
        );
    }
}
