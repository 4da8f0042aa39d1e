use super::*;
use crate::retrieval::rank::{Candidate, CandidateKind};
use crate::time::Timestamp;

fn voice() -> Voice {
    Voice::new("query", "", Timestamp(0))
}

fn parse(body: &str) -> Result<ParsedRetrieval> {
    parse_retrieval_request(body.as_bytes())
}

fn ranked(id: &str, summary: &str, confidence: f64) -> Ranked {
    let t = Timestamp::parse("2026-04-08T10:30:00+08:00").unwrap();
    let mut c = Candidate::new(id, CandidateKind::Memory, MemoryType::Profile, summary, t);
    c.confidence = confidence;
    c.source = "explicit_user_statement".into();
    Ranked {
        relevance: 1.0,
        candidate: c,
        score: 7.5,
        signals: None,
    }
}

#[test]
fn a_full_request_is_parsed_and_unknown_fields_ignored() {
    let p = parse(
        r#"{"live_id":"L1","query":"  用户喜欢灵绯怎么称呼自己 ","reason":"greeting",
            "memory_types":["profile","PREFERENCE","mystery","profile"],"time_hint":"昨天",
            "max_results":3,"user_id":"ignored","extra":{"a":1}}"#,
    )
    .unwrap();
    assert_eq!(p.query, "用户喜欢灵绯怎么称呼自己");
    // Each known type once, in type order (the search route's order too).
    assert_eq!(
        p.memory_types,
        [MemoryType::Preference, MemoryType::Profile]
    );
    assert_eq!(p.time_hint.as_deref(), Some("昨天"));
    assert_eq!(p.max_results, 3);
    assert_eq!(p.reason.as_deref(), Some("greeting"));
    assert_eq!(p.live_id.as_deref(), Some("L1"));
}

