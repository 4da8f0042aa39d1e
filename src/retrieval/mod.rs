//! Retrieval: tokenizer, lexical index, built-in embedder, time expressions, and the one
//! ranking function (SPEC §2.4).
