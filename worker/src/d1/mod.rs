//! D1: the source of truth. [`D1Store`] implements the core's [`Store`] port over the schema in
//! `migrations/`; [`D1VectorIndex`] is the vector index used when no Vectorize binding exists.

pub mod bind;
mod lexical;
pub mod memory_cache;
mod profile;
mod request;
mod rows;
pub(crate) mod sync;
pub(crate) mod vector_cache;
mod vectors;
mod writes;

pub use memory_cache::MemoryCache;
pub use request::RequestState;
pub use vectors::D1VectorIndex;

use async_trait::async_trait;
use bind::*;
use hippo::conversation::Turn;
use hippo::diary::DiaryEntry;
use hippo::memory::{Collection, Memory, MemoryType};
use hippo::npc::Npc;
use hippo::pkg::PkgField;
use hippo::ports::*;
use hippo::relationship::Entity;
use hippo::store::MemoryStore;
use hippo::time::Timestamp;
use memory_cache::Applied;
use profile::Profile;
use rows::*;
use serde::de::DeserializeOwned;
use serde::Deserialize;
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use wasm_bindgen::JsValue;
use worker::D1Database;

/// What a sync read did to an isolate's copy.
enum Synced {
    /// Up to date: serve from this copy (`None`: SQL serves the NPC).
    Done(Option<Rc<MemoryStore>>),
    /// The copy is of another incarnation of the NPC: read it whole.
    NeedsFullRead,
}

/// The D1 database handle, shared by the store and the D1 vector index of one request.
pub type Db = Rc<D1Database>;

/// The store of one request (or cron run): see [`request`] for what it remembers between
/// reads, and [`memory_cache`] for the isolate's copies of memories it reads them from.
pub struct D1Store {
    db: Db,
    /// The isolate's copies of memories (isolate lifetime); `None`: every memory read goes
    /// to SQL.
    isolate_memories: Option<Rc<RefCell<MemoryCache>>>,
    request: Rc<RequestState>,
    /// Whether a token lookup may also sync the copy of the NPC the token was last seen with
    /// ([`Store::token_by_hash`]): only when this database holds every NPC (one shard), since
    /// every shard is asked for a token and the copies are keyed by NPC alone.
    syncs_on_token: bool,
}

impl D1Store {
    /// A store reading memories through `isolate_memories` (the isolate's, or a test's
    /// simulated isolate's), or with every memory read in SQL (`None`).
    pub fn new(
        db: Db,
        isolate_memories: Option<Rc<RefCell<MemoryCache>>>,
        request: Rc<RequestState>,
    ) -> Self {
        D1Store {
            db,
            isolate_memories,
            request,
            syncs_on_token: false,
        }
    }

    /// Lets a token lookup sync its NPC's copy in the same batch (one database only).
    pub fn syncing_on_token(mut self) -> Self {
        self.syncs_on_token = true;
        self
    }

    /// The copy of `npcid`'s memories to serve this request's reads from, brought up to date
    /// once per request (and again after each commit); `None` when SQL serves them.
    async fn memory_view(&self, npcid: &str) -> PortResult<Option<Rc<MemoryStore>>> {
        let Some(cache) = &self.isolate_memories else {
            return Ok(None);
        };
        if let Some(view) = self.request.synced_memories(npcid) {
            return Ok(view);
        }
        let mut since = cache.borrow().position(npcid);
        // At most two reads: a delta, then a full read if the NPC was re-created meanwhile.
        for _ in 0..2 {
            let capacity = cache.borrow().capacity();
            let read = sync::read(
                &self.db,
                npcid,
                since.as_ref(),
                capacity,
                self.request.reads_vector_generations(),
            )
            .await?;
            match self.take_sync(cache, npcid, since.as_ref(), read)? {
                Synced::Done(view) => return Ok(view),
                Synced::NeedsFullRead => since = None,
            }
        }
        self.request.set_synced_memories(npcid, None);
        Ok(None)
    }

