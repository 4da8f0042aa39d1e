//! An OpenAI-compatible chat client (`POST {base}/chat/completions`) over the HTTP-client
//! port: the Worker backs it with `fetch`, the npm package with a JS callback.

use crate::error::PortError;
use crate::ports::{ChatMessage, HttpClient, HttpRequest, Llm, PortResult};
use async_trait::async_trait;
use serde_json::{json, Value};
use std::rc::Rc;

pub struct OpenAiChat {
    pub http: Rc<dyn HttpClient>,
    /// e.g. `https://api.openai.com/v1`.
    pub base_url: String,
    /// Sent as `Authorization: Bearer …`; empty sends no header (local servers).
    pub api_key: String,
    pub model: String,
    pub timeout_ms: u32,
}

/// Attempts per completion: the first, and one retry after a 5xx or a timeout.
const ATTEMPTS: usize = 2;
/// How much of an error body goes into the error message.
const ERROR_EXCERPT_CHARS: usize = 300;

impl OpenAiChat {
    fn request(&self, system: &str, messages: &[ChatMessage]) -> HttpRequest {
        let mut all = vec![json!({"role": "system", "content": system})];
        all.extend(
            messages
                .iter()
                .map(|m| json!({"role": m.role, "content": m.content})),
        );
        let body = json!({
            "model": self.model,
            "messages": all,
            "temperature": 0,
            "response_format": {"type": "json_object"},
        });
        let mut headers = vec![("Content-Type".to_string(), "application/json".to_string())];
        if !self.api_key.is_empty() {
            headers.push((
                "Authorization".to_string(),
                format!("Bearer {}", self.api_key),
            ));
        }
        HttpRequest {
            url: format!("{}/chat/completions", self.base_url.trim_end_matches('/')),
            headers,
            body: body.to_string(),
            timeout_ms: self.timeout_ms,
        }
    }
}

/// `choices[0].message.content` of a chat-completion response.
fn content_of(body: &str) -> PortResult<String> {
    let value: Value = crate::json::parse(body)
        .map_err(|e| PortError::Backend(format!("LLM response is not JSON: {e}")))?;
    value
        .pointer("/choices/0/message/content")
        .and_then(Value::as_str)
        .map(str::to_string)
        .ok_or_else(|| PortError::Backend("LLM response has no choices[0].message.content".into()))
}

fn excerpt(body: &str) -> &str {
    crate::text::cut_chars(body.trim(), ERROR_EXCERPT_CHARS)
}

