//! Wiring: the ports of one request (or cron run), chosen from the bindings and vars.
//!
//! - store: D1 (`DB`), always; with `HIPPO_SHARDS` (e.g. `DB,DB_1`), one D1 database per shard
//!   and each NPC in the one [`ShardMap`] routes it to (docs/SCALING.md);
//! - vectors: Vectorize (`VECTORS`, or a shard's own `VECTORS_<binding>`) when bound, else the
//!   D1-backed index (of the NPC's shard);
//! - embedder: built-in, OpenAI-compatible, or Workers AI (`HIPPO_EMBED`);
//! - LLM: OpenAI-compatible (`HIPPO_LLM_URL`), Workers AI (`HIPPO_LLM_MODEL=@cf/…`), or none
//!   (the built-in extractor and summarizer serve);
//! - clock: `Date.now()`.

use crate::config::{Config, EmbedChoice, LlmChoice};
use crate::d1::{memory_cache, D1Store, D1VectorIndex, Db, MemoryCache, RequestState};
use crate::error::HttpError;
use crate::net::embed::WorkersAiEmbedder;
use crate::net::fetch::{FetchClient, RetryOnce};
use crate::net::workers_ai::{WorkersAi, WorkersAiLlm};
use crate::vectorize::{Vectorize, VectorizeIndex};
use hippo::engine::{Deferred, Ports};
use hippo::ports::{Clock, Embedder, HttpClient, Llm, Store, VectorIndex};
use hippo::retrieval::embed::BuiltinEmbedder;
use hippo::retrieval::embed_cache::EmbeddingCache;
use hippo::retrieval::model_embed::OpenAiEmbedder;
use hippo::store::{ShardMap, ShardedStore, ShardedVectorIndex};
use hippo::time::Timestamp;
use hippo::Hippo;
use std::cell::RefCell;
use std::rc::Rc;
use worker::Env;

pub const DB_BINDING: &str = hippo::store::shard::DEFAULT_SHARD;
pub const VECTORS_BINDING: &str = "VECTORS";
pub const AI_BINDING: &str = "AI";

thread_local! {
    /// Vectors of PKG fields, entities and diary days, shared by this isolate's requests (each
    /// builds its own `Hippo`): a retrieval embeds only its query and texts not seen before.
    static EMBEDDINGS: Rc<RefCell<EmbeddingCache>> = Rc::new(RefCell::new(EmbeddingCache::default()));
}

/// Wall-clock time of the Worker.
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> Timestamp {
        Timestamp(js_sys::Date::now() as i64)
    }
}

/// The D1 database bound as `binding`.
pub fn database(env: &Env, binding: &str) -> Result<Db, HttpError> {
    Ok(Rc::new(env.d1(binding).map_err(|_| {
        not_configured(if binding == DB_BINDING {
            "the D1 binding DB is missing (see wrangler.toml)".to_string()
        } else {
            format!(
                "the D1 binding {binding}, listed in HIPPO_SHARDS, is missing (see wrangler.toml)"
            )
        })
    })?))
}

/// A store and the vector index that goes with it.
type Storage = (Rc<dyn Store>, Rc<dyn VectorIndex>);

/// The Vectorize index of a shard: its own `VECTORS_<binding>` when bound (one index holds
/// ~10M vectors, docs/SCALING.md), else the shared `VECTORS`.
fn vectorize_of(env: &Env, shard: &str) -> Option<Vectorize> {
    let own = (shard != DB_BINDING)
        .then(|| Vectorize::from_env(env, &format!("{VECTORS_BINDING}_{shard}")))
        .flatten();
    own.or_else(|| Vectorize::from_env(env, VECTORS_BINDING))
}

/// The store and vector index of one shard's database.
fn shard_ports(
    env: &Env,
    shard: &str,
    db: Db,
    memory_cache: Option<Rc<RefCell<MemoryCache>>>,
    only_shard: bool,
) -> Storage {
    // What this request reads of the shard, shared by its store and its D1 vector index.
    let vectorize = vectorize_of(env, shard);
    let request = Rc::new(match vectorize {
        Some(_) => RequestState::default(),
        None => RequestState::with_d1_vectors(),
    });
    let store = D1Store::new(db.clone(), memory_cache, request.clone());
    let store = Rc::new(if only_shard {
        store.syncing_on_token()
    } else {
        store
    });
    let vectors: Rc<dyn VectorIndex> = match vectorize {
        Some(vectorize) => Rc::new(VectorizeIndex::new(vectorize, db)),
        None => Rc::new(D1VectorIndex::new(db, request)),
    };
    (store, vectors)
}