    /// Brings `npcid`'s copy up to date with a sync read made from `since`, and keeps what
    /// the read fetched for this request's later reads.
    fn take_sync(
        &self,
        cache: &RefCell<MemoryCache>,
        npcid: &str,
        since: Option<&memory_cache::Position>,
        read: sync::SyncRead,
    ) -> PortResult<Synced> {
        if let Some(generation) = read.vector_generation {
            self.request.put_vector_generation(npcid, generation);
        }
        let delta = read.delta;
        self.request
            .remember(npcid, delta.as_ref().map(|d| d.npc.clone()), read.profile);
        let view = match delta {
            // No such NPC: SQL answers (with nothing), and the copy goes.
            None => {
                cache.borrow_mut().forget(npcid);
                None
            }
            Some(delta) => match cache.borrow_mut().apply(npcid, since, delta)? {
                Applied::Serve(store) => Some(store),
                Applied::TooBig => None,
                Applied::NeedsFullRead => return Ok(Synced::NeedsFullRead),
            },
        };
        self.request.set_synced_memories(npcid, view.clone());
        Ok(Synced::Done(view))
    }

    async fn all<T: DeserializeOwned>(&self, sql: &str, params: &[JsValue]) -> PortResult<Vec<T>> {
        query_all(&self.db, sql, params).await
    }

    async fn first<T: DeserializeOwned>(
        &self,
        sql: &str,
        params: &[JsValue],
    ) -> PortResult<Option<T>> {
        statement(&self.db, sql, params)?
            .first::<T>(None)
            .await
            .map_err(backend)
    }

    /// The memories of statements selecting [`MEMORY_JSON`], all in one round trip.
    async fn memory_rows(
        &self,
        statements: Vec<worker::D1PreparedStatement>,
    ) -> PortResult<Vec<Memory>> {
        let mut out = Vec::new();
        for result in self.batch(statements).await? {
            for row in result.results::<MemoryJsonRow>().map_err(backend)? {
                out.push(MemoryRow::from_json(row)?);
            }
        }
        Ok(out)
    }

    /// Runs statements in one round trip (and one transaction).
    async fn batch(
        &self,
        statements: Vec<worker::D1PreparedStatement>,
    ) -> PortResult<Vec<worker::D1Result>> {
        batch(&self.db, statements).await
    }

    /// `select` (`SELECT … FROM table`) of the NPC's rows with these ids, as statements of
    /// at most [`MAX_PARAMS`] parameters each (none for no ids).
    fn by_id_statements(
        &self,
        select: &str,
        npcid: &str,
        ids: &[String],
    ) -> PortResult<Vec<worker::D1PreparedStatement>> {
        ids.chunks(MAX_PARAMS - 1)
            .map(|chunk| {
                let sql = format!(
                    "{select} WHERE npcid = ?1 AND id IN ({})",
                    placeholders(2, chunk.len())
                );
                let mut params = vec![text(npcid)];
                params.extend(chunk.iter().map(|id| text(id)));
                statement(&self.db, &sql, &params)
            })
            .collect()
    }

    async fn run(&self, sql: &str, params: &[JsValue]) -> PortResult<()> {
        statement(&self.db, sql, params)?
            .run()
            .await
            .map_err(backend)?;
        Ok(())
    }
}

/// Every row of a query.
pub(crate) async fn query_all<T: DeserializeOwned>(
    db: &D1Database,
    sql: &str,
    params: &[JsValue],
) -> PortResult<Vec<T>> {
    let result = statement(db, sql, params)?.all().await.map_err(backend)?;
    if let Some(err) = result.error() {
        return Err(classify(&err));
    }
    result.results::<T>().map_err(backend)
}

#[derive(Deserialize)]
struct Count {
    n: i64,
}

#[derive(Deserialize)]
struct DocStats {
    docs: i64,
    avg_len: f64,
}

#[derive(Deserialize)]
struct Holder {
    #[allow(dead_code)]
    holder: String,
}

#[derive(Deserialize)]
struct Value {
    value: String,
}

#[derive(Deserialize)]
struct Seq {
    seq: i64,
}

#[derive(Deserialize)]
struct Hit {
    id: String,
    score: f64,
}

/// At most this many terms share one document-frequency statement (one parameter each).
const DF_TERMS_PER_STATEMENT: usize = 50;

