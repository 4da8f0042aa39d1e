//! The Worker's configuration (SPEC §5): vars and secrets read once per request.
//!
//! Parsing is pure (a lookup function in, a [`Config`] out) so every rule is unit-tested;
//! [`Config::from_env`] is the only part that touches the runtime.

use hippo::retrieval::model_embed::{parse_model, ModelConfig, OpenAiEmbedConfig};
use hippo::store::ShardMap;

/// Which embedder serves.
#[derive(Debug, Clone, PartialEq)]
pub enum EmbedChoice {
    /// The core's deterministic built-in embedder (no model, no network).
    Builtin,
    /// OpenAI-compatible `POST {url}/embeddings` (the core's `OpenAiEmbedder`).
    OpenAi(OpenAiEmbedConfig),
    /// The Workers AI binding `AI`.
    WorkersAi(ModelConfig),
}

/// Which LLM serves the dream (none: the built-in extractor and summarizer).
#[derive(Debug, Clone, PartialEq)]
pub enum LlmChoice {
    /// OpenAI-compatible `POST {url}/chat/completions`.
    OpenAi {
        url: String,
        key: Option<String>,
        model: String,
    },
    /// The Workers AI binding `AI` with a `@cf/…` model.
    WorkersAi { model: String },
}

#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    /// `None` (unset or empty): every `/api` route answers 503.
    pub admin_token: Option<String>,
    pub embed: EmbedChoice,
    pub llm: Option<LlmChoice>,
    /// `HIPPO_LLM_TIMEOUT_MS`: how long one completion may take (default 60 s).
    pub llm_timeout_ms: u32,
    /// `HIPPO_TEST_HOOKS=1` exposes `/__test/*` routes (tests only; never in production).
    pub test_hooks: bool,
    /// `HIPPO_SHARDS` (D1 bindings, `DB` first) and `HIPPO_SHARD_MAP` (pins): which database
    /// holds each NPC. Unset: `DB` alone.
    pub shards: ShardMap,
}

pub const DEFAULT_WORKERS_AI_EMBED_MODEL: &str = "@cf/baai/bge-m3";

/// A variable's value, trimmed; unset and blank are the same.
fn non_empty(var: &impl Fn(&str) -> Option<String>, name: &str) -> Option<String> {
    var(name)
        .map(|v| v.trim().to_string())
        .filter(|v| !v.is_empty())
}

/// The admin token alone: the HTTP layer checks it before anything else, so a caller without
/// it learns nothing about the rest of the configuration (even when that is broken).
pub fn admin_token(var: impl Fn(&str) -> Option<String>) -> Option<String> {
    non_empty(&var, "HIPPO_ADMIN_TOKEN")
}

/// Whether `HIPPO_TEST_HOOKS=1` (read as early as the admin token, for the same reason).
pub fn test_hooks(var: impl Fn(&str) -> Option<String>) -> bool {
    non_empty(&var, "HIPPO_TEST_HOOKS").as_deref() == Some("1")
}

