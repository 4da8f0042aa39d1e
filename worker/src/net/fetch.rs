//! Outbound HTTP over the Worker's `fetch`, with a timeout enforced by aborting the request.

use async_trait::async_trait;
use futures_util::future::{select, Either};
use hippo::error::PortError;
use hippo::ports::{HttpClient, HttpRequest, HttpResponse, PortResult};
use std::pin::pin;
use std::time::Duration;
use wasm_bindgen::JsValue;
use worker::{AbortController, Delay, Fetch, Headers, Method, Request, RequestInit};

/// [`HttpClient`] over `fetch`. The timeout covers the whole exchange (headers and body);
/// when it fires the request is aborted, not just abandoned.
#[derive(Debug, Default, Clone, Copy)]
pub struct FetchClient;

fn backend(url: &str, err: impl std::fmt::Display) -> PortError {
    PortError::Backend(format!("POST {}: {err}", redact(url)))
}

/// The URL without its query string (which may carry a key).
fn redact(url: &str) -> &str {
    url.split('?').next().unwrap_or(url)
}

#[async_trait(?Send)]
impl HttpClient for FetchClient {
    async fn post(&self, request: HttpRequest) -> PortResult<HttpResponse> {
        let headers = Headers::new();
        for (name, value) in &request.headers {
            headers
                .set(name, value)
                .map_err(|e| backend(&request.url, e))?;
        }
        let mut init = RequestInit::new();
        init.with_method(Method::Post)
            .with_headers(headers)
            .with_body(Some(JsValue::from_str(&request.body)));
        let outbound =
            Request::new_with_init(&request.url, &init).map_err(|e| backend(&request.url, e))?;
        let controller = AbortController::default();
        let signal = controller.signal();
        let exchange = async move {
            let mut response = Fetch::Request(outbound).send_with_signal(&signal).await?;
            let status = response.status_code();
            let body = response.text().await?;
            Ok::<_, worker::Error>(HttpResponse { status, body })
        };
        let timeout = Delay::from(Duration::from_millis(request.timeout_ms.max(1) as u64));
        match select(pin!(exchange), pin!(timeout)).await {
            Either::Left((result, _)) => result.map_err(|e| backend(&request.url, e)),
            Either::Right(_) => {
                controller.abort();
                Err(PortError::Timeout(format!(
                    "POST {} after {} ms",
                    redact(&request.url),
                    request.timeout_ms
                )))
            }
        }
    }
}

/// Retries once when the first attempt timed out, failed to connect or got a 5xx: the
/// usual transient failures of hosted LLM and embedding APIs.
pub struct RetryOnce<H> {
    inner: H,
}

impl<H> RetryOnce<H> {
    pub fn new(inner: H) -> Self {
        RetryOnce { inner }
    }
}

fn transient(result: &PortResult<HttpResponse>) -> bool {
    match result {
        Ok(response) => response.status >= 500,
        Err(PortError::Timeout(_) | PortError::Backend(_)) => true,
        Err(PortError::Conflict(_)) => false,
    }
}

#[async_trait(?Send)]
impl<H: HttpClient> HttpClient for RetryOnce<H> {
    async fn post(&self, request: HttpRequest) -> PortResult<HttpResponse> {
        let first = self.inner.post(request.clone()).await;
        if transient(&first) {
            self.inner.post(request).await
        } else {
            first
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::RefCell;

    struct Scripted(RefCell<Vec<PortResult<HttpResponse>>>);

    #[async_trait(?Send)]
    impl HttpClient for Scripted {
        async fn post(&self, _: HttpRequest) -> PortResult<HttpResponse> {
            self.0.borrow_mut().remove(0)
        }
    }

    fn request() -> HttpRequest {
        HttpRequest {
            url: "https://x.example/v1/embeddings?key=secret".into(),
            headers: vec![],
            body: "{}".into(),
            timeout_ms: 10,
        }
    }

    fn ok(status: u16) -> PortResult<HttpResponse> {
        Ok(HttpResponse {
            status,
            body: String::new(),
        })
    }

    fn run(script: Vec<PortResult<HttpResponse>>) -> (PortResult<HttpResponse>, usize) {
        let client = RetryOnce::new(Scripted(RefCell::new(script)));
        let result = futures_executor(client.post(request()));
        let left = client.inner.0.borrow().len();
        (result, left)
    }

    fn futures_executor<F: std::future::Future>(f: F) -> F::Output {
        futures_util::FutureExt::now_or_never(f).expect("scripted futures are ready")
    }

    #[test]
    fn retries_once_on_5xx_and_timeouts_only() {
        let (r, left) = run(vec![ok(503), ok(200), ok(200)]);
        assert_eq!(r.unwrap().status, 200);
        assert_eq!(left, 1);
        let (r, _) = run(vec![Err(PortError::Timeout("t".into())), ok(502)]);
        assert_eq!(
            r.unwrap().status,
            502,
            "a second failure is reported, not retried"
        );
        let (r, left) = run(vec![ok(400), ok(200)]);
        assert_eq!((r.unwrap().status, left), (400, 1), "4xx is not transient");
    }

    #[test]
    fn urls_in_errors_lose_their_query() {
        assert_eq!(redact("https://x/v1?key=1"), "https://x/v1");
    }
}
