//! The `Hippo` class JS sees: one async method per HTTP route, each taking the route's
//! request object and resolving to its response object (see `index.d.ts` for the types).
//!
//! Every method returns a promise and holds no borrow of the instance while it runs, so
//! calls may overlap freely. A call resolves only after its changes are saved.
#![deny(
    clippy::indexing_slicing,
    clippy::string_slice,
    clippy::arithmetic_side_effects
)]

use crate::convert::{from_js, property, request_json, to_js, to_js_error};
use crate::options;
use crate::storage::PersistedState;
use hippo::api::{self, *};
use hippo::api::{ListMemoriesQuery, LOG_PAGE_DEFAULT, NPC_PAGE_DEFAULT};
use js_sys::Promise;
use serde::{Deserialize, Serialize};
use std::cell::Cell;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::future_to_promise;

struct Inner {
    hippo: hippo::Hippo,
    state: Rc<PersistedState>,
    closed: Cell<bool>,
}

/// Hands the core the MCP tool list (`dist/<glue>/mcp_tools.js`, which the build writes from
/// the core's `src/mcp_tools.json`): compiled in, it cost the wasm ~1.4 KB of its gzip budget.
/// The entry points call it once, at load. (wasm-bindgen copies this comment into the glue's
/// JS as a block comment: no star-slash in it.)
#[wasm_bindgen(js_name = setMcpTools)]
pub fn set_mcp_tools(json: &str) {
    hippo::mcp::set_tools(json);
}

/// Hands the core the LLM prompts (`dist/<glue>/prompts.js`, from the core's
/// `src/llm/prompts.json`), kept out of the wasm's gzip budget as the tool list is. The entry
/// points call it once, at load; without it an LLM is sent no instructions.
#[wasm_bindgen(js_name = setPrompts)]
pub fn set_prompts(json: &str) {
    hippo::llm::prompts::set_texts(json);
}

/// Hands the core the everyday topics' lexicon (`dist/<glue>/topics.js`, from the core's
/// `src/retrieval/topics.txt`), kept out of the wasm's gzip budget as the prompts are. The
/// entry points call it once, at load; without it ranking finds no topic in any text.
#[wasm_bindgen(js_name = setTopics)]
pub fn set_topics(text: &str) {
    hippo::retrieval::topics::set_lexicon(text);
}

/// Hands the core the Chinese segmenter's word list (`dist/<glue>/chinese_words.js`, from the
/// core's `src/text/zh_lexicon.txt`), kept out of the wasm's gzip budget as the prompts are. The
/// entry points call it once, at load; without it the built-in dream reads Chinese a character
/// at a time.
#[wasm_bindgen(js_name = setChineseWords)]
pub fn set_chinese_words(text: &str) {
    hippo::text::segment::set_lexicon(text);
}

#[wasm_bindgen(js_name = Hippo)]
pub struct JsHippo {
    inner: Rc<Inner>,
}

/// `listNpcs({after?, limit?})`, as the HTTP query string.
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct Page {
    #[serde(default)]
    after: Option<String>,
    #[serde(default)]
    limit: Option<usize>,
}

/// `getConversation(npcid, {since?, limit?})`, as the HTTP query string.
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct LogRange {
    #[serde(default)]
    since: u64,
    #[serde(default)]
    limit: Option<usize>,
}

/// `{npcid?, scopes?}` → the MCP caller: a token-like caller bound to `npcid` with `scopes`
/// (default read and write), or with no `npcid` the owner of the store (every NPC).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct McpCallerOptions {
    #[serde(default)]
    npcid: Option<String>,
    #[serde(default)]
    scopes: Option<Vec<String>>,
}

fn mcp_caller(value: JsValue) -> hippo::Result<hippo::mcp::Caller> {
    use hippo::ports::Scope;
    let options: McpCallerOptions = from_js(value, None)?;
    let Some(npcid) = options.npcid else {
        return Ok(hippo::mcp::Caller::Admin);
    };
    hippo::ids::validate_npcid(&npcid)?;
    let scopes = match options.scopes {
        None => vec![Scope::Read, Scope::Write],
        Some(names) => names
            .iter()
            .map(|n| {
                Scope::parse(n).ok_or_else(|| hippo::Error::invalid(format!("unknown scope {n:?}")))
            })
            .collect::<hippo::Result<_>>()?,
    };
    Ok(hippo::mcp::Caller::Token { npcid, scopes })
}

