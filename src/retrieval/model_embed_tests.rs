use super::*;
use crate::ports::HttpResponse;
use std::cell::RefCell;
use std::collections::HashMap;

/// Records each request and answers with one vector per input text: `[len(text), 1]`.
#[derive(Default)]
struct Recording {
    requests: RefCell<Vec<HttpRequest>>,
}

#[async_trait(?Send)]
impl HttpClient for Recording {
    async fn post(&self, request: HttpRequest) -> PortResult<HttpResponse> {
        let body: serde_json::Value = serde_json::from_str(&request.body).unwrap();
        let data: Vec<serde_json::Value> = body["input"]
            .as_array()
            .unwrap()
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let len = t.as_str().unwrap().chars().count() as f32;
                serde_json::json!({"index": i, "embedding": [len, 1.0]})
            })
            .collect();
        self.requests.borrow_mut().push(request);
        Ok(HttpResponse {
            status: 200,
            body: serde_json::json!({ "data": data }).to_string(),
        })
    }
}

fn vars(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
    let map: HashMap<String, String> = pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    move |name| map.get(name).cloned()
}

fn config(pairs: &[(&str, &str)]) -> Result<OpenAiEmbedConfig, String> {
    let mut all = vec![("HIPPO_EMBED_URL", "https://e.example/v1/")];
    all.extend_from_slice(pairs);
    OpenAiEmbedConfig::parse(&vars(&all))
}

fn embedder(pairs: &[(&str, &str)]) -> (Rc<Recording>, OpenAiEmbedder) {
    let http = Rc::new(Recording::default());
    let e = OpenAiEmbedder::new(http.clone(), config(pairs).unwrap());
    (http, e)
}

fn body(r: &HttpRequest) -> serde_json::Value {
    serde_json::from_str(&r.body).unwrap()
}

#[test]
fn request_names_model_inputs_and_key() {
    let (_, e) = embedder(&[
        ("HIPPO_EMBED_KEY", "k"),
        ("HIPPO_EMBED_MODEL", "m"),
        ("HIPPO_EMBED_DIM", "2"),
    ]);
    let r = e
        .request(EmbedKind::Query, &["a".into(), "b".into()])
        .unwrap();
    assert_eq!(r.url, "https://e.example/v1/embeddings");
    assert!(r
        .headers
        .contains(&("authorization".into(), "Bearer k".into())));
    assert_eq!(r.timeout_ms, DEFAULT_TIMEOUT_MS);
    assert_eq!(
        body(&r),
        serde_json::json!({"model": "m", "input": ["a", "b"]})
    );
}

#[test]
fn response_is_reordered_normalized_and_checked() {
    let (_, e) = embedder(&[("HIPPO_EMBED_MODEL", "m"), ("HIPPO_EMBED_DIM", "2")]);
    let body = r#"{"data":[{"index":1,"embedding":[0,2]},{"index":0,"embedding":[3,4]}]}"#;
    let v = e.parse(200, body, 2).unwrap();
    assert_eq!(v, vec![vec![0.6, 0.8], vec![0.0, 1.0]]);
    assert!(e.parse(200, body, 3).is_err(), "count mismatch");
    let (_, three) = embedder(&[("HIPPO_EMBED_MODEL", "m"), ("HIPPO_EMBED_DIM", "3")]);
    assert!(three.parse(200, body, 2).is_err(), "dimension mismatch");
    let err = e.parse(500, "upstream down", 2).unwrap_err();
    assert!(err.to_string().contains("500"), "{err}");
    assert!(e.parse(200, "not json", 2).is_err());
    let nan = r#"{"data":[{"embedding":[1e40,0]}]}"#;
    assert!(e.parse(200, nan, 1).is_err(), "non-finite values");
}

#[test]
fn e5_gets_query_and_passage_prefixes_by_default() {
    let (http, e) = embedder(&[("HIPPO_EMBED_MODEL", "intfloat/multilingual-e5-small")]);
    assert_eq!(e.dimension(), 384);
    assert_eq!(e.thresholds(), E5_THRESHOLDS);
    // Recording answers 2-dimensional vectors, so only the requests are checked here.
    let _ = futures::executor::block_on(e.embed(EmbedKind::Query, &["你好".into()]));
    let _ = futures::executor::block_on(e.embed(EmbedKind::Document, &["你好".into()]));
    let sent: Vec<serde_json::Value> = http.requests.borrow().iter().map(body).collect();
    assert_eq!(sent[0]["input"], serde_json::json!(["query: 你好"]));
    assert_eq!(sent[1]["input"], serde_json::json!(["passage: 你好"]));
    assert!(sent[0].get("input_type").is_none());
}