#[async_trait(?Send)]
impl Store for D1Store {
    /// One batch: the memory sync, which reads the NPC and its profile with its memories'
    /// delta (and the vector generation), so the memory searches that follow need no read;
    /// without an isolate copy, the NPC and its profile.
    async fn retrieval_view(&self, npcid: &str) -> PortResult<Option<RetrievalView>> {
        self.memory_view(npcid).await?;
        let (npc, profile) = self.request.npc_and_profile(&self.db, npcid).await?;
        Ok(npc.map(|npc| {
            let Profile {
                pkg,
                entities,
                dailies,
                ..
            } = profile;
            RetrievalView {
                npc,
                pkg,
                entities,
                dailies,
            }
        }))
    }

    async fn npc(&self, npcid: &str) -> PortResult<Option<Npc>> {
        self.request.npc(&self.db, npcid).await
    }

    async fn list_npcs(&self, after: Option<&str>, limit: usize) -> PortResult<Vec<Npc>> {
        let sql =
            format!("SELECT {NPC_COLUMNS} FROM npcs WHERE npcid > ?1 ORDER BY npcid LIMIT ?2");
        self.all::<NpcRow>(&sql, &[text(after.unwrap_or("")), uint(limit as u64)])
            .await?
            .into_iter()
            .map(NpcRow::into_npc)
            .collect()
    }

    async fn pkg(&self, npcid: &str) -> PortResult<Vec<PkgField>> {
        self.request
            .profile(&self.db, npcid, |p| p.pkg.clone())
            .await
    }

    async fn entities(&self, npcid: &str) -> PortResult<Vec<(String, Entity)>> {
        self.request
            .profile(&self.db, npcid, |p| p.entities.clone())
            .await
    }

    async fn diary(&self, npcid: &str) -> PortResult<(String, Vec<DiaryEntry>)> {
        self.request
            .profile(&self.db, npcid, |p| (p.prior.clone(), p.dailies.clone()))
            .await
    }

    async fn turns(&self, npcid: &str, after_seq: u64, limit: usize) -> PortResult<Vec<Turn>> {
        let sql = format!(
            "SELECT {TURN_COLUMNS} FROM turns WHERE npcid = ?1 AND seq > ?2 \
             ORDER BY seq LIMIT ?3"
        );
        self.all::<TurnRow>(
            &sql,
            &[
                text(npcid),
                uint(after_seq),
                uint(limit.min(i64::MAX as usize) as u64),
            ],
        )
        .await?
        .into_iter()
        .map(TurnRow::into_turn)
        .collect()
    }

    async fn turns_by_id(&self, npcid: &str, ids: &[String]) -> PortResult<Vec<Turn>> {
        let select = format!("SELECT {TURN_COLUMNS} FROM turns");
        let statements = self.by_id_statements(&select, npcid, ids)?;
        if statements.is_empty() {
            return Ok(Vec::new());
        }
        let mut turns = Vec::new();
        for result in self.batch(statements).await? {
            for row in result.results::<TurnRow>().map_err(backend)? {
                turns.push(row.into_turn()?);
            }
        }
        // Rows come in no particular order.
        turns.sort_by_key(|t| t.seq);
        Ok(turns)
    }

    async fn append_turns(&self, npcid: &str, turns: Vec<Turn>) -> PortResult<Appended> {
        let results = self.batch(writes::append(&self.db, npcid, &turns)?).await?;
        // Results: the precondition, one INSERT … RETURNING per entry, the log's end.
        let mut seqs = Vec::with_capacity(turns.len());
        for result in &results[1..=turns.len()] {
            let row = result.results::<Seq>().map_err(backend)?.pop();
            seqs.push(row.map(|r| r.seq.max(0) as u64));
        }
        let last_seq = results[turns.len() + 1]
            .results::<Seq>()
            .map_err(backend)?
            .pop()
            .map_or(0, |r| r.seq.max(0) as u64);
        Ok(Appended { seqs, last_seq })
    }

    async fn last_seq(&self, npcid: &str) -> PortResult<u64> {
        Ok(self
            .first::<Count>(
                "SELECT COALESCE(MAX(seq), 0) AS n FROM turns WHERE npcid = ?1",
                &[text(npcid)],
            )
            .await?
            .map_or(0, |c| c.n.max(0) as u64))
    }