#[async_trait(?Send)]
impl Llm for OpenAiChat {
    async fn complete(&self, system: &str, messages: &[ChatMessage]) -> PortResult<String> {
        let request = self.request(system, messages);
        let mut last = PortError::Backend("LLM was not called".into());
        for _ in 0..ATTEMPTS {
            match self.http.post(request.clone()).await {
                Ok(r) if (200..300).contains(&r.status) => return content_of(&r.body),
                Ok(r) if r.status >= 500 => {
                    last =
                        PortError::Backend(format!("LLM HTTP {}: {}", r.status, excerpt(&r.body)));
                }
                Ok(r) => {
                    return Err(PortError::Backend(format!(
                        "LLM HTTP {}: {}",
                        r.status,
                        excerpt(&r.body)
                    )))
                }
                Err(PortError::Timeout(m)) => last = PortError::Timeout(m),
                Err(e) => return Err(e),
            }
        }
        Err(last)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ports::HttpResponse;
    use futures::executor::block_on;
    use std::cell::RefCell;

    /// Answers with the scripted results in order and records the requests.
    struct ScriptedHttp {
        script: RefCell<Vec<PortResult<HttpResponse>>>,
        seen: RefCell<Vec<HttpRequest>>,
    }

    #[async_trait(?Send)]
    impl HttpClient for ScriptedHttp {
        async fn post(&self, request: HttpRequest) -> PortResult<HttpResponse> {
            self.seen.borrow_mut().push(request);
            self.script.borrow_mut().remove(0)
        }
    }

    fn ok(status: u16, body: &str) -> PortResult<HttpResponse> {
        Ok(HttpResponse {
            status,
            body: body.into(),
        })
    }

    fn client(script: Vec<PortResult<HttpResponse>>) -> (OpenAiChat, Rc<ScriptedHttp>) {
        let http = Rc::new(ScriptedHttp {
            script: RefCell::new(script),
            seen: RefCell::new(Vec::new()),
        });
        let chat = OpenAiChat {
            http: http.clone(),
            base_url: "https://llm.example/v1/".into(),
            api_key: "sk-test".into(),
            model: "gpt-test".into(),
            timeout_ms: 5_000,
        };
        (chat, http)
    }

    const ANSWER: &str =
        r#"{"choices": [{"message": {"role": "assistant", "content": "{\"diary\": \"ok\"}"}}]}"#;

    fn user(text: &str) -> Vec<ChatMessage> {
        vec![ChatMessage {
            role: "user".into(),
            content: text.into(),
        }]
    }

    #[test]
    fn sends_an_openai_request_and_reads_the_content() {
        let (chat, http) = client(vec![ok(200, ANSWER)]);
        assert_eq!(
            block_on(chat.complete("sys", &user("hi"))).unwrap(),
            "{\"diary\": \"ok\"}"
        );
        let seen = http.seen.borrow();
        let req = &seen[0];
        assert_eq!(req.url, "https://llm.example/v1/chat/completions");
        assert!(req
            .headers
            .contains(&("Authorization".into(), "Bearer sk-test".into())));
        assert_eq!(req.timeout_ms, 5_000);
        let body: Value = serde_json::from_str(&req.body).unwrap();
        assert_eq!(body["model"], "gpt-test");
        assert_eq!(body["temperature"], 0);
        assert_eq!(body["response_format"]["type"], "json_object");
        assert_eq!(
            body["messages"][0],
            json!({"role": "system", "content": "sys"})
        );
        assert_eq!(
            body["messages"][1],
            json!({"role": "user", "content": "hi"})
        );
    }

    #[test]
    fn retries_once_after_a_5xx_or_a_timeout() {
        let (chat, http) = client(vec![ok(503, "busy"), ok(200, ANSWER)]);
        assert!(block_on(chat.complete("s", &user("x"))).is_ok());
        assert_eq!(http.seen.borrow().len(), 2);

        let (chat, _) = client(vec![
            Err(PortError::Timeout("slow".into())),
            ok(200, ANSWER),
        ]);
        assert!(block_on(chat.complete("s", &user("x"))).is_ok());

        let (chat, http) = client(vec![ok(500, "a"), ok(502, "bad gateway")]);
        assert_eq!(
            block_on(chat.complete("s", &user("x"))),
            Err(PortError::Backend("LLM HTTP 502: bad gateway".into()))
        );
        assert_eq!(http.seen.borrow().len(), 2);

        let (chat, _) = client(vec![
            Err(PortError::Timeout("a".into())),
            Err(PortError::Timeout("b".into())),
        ]);
        assert_eq!(
            block_on(chat.complete("s", &user("x"))),
            Err(PortError::Timeout("b".into()))
        );
    }

    #[test]
    fn client_errors_and_malformed_bodies_fail_without_retry() {
        let (chat, http) = client(vec![ok(401, "{\"error\": \"bad key\"}")]);
        let e = block_on(chat.complete("s", &user("x"))).unwrap_err();
        assert!(matches!(&e, PortError::Backend(m) if m.starts_with("LLM HTTP 401")));
        assert!(!e.to_string().contains("sk-test"));
        assert_eq!(http.seen.borrow().len(), 1);

        let (chat, _) = client(vec![ok(200, "<html>")]);
        assert!(block_on(chat.complete("s", &user("x"))).is_err());
        let (chat, _) = client(vec![ok(200, r#"{"choices": []}"#)]);
        assert!(block_on(chat.complete("s", &user("x"))).is_err());
    }
}
