//! Embedders reached over the network: an OpenAI-compatible `/embeddings` API, and the
//! Workers AI binding. Both return unit-length vectors of the configured dimension and refuse
//! anything else (a wrong dimension would silently poison the index).

use super::workers_ai::WorkersAi;
use async_trait::async_trait;
use hippo::error::PortError;
use hippo::ports::{Embedder, HttpClient, HttpRequest, PortResult, SimilarityThresholds};
use hippo::retrieval::embed::normalize_vector;
use serde::{Deserialize, Serialize};
use std::rc::Rc;

/// Texts per request (providers cap batch sizes; 64 stays under all common caps).
const BATCH: usize = 64;
const TIMEOUT_MS: u32 = 10_000;

fn check_dimensions(
    vectors: Vec<Vec<f32>>,
    dimension: usize,
    what: &str,
) -> PortResult<Vec<Vec<f32>>> {
    match vectors.iter().find(|v| v.len() != dimension) {
        Some(v) => Err(PortError::Backend(format!(
            "{what} returned {} dimensions, configured {dimension} (set HIPPO_EMBED_DIM)",
            v.len()
        ))),
        None => Ok(vectors.into_iter().map(normalize_vector).collect()),
    }
}

/// OpenAI-compatible `POST {url}/embeddings`.
pub struct OpenAiEmbedder {
    http: Rc<dyn HttpClient>,
    url: String,
    key: Option<String>,
    model: String,
    dimension: usize,
    name: String,
}

#[derive(Serialize)]
struct EmbeddingsRequest<'a> {
    model: &'a str,
    input: &'a [String],
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
    pub fn new(
        http: Rc<dyn HttpClient>,
        url: &str,
        key: Option<String>,
        model: &str,
        dimension: usize,
    ) -> Self {
        OpenAiEmbedder {
            http,
            url: url.trim_end_matches('/').to_string(),
            key,
            model: model.to_string(),
            dimension,
            name: format!("openai:{model}"),
        }
    }

    pub fn request(&self, texts: &[String]) -> PortResult<HttpRequest> {
        let mut headers = vec![("content-type".to_string(), "application/json".to_string())];
        if let Some(key) = &self.key {
            headers.push(("authorization".to_string(), format!("Bearer {key}")));
        }
        let body = serde_json::to_string(&EmbeddingsRequest {
            model: &self.model,
            input: texts,
        })
        .map_err(|e| PortError::Backend(format!("cannot encode the embedding request: {e}")))?;
        Ok(HttpRequest {
            url: format!("{}/embeddings", self.url),
            headers,
            body,
            timeout_ms: TIMEOUT_MS,
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
        let parsed: EmbeddingsResponse = hippo::json::parse(body)
            .map_err(|e| PortError::Backend(format!("embeddings API response: {e}")))?;
        if parsed.data.len() != expected {
            return Err(PortError::Backend(format!(
                "embeddings API returned {} vectors for {expected} texts",
                parsed.data.len()
            )));
        }
        let mut items = parsed.data;
        if items.iter().all(|i| i.index.is_some()) {
            items.sort_by_key(|i| i.index);
        }
        check_dimensions(
            items.into_iter().map(|i| i.embedding).collect(),
            self.dimension,
            "the embeddings API",
        )
    }
}

#[async_trait(?Send)]
impl Embedder for OpenAiEmbedder {
    fn name(&self) -> &str {
        &self.name
    }

    fn dimension(&self) -> usize {
        self.dimension
    }

    fn thresholds(&self) -> SimilarityThresholds {
        SimilarityThresholds::SENTENCE
    }

    async fn embed(&self, texts: &[String]) -> PortResult<Vec<Vec<f32>>> {
        let mut out = Vec::with_capacity(texts.len());
        for chunk in texts.chunks(BATCH) {
            let response = self.http.post(self.request(chunk)?).await?;
            out.extend(self.parse(response.status, &response.body, chunk.len())?);
        }
        Ok(out)
    }
}

/// Workers AI text embeddings (e.g. `@cf/baai/bge-m3`, multilingual) through the `AI` binding.
pub struct WorkersAiEmbedder {
    ai: WorkersAi,
    model: String,
    dimension: usize,
    name: String,
}

#[derive(Serialize)]
struct AiEmbedInput<'a> {
    text: &'a [String],
}

#[derive(Deserialize)]
struct AiEmbedOutput {
    data: Vec<Vec<f32>>,
}

impl WorkersAiEmbedder {
    pub fn new(ai: WorkersAi, model: &str, dimension: usize) -> Self {
        WorkersAiEmbedder {
            ai,
            model: model.to_string(),
            dimension,
            name: format!("workers-ai:{model}"),
        }
    }
}

#[async_trait(?Send)]
impl Embedder for WorkersAiEmbedder {
    fn name(&self) -> &str {
        &self.name
    }

    fn dimension(&self) -> usize {
        self.dimension
    }

    fn thresholds(&self) -> SimilarityThresholds {
        SimilarityThresholds::SENTENCE
    }

    async fn embed(&self, texts: &[String]) -> PortResult<Vec<Vec<f32>>> {
        let mut out = Vec::with_capacity(texts.len());
        for chunk in texts.chunks(BATCH) {
            let output: AiEmbedOutput = self
                .ai
                .run(&self.model, &AiEmbedInput { text: chunk })
                .await?;
            if output.data.len() != chunk.len() {
                return Err(PortError::Backend(format!(
                    "Workers AI returned {} vectors for {} texts",
                    output.data.len(),
                    chunk.len()
                )));
            }
            out.extend(check_dimensions(output.data, self.dimension, "Workers AI")?);
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hippo::ports::HttpResponse;

    struct Unused;

    #[async_trait(?Send)]
    impl HttpClient for Unused {
        async fn post(&self, _: HttpRequest) -> PortResult<HttpResponse> {
            panic!("these tests only build and parse")
        }
    }

    fn embedder(dimension: usize) -> OpenAiEmbedder {
        OpenAiEmbedder::new(
            Rc::new(Unused),
            "https://e.example/v1/",
            Some("k".into()),
            "m",
            dimension,
        )
    }

    #[test]
    fn request_names_model_inputs_and_key() {
        let r = embedder(2).request(&["a".into(), "b".into()]).unwrap();
        assert_eq!(r.url, "https://e.example/v1/embeddings");
        assert!(r
            .headers
            .contains(&("authorization".into(), "Bearer k".into())));
        let body: serde_json::Value = serde_json::from_str(&r.body).unwrap();
        assert_eq!(body, serde_json::json!({"model": "m", "input": ["a", "b"]}));
    }

    #[test]
    fn response_is_reordered_normalized_and_checked() {
        let e = embedder(2);
        let body = r#"{"data":[{"index":1,"embedding":[0,2]},{"index":0,"embedding":[3,4]}]}"#;
        let v = e.parse(200, body, 2).unwrap();
        assert_eq!(v, vec![vec![0.6, 0.8], vec![0.0, 1.0]]);
        assert!(e.parse(200, body, 3).is_err(), "count mismatch");
        assert!(
            embedder(3).parse(200, body, 2).is_err(),
            "dimension mismatch"
        );
        let err = e.parse(500, "upstream down", 2).unwrap_err();
        assert!(err.to_string().contains("500"), "{err}");
        assert!(e.parse(200, "not json", 2).is_err());
    }
}