/// Runs one call of the API: a rejected promise for a closed instance, a bad request, a core
/// error or a failed save; otherwise, once its changes are saved, the response as a plain
/// object.
fn call<T, F, Fut>(inner: &Rc<Inner>, run: F) -> Promise
where
    T: Serialize + 'static,
    F: FnOnce(Rc<Inner>) -> Fut + 'static,
    Fut: Future<Output = hippo::Result<T>> + 'static,
{
    // Only the call itself is generic; the rest is compiled once for every method (the npm
    // wasm has a size budget). The response is converted after the save.
    let for_call = inner.clone();
    let call: Call = Box::pin(async move {
        let response = run(for_call).await?;
        Ok(Box::new(move || to_js(&response)) as Respond)
    });
    future_to_promise(settle(inner.clone(), call))
}

/// A method that is a route with a body for `npcid`: the request object read exactly as the
/// HTTP route reads its body (its JSON text through `Operation::parse`, the one parse every
/// runtime uses), run by `Hippo::execute`. So both give the same answers and the same errors.
fn as_route(inner: &Rc<Inner>, kind: OpKind, npcid: String, request: JsValue) -> Promise {
    call(inner, move |i| async move {
        let body = request_json(request)?;
        let path = [("npcid", npcid.as_str())];
        let raw = RawRequest {
            path: &path,
            query: &[],
            body: body.as_bytes(),
        };
        i.hippo.execute(Operation::parse(kind, &raw)?).await
    })
}

/// A call's response, converted to JS on demand.
type Respond = Box<dyn FnOnce() -> hippo::Result<JsValue>>;
/// A call, not yet started.
type Call = Pin<Box<dyn Future<Output = hippo::Result<Respond>>>>;

/// What [`call`] does around every call.
async fn settle(inner: Rc<Inner>, call: Call) -> Result<JsValue, JsValue> {
    if inner.closed.get() {
        return Err(to_js_error(hippo::Error::invalid(
            "this Hippo instance is closed",
        )));
    }
    let result = call.await;
    // Save what the call changed before it resolves: also after an error, since the
    // writes that landed before it are visible from now on.
    let saved = inner.state.flush().await;
    let respond = result.map_err(to_js_error)?;
    saved.map_err(|e| to_js_error(e.into()))?;
    respond().map_err(to_js_error)
}

#[wasm_bindgen(js_class = Hippo)]
impl JsHippo {
    /// `Hippo.open({storage, embed?, llm?, clock?})`: loads the stored data, if any.
    pub fn open(options: JsValue) -> Promise {
        future_to_promise(async move {
            let opened = options::open(options).await.map_err(to_js_error)?;
            let hippo = JsHippo {
                inner: Rc::new(Inner {
                    hippo: hippo::Hippo::new(opened.ports),
                    state: opened.state,
                    closed: Cell::new(false),
                }),
            };
            Ok(hippo.into())
        })
    }

    /// `PUT /api/npc/{npcid}`: creates the NPC or updates its settings and flags.
    #[wasm_bindgen(js_name = createNpc)]
    pub fn create_npc(&self, npcid: String, request: JsValue) -> Promise {
        call(&self.inner, |i| async move {
            let request: NpcUpsert = from_js(request, Some("NpcUpsert"))?;
            i.hippo.upsert_npc(&npcid, request).await
        })
    }

    /// `GET /api/npc/{npcid}`.
    #[wasm_bindgen(js_name = getNpc)]
    pub fn get_npc(&self, npcid: String) -> Promise {
        call(
            &self.inner,
            |i| async move { i.hippo.get_npc(&npcid).await },
        )
    }

    /// `DELETE /api/npc/{npcid}`: the NPC and everything of it.
    #[wasm_bindgen(js_name = deleteNpc)]
    pub fn delete_npc(&self, npcid: String) -> Promise {
        call(&self.inner, |i| async move {
            i.hippo.delete_npc(&npcid).await.map(|()| api::Ok::new())
        })
    }

    /// `GET /api/npc?after=&limit=`.
    #[wasm_bindgen(js_name = listNpcs)]
    pub fn list_npcs(&self, page: JsValue) -> Promise {
        call(&self.inner, |i| async move {
            let page: Page = from_js(page, None)?;
            i.hippo
                .list_npcs(
                    page.after.as_deref(),
                    page.limit.unwrap_or(NPC_PAGE_DEFAULT),
                )
                .await
        })
    }

    /// `GET /api/pkg/{npcid}`.
    #[wasm_bindgen(js_name = getPkg)]
    pub fn get_pkg(&self, npcid: String) -> Promise {
        call(
            &self.inner,
            |i| async move { i.hippo.get_pkg(&npcid).await },
        )
    }