    async fn memories(&self, npcid: &str, filter: &MemoryFilter) -> PortResult<Vec<Memory>> {
        if let Some(view) = self.memory_view(npcid).await? {
            return view.memories(npcid, filter).await;
        }
        let mut sql = format!("SELECT {MEMORY_JSON} FROM memories WHERE npcid = ?1");
        let mut params = vec![text(npcid)];
        if let Some(collection) = filter.collection {
            params.push(text(collection.as_str()));
            sql += &format!(" AND collection = ?{}", params.len());
        }
        if !filter.types.is_empty() {
            sql += &format!(
                " AND type IN ({})",
                placeholders(params.len() + 1, filter.types.len())
            );
            params.extend(filter.types.iter().map(|t| text(t.as_str())));
        }
        match &filter.superseded_by {
            Some(newer) => {
                params.push(text(newer));
                sql += &format!(" AND superseded_by = ?{}", params.len());
            }
            None if !filter.include_superseded => sql += " AND superseded_by IS NULL",
            None => {}
        }
        if let Some(since) = filter.updated_since {
            params.push(int(since.ms()));
            sql += &format!(" AND updated_at >= ?{}", params.len());
        }
        // LIMIT -1: no limit (SQLite).
        let limit = filter.limit.map_or(-1, |l| l.min(i64::MAX as usize) as i64);
        params.push(int(limit));
        params.push(uint(filter.offset as u64));
        sql += &format!(
            " ORDER BY rid LIMIT ?{} OFFSET ?{}",
            params.len() - 1,
            params.len()
        );
        self.memory_rows(vec![statement(&self.db, &sql, &params)?])
            .await
    }

    async fn memories_by_id(&self, npcid: &str, ids: &[String]) -> PortResult<Vec<Memory>> {
        if let Some(view) = self.memory_view(npcid).await? {
            return view.memories_by_id(npcid, ids).await;
        }
        let select = format!("SELECT {MEMORY_JSON} FROM memories");
        let statements = self.by_id_statements(&select, npcid, ids)?;
        if statements.is_empty() {
            return Ok(Vec::new());
        }
        let mut found: HashMap<String, Memory> = self
            .memory_rows(statements)
            .await?
            .into_iter()
            .map(|m| (m.id.clone(), m))
            .collect();
        // In the order asked; unknown ids are skipped.
        Ok(ids.iter().filter_map(|id| found.remove(id)).collect())
    }

    /// From the isolate's copy when there is one (it copies only the records kept).
    async fn live_memories_by_id(
        &self,
        npcid: &str,
        ids: &[String],
        kind: (Collection, MemoryType),
    ) -> PortResult<Vec<Memory>> {
        if let Some(view) = self.memory_view(npcid).await? {
            return view.live_memories_by_id(npcid, ids, kind).await;
        }
        let mut found = self.memories_by_id(npcid, ids).await?;
        found.retain(|m| is_live_of_kind(m, kind));
        Ok(found)
    }

    /// From the isolate's copy when there is one; SQL keeps no text index (the caller then
    /// looks duplicates up by similarity).
    async fn live_memories_with_text(
        &self,
        npcid: &str,
        kind: (Collection, MemoryType),
        normalized: &str,
    ) -> PortResult<Option<Vec<Memory>>> {
        match self.memory_view(npcid).await? {
            Some(view) => view.live_memories_with_text(npcid, kind, normalized).await,
            None => Ok(None),
        }
    }

