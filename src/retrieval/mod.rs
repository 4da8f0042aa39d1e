//! Retrieval: tokenizer, lexical index, built-in embedder, embedding models over the network,
//! time expressions, and the one ranking function (SPEC §2.4).
//!
//! The flow every caller (memory_retrieval, the search route, the npm API) follows:
//! 1. [`tokenize::tokenize_query`] the query; [`crate::time::phrase::parse_time_range`] the `time_hint`
//!    and the query;
//! 2. candidate generation: the lexical index's top [`rank::LEXICAL_CANDIDATES`] ∪ (with a model)
//!    the vector index's top [`rank::VECTOR_CANDIDATES`], plus the small always-present sets (PKG
//!    fields, relationship entities, diary dailies), minus the exclusions of [`rank`]; the
//!    built-in embedder's vectors score the lexical finds instead of being searched;
//! 3. [`rank::rank`] with the corpus statistics of the query terms;
//! 4. [`protocol::render_retrieval`] (memory_retrieval) or [`protocol::render_search`].

pub mod embed;
pub mod embed_cache;
pub mod lexical;
pub mod model_embed;
pub mod query;
pub mod rank;
pub mod select;
pub(crate) mod stopwords;
pub mod terms;
pub mod tokenize;
pub mod topics;
pub mod voice;
