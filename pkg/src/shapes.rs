//! Which keys each request may have, from the HTTP API's own description of its bodies: the
//! OpenAPI component schemas the Worker serves at `/openapi.json`. The package refuses a key
//! the schema does not have instead of letting serde drop it silently. One walk over the
//! schema for every request type (no code per type: the npm wasm has a size budget); a native
//! test (`tests` below) keeps each schema's properties equal to its Rust type's fields, and
//! tests/npm checks that the entry points hand the schemas over.

use serde_json::{Map, Value};
use std::sync::OnceLock;
use wasm_bindgen::prelude::*;

/// The component schemas, handed over by the entry points from `dist/*/shapes.js` (the file
/// the build writes from the Worker's `openapi_components.json`): as wasm data they would
/// cost 3 KB of the npm wasm's gzip budget. Until they are set nothing is checked.
static SCHEMAS: OnceLock<Map<String, Value>> = OnceLock::new();

#[wasm_bindgen(js_name = setRequestShapes)]
pub fn set_request_shapes(json: &str) {
    if let Ok(schemas) = hippo::json::parse(json) {
        let _ = SCHEMAS.set(schemas);
    }
}

fn schemas() -> &'static Map<String, Value> {
    #[cfg(test)]
    set_request_shapes(include_str!(
        "../../worker/src/http/openapi_components.json"
    ));
    static NONE: OnceLock<Map<String, Value>> = OnceLock::new();
    SCHEMAS.get().unwrap_or_else(|| NONE.get_or_init(Map::new))
}

/// A key a request may not have: where (`memories.0.metadata`), and the field it stands for
/// when its snake_case spelling is one.
#[derive(Debug, PartialEq)]
pub struct UnknownKey {
    pub path: String,
    pub known_as: Option<String>,
}

/// The first key of the JSON text `json` that the component schema `shape` does not allow.
/// Read from the text itself, not from a `serde_json::Value` of it: a document of 100k
/// memories as a `Value` took the wasm's memory (which never shrinks) to ~6× the text's size.
/// Text that is not JSON has no unknown key here (the typed parse then says what is wrong).
pub fn unknown_key(shape: &str, json: &str) -> Option<UnknownKey> {
    let text = Text(json.as_bytes());
    walk(schemas().get(shape)?, &text, text.skip_ws(0), "", 0)
}

/// JSON text, read in place: the positions where values start and end.
struct Text<'a>(&'a [u8]);

impl Text<'_> {
    fn at(&self, i: usize) -> Option<u8> {
        self.0.get(i).copied()
    }

    fn skip_ws(&self, mut i: usize) -> usize {
        while matches!(self.at(i), Some(b' ' | b'\n' | b'\r' | b'\t')) {
            i += 1;
        }
        i
    }

    /// Just past the string whose opening quote is at `i`.
    fn string_end(&self, mut i: usize) -> usize {
        i += 1;
        while let Some(b) = self.at(i) {
            match b {
                b'\\' => i += 2,
                b'"' => return i + 1,
                _ => i += 1,
            }
        }
        i
    }

    /// Just past the value that starts at `i`.
    fn value_end(&self, i: usize) -> usize {
        match self.at(i) {
            Some(b'"') => self.string_end(i),
            Some(b'{' | b'[') => {
                let (mut depth, mut j) = (0usize, i);
                while let Some(b) = self.at(j) {
                    match b {
                        b'"' => {
                            j = self.string_end(j);
                            continue;
                        }
                        b'{' | b'[' => depth += 1,
                        b'}' | b']' => {
                            depth = depth.saturating_sub(1);
                            if depth == 0 {
                                return j + 1;
                            }
                        }
                        _ => {}
                    }
                    j += 1;
                }
                j
            }
            _ => {
                let mut j = i;
                while self.at(j).is_some_and(|b| {
                    !matches!(b, b',' | b'}' | b']' | b' ' | b'\n' | b'\r' | b'\t')
                }) {
                    j += 1;
                }
                j
            }
        }
    }

    /// Past the value at `i` and the comma after it: where the next item starts.
    fn next_item(&self, i: usize) -> usize {
        let j = self.skip_ws(self.value_end(i));
        match self.at(j) {
            Some(b',') => self.skip_ws(j + 1),
            _ => j,
        }
    }

    /// The key whose string spans `from..to` (quotes included), escapes decoded.
    fn key(&self, from: usize, to: usize) -> String {
        let raw = self.0.get(from..to).unwrap_or_default();
        match raw.contains(&b'\\') {
            true => {
                hippo::json::parse(std::str::from_utf8(raw).unwrap_or_default()).unwrap_or_default()
            }
            false => {
                String::from_utf8_lossy(raw.get(1..raw.len().saturating_sub(1)).unwrap_or_default())
                    .into_owned()
            }
        }
    }
}