    async fn lexical_search(
        &self,
        npcid: &str,
        query: &LexicalQuery,
        limit: usize,
    ) -> PortResult<Vec<(String, f64)>> {
        if let Some(view) = self.memory_view(npcid).await? {
            return view.lexical_search(npcid, query, limit).await;
        }
        let Some(expression) = lexical::any_term_query(npcid, &query.terms) else {
            return Ok(Vec::new());
        };
        if limit == 0 {
            return Ok(Vec::new());
        }
        let mut params = vec![text(&expression), text(npcid)];
        let mut sql = format!(
            "SELECT m.id AS id, {} AS score FROM memory_fts \
             JOIN memories m ON m.rid = memory_fts.rowid \
             WHERE memory_fts MATCH ?1 AND m.npcid = ?2 AND m.superseded_by IS NULL",
            lexical::bm25_expression()
        );
        if !query.collections.is_empty() {
            sql += &format!(
                " AND m.collection IN ({})",
                placeholders(3, query.collections.len())
            );
            params.extend(query.collections.iter().map(|c| text(c.as_str())));
        }
        params.push(uint(limit as u64));
        sql += &format!(" ORDER BY score, m.id LIMIT ?{}", params.len());
        // FTS5's bm25() is lower-is-better; the port wants higher-is-better.
        Ok(self
            .all::<Hit>(&sql, &params)
            .await?
            .into_iter()
            .map(|h| (h.id, -h.score))
            .collect())
    }

    async fn term_stats(&self, npcid: &str, terms: &[String]) -> PortResult<CorpusStats> {
        if let Some(view) = self.memory_view(npcid).await? {
            return view.term_stats(npcid, terms).await;
        }
        // Document count and average length, then the document frequencies of the terms
        // (up to DF_TERMS_PER_STATEMENT per statement): all in one round trip.
        let mut statements = vec![statement(
            &self.db,
            "SELECT COUNT(*) AS docs, COALESCE(AVG(lex_len), 0) AS avg_len \
             FROM memories WHERE npcid = ?1",
            &[text(npcid)],
        )?];
        for chunk in terms.chunks(DF_TERMS_PER_STATEMENT) {
            let columns: Vec<String> = (0..chunk.len())
                .map(|i| {
                    format!(
                        "(SELECT COUNT(*) FROM memory_fts WHERE memory_fts MATCH ?{}) AS d{i}",
                        i + 1
                    )
                })
                .collect();
            let params: Vec<JsValue> = chunk
                .iter()
                .map(|t| text(&lexical::one_term_query(npcid, t)))
                .collect();
            statements.push(statement(
                &self.db,
                &format!("SELECT {}", columns.join(", ")),
                &params,
            )?);
        }
        let results = self.batch(statements).await?;
        let stats = results[0]
            .results::<DocStats>()
            .map_err(backend)?
            .pop()
            .unwrap_or(DocStats {
                docs: 0,
                avg_len: 0.0,
            });
        let mut df = Vec::with_capacity(terms.len());
        for (chunk, result) in terms.chunks(DF_TERMS_PER_STATEMENT).zip(&results[1..]) {
            let row = result
                .results::<HashMap<String, f64>>()
                .map_err(backend)?
                .pop()
                .unwrap_or_default();
            df.extend(
                (0..chunk.len())
                    .map(|i| row.get(&format!("d{i}")).copied().unwrap_or(0.0) as usize),
            );
        }
        Ok(CorpusStats {
            docs: stats.docs.max(0) as usize,
            avg_len: stats.avg_len,
            df,
        })
    }

    async fn commit(&self, npcid: &str, batch: WriteBatch) -> PortResult<()> {
        let result = self.batch(writes::compile(&self.db, npcid, &batch)?).await;
        // Whatever the outcome, later reads of this request go to the database again.
        self.request.forget();
        result.map(|_| ())
    }