impl Config {
    /// Reads the configuration through `var` (name → non-empty value). `has_ai` says whether
    /// the `AI` binding exists. Errors name the variable to fix.
    pub fn parse(var: impl Fn(&str) -> Option<String>, has_ai: bool) -> Result<Config, String> {
        let raw = &var;
        let var = |name: &str| non_empty(raw, name);
        let embed = match var("HIPPO_EMBED").as_deref().unwrap_or("builtin") {
            "builtin" => EmbedChoice::Builtin,
            "openai" => EmbedChoice::OpenAi(OpenAiEmbedConfig::parse(raw)?),
            "workers-ai" => {
                if !has_ai {
                    return Err("HIPPO_EMBED=workers-ai needs the AI binding".into());
                }
                EmbedChoice::WorkersAi(parse_model(raw, DEFAULT_WORKERS_AI_EMBED_MODEL)?)
            }
            other => {
                return Err(format!(
                    "HIPPO_EMBED must be builtin, openai or workers-ai, got {other:?}"
                ))
            }
        };
        let llm = match (var("HIPPO_LLM_URL"), var("HIPPO_LLM_MODEL")) {
            (Some(url), model) => Some(LlmChoice::OpenAi {
                url: url.trim_end_matches('/').to_string(),
                key: var("HIPPO_LLM_KEY"),
                model: model.ok_or("HIPPO_LLM_URL is set but HIPPO_LLM_MODEL is not")?,
            }),
            (None, Some(model)) if model.starts_with("@cf/") => {
                if !has_ai {
                    return Err(format!("HIPPO_LLM_MODEL={model} needs the AI binding"));
                }
                Some(LlmChoice::WorkersAi { model })
            }
            (None, Some(model)) => {
                return Err(format!(
                "HIPPO_LLM_MODEL={model} needs HIPPO_LLM_URL (or a @cf/ model with the AI binding)"
            ))
            }
            (None, None) => None,
        };
        let llm_timeout_ms = match var("HIPPO_LLM_TIMEOUT_MS") {
            None => crate::llm::LLM_TIMEOUT_MS,
            Some(ms) => ms.parse::<u32>().ok().filter(|ms| *ms > 0).ok_or_else(|| {
                format!("HIPPO_LLM_TIMEOUT_MS must be a positive integer, got {ms:?}")
            })?,
        };
        let shards = ShardMap::parse(
            var("HIPPO_SHARDS").as_deref(),
            var("HIPPO_SHARD_MAP").as_deref(),
        )?;
        Ok(Config {
            admin_token: admin_token(raw),
            embed,
            llm,
            llm_timeout_ms,
            test_hooks: test_hooks(raw),
            shards,
        })
    }

    /// A string var or secret of the Worker's environment.
    pub fn env_var(env: &worker::Env, name: &str) -> Option<String> {
        js_sys::Reflect::get(env.as_ref(), &wasm_bindgen::JsValue::from_str(name))
            .ok()
            .and_then(|v| v.as_string())
    }

    pub fn has_binding(env: &worker::Env, name: &str) -> bool {
        js_sys::Reflect::get(env.as_ref(), &wasm_bindgen::JsValue::from_str(name))
            .map(|v| !v.is_undefined() && !v.is_null())
            .unwrap_or(false)
    }