fn walk(schema: &Value, text: &Text, i: usize, path: &str, depth: usize) -> Option<UnknownKey> {
    if depth > 16 {
        return None;
    }
    let depth = depth.saturating_add(1);
    if let Some(name) = schema.get("$ref").and_then(Value::as_str) {
        let target = schemas().get(name.rsplit('/').next()?)?;
        return walk(target, text, i, path, depth);
    }
    if let Some(variants) = schema
        .get("oneOf")
        .or(schema.get("anyOf"))
        .and_then(Value::as_array)
    {
        // A value is checked against the variants of its own JSON type; fine if one accepts it.
        let mut found = None;
        for variant in variants.iter().filter(|v| same_kind(v, text.at(i))) {
            match walk(variant, text, i, path, depth) {
                None => return None,
                Some(unknown) => found = found.or(Some(unknown)),
            }
        }
        return found;
    }
    let at = |key: &str| {
        if path.is_empty() {
            key.to_string()
        } else {
            format!("{path}.{key}")
        }
    };
    match text.at(i) {
        Some(b'{') => {
            let properties = schema.get("properties").and_then(Value::as_object);
            // `additionalProperties` as a schema (or `true`) is a map: any key, checked values.
            let extra = schema
                .get("additionalProperties")
                .filter(|a| a.is_object() || a.as_bool() == Some(true));
            let mut member = text.skip_ws(i + 1);
            while text.at(member) == Some(b'"') {
                let key_end = text.string_end(member);
                let key = text.key(member, key_end);
                // Past the colon: where the value starts.
                let value = text.skip_ws(text.skip_ws(key_end) + 1);
                let field = match (properties.and_then(|p| p.get(&key)), extra, properties) {
                    (Some(field), _, _) => Some(field),
                    (None, Some(extra), _) => Some(extra),
                    // An object described without properties: nothing to check against.
                    (None, None, None) => None,
                    (None, None, Some(properties)) => {
                        let snake = snake_case(&key);
                        return Some(UnknownKey {
                            path: at(&key),
                            known_as: (snake != key && properties.contains_key(&snake))
                                .then_some(snake),
                        });
                    }
                };
                if let Some(unknown) = field.and_then(|f| walk(f, text, value, &at(&key), depth)) {
                    return Some(unknown);
                }
                member = text.next_item(value);
            }
            None
        }
        Some(b'[') => {
            let schema = schema.get("items")?;
            let (mut item, mut n) = (text.skip_ws(i + 1), 0usize);
            while !matches!(text.at(item), None | Some(b']')) {
                if let Some(unknown) = walk(schema, text, item, &at(&n.to_string()), depth) {
                    return Some(unknown);
                }
                item = text.next_item(item);
                n += 1;
            }
            None
        }
        _ => None,
    }
}

/// Whether `schema` describes values of the JSON type that starts with byte `first`.
fn same_kind(schema: &Value, first: Option<u8>) -> bool {
    let object = schema.get("$ref").is_some()
        || schema.get("properties").is_some()
        || schema.get("type").and_then(Value::as_str) == Some("object");
    match first {
        Some(b'{') => object,
        Some(b'[') => schema.get("type").and_then(Value::as_str) == Some("array"),
        _ => false,
    }
}