#[test]
fn defaults() {
    let p = parse(r#"{"query":"暗号"}"#).unwrap();
    assert_eq!(p.max_results, DEFAULT_MAX_RESULTS);
    assert!(p.memory_types.is_empty());
    assert_eq!(p.time_hint, None);
    let p = parse(r#"{"query":"暗号","time_hint":"  ","memory_types":"style, nope"}"#).unwrap();
    assert_eq!(p.time_hint, None);
    assert_eq!(p.memory_types, [MemoryType::Style]);
}

#[test]
fn empty_or_missing_query_is_invalid() {
    for body in [
        r#"{}"#,
        r#"{"query":""}"#,
        r#"{"query":"  \n "}"#,
        r#"{"query":42}"#,
    ] {
        assert!(matches!(parse(body), Err(Error::InvalidInput(_))), "{body}");
    }
    for body in ["", "not json", "[1,2]", r#""query""#] {
        assert!(matches!(parse(body), Err(Error::InvalidInput(_))), "{body}");
    }
}

#[test]
fn oversized_requests_are_too_large() {
    let body = format!(r#"{{"query":"{}"}}"#, "a".repeat(MAX_REQUEST_BYTES));
    assert!(matches!(parse(&body), Err(Error::TooLarge(_))));
}

#[test]
fn max_results_is_clamped_and_lenient() {
    let n = |v: &str| {
        parse(&format!(r#"{{"query":"q","max_results":{v}}}"#))
            .unwrap()
            .max_results
    };
    assert_eq!(n("0"), 1);
    assert_eq!(n("-4"), 1);
    assert_eq!(n("10"), 10);
    assert_eq!(n("11"), 10);
    assert_eq!(n("1e9"), 10);
    assert_eq!(n("2.9"), 2);
    assert_eq!(n(r#""7""#), 7);
    assert_eq!(n(r#""many""#), DEFAULT_MAX_RESULTS);
    assert_eq!(n("null"), DEFAULT_MAX_RESULTS);
    assert_eq!(n("true"), DEFAULT_MAX_RESULTS);
    assert_eq!(clamp_count(i64::MAX, MAX_RESULTS_LIMIT), 10);
    assert_eq!(clamp_count(i64::MIN, MAX_RESULTS_LIMIT), 1);
}

#[test]
fn typed_requests_follow_the_same_rules() {
    let req = RetrievalRequest {
        live_id: Some("12".into()),
        query: " 过敏 ".into(),
        memory_types: Some(vec!["constraint".into(), "bogus".into()]),
        max_results: Some(50),
        ..Default::default()
    };
    let p = ParsedRetrieval::from_request(req).unwrap();
    assert_eq!(p.query, "过敏");
    assert_eq!(p.memory_types, [MemoryType::Constraint]);
    assert_eq!(p.max_results, 10);
    assert_eq!(p.live_id.as_deref(), Some("12"));
    assert!(ParsedRetrieval::from_request(RetrievalRequest::default()).is_err());
}

#[test]
fn each_field_is_read_leniently_and_the_rest_refused_clearly() {
    let p = parse(
        r#"{"query":"q","live_id":12,"reason":null,"memory_types":["profile",3,null],
            "time_hint":2026,"max_results":{"n":1}}"#,
    )
    .unwrap();
    assert_eq!(p.live_id.as_deref(), Some("12"));
    assert_eq!(p.reason, None);
    assert_eq!(p.memory_types, [MemoryType::Profile]);
    assert_eq!(p.time_hint.as_deref(), Some("2026"));
    assert_eq!(p.max_results, DEFAULT_MAX_RESULTS);
    let p = parse(r#"{"query":"q","memory_types":{"a":"profile"}}"#).unwrap();
    assert!(p.memory_types.is_empty());
    for (body, says) in [
        (r#"{"query":42}"#, "query must be a string"),
        (r#"{"query":null}"#, "query must be a string"),
        ("[1,2]", "request body must be a JSON object"),
        (r#""query""#, "request body must be a JSON object"),
        ("{oops", "invalid JSON body"),
        (r#"{"query":" "}"#, "query is required"),
    ] {
        let err = parse(body).unwrap_err();
        assert!(
            matches!(&err, Error::InvalidInput(m) if m.contains(says)),
            "{body}: {err}"
        );
    }
    let deep = format!(
        r#"{{"query":"q","x":{}{}}}"#,
        "[".repeat(500),
        "]".repeat(500)
    );
    assert!(matches!(parse(&deep), Err(Error::InvalidInput(_))));
    let err = parse(&" ".repeat(MAX_REQUEST_BYTES + 1)).unwrap_err();
    assert_eq!(err.to_string(), "request body is larger than 16 KiB");
}

#[test]
fn rendering_uses_trust_and_rfc3339() {
    let body = render_retrieval(&[ranked("m1", "用户希望被称呼为阿澈", 0.9)], &voice());
    let m = &body.memories[0];
    assert_eq!(m.id, "m1");
    assert_eq!(m.memory_type, "profile");
    assert_eq!(m.confidence, 0.9);
    assert_eq!(m.updated_at, "2026-04-08T02:30:00.000Z");
    assert_eq!(m.source, "explicit_user_statement");
    let json = serde_json::to_value(&body).unwrap();
    assert_eq!(json["memories"][0]["type"], "profile");
    let wild = render_retrieval(
        &[ranked("a", "x", 3.0), ranked("b", "y", f64::NAN)],
        &voice(),
    );
    assert_eq!(wild.memories[0].confidence, 1.0);
    assert_eq!(wild.memories[1].confidence, 0.0);
}

#[test]
fn nothing_found_is_an_empty_list() {
    let json = serde_json::to_string(&render_retrieval(&[], &voice())).unwrap();
    assert_eq!(json, r#"{"memories":[]}"#);
}

#[test]
fn long_summaries_are_cut_on_a_character_boundary() {
    let long = "长".repeat(600);
    let body = render_retrieval(&[ranked("m", &long, 0.5)], &voice());
    let summary = &body.memories[0].summary;
    assert_eq!(summary.chars().count(), MAX_SUMMARY_CHARS);
    assert!(summary.ends_with('…'));
    assert!(summary.starts_with("长长"));
    let exact = "a".repeat(MAX_SUMMARY_CHARS);
    assert_eq!(truncate_summary(&exact), exact);
}

#[test]
fn the_body_stays_under_16_kib_by_dropping_whole_items() {
    // Twelve items of 500 three-byte characters (~1.6 KiB each after cutting) do not all fit.
    let items: Vec<Ranked> = (0..12)
        .map(|i| ranked(&format!("m{i}"), &"记".repeat(800), 0.5))
        .collect();
    let body = render_retrieval(&items, &voice());
    let json = serde_json::to_string(&body).unwrap();
    assert!(json.len() <= MAX_BODY_BYTES, "{}", json.len());
    let kept = body.memories.len();
    assert!((9..12).contains(&kept), "{kept}");
    // Dropping was necessary: one more item would not have fitted.
    let one_more =
        serde_json::to_string(&render_retrieval(&items[kept..kept + 1], &voice())).unwrap();
    assert!(json.len() + one_more.len() - r#"{"memories":[]}"#.len() + 1 > MAX_BODY_BYTES);
    // Kept items are the best-ranked ones, in order.
    let ids: Vec<_> = body.memories.iter().map(|m| m.id.clone()).collect();
    let expected: Vec<_> = (0..ids.len()).map(|i| format!("m{i}")).collect();
    assert_eq!(ids, expected);
    serde_json::from_str::<serde_json::Value>(&json).unwrap();
    let search = render_search(&items, None);
    assert!(serde_json::to_string(&search).unwrap().len() <= MAX_BODY_BYTES);
    assert_eq!(search.memories[0].score, 7.5);
}

/// Issue 18, item 10: a bidi override in a stored summary was served to the character as is.
#[test]
fn bidi_overrides_and_controls_never_reach_the_character() {
    let stored = "User\u{202E}eman ym si\u{202C} Alex\u{2067}!\u{2069}\u{0}\u{1b}[31m\nnext\tline \u{200F}ok";
    let body = render_retrieval(&[ranked("pkg:Na\u{202E}me", stored, 0.9)], &voice());
    let m = &body.memories[0];
    assert_eq!(m.summary, "Usereman ym si Alex![31m\nnext\tline \u{200F}ok");
    assert_eq!(m.id, "pkg:Name");
    // The admin search shows the text as stored.
    assert_eq!(
        render_search(&[ranked("x", stored, 0.9)], None).memories[0].summary,
        stored
    );
}