    /// The token and, in the same round trip, its NPC: the next read of a caller is that NPC
    /// (`Hippo::resolve_caller` refuses a token whose NPC is gone), then served from the
    /// request's state. When this isolate saw the token before and holds a copy of its NPC's
    /// memories, the same batch also brings that copy up to date (the retrieval's own read,
    /// one round trip fewer); it is used only if the token, read in the same batch, still
    /// belongs to that NPC.
    async fn token_by_hash(&self, token_hash: &str) -> PortResult<Option<TokenRecord>> {
        let token_sql = format!("SELECT {TOKEN_COLUMNS} FROM tokens WHERE token_hash = ?1");
        let mut statements = vec![statement(&self.db, &token_sql, &[text(token_hash)])?];
        let cache = self
            .isolate_memories
            .as_ref()
            .filter(|_| self.syncs_on_token);
        let guess = cache.and_then(|cache| {
            let cache = cache.borrow();
            let npcid = cache.npc_of_token(token_hash)?;
            let since = cache.position(&npcid)?;
            Some((cache, npcid, since))
        });
        let guess = match guess {
            Some((cache, npcid, since)) => {
                let capacity = cache.capacity();
                drop(cache);
                statements.extend(sync::statements(
                    &self.db,
                    &npcid,
                    Some(&since),
                    capacity,
                    self.request.reads_vector_generations(),
                )?);
                Some((npcid, since))
            }
            None => {
                let npc_sql = format!(
                    "SELECT {NPC_COLUMNS} FROM npcs \
                     WHERE npcid = (SELECT npcid FROM tokens WHERE token_hash = ?1)"
                );
                statements.push(statement(&self.db, &npc_sql, &[text(token_hash)])?);
                None
            }
        };
        let results = batch(&self.db, statements).await?;
        let (Some(tokens), Some(rest)) = (results.first(), results.get(1..)) else {
            return Err(hippo::error::PortError::Backend(
                "the token batch answered fewer results than statements".into(),
            ));
        };
        let token = tokens
            .results::<TokenRow>()
            .map_err(backend)?
            .pop()
            .map(TokenRow::into_record);
        let Some(token) = token else {
            return Ok(None);
        };
        if let Some(cache) = cache {
            cache.borrow_mut().remember_token(token_hash, &token.npcid);
        }
        match (guess, cache) {
            (Some((npcid, since)), Some(cache)) if npcid == token.npcid => {
                let read = sync::parse(rest)?;
                // A copy of another incarnation: the retrieval's own read does the full one.
                let _ = self.take_sync(cache, &npcid, Some(&since), read)?;
            }
            // The token moved to another NPC meanwhile: its NPC is read when needed.
            (Some(_), _) => {}
            (None, _) => {
                let npc = rest
                    .first()
                    .map(|r| r.results::<NpcRow>())
                    .transpose()
                    .map_err(backend)?
                    .and_then(|mut rows| rows.pop())
                    .map(NpcRow::into_npc)
                    .transpose()?;
                self.request.remember_npc(&token.npcid, npc);
            }
        }
        Ok(Some(token))
    }

    async fn tokens(&self, npcid: &str) -> PortResult<Vec<TokenRecord>> {
        let sql = format!(
            "SELECT {TOKEN_COLUMNS} FROM tokens WHERE npcid = ?1 ORDER BY created_at, token_id"
        );
        Ok(self
            .all::<TokenRow>(&sql, &[text(npcid)])
            .await?
            .into_iter()
            .map(TokenRow::into_record)
            .collect())
    }

    async fn acquire_lease(
        &self,
        npcid: &str,
        holder: &str,
        now: Timestamp,
        until: Timestamp,
    ) -> PortResult<bool> {
        // One statement, so two dreams racing for the lease cannot both win. RETURNING yields
        // a row only when the lease was inserted or taken over.
        let taken = self
            .all::<Holder>(
                "INSERT INTO leases (npcid, holder, until) SELECT ?1, ?2, ?4 \
                 WHERE EXISTS (SELECT 1 FROM npcs WHERE npcid = ?1) \
                 ON CONFLICT (npcid) DO UPDATE SET holder = excluded.holder, \
                 until = excluded.until \
                 WHERE leases.holder = excluded.holder OR leases.until <= ?3 \
                 RETURNING holder",
                &[text(npcid), text(holder), int(now.ms()), int(until.ms())],
            )
            .await?;
        Ok(!taken.is_empty())
    }

    async fn release_lease(&self, npcid: &str, holder: &str) -> PortResult<()> {
        self.run(
            "DELETE FROM leases WHERE npcid = ?1 AND holder = ?2",
            &[text(npcid), text(holder)],
        )
        .await
    }

    async fn meta(&self, key: &str) -> PortResult<Option<String>> {
        Ok(self
            .first::<Value>("SELECT value FROM meta WHERE key = ?1", &[text(key)])
            .await?
            .map(|v| v.value))
    }

    async fn set_meta(&self, key: &str, value: &str) -> PortResult<()> {
        self.run(
            "INSERT INTO meta (key, value) VALUES (?1, ?2) \
             ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            &[text(key), text(value)],
        )
        .await
    }
}