    /// `PUT /api/pkg/{npcid}` with `{updates: [{key, value}]}`.
    #[wasm_bindgen(js_name = updatePkg)]
    pub fn update_pkg(&self, npcid: String, request: JsValue) -> Promise {
        call(&self.inner, |i| async move {
            i.hippo
                .update_pkg(&npcid, from_js(request, Some("PkgUpdateRequest"))?)
                .await
        })
    }

    /// `GET /api/relationship/{npcid}`.
    #[wasm_bindgen(js_name = getRelationships)]
    pub fn get_relationships(&self, npcid: String) -> Promise {
        call(&self.inner, |i| async move {
            i.hippo.get_relationships(&npcid).await
        })
    }

    /// `POST /api/relationship/{npcid}` with `{ops: [...]}`.
    #[wasm_bindgen(js_name = applyEntityOps)]
    pub fn apply_entity_ops(&self, npcid: String, request: JsValue) -> Promise {
        call(&self.inner, |i| async move {
            i.hippo
                .apply_entity_ops(&npcid, from_js(request, Some("EntityOpsRequest"))?)
                .await
        })
    }

    /// `GET /api/diary/{npcid}`.
    #[wasm_bindgen(js_name = getDiary)]
    pub fn get_diary(&self, npcid: String) -> Promise {
        call(
            &self.inner,
            |i| async move { i.hippo.get_diary(&npcid).await },
        )
    }

    /// `POST /api/conversation/{npcid}` with `{session_id?, turns, summary?}`.
    #[wasm_bindgen(js_name = addConversation)]
    pub fn add_conversation(&self, npcid: String, request: JsValue) -> Promise {
        call(&self.inner, |i| async move {
            i.hippo
                .append_conversation(&npcid, from_js(request, Some("ConversationAppend"))?)
                .await
        })
    }

    /// `GET /api/conversation/{npcid}?since=&limit=`.
    #[wasm_bindgen(js_name = getConversation)]
    pub fn get_conversation(&self, npcid: String, range: JsValue) -> Promise {
        call(&self.inner, |i| async move {
            let range: LogRange = from_js(range, None)?;
            i.hippo
                .get_conversation(&npcid, range.since, range.limit.unwrap_or(LOG_PAGE_DEFAULT))
                .await
        })
    }

    /// `POST /api/dream/{npcid}?dry_run=`: resolves to the report.
    pub fn dream(&self, npcid: String, options: JsValue) -> Promise {
        call(&self.inner, |i| async move {
            let dry_run = dry_run_option(&options)?;
            i.hippo.dream(&npcid, dry_run).await
        })
    }

    /// `POST /api/memories/{npcid}` with `{memories: [...]}`.
    #[wasm_bindgen(js_name = addMemories)]
    pub fn add_memories(&self, npcid: String, request: JsValue) -> Promise {
        call(&self.inner, |i| async move {
            i.hippo
                .add_memories(&npcid, from_js(request, Some("AddMemoriesRequest"))?)
                .await
        })
    }

    /// `GET /api/memories/{npcid}` with `{types?, collection?, include_superseded?, offset?,
    /// limit?}`.
    #[wasm_bindgen(js_name = listMemories)]
    pub fn list_memories(&self, npcid: String, query: JsValue) -> Promise {
        call(&self.inner, |i| async move {
            let query: ListMemoriesQuery = from_js(query, None)?;
            i.hippo.list_memories(&npcid, query).await
        })
    }

    /// `PATCH /api/memories/{npcid}/{id}` with `{summary?, type?, keywords?, importance?,
    /// sensitive?, sensitive_category?, pinned?}`.
    #[wasm_bindgen(js_name = updateMemory)]
    pub fn update_memory(&self, npcid: String, id: String, patch: JsValue) -> Promise {
        call(&self.inner, |i| async move {
            let patch: hippo::memory::MemoryPatch = from_js(patch, Some("MemoryPatch"))?;
            let rewrites = patch.summary.is_some();
            let updated = i.hippo.update_memory(&npcid, &id, patch).await?;
            // The old summary may be what the user wanted gone (a secret edited out): save a
            // snapshot, as a deletion does, so no earlier log record keeps it.
            if rewrites {
                i.state.snapshot_next();
            }
            Ok(updated)
        })
    }

    /// `DELETE /api/memories/{npcid}/{id}`.
    #[wasm_bindgen(js_name = deleteMemory)]
    pub fn delete_memory(&self, npcid: String, id: String) -> Promise {
        call(&self.inner, |i| async move {
            i.hippo
                .delete_memory(&npcid, &id)
                .await
                .map(|()| api::Ok::new())
        })
    }

