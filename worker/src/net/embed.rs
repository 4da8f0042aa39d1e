//! Workers AI text embeddings through the `AI` binding. (The OpenAI-compatible embedder lives
//! in the core, `hippo::retrieval::model_embed`, and reaches the network through `fetch`.)

use super::workers_ai::WorkersAi;
use async_trait::async_trait;
use hippo::error::PortError;
use hippo::ports::{EmbedKind, Embedder, PortResult, SimilarityThresholds};
use hippo::retrieval::model_embed::{unit_vectors, ModelConfig, DIMENSION_REMEDY};
use serde::{Deserialize, Serialize};

/// Texts per call (the binding's batch limit for bge-m3 is 100).
const BATCH: usize = 64;

/// Workers AI text embeddings (e.g. `@cf/baai/bge-m3`, multilingual).
pub struct WorkersAiEmbedder {
    ai: WorkersAi,
    config: ModelConfig,
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
    pub fn new(ai: WorkersAi, config: ModelConfig) -> Self {
        WorkersAiEmbedder {
            ai,
            name: format!("workers-ai:{}", config.model),
            config,
        }
    }
}

#[async_trait(?Send)]
impl Embedder for WorkersAiEmbedder {
    fn name(&self) -> &str {
        &self.name
    }

    fn dimension(&self) -> usize {
        self.config.dimension
    }

    fn thresholds(&self) -> SimilarityThresholds {
        self.config.thresholds
    }

    /// The binding takes text only: a model that needs to know the kind gets prefixes.
    async fn embed(&self, kind: EmbedKind, texts: &[String]) -> PortResult<Vec<Vec<f32>>> {
        let texts = self.config.marking.texts(kind, texts);
        let mut out = Vec::with_capacity(texts.len());
        for chunk in texts.chunks(BATCH) {
            let output: AiEmbedOutput = self
                .ai
                .run(&self.config.model, &AiEmbedInput { text: chunk })
                .await?;
            if output.data.len() != chunk.len() {
                return Err(PortError::Backend(format!(
                    "Workers AI returned {} vectors for {} texts",
                    output.data.len(),
                    chunk.len()
                )));
            }
            out.extend(unit_vectors(
                output.data,
                self.config.dimension,
                "Workers AI",
                DIMENSION_REMEDY,
            )?);
        }
        Ok(out)
    }
}
