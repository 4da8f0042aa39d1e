//! Test doubles for the dream pipeline tests: a scripted LLM (the failing store is
//! `common::TestStore`).
#![allow(dead_code)]

use async_trait::async_trait;
use hippo::ports::*;
use serde_json::json as j;
use std::cell::RefCell;

/// An LLM that answers each kind of prompt from its own script, then with a default.
#[derive(Default)]
pub struct ScriptedLlm {
    script: RefCell<Vec<(Kind, PortResult<String>)>>,
    pub calls: RefCell<Vec<Kind>>,
    /// What each call was sent: its kind, the system prompt and the user message.
    pub prompts: RefCell<Vec<(Kind, String, String)>>,
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
    async fn complete(&self, system: &str, messages: &[ChatMessage]) -> PortResult<String> {
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
        let user = messages
            .iter()
            .map(|m| m.content.as_str())
            .collect::<Vec<_>>()
            .join("\n");
        self.prompts
            .borrow_mut()
            .push((kind, system.to_string(), user));
        let mut script = self.script.borrow_mut();
        match script.iter().position(|(k, _)| *k == kind) {
            Some(i) => script.remove(i).1,
            None => Ok(Self::default_answer(kind)),
        }
    }
}
