//! Test doubles for the dream pipeline tests: a scripted LLM and a store whose commits fail
//! on demand.
#![allow(dead_code)]

use async_trait::async_trait;
use hippo::error::PortError;
use hippo::ports::*;
use hippo::store::MemoryStore;
use serde_json::json as j;
use std::cell::{Cell, RefCell};
use std::rc::Rc;

/// An LLM that answers each kind of prompt from its own script, then with a default.
#[derive(Default)]
pub struct ScriptedLlm {
    script: RefCell<Vec<(Kind, PortResult<String>)>>,
    pub calls: RefCell<Vec<Kind>>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Kind {
    Diary,
    Prior,
    Extraction,
    Verdict,
}

impl ScriptedLlm {
    pub fn then(self, kind: Kind, answer: PortResult<&str>) -> Self {
        self.script
            .borrow_mut()
            .push((kind, answer.map(str::to_string)));
        self
    }

    fn default_answer(kind: Kind) -> String {
        match kind {
            Kind::Diary => r#"{"diary": "Today the user told me about Anna."}"#.into(),
            Kind::Prior => r#"{"prior": "Earlier days, merged."}"#.into(),
            Kind::Extraction => j!({
                "entity_ops": [{"op": "add", "name": "Anna", "title": ["sister"]}],
                "pkg_updates": [{"key": "Other Important People", "value": ["Anna"]}, {"key": "Nickname", "value": "Annie"}],
                "memories": [{"summary": "The user's sister Anna lives in Berlin", "type": "relationship", "keywords": ["Anna"], "importance": 0.7, "confidence": 0.9}]
            })
            .to_string(),
            Kind::Verdict => r#"{"verdict": "DISTINCT"}"#.into(),
        }
    }
}

#[async_trait(?Send)]
impl Llm for ScriptedLlm {
    async fn complete(&self, system: &str, _messages: &[ChatMessage]) -> PortResult<String> {
        let kind = if system.contains("private diary entry") {
            Kind::Diary
        } else if system.contains("long-term diary summary") {
            Kind::Prior
        } else if system.contains("extract long-term memory") {
            Kind::Extraction
        } else {
            Kind::Verdict
        };
        self.calls.borrow_mut().push(kind);
        let mut script = self.script.borrow_mut();
        match script.iter().position(|(k, _)| *k == kind) {
            Some(i) => script.remove(i).1,
            None => Ok(Self::default_answer(kind)),
        }
    }
}

/// A store whose commits fail while `fail` says so for the batch.
pub struct FailingStore {
    pub inner: Rc<MemoryStore>,
    pub fail: Cell<fn(&WriteBatch) -> bool>,
}

pub fn never(_: &WriteBatch) -> bool {
    false
}

macro_rules! delegate {
    ($(async fn $name:ident(&self $(, $arg:ident: $ty:ty)*) -> $ret:ty;)*) => {
        #[async_trait(?Send)]
        impl Store for FailingStore {
            async fn commit(&self, npcid: &str, batch: WriteBatch) -> PortResult<()> {
                if (self.fail.get())(&batch) {
                    return Err(PortError::Backend("disk full".into()));
                }
                self.inner.commit(npcid, batch).await
            }
            $(async fn $name(&self $(, $arg: $ty)*) -> $ret {
                self.inner.$name($($arg),*).await
            })*
        }
    };
}

delegate! {
    async fn npc(&self, npcid: &str) -> PortResult<Option<hippo::npc::Npc>>;
    async fn list_npcs(&self, after: Option<&str>, limit: usize) -> PortResult<Vec<hippo::npc::Npc>>;
    async fn pkg(&self, npcid: &str) -> PortResult<Vec<(String, hippo::pkg::PkgValue)>>;
    async fn entities(&self, npcid: &str) -> PortResult<Vec<(String, hippo::relationship::Entity)>>;
    async fn diary(&self, npcid: &str) -> PortResult<(String, Vec<hippo::diary::DiaryEntry>)>;
    async fn turns(&self, npcid: &str, after_seq: u64, limit: usize) -> PortResult<Vec<hippo::conversation::Turn>>;
    async fn session_indexes(&self, npcid: &str, session_id: &str) -> PortResult<Vec<u32>>;
    async fn last_seq(&self, npcid: &str) -> PortResult<u64>;
    async fn memories(&self, npcid: &str, filter: &MemoryFilter) -> PortResult<Vec<hippo::memory::Memory>>;
    async fn memories_by_id(&self, npcid: &str, ids: &[String]) -> PortResult<Vec<hippo::memory::Memory>>;
    async fn lexical_search(&self, npcid: &str, query: &LexicalQuery, limit: usize) -> PortResult<Vec<(String, f64)>>;
    async fn term_stats(&self, npcid: &str, terms: &[String]) -> PortResult<CorpusStats>;
    async fn token_by_hash(&self, token_hash: &str) -> PortResult<Option<TokenRecord>>;
    async fn tokens(&self, npcid: &str) -> PortResult<Vec<TokenRecord>>;
    async fn acquire_lease(&self, npcid: &str, holder: &str, now: hippo::time::Timestamp, until: hippo::time::Timestamp) -> PortResult<bool>;
    async fn release_lease(&self, npcid: &str, holder: &str) -> PortResult<()>;
    async fn meta(&self, key: &str) -> PortResult<Option<String>>;
    async fn set_meta(&self, key: &str, value: &str) -> PortResult<()>;
}