    pub fn from_env(env: &worker::Env) -> Result<Config, String> {
        Config::parse(
            |name| Config::env_var(env, name),
            Config::has_binding(env, "AI"),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn parse(vars: &[(&str, &str)], has_ai: bool) -> Result<Config, String> {
        let map: HashMap<String, String> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Config::parse(|name| map.get(name).cloned(), has_ai)
    }

    #[test]
    fn nothing_configured_means_builtins_and_no_admin() {
        let c = parse(&[("HIPPO_ADMIN_TOKEN", "  ")], false).unwrap();
        assert_eq!(c.admin_token, None);
        assert_eq!(c.embed, EmbedChoice::Builtin);
        assert_eq!(c.llm, None);
        assert!(!c.test_hooks);
        assert_eq!(c.shards, ShardMap::single());
    }

    #[test]
    fn shards_come_from_their_vars() {
        let c = parse(&[("HIPPO_SHARDS", "DB, DB_1")], false).unwrap();
        assert_eq!(c.shards.names(), ["DB", "DB_1"]);
        let err = parse(&[("HIPPO_SHARDS", "DB_1")], false).unwrap_err();
        assert!(err.contains("HIPPO_SHARDS"), "{err}");
        let err = parse(&[("HIPPO_SHARD_MAP", "{\"a\": \"DB_2\"}")], false).unwrap_err();
        assert!(err.contains("HIPPO_SHARD_MAP"), "{err}");
    }

    #[test]
    fn openai_llm_and_embeddings() {
        let c = parse(
            &[
                ("HIPPO_ADMIN_TOKEN", "s3cret"),
                ("HIPPO_LLM_URL", "https://llm.example/v1/"),
                ("HIPPO_LLM_MODEL", "gpt-4o-mini"),
                ("HIPPO_EMBED", "openai"),
                ("HIPPO_EMBED_URL", "https://emb.example/v1"),
                ("HIPPO_EMBED_KEY", "k"),
            ],
            false,
        )
        .unwrap();
        assert_eq!(c.admin_token.as_deref(), Some("s3cret"));
        assert_eq!(
            c.llm,
            Some(LlmChoice::OpenAi {
                url: "https://llm.example/v1".into(),
                key: None,
                model: "gpt-4o-mini".into()
            })
        );
        let EmbedChoice::OpenAi(embed) = c.embed else {
            panic!("{:?}", c.embed)
        };
        assert_eq!(embed.url, "https://emb.example/v1");
        assert_eq!(embed.key.as_deref(), Some("k"));
        assert_eq!(embed.model.model, "text-embedding-3-small");
        assert_eq!(embed.model.dimension, 1536);
    }

    #[test]
    fn workers_ai_needs_the_binding_and_a_known_dimension() {
        assert!(parse(&[("HIPPO_EMBED", "workers-ai")], false).is_err());
        let c = parse(&[("HIPPO_EMBED", "workers-ai")], true).unwrap();
        let EmbedChoice::WorkersAi(model) = c.embed else {
            panic!("{:?}", c.embed)
        };
        assert_eq!(model.model, DEFAULT_WORKERS_AI_EMBED_MODEL);
        assert_eq!(model.dimension, 1024);
        let err = parse(
            &[
                ("HIPPO_EMBED", "workers-ai"),
                ("HIPPO_EMBED_MODEL", "@cf/x/y"),
            ],
            true,
        )
        .unwrap_err();
        assert!(err.contains("HIPPO_EMBED_DIM"), "{err}");
        let c = parse(
            &[
                ("HIPPO_EMBED", "workers-ai"),
                ("HIPPO_EMBED_MODEL", "@cf/x/y"),
                ("HIPPO_EMBED_DIM", "512"),
            ],
            true,
        )
        .unwrap();
        assert!(matches!(
            c.embed,
            EmbedChoice::WorkersAi(ModelConfig { dimension: 512, .. })
        ));
        let c = parse(
            &[("HIPPO_LLM_MODEL", "@cf/meta/llama-3.1-8b-instruct")],
            true,
        )
        .unwrap();
        assert!(matches!(c.llm, Some(LlmChoice::WorkersAi { .. })));
    }

    #[test]
    fn mistakes_are_named() {
        for (vars, needle) in [
            (vec![("HIPPO_EMBED", "magic")], "HIPPO_EMBED must be"),
            (vec![("HIPPO_EMBED", "openai")], "HIPPO_EMBED_URL"),
            (vec![("HIPPO_LLM_URL", "https://x")], "HIPPO_LLM_MODEL"),
            (vec![("HIPPO_LLM_MODEL", "gpt")], "HIPPO_LLM_URL"),
            (vec![("HIPPO_LLM_TIMEOUT_MS", "0")], "HIPPO_LLM_TIMEOUT_MS"),
            (
                vec![("HIPPO_LLM_TIMEOUT_MS", "soon")],
                "HIPPO_LLM_TIMEOUT_MS",
            ),
            (
                vec![
                    ("HIPPO_EMBED", "openai"),
                    ("HIPPO_EMBED_URL", "https://x"),
                    ("HIPPO_EMBED_DIM", "zero"),
                ],
                "HIPPO_EMBED_DIM",
            ),
        ] {
            let err = parse(&vars, false).unwrap_err();
            assert!(err.contains(needle), "{vars:?}: {err}");
        }
        assert_eq!(
            parse(&[], false).unwrap().llm_timeout_ms,
            crate::llm::LLM_TIMEOUT_MS
        );
        assert_eq!(
            parse(&[("HIPPO_LLM_TIMEOUT_MS", "1500")], false)
                .unwrap()
                .llm_timeout_ms,
            1500
        );
        assert!(
            parse(&[("HIPPO_TEST_HOOKS", "1")], false)
                .unwrap()
                .test_hooks
        );
    }
}