/// `maxResults` → `max_results`; a snake_case key is returned as it is.
pub fn snake_case(key: &str) -> String {
    let mut out = String::with_capacity(key.len().saturating_add(4));
    for c in key.chars() {
        if c.is_ascii_uppercase() {
            if !out.is_empty() {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    //! The schemas the check relies on name exactly the fields of the Rust request types
    //! (both ways): a field added on one side only fails here.
    use super::*;
    use serde::de::{self, Deserialize, Visitor};

    /// A deserializer that only records the field names a struct asks for.
    struct FieldNames<'a>(&'a mut Vec<&'static str>);

    #[derive(Debug)]
    struct Stop;
    impl std::fmt::Display for Stop {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("stop")
        }
    }
    impl std::error::Error for Stop {}
    impl de::Error for Stop {
        fn custom<T: std::fmt::Display>(_: T) -> Self {
            Stop
        }
    }

    impl<'de> de::Deserializer<'de> for FieldNames<'_> {
        type Error = Stop;
        fn deserialize_struct<V: Visitor<'de>>(
            self,
            _: &'static str,
            fields: &'static [&'static str],
            _: V,
        ) -> Result<V::Value, Stop> {
            self.0.extend_from_slice(fields);
            Err(Stop)
        }
        fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Stop> {
            Err(Stop)
        }
        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
            option unit unit_struct newtype_struct seq tuple tuple_struct map enum identifier
            ignored_any
        }
    }

    fn fields<'de, T: Deserialize<'de>>() -> Vec<String> {
        let mut names = Vec::new();
        let _ = T::deserialize(FieldNames(&mut names));
        let mut names: Vec<String> = names.into_iter().map(String::from).collect();
        names.sort();
        names
    }

    fn properties(shape: &str) -> Vec<String> {
        let schema = schemas()
            .get(shape)
            .unwrap_or_else(|| panic!("no schema {shape}"));
        let mut names: Vec<String> = schema["properties"]
            .as_object()
            .unwrap_or_else(|| panic!("{shape} has no properties"))
            .keys()
            .cloned()
            .collect();
        names.sort();
        names
    }

    #[test]
    fn every_request_schema_names_exactly_its_rust_fields() {
        use hippo::api::*;
        let pairs: Vec<(&str, Vec<String>)> = vec![
            ("NpcUpsert", fields::<NpcUpsert>()),
            ("NpcSettings", fields::<hippo::npc::NpcSettings>()),
            ("PkgUpdateRequest", fields::<PkgUpdateRequest>()),
            ("PkgUpdate", fields::<hippo::pkg::PkgUpdate>()),
            ("EntityOpsRequest", fields::<EntityOpsRequest>()),
            ("EntityOp", fields::<hippo::relationship::EntityOp>()),
            ("ConversationAppend", fields::<ConversationAppend>()),
            ("TurnInput", fields::<TurnInput>()),
            ("AddMemoriesRequest", fields::<AddMemoriesRequest>()),
            ("MemoryInput", fields::<hippo::memory::MemoryInput>()),
            ("MemoryPatch", fields::<hippo::memory::MemoryPatch>()),
            ("SearchRequest", fields::<SearchRequest>()),
            ("RetrievalRequest", fields::<RetrievalRequest>()),
            ("NpcExport", fields::<NpcExport>()),
            // What an export carries, read back by importNpc.
            ("Memory", fields::<hippo::memory::Memory>()),
            ("Turn", fields::<hippo::conversation::Turn>()),
            ("Entity", fields::<hippo::relationship::Entity>()),
            ("DiaryEntry", fields::<hippo::diary::DiaryEntry>()),
        ];
        for (shape, rust) in pairs {
            assert!(!rust.is_empty(), "{shape}: no fields recorded");
            assert_eq!(
                properties(shape),
                rust,
                "{shape}: OpenAPI properties vs Rust fields"
            );
        }
    }

    #[test]
    fn unknown_keys_are_found_at_any_depth_and_maps_take_any_key() {
        let value =
            r#"{"session_id": "s", "turns": [{"role": "user", "content": "hi", "speaker": "x"}]}"#;
        assert_eq!(
            unknown_key("ConversationAppend", value),
            Some(UnknownKey {
                path: "turns.0.speaker".into(),
                known_as: None
            })
        );
        let value = r#"{"pkg": {"anyName": "v"}, "voiceRegistered": true}"#;
        assert_eq!(
            unknown_key("NpcUpsert", value),
            Some(UnknownKey {
                path: "voiceRegistered".into(),
                known_as: Some("voice_registered".into())
            })
        );
    }

    #[test]
    fn the_text_walk_reads_strings_escapes_and_spacing_as_json_does() {
        // Braces, brackets, commas and escaped quotes inside strings are text, not structure;
        // an escaped key is compared decoded; any JSON spacing is read.
        let value = "{ \"session_id\" : \"a }],\\\"{\" ,\n\t\"turns\":[ {\"role\":\"user\",\
                     \"content\":\"[{\\\"x\\\": 1}]\"} ,{\"role\":\"user\", \"content\":\"b\",\
                     \"\\u0073peaker\":\"x\"} ] }";
        assert!(
            serde_json::from_str::<Value>(value).is_ok(),
            "the test text is JSON"
        );
        assert_eq!(
            unknown_key("ConversationAppend", value).map(|u| u.path),
            Some("turns.1.speaker".to_string())
        );
        // Numbers, literals, maps of any keys and empty containers are read through.
        let value = r#"{"pkg": {"any": "v", "deep key": "[{"}, "voice_registered": true,
            "settings": {"diary_window": 7, "content_ttl_days": null}, "face_registered": false,
            "x_unused": []}"#;
        assert_eq!(
            unknown_key("NpcUpsert", value).map(|u| u.path),
            Some("x_unused".to_string())
        );
        let value = r#"{"memories": [{"summary": "s", "importance": 5e-1, "keywords": [],
            "pinned": true, "event_time": null}, {"summary": "t", "sensitve": true}]}"#;
        assert_eq!(
            unknown_key("AddMemoriesRequest", value).map(|u| u.path),
            Some("memories.1.sensitve".to_string())
        );
        // Not JSON: nothing found here, and nothing read past the end.
        for broken in [
            "",
            "{",
            "{\"memories\": [",
            "[{\"a\"",
            "\"\\",
            "{\"memories\":[{\"summary\":\"s",
        ] {
            assert_eq!(
                unknown_key("AddMemoriesRequest", broken),
                None,
                "{broken:?}"
            );
        }
    }
}
