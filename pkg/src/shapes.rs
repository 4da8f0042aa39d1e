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

/// The first key of `value` that the component schema `shape` does not allow.
pub fn unknown_key(shape: &str, value: &Value) -> Option<UnknownKey> {
    walk(schemas().get(shape)?, value, "", 0)
}

fn walk(schema: &Value, value: &Value, path: &str, depth: usize) -> Option<UnknownKey> {
    if depth > 16 {
        return None;
    }
    let depth = depth.saturating_add(1);
    if let Some(name) = schema.get("$ref").and_then(Value::as_str) {
        let target = schemas().get(name.rsplit('/').next()?)?;
        return walk(target, value, path, depth);
    }
    if let Some(variants) = schema
        .get("oneOf")
        .or(schema.get("anyOf"))
        .and_then(Value::as_array)
    {
        // A value is checked against the variants of its own JSON type; fine if one accepts it.
        let mut found = None;
        for variant in variants.iter().filter(|v| same_kind(v, value)) {
            match walk(variant, value, path, depth) {
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
    match value {
        Value::Object(object) => {
            let properties = schema.get("properties").and_then(Value::as_object);
            // `additionalProperties` as a schema (or `true`) is a map: any key, checked values.
            let extra = schema
                .get("additionalProperties")
                .filter(|a| a.is_object() || a.as_bool() == Some(true));
            for (key, item) in object {
                let field = match (properties.and_then(|p| p.get(key)), extra, properties) {
                    (Some(field), _, _) => field,
                    (None, Some(extra), _) => extra,
                    // An object described without properties: nothing to check against.
                    (None, None, None) => continue,
                    (None, None, Some(properties)) => {
                        let snake = snake_case(key);
                        return Some(UnknownKey {
                            path: at(key),
                            known_as: (snake != *key && properties.contains_key(&snake))
                                .then_some(snake),
                        });
                    }
                };
                if let Some(unknown) = walk(field, item, &at(key), depth) {
                    return Some(unknown);
                }
            }
            None
        }
        Value::Array(items) => {
            let schema = schema.get("items")?;
            items
                .iter()
                .enumerate()
                .find_map(|(i, item)| walk(schema, item, &at(&i.to_string()), depth))
        }
        _ => None,
    }
}

fn same_kind(schema: &Value, value: &Value) -> bool {
    let object = schema.get("$ref").is_some()
        || schema.get("properties").is_some()
        || schema.get("type").and_then(Value::as_str) == Some("object");
    match value {
        Value::Object(_) => object,
        Value::Array(_) => schema.get("type").and_then(Value::as_str) == Some("array"),
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
        let value: Value = serde_json::from_str(
            r#"{"session_id": "s", "turns": [{"role": "user", "content": "hi", "speaker": "x"}]}"#,
        )
        .unwrap();
        assert_eq!(
            unknown_key("ConversationAppend", &value),
            Some(UnknownKey {
                path: "turns.0.speaker".into(),
                known_as: None
            })
        );
        let value: Value =
            serde_json::from_str(r#"{"pkg": {"anyName": "v"}, "voiceRegistered": true}"#).unwrap();
        assert_eq!(
            unknown_key("NpcUpsert", &value),
            Some(UnknownKey {
                path: "voiceRegistered".into(),
                known_as: Some("voice_registered".into())
            })
        );
    }
}
