//! A real embedding model in the benchmark, through the product's own OpenAI-compatible
//! embedder (`hippo::retrieval::model_embed`), configured by the same `HIPPO_EMBED_*`
//! variables as the Worker, over a native HTTP client.
//!
//! Embeddings are cached on disk (`HIPPO_BENCH_EMBED_CACHE`, default
//! `target/embed-cache`), keyed by the embedder, how it marks the kind, the kind, and the
//! SHA-256 of the text: a rerun embeds nothing it embedded before.

use hippo::ports::{EmbedKind, Embedder, SimilarityThresholds};
use hippo::retrieval::model_embed::{KindMarking, OpenAiEmbedConfig, OpenAiEmbedder};
use sha2::{Digest, Sha256};
use std::cell::RefCell;
use std::collections::HashMap;
use std::io::Write as _;
use std::path::PathBuf;
use std::rc::Rc;
use std::time::Instant;

/// Texts handed to the embedder per call (it splits them into `HIPPO_EMBED_BATCH` requests);
/// the cache is written after each call, so an interrupted run keeps what it paid for.
const CALL: usize = 64;

/// SHA-256 of a text → its vector.
type Vectors = HashMap<[u8; 32], Vec<f32>>;

/// The model of a run: the product's embedder behind a disk cache.
pub struct Model {
    inner: OpenAiEmbedder,
    cache_dir: PathBuf,
    /// Per kind, loaded on first use.
    cache: RefCell<HashMap<EmbedKind, Vectors>>,
    /// Texts embedded by the service in this run, and the seconds it took.
    pub embedded: RefCell<(usize, f64)>,
}

/// The model configured by `HIPPO_EMBED=openai` and its variables, if any.
pub fn from_env() -> Result<Option<Model>, String> {
    let var = |name: &str| std::env::var(name).ok();
    match var("HIPPO_EMBED").as_deref().map(str::trim) {
        None | Some("") | Some("builtin") => return Ok(None),
        Some("openai") => {}
        Some(other) => {
            return Err(format!(
                "hippo-bench measures HIPPO_EMBED=openai (or none), got {other:?}"
            ))
        }
    }
    let config = OpenAiEmbedConfig::parse(&var)?;
    let cache_dir = PathBuf::from(
        var("HIPPO_BENCH_EMBED_CACHE").unwrap_or_else(|| "target/embed-cache".into()),
    );
    std::fs::create_dir_all(&cache_dir).map_err(|e| format!("{}: {e}", cache_dir.display()))?;
    Ok(Some(Model {
        inner: OpenAiEmbedder::new(http_client()?, config),
        cache_dir,
        cache: RefCell::new(HashMap::new()),
        embedded: RefCell::new((0, 0.0)),
    }))
}

impl Model {
    pub fn name(&self) -> &str {
        self.inner.name()
    }

    pub fn thresholds(&self) -> SimilarityThresholds {
        self.inner.thresholds()
    }

    /// The cache file of one kind: everything that changes a vector (model, dimension, marking,
    /// kind) is in its name.
    fn cache_file(&self, kind: EmbedKind) -> PathBuf {
        let config = self.inner.config();
        let KindMarking {
            query_prefix,
            document_prefix,
            input_type,
        } = &config.model.marking;
        let mut h = Sha256::new();
        // Not the URL: the same model served on another port gives the same vectors.
        h.update(format!(
            "{}\u{0}{query_prefix}\u{0}{document_prefix}\u{0}{input_type:?}\u{0}{}",
            config.model.model, config.model.dimension
        ));
        let tag: String = h.finalize()[..6]
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        let model: String = config
            .model
            .model
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect();
        self.cache_dir
            .join(format!("{model}-{}-{tag}.f32", kind.as_str()))
    }