/// The store and vector index of a request: the one database's, or one per shard behind the
/// core's router. One shard (no `HIPPO_SHARDS`) is exactly the single-database deployment.
fn storage(
    env: &Env,
    shards: &ShardMap,
    memory_cache: Option<Rc<RefCell<MemoryCache>>>,
) -> Result<Storage, HttpError> {
    let mut stores = Vec::new();
    let mut indexes = Vec::new();
    let only_shard = shards.names().len() == 1;
    for name in shards.names() {
        let (store, vectors) = shard_ports(
            env,
            name,
            database(env, name)?,
            memory_cache.clone(),
            only_shard,
        );
        stores.push(store);
        indexes.push(vectors);
    }
    if let ([store], [vectors]) = (stores.as_slice(), indexes.as_slice()) {
        return Ok((store.clone(), vectors.clone()));
    }
    let internal = |e: hippo::error::PortError| HttpError::internal(e.to_string());
    Ok((
        Rc::new(ShardedStore::new(shards.clone(), stores).map_err(internal)?),
        Rc::new(ShardedVectorIndex::new(shards.clone(), indexes).map_err(internal)?),
    ))
}

/// What a request handler works with.
pub struct App {
    pub config: Config,
    pub hippo: Hippo,
    pub env: Env,
}

fn not_configured(message: impl Into<String>) -> HttpError {
    HttpError::not_configured(message)
}

impl App {
    /// The app of a request: memories are read through the isolate's copies, and what its
    /// retrievals reinforce is queued in `deferred`, written once the answer is sent.
    pub fn new(env: &Env, config: Config, deferred: Rc<Deferred>) -> Result<App, HttpError> {
        let mut app = App::build(env, config, Some(memory_cache::isolate()))?;
        app.hippo = app.hippo.with_deferred_reinforcement(deferred);
        Ok(app)
    }

    /// The app of a cron run: it visits each NPC once, so copying an NPC's memories into the
    /// isolate would cost a full read and evict the copies requests use; SQL serves it.
    pub fn for_cron(env: &Env) -> Result<App, HttpError> {
        let config = Config::from_env(env).map_err(not_configured)?;
        App::build(env, config, None)
    }

    fn build(
        env: &Env,
        config: Config,
        memory_cache: Option<Rc<RefCell<MemoryCache>>>,
    ) -> Result<App, HttpError> {
        let (store, vectors) = storage(env, &config.shards, memory_cache)?;
        // The chat client retries by itself; the embedders get the retrying client.
        let http: Rc<dyn HttpClient> = Rc::new(FetchClient);
        let retrying_http: Rc<dyn HttpClient> = Rc::new(RetryOnce::new(FetchClient));
        let ai = || {
            WorkersAi::from_env(env, AI_BINDING)
                .ok_or_else(|| not_configured("the Workers AI binding AI is missing"))
        };
        let embedder: Rc<dyn Embedder> = match &config.embed {
            EmbedChoice::Builtin => Rc::new(BuiltinEmbedder::new()),
            EmbedChoice::OpenAi(embed) => {
                Rc::new(OpenAiEmbedder::new(retrying_http, embed.clone()))
            }
            EmbedChoice::WorkersAi(model) => Rc::new(WorkersAiEmbedder::new(ai()?, model.clone())),
        };
        let llm: Option<Rc<dyn Llm>> = match &config.llm {
            None => None,
            Some(LlmChoice::OpenAi { url, key, model }) => Some(crate::llm::openai_chat(
                http,
                url,
                key.clone(),
                model,
                config.llm_timeout_ms,
            )),
            Some(LlmChoice::WorkersAi { model }) => Some(Rc::new(WorkersAiLlm::new(ai()?, model))),
        };
        let ports = Ports {
            store,
            vectors,
            embedder,
            llm,
            clock: Rc::new(SystemClock),
        };
        Ok(App {
            config,
            hippo: Hippo::new(ports).with_embedding_cache(EMBEDDINGS.with(Rc::clone)),
            env: env.clone(),
        })
    }

    /// The app of a request: configuration errors are 503s naming what to fix.
    pub fn from_env(env: &Env, deferred: Rc<Deferred>) -> Result<App, HttpError> {
        let config = Config::from_env(env).map_err(not_configured)?;
        App::new(env, config, deferred)
    }
}