    /// `POST /api/memories/{npcid}/search` with `{query, memory_types?, max_results?, …}`,
    /// read as the route reads its body.
    pub fn search(&self, npcid: String, request: JsValue) -> Promise {
        as_route(&self.inner, OpKind::SearchMemories, npcid, request)
    }

    /// `POST /memory_retrieval` for this NPC: `{query, memory_types?, time_hint?,
    /// max_results?}` → `{memories}`, read as the Worker reads the body (lenient fields,
    /// unknown ones ignored, the same 16 KiB limit).
    pub fn retrieve(&self, npcid: String, request: JsValue) -> Promise {
        as_route(&self.inner, OpKind::Retrieve, npcid, request)
    }

    /// `POST /api/npc/{npcid}/brief` with `{max_tokens?, query?, lang?}`: a session brief
    /// within the token budget.
    pub fn brief(&self, npcid: String, request: JsValue) -> Promise {
        call(&self.inner, |i| async move {
            let request: BriefRequest = from_js(request, Some("BriefRequest"))?;
            i.hippo.brief(&npcid, request).await
        })
    }

    /// The MCP tools `caller` may call (`{npcid?, scopes?}`: without `npcid`, every NPC and
    /// every tool), as `tools/list` entries: what the stdio MCP server lists (the list the
    /// entry point handed over with [`set_mcp_tools`]).
    #[wasm_bindgen(js_name = mcpTools)]
    pub fn mcp_tools(&self, caller: JsValue) -> Result<JsValue, JsValue> {
        let caller = mcp_caller(caller).map_err(to_js_error)?;
        to_js(&hippo::mcp::tools(&caller)).map_err(to_js_error)
    }

    /// Runs MCP tool `name` with `args` for `caller` (see `mcpTools`); rejects with the
    /// core's error codes, which the stdio server reports as tool errors.
    #[wasm_bindgen(js_name = callTool)]
    pub fn call_tool(&self, caller: JsValue, name: String, args: JsValue) -> Promise {
        let caller = mcp_caller(caller);
        call(&self.inner, |i| async move {
            let args: serde_json::Value = from_js(args, None)?;
            i.hippo.call_tool(&caller?, &name, args).await
        })
    }

    /// `GET /api/npc/{npcid}/export`: the NPC's whole memory as one versioned document.
    #[wasm_bindgen(js_name = exportNpc)]
    pub fn export_npc(&self, npcid: String) -> Promise {
        call(
            &self.inner,
            |i| async move { i.hippo.export_npc(&npcid).await },
        )
    }

    /// `POST /api/npc/{npcid}/import` with a document from `exportNpc`.
    #[wasm_bindgen(js_name = importNpc)]
    pub fn import_npc(&self, npcid: String, document: JsValue) -> Promise {
        call(&self.inner, |i| async move {
            let document: NpcExport = from_js(document, Some("NpcExport"))?;
            i.hippo.import_npc(&npcid, document).await
        })
    }

    /// Re-embeds every NPC's memories with the configured embedder and records it as the
    /// store's embedder (what the HTTP API's re-embed operation does): needed once after
    /// switching `embed`, which otherwise rejects with `not_configured`.
    pub fn reembed(&self) -> Promise {
        call(&self.inner, |i| async move { i.hippo.reembed_all().await })
    }

    /// Resolves once every change made so far is saved. Each call already saves its own
    /// changes before it resolves, so this only matters for calls not awaited.
    pub fn flush(&self) -> Promise {
        // Every call saves what is pending before it resolves: this one does nothing else.
        call(&self.inner, |_| async { Ok(()) })
    }

    /// Flushes and releases the storage; later calls reject. Closing twice is harmless.
    pub fn close(&self) -> Promise {
        let inner = self.inner.clone();
        future_to_promise(async move {
            if inner.closed.replace(true) {
                return Ok(JsValue::UNDEFINED);
            }
            inner
                .state
                .close()
                .await
                .map_err(|e| to_js_error(e.into()))?;
            Ok(JsValue::UNDEFINED)
        })
    }
}

/// `{dryRun}` (or `{dry_run}` as in the HTTP query); absent means a real dream.
fn dry_run_option(options: &JsValue) -> hippo::Result<bool> {
    if options.is_undefined() || options.is_null() {
        return Ok(false);
    }
    let mut dry_run = false;
    for key in ["dryRun", "dry_run"] {
        let value = property(options, key);
        if value.is_undefined() {
            continue;
        }
        dry_run = value
            .as_bool()
            .ok_or_else(|| hippo::Error::invalid(format!("{key} must be a boolean")))?;
    }
    Ok(dry_run)
}