    fn load(&self, kind: EmbedKind) {
        if self.cache.borrow().contains_key(&kind) {
            return;
        }
        let dim = self.inner.dimension();
        let mut map = HashMap::new();
        if let Ok(bytes) = std::fs::read(self.cache_file(kind)) {
            // A record cut short by an interrupted run is ignored.
            for record in bytes.chunks_exact(32 + dim * 4) {
                let key: [u8; 32] = record[..32].try_into().expect("32 bytes");
                let vector = record[32..]
                    .chunks_exact(4)
                    .map(|b| f32::from_le_bytes(b.try_into().expect("4 bytes")))
                    .collect();
                map.insert(key, vector);
            }
        }
        self.cache.borrow_mut().insert(kind, map);
    }

    /// One vector per text, from the cache or the service.
    pub fn embed(&self, kind: EmbedKind, texts: &[String]) -> Result<Vec<Vec<f32>>, String> {
        self.load(kind);
        let key = |t: &str| -> [u8; 32] { Sha256::digest(t.as_bytes()).into() };
        let mut missing: Vec<String> = Vec::new();
        {
            let cache = self.cache.borrow();
            let known = &cache[&kind];
            let mut seen = std::collections::HashSet::new();
            for t in texts {
                if !known.contains_key(&key(t)) && seen.insert(t.as_str()) {
                    missing.push(t.clone());
                }
            }
        }
        for chunk in missing.chunks(CALL) {
            let started = Instant::now();
            let vectors = crate::dream::block_on(self.inner.embed(kind, chunk))
                .map_err(|e| format!("{}: {e}", self.inner.name()))?;
            let seconds = started.elapsed().as_secs_f64();
            let mut file = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(self.cache_file(kind))
                .map_err(|e| e.to_string())?;
            let mut bytes = Vec::new();
            let mut cache = self.cache.borrow_mut();
            let known = cache.get_mut(&kind).expect("loaded");
            for (t, v) in chunk.iter().zip(vectors) {
                bytes.extend_from_slice(&key(t));
                v.iter()
                    .for_each(|x| bytes.extend_from_slice(&x.to_le_bytes()));
                known.insert(key(t), v);
            }
            file.write_all(&bytes).map_err(|e| e.to_string())?;
            let mut embedded = self.embedded.borrow_mut();
            embedded.0 += chunk.len();
            embedded.1 += seconds;
            eprintln!(
                "{}: embedded {} {}s in {:.1} s ({:.2}/s; {} this run)",
                self.inner.name(),
                chunk.len(),
                kind.as_str(),
                seconds,
                chunk.len() as f64 / seconds.max(1e-9),
                embedded.0
            );
        }
        let cache = self.cache.borrow();
        let known = &cache[&kind];
        Ok(texts.iter().map(|t| known[&key(t)].clone()).collect())
    }
}

#[cfg(feature = "model-bench")]
fn http_client() -> Result<Rc<dyn hippo::ports::HttpClient>, String> {
    Ok(Rc::new(UreqClient))
}

#[cfg(not(feature = "model-bench"))]
fn http_client() -> Result<Rc<dyn hippo::ports::HttpClient>, String> {
    Err("HIPPO_EMBED=openai needs hippo-bench built with --features model-bench".into())
}

/// Blocking HTTP (the benchmark runs one request at a time).
#[cfg(feature = "model-bench")]
struct UreqClient;

#[cfg(feature = "model-bench")]
#[async_trait::async_trait(?Send)]
impl hippo::ports::HttpClient for UreqClient {
    async fn post(
        &self,
        request: hippo::ports::HttpRequest,
    ) -> hippo::ports::PortResult<hippo::ports::HttpResponse> {
        use hippo::error::PortError;
        let agent = ureq::AgentBuilder::new()
            .timeout(std::time::Duration::from_millis(request.timeout_ms as u64))
            .build();
        let mut call = agent.post(&request.url);
        for (name, value) in &request.headers {
            call = call.set(name, value);
        }
        let response = match call.send_string(&request.body) {
            Ok(r) | Err(ureq::Error::Status(_, r)) => r,
            Err(e) => return Err(PortError::Backend(format!("POST {}: {e}", request.url))),
        };
        let status = response.status();
        let body = response
            .into_string()
            .map_err(|e| PortError::Backend(format!("POST {}: {e}", request.url)))?;
        Ok(hippo::ports::HttpResponse { status, body })
    }
}