#[test]
fn a_service_told_the_kind_gets_bare_texts() {
    let (http, e) = embedder(&[
        ("HIPPO_EMBED_MODEL", "multilingual-e5-small"),
        ("HIPPO_EMBED_INPUT_TYPE", " query , passage "),
    ]);
    let _ = futures::executor::block_on(e.embed(EmbedKind::Document, &["x".into()]));
    let sent = body(&http.requests.borrow()[0]);
    assert_eq!(sent["input"], serde_json::json!(["x"]));
    assert_eq!(sent["input_type"], "passage");
}

#[test]
fn prefixes_are_taken_verbatim_and_an_empty_one_removes_the_default() {
    let c = config(&[
        ("HIPPO_EMBED_MODEL", "e5-base-v2"),
        ("HIPPO_EMBED_QUERY_PREFIX", "search_query: "),
        ("HIPPO_EMBED_DOCUMENT_PREFIX", ""),
    ])
    .unwrap();
    assert_eq!(c.model.dimension, 768);
    assert_eq!(c.model.marking.query_prefix, "search_query: ");
    assert_eq!(c.model.marking.document_prefix, "");
}

#[test]
fn batches_follow_the_configured_size() {
    let (http, e) = embedder(&[
        ("HIPPO_EMBED_MODEL", "m"),
        ("HIPPO_EMBED_DIM", "2"),
        ("HIPPO_EMBED_BATCH", "2"),
        ("HIPPO_EMBED_TIMEOUT_MS", "600000"),
    ]);
    let texts: Vec<String> = ["a", "bb", "ccc", "dddd", "eeeee"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let vectors = futures::executor::block_on(e.embed(EmbedKind::Document, &texts)).unwrap();
    let requests = http.requests.borrow();
    assert_eq!(requests.len(), 3);
    assert!(requests.iter().all(|r| r.timeout_ms == 600_000));
    // In input order across batches: [len, 1] normalised, so the first coordinate grows.
    let firsts: Vec<f32> = vectors.iter().map(|v| v[0]).collect();
    assert!(firsts.windows(2).all(|w| w[0] < w[1]), "{firsts:?}");
}

#[test]
fn thresholds_come_from_the_model_and_can_be_overridden() {
    let bge = config(&[("HIPPO_EMBED_MODEL", "@cf/baai/bge-m3")]).unwrap();
    assert_eq!(bge.model.dimension, 1024);
    assert_eq!(bge.model.thresholds, SimilarityThresholds::SENTENCE);
    assert_eq!(bge.model.marking, KindMarking::default());
    let tuned = config(&[
        ("HIPPO_EMBED_MODEL", "multilingual-e5-small"),
        ("HIPPO_EMBED_DUPLICATE", "0.99"),
        ("HIPPO_EMBED_AMBIGUOUS", "0.9"),
        ("HIPPO_EMBED_RELEVANT", "0.8"),
    ])
    .unwrap();
    assert_eq!(
        tuned.model.thresholds,
        SimilarityThresholds {
            duplicate: 0.99,
            ambiguous: 0.9,
            relevant: 0.8
        }
    );
    let instruct = model_profile("multilingual-e5-large-instruct");
    assert_eq!(instruct.marking, KindMarking::default());
}

#[test]
fn mistakes_are_named() {
    for (pairs, needle) in [
        (vec![("HIPPO_EMBED_MODEL", "mystery")], "HIPPO_EMBED_DIM"),
        (vec![("HIPPO_EMBED_DIM", "0")], "HIPPO_EMBED_DIM"),
        (
            vec![("HIPPO_EMBED_DUPLICATE", "1.5")],
            "HIPPO_EMBED_DUPLICATE",
        ),
        (
            vec![
                ("HIPPO_EMBED_DUPLICATE", "0.8"),
                ("HIPPO_EMBED_AMBIGUOUS", "0.9"),
            ],
            "must not exceed",
        ),
        (
            vec![("HIPPO_EMBED_INPUT_TYPE", "query")],
            "HIPPO_EMBED_INPUT_TYPE",
        ),
        (vec![("HIPPO_EMBED_BATCH", "0")], "HIPPO_EMBED_BATCH"),
        (
            vec![("HIPPO_EMBED_TIMEOUT_MS", "soon")],
            "HIPPO_EMBED_TIMEOUT_MS",
        ),
    ] {
        let err = config(&pairs).unwrap_err();
        assert!(err.contains(needle), "{pairs:?}: {err}");
    }
    let err = OpenAiEmbedConfig::parse(&vars(&[])).unwrap_err();
    assert!(err.contains("HIPPO_EMBED_URL"), "{err}");
}
