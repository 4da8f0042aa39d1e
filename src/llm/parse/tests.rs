use super::*;
use crate::memory::conflict::Verdict;

fn known() -> Vec<String> {
    vec!["entity_001".to_string()]
}

const GOOD: &str = r#"{
  "entity_ops": [{"op": "add", "name": "Anna", "title": ["sister"]}, {"op": "update", "id": "entity_001", "remark": "moved to Berlin"}],
  "pkg_updates": [{"key": "Nickname", "value": ["Annie"]}, {"key": "Hobbies", "value": "hiking, chess"}],
  "memories": [{"summary": "The user is allergic to peanuts", "type": "constraint", "keywords": ["peanuts"], "importance": 0.85, "confidence": 0.9, "event_time": null},
               {"summary": "The user has a dentist appointment", "type": "PROJECT", "event_time": "2026-05-08"}]
}"#;

#[test]
fn a_good_document_parses_with_defaults_for_missing_numbers() {
    let x = parse_extraction(GOOD, &known()).unwrap();
    assert_eq!(x.entity_ops.len(), 2);
    assert_eq!(x.entity_ops[1].id.as_deref(), Some("entity_001"));
    assert_eq!(
        x.pkg_updates[1].value,
        Value::String("hiking, chess".into())
    );
    assert_eq!(x.memories[0].memory_type, MemoryType::Constraint);
    assert_eq!(x.memories[1].memory_type, MemoryType::Project);
    assert_eq!(x.memories[1].importance, DEFAULT_IMPORTANCE);
    assert_eq!(
        x.memories[1].event_time.unwrap().date_string(),
        "2026-05-08"
    );
}

#[test]
fn fences_and_prose_around_the_object_are_fine() {
    let fenced =
        format!("Sure! Here is the JSON:\n```json\n{GOOD}\n```\nLet me know if you need more.");
    assert_eq!(
        parse_extraction(&fenced, &known()).unwrap(),
        parse_extraction(GOOD, &known()).unwrap()
    );
    let prose = format!("The result is {GOOD} -- hope this helps {{not json}}");
    assert!(parse_extraction(&prose, &known()).is_ok());
    // Braces inside strings do not end the object.
    let tricky = r#"{"memories": [{"summary": "The user writes } and { a lot", "type": "other"}]}"#;
    assert_eq!(
        parse_extraction(tricky, &[]).unwrap().memories[0].summary,
        "The user writes } and { a lot"
    );
}

fn err(doc: &str) -> String {
    parse_extraction(doc, &known()).expect_err(doc)
}

#[test]
fn garbage_is_an_error_not_a_panic() {
    assert!(err("I could not find anything.").contains("no JSON object"));
    assert!(err("{\"memories\": [").contains("unterminated"));
    assert!(err("{\"memories\": [1,]}").contains("not valid JSON"));
    assert!(err("").contains("no JSON object"));
    assert!(err("```json\n[1, 2]\n```").contains("no JSON object"));
}

#[test]
fn wrong_types_are_rejected() {
    assert!(err(r#"{"memories": "none"}"#).contains("not an array"));
    assert!(err(r#"{"memories": [{"summary": 3, "type": "other"}]}"#).contains("memories[0]"));
    assert!(
        err(r#"{"memories": [{"summary": "x", "type": "other", "importance": "high"}]}"#)
            .contains("not a number")
    );
    assert!(
        err(r#"{"pkg_updates": [{"key": "Hobbies", "value": {"a": 1}}]}"#)
            .contains("not a string or an array")
    );
    assert!(
        err(r#"{"pkg_updates": [{"key": "Hobbies", "value": [1, 2]}]}"#).contains("not a string")
    );
    assert!(
        err(r#"{"entity_ops": [{"op": "add", "name": "Anna", "title": "sister"}]}"#)
            .contains("not an array")
    );
}

#[test]
fn out_of_range_numbers_are_rejected_not_clamped() {
    assert!(
        err(r#"{"memories": [{"summary": "x", "type": "other", "importance": 7}]}"#)
            .contains("outside 0..1")
    );
    assert!(
        err(r#"{"memories": [{"summary": "x", "type": "other", "confidence": -0.1}]}"#)
            .contains("outside 0..1")
    );
}

#[test]
fn unknown_types_ops_and_entity_ids_are_rejected() {
    assert!(
        err(r#"{"memories": [{"summary": "x", "type": "fact"}]}"#).contains("unknown memory type")
    );
    assert!(err(r#"{"entity_ops": [{"op": "merge", "name": "A"}]}"#).contains("unknown op"));
    assert!(
        err(r#"{"entity_ops": [{"op": "delete", "id": "entity_099"}]}"#)
            .contains("unknown entity id")
    );
    assert!(
        err(r#"{"entity_ops": [{"op": "add", "id": "entity_002", "name": "A"}]}"#)
            .contains("ids are ours")
    );
    assert!(err(r#"{"entity_ops": [{"op": "update"}]}"#).contains("names no entity"));
    assert!(
        err(r#"{"memories": [{"summary": "x", "type": "other", "event_time": "soon"}]}"#)
            .contains("not a date")
    );
}

#[test]
fn oversized_output_is_rejected() {
    let huge = format!(
        "{{\"memories\": [], \"pad\": \"{}\"}}",
        "x".repeat(MAX_RESPONSE_BYTES)
    );
    assert!(err(&huge).contains("cap"));
    let many: Vec<String> = (0..MAX_ITEMS + 1)
        .map(|i| format!("{{\"summary\": \"m{i}\", \"type\": \"other\"}}"))
        .collect();
    assert!(err(&format!("{{\"memories\": [{}]}}", many.join(","))).contains("over the cap"));
    let long = format!(
        "{{\"memories\": [{{\"summary\": \"{}\", \"type\": \"other\"}}]}}",
        "y".repeat(MAX_SUMMARY_CHARS + 1)
    );
    assert!(err(&long).contains("over 500 characters"));
}

#[test]
fn diary_text_is_bounded_at_a_sentence_end() {
    assert_eq!(
        parse_diary(r#"{"diary": " Went hiking. "}"#, 100).unwrap(),
        "Went hiking."
    );
    let cut = parse_diary(
        r#"{"diary": "First sentence here. Second one is longer than the bound allows."}"#,
        40,
    )
    .unwrap();
    assert_eq!(cut, "First sentence here.");
    assert!(parse_diary(r#"{"diary": ""}"#, 10).is_err());
    assert!(parse_diary(r#"{"text": "x"}"#, 10)
        .unwrap_err()
        .contains("no `diary`"));
    assert!(parse_prior(r#"{"prior": ["a"]}"#, 10)
        .unwrap_err()
        .contains("not a string"));
}

#[test]
fn verdicts_parse_from_json_or_a_bare_word() {
    assert_eq!(
        parse_verdict(r#"{"verdict": "SUPERSEDES"}"#),
        Ok(Verdict::Supersedes)
    );
    assert_eq!(
        parse_verdict("```json\n{\"verdict\": \"duplicate\"}\n```"),
        Ok(Verdict::Duplicate)
    );
    assert_eq!(parse_verdict("DISTINCT."), Ok(Verdict::Distinct));
    assert!(parse_verdict(r#"{"verdict": "MAYBE"}"#).is_err());
    assert!(parse_verdict(
        "I think they are probably the same fact, but it is hard to say for sure."
    )
    .is_err());
}
