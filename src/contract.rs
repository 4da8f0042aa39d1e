//! The wire contract, derived from the Rust types (feature `contract`, never in a production
//! build): the JSON Schemas of the wire types for the Worker's OpenAPI document
//! (`worker/src/http/openapi_components.json`) and the TypeScript declarations of the same
//! shapes in the npm package (a marked block of `pkg/index.d.ts`). `make contract` writes both
//! files; `make contract-check` (part of `make test`) fails when a checked-in copy differs.
//!
//! Shapes not derived yet are written by hand in `worker/src/http/openapi_handwritten.json`
//! and outside the marked block of `index.d.ts`; the generator merges the first into the
//! components file and refuses a name that is both derived and hand-written.

use crate::api;
use schemars::generate::{Contract, SchemaGenerator, SchemaSettings};
use schemars::JsonSchema;
use serde_json::{Map, Value};
use std::fmt::Write as _;

/// The components file the Worker serves; the hand-written schemas it merges; the package's
/// declarations.
pub const COMPONENTS_PATH: &str = "worker/src/http/openapi_components.json";
pub const HANDWRITTEN_PATH: &str = "worker/src/http/openapi_handwritten.json";
pub const DECLARATIONS_PATH: &str = "pkg/index.d.ts";

const TS_BEGIN: &str =
    "// ---- Generated from the Rust wire types by `make contract` (src/contract.rs); do not edit ----";
const TS_END: &str = "// ---- End of the generated types ----";

/// TypeScript names that differ from the Rust (and OpenAPI) ones.
const TS_RENAMES: &[(&str, &str)] = &[("Ok", "StatusOk")];

/// The generator both outputs use: JSON Schema 2020-12 (the dialect of OpenAPI 3.1, which the
/// Worker serves), definitions under `#/components/schemas/`, and the shapes as serialized
/// (responses: a field skipped when empty is optional).
fn generator() -> SchemaGenerator {
    SchemaSettings::draft2020_12()
        .with(|s| {
            s.definitions_path = "/components/schemas".into();
            s.meta_schema = None;
            s.contract = Contract::Serialize;
        })
        .into_generator()
}

fn add<T: JsonSchema>(generator: &mut SchemaGenerator) {
    generator.subschema_for::<T>();
}

/// The generator with the shapes HTTP and npm share.
fn shared_shapes() -> SchemaGenerator {
    let mut g = generator();
    add::<api::Ok>(&mut g);
    add::<crate::sensitive::Category>(&mut g);
    add::<api::PkgUpdateResponse>(&mut g);
    add::<api::EntityOpsResponse>(&mut g);
    add::<api::ConversationAppendResponse>(&mut g);
    add::<api::AddMemoriesResponse>(&mut g);
    add::<api::DreamReport>(&mut g);
    add::<api::SearchResponse>(&mut g);
    add::<api::RetrievalResponse>(&mut g);
    g
}

/// The derived schemas of the HTTP API's shapes, by component name.
pub fn openapi_schemas() -> Map<String, Value> {
    let mut g = shared_shapes();
    add::<api::ApiError>(&mut g);
    add::<api::RetrievalError>(&mut g);
    add::<api::DreamResponse>(&mut g);
    add::<api::RebuildResponse>(&mut g);
    add::<api::ReembedResponse>(&mut g);
    add::<api::Forgot>(&mut g);
    tidy(g.take_definitions(true))
}

/// The derived schemas of the npm package's shapes (where npm answers differently from HTTP,
/// its own type: `reembed()` walks every page and answers a [`api::ReembedReport`]).
fn npm_schemas() -> Map<String, Value> {
    let mut g = shared_shapes();
    add::<api::ReembedReport>(&mut g);
    tidy(g.take_definitions(true))
}

/// A property that is not required is one serde skips (`skip_serializing_if`), so it is never
/// `null` on the wire: its schema says so instead of schemars' nullable `Option`. schemars'
/// integer formats (`uint`, `uint64`…) are not OpenAPI's, and `minimum: 0` already says it.
fn tidy(definitions: Map<String, Value>) -> Map<String, Value> {
    definitions
        .into_iter()
        .map(|(name, mut schema)| {
            drop_null_of_optional(&mut schema);
            drop_integer_formats(&mut schema);
            (name, schema)
        })
        .collect()
}

fn drop_integer_formats(schema: &mut Value) {
    match schema {
        Value::Object(map) => {
            if map.get("type").and_then(Value::as_str) == Some("integer") {
                map.remove("format");
            }
            map.values_mut().for_each(drop_integer_formats);
        }
        Value::Array(items) => items.iter_mut().for_each(drop_integer_formats),
        _ => {}
    }
}

fn drop_null_of_optional(schema: &mut Value) {
    let required: Vec<String> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| {
            r.iter()
                .filter_map(Value::as_str)
                .map(String::from)
                .collect()
        })
        .unwrap_or_default();
    if let Some(Value::Object(properties)) = schema.get_mut("properties") {
        for (name, property) in properties.iter_mut() {
            if !required.contains(name) {
                drop_null(property);
            }
        }
    }
}

fn drop_null(schema: &mut Value) {
    let Value::Object(map) = schema else { return };
    if let Some(Value::Array(types)) = map.get_mut("type") {
        types.retain(|t| t != "null");
        if let [only] = types.as_slice() {
            let only = only.clone();
            map.insert("type".into(), only);
        }
    }
    if let Some(Value::Array(alternatives)) = map.get_mut("anyOf") {
        alternatives.retain(|a| a.get("type").and_then(Value::as_str) != Some("null"));
        if let [only] = alternatives.as_slice() {
            let only = only.clone();
            map.remove("anyOf");
            if let Value::Object(only) = only {
                map.extend(only);
            }
        }
    }
}

/// `openapi_components.json`: the hand-written schemas and the derived ones, as one document.
pub fn components(handwritten: &str) -> Result<String, String> {
    let Value::Object(mut all) = serde_json::from_str(handwritten)
        .map_err(|e| format!("{HANDWRITTEN_PATH} is not JSON: {e}"))?
    else {
        return Err(format!("{HANDWRITTEN_PATH} is not a JSON object"));
    };
    for (name, schema) in openapi_schemas() {
        if all.contains_key(&name) {
            return Err(format!(
                "{name} is derived from the Rust types: remove it from {HANDWRITTEN_PATH}"
            ));
        }
        all.insert(name, schema);
    }
    let mut references = Vec::new();
    collect_references(&Value::Object(all.clone()), &mut references);
    if let Some(missing) = references.iter().find(|name| !all.contains_key(*name)) {
        return Err(format!(
            "a schema refers to {missing}, which is neither derived nor in {HANDWRITTEN_PATH}"
        ));
    }
    // One space of indent, as the file was written before it was generated.
    let mut text = Vec::new();
    let formatter = serde_json::ser::PrettyFormatter::with_indent(b" ");
    let mut serializer = serde_json::Serializer::with_formatter(&mut text, formatter);
    serde::Serialize::serialize(&Value::Object(all), &mut serializer).map_err(|e| e.to_string())?;
    text.push(b'\n');
    String::from_utf8(text).map_err(|e| e.to_string())
}

fn collect_references(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            if let Some(name) = map
                .get("$ref")
                .and_then(Value::as_str)
                .and_then(|r| r.strip_prefix("#/components/schemas/"))
            {
                out.push(name.to_string());
            }
            map.values().for_each(|v| collect_references(v, out));
        }
        Value::Array(items) => items.iter().for_each(|v| collect_references(v, out)),
        _ => {}
    }
}

/// `index.d.ts` with its generated block replaced by the declarations of the npm shapes.
pub fn declarations(current: &str) -> Result<String, String> {
    let begin = current
        .find(TS_BEGIN)
        .ok_or_else(|| format!("{DECLARATIONS_PATH} lacks the line {TS_BEGIN}"))?;
    let end = current
        .find(TS_END)
        .filter(|end| *end > begin)
        .ok_or_else(|| format!("{DECLARATIONS_PATH} lacks the line {TS_END} after the first"))?;
    let mut block = String::from(TS_BEGIN);
    block.push('\n');
    for (name, schema) in npm_schemas() {
        block.push('\n');
        block.push_str(&declaration(ts_name(&name), &schema)?);
    }
    block.push('\n');
    Ok(format!("{}{block}{}", &current[..begin], &current[end..]))
}

fn ts_name(name: &str) -> &str {
    TS_RENAMES
        .iter()
        .find(|(rust, _)| *rust == name)
        .map_or(name, |(_, ts)| ts)
}

fn doc_comment(out: &mut String, indent: &str, description: Option<&Value>) {
    let Some(text) = description.and_then(Value::as_str) else {
        return;
    };
    let lines: Vec<&str> = text.lines().collect();
    if let [line] = lines.as_slice() {
        let _ = writeln!(out, "{indent}/** {line} */");
        return;
    }
    let _ = writeln!(out, "{indent}/**");
    for line in lines {
        let _ = writeln!(out, "{indent} * {line}");
    }
    let _ = writeln!(out, "{indent} */");
}

/// `export interface` for an object, `export type` for anything else.
fn declaration(name: &str, schema: &Value) -> Result<String, String> {
    let mut out = String::new();
    doc_comment(&mut out, "", schema.get("description"));
    if schema.get("properties").is_some() {
        let _ = writeln!(out, "export interface {name} {}", object(schema, "")?);
    } else {
        let alternatives = ts_type(schema)?;
        // A long union reads better one alternative a line.
        if alternatives.len() > 80 && !alternatives.contains(['{', '(']) {
            let _ = write!(out, "export type {name} =");
            for alternative in alternatives.split(" | ") {
                let _ = write!(out, "\n  | {alternative}");
            }
            out.push_str(";\n");
        } else {
            let _ = writeln!(out, "export type {name} = {alternatives};");
        }
    }
    Ok(out)
}

fn object(schema: &Value, indent: &str) -> Result<String, String> {
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut out = String::from("{\n");
    let inner = format!("{indent}  ");
    if let Some(Value::Object(properties)) = schema.get("properties") {
        for (name, property) in properties {
            doc_comment(&mut out, &inner, property.get("description"));
            let optional = if required.contains(&name.as_str()) {
                ""
            } else {
                "?"
            };
            let _ = writeln!(out, "{inner}{name}{optional}: {};", ts_type(property)?);
        }
    }
    out.push_str(indent);
    out.push('}');
    Ok(out)
}

fn literal(value: &Value) -> Result<String, String> {
    match value {
        Value::String(s) if !s.contains(['\'', '\\']) => Ok(format!("'{s}'")),
        Value::Bool(_) | Value::Number(_) | Value::Null => Ok(value.to_string()),
        other => Err(format!("no TypeScript literal for {other}")),
    }
}

fn union(parts: Vec<String>) -> String {
    let mut unique: Vec<String> = Vec::new();
    for part in parts {
        if !unique.contains(&part) {
            unique.push(part);
        }
    }
    unique.join(" | ")
}

/// The TypeScript type of a schema: the subset of JSON Schema schemars writes for the wire
/// types; anything else is an error, so a new construct cannot be dropped silently.
fn ts_type(schema: &Value) -> Result<String, String> {
    if let Some(reference) = schema.get("$ref").and_then(Value::as_str) {
        let name = reference
            .strip_prefix("#/components/schemas/")
            .ok_or_else(|| format!("unexpected $ref {reference}"))?;
        return Ok(ts_name(name).to_string());
    }
    if let Some(value) = schema.get("const") {
        return literal(value);
    }
    if let Some(Value::Array(values)) = schema.get("enum") {
        return Ok(union(values.iter().map(literal).collect::<Result<_, _>>()?));
    }
    for key in ["oneOf", "anyOf"] {
        if let Some(Value::Array(alternatives)) = schema.get(key) {
            return Ok(union(
                alternatives.iter().map(ts_type).collect::<Result<_, _>>()?,
            ));
        }
    }
    match schema.get("type") {
        Some(Value::Array(types)) => Ok(union(
            types
                .iter()
                .map(|t| {
                    let mut one = schema.clone();
                    one["type"] = t.clone();
                    ts_type(&one)
                })
                .collect::<Result<_, _>>()?,
        )),
        Some(Value::String(t)) => match t.as_str() {
            "string" => Ok("string".into()),
            "integer" | "number" => Ok("number".into()),
            "boolean" => Ok("boolean".into()),
            "null" => Ok("null".into()),
            "array" => {
                let items = ts_type(schema.get("items").unwrap_or(&Value::Bool(true)))?;
                Ok(if items.contains(' ') {
                    format!("({items})[]")
                } else {
                    format!("{items}[]")
                })
            }
            "object" if schema.get("properties").is_some() => object(schema, ""),
            "object" => match schema.get("additionalProperties") {
                Some(values @ Value::Object(_)) => {
                    Ok(format!("Record<string, {}>", ts_type(values)?))
                }
                _ => Ok("Record<string, unknown>".into()),
            },
            other => Err(format!("no TypeScript type for JSON type {other}")),
        },
        _ if schema == &Value::Bool(true) => Ok("unknown".into()),
        _ => Err(format!("no TypeScript type for schema {schema}")),
    }
}

/// Where `expected` (what the Rust types give) and `actual` (the checked-in file) first
/// differ: `path:line: …`, or `None` when they are the same.
pub fn first_difference(path: &str, expected: &str, actual: &str) -> Option<String> {
    if expected == actual {
        return None;
    }
    let mut expected_lines = expected.lines();
    let mut actual_lines = actual.lines();
    let mut line = 1;
    loop {
        match (expected_lines.next(), actual_lines.next()) {
            (Some(e), Some(a)) if e == a => line += 1,
            (e, a) => {
                return Some(format!(
                    "{path}:{line}: differs from the Rust types (run `make contract`)\n  \
                     expected: {}\n  found:    {}",
                    e.unwrap_or("<end of file>"),
                    a.unwrap_or("<end of file>")
                ))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_differing_line_is_named() {
        assert_eq!(first_difference("f", "a\nb\n", "a\nb\n"), None);
        let message = first_difference("f", "a\nb\nc\n", "a\nx\nc\n").unwrap();
        assert!(message.starts_with("f:2: "), "{message}");
        assert!(message.contains("expected: b") && message.contains("found:    x"));
        let shorter = first_difference("f", "a\nb\n", "a\n").unwrap();
        assert!(shorter.starts_with("f:2: ") && shorter.contains("<end of file>"));
    }

    #[test]
    fn optional_response_fields_are_never_null_and_status_is_ok() {
        let schemas = openapi_schemas();
        let add = &schemas["AddMemoriesResponse"];
        assert_eq!(add["properties"]["status"]["const"], "ok");
        assert_eq!(add["properties"]["warning"]["type"], "string");
        let reembed = &schemas["ReembedResponse"];
        // `next` is always sent, null on the last page.
        assert_eq!(
            reembed["properties"]["next"]["type"],
            serde_json::json!(["string", "null"])
        );
        assert!(reembed["required"]
            .as_array()
            .unwrap()
            .contains(&"next".into()));
    }

    #[test]
    fn a_reference_to_a_missing_handwritten_shape_is_refused() {
        // DreamReport's entity_ops refer to the hand-written EntityOp.
        let error = components("{}").unwrap_err();
        assert!(error.contains("neither derived nor in"), "{error}");
        let error = components(r#"{"Ok": {}}"#).unwrap_err();
        assert!(
            error.contains("Ok is derived from the Rust types"),
            "{error}"
        );
    }

    #[test]
    fn typescript_of_the_npm_shapes() {
        let current = format!("head\n{TS_BEGIN}\nold\n{TS_END}\ntail\n");
        let text = declarations(&current).unwrap();
        assert!(text.starts_with("head\n") && text.ends_with(&format!("{TS_END}\ntail\n")));
        assert!(!text.contains("\nold\n"));
        assert!(
            text.contains("export interface StatusOk {\n  status: 'ok';\n}"),
            "{text}"
        );
        assert!(text.contains("  warning?: string;\n"), "{text}");
        assert!(
            text.contains("export type SensitiveCategory =\n  | 'credentials'"),
            "{text}"
        );
        assert!(text.contains("export interface ReembedReport {"), "{text}");
        assert!(!text.contains("export interface ReembedResponse"), "{text}");
    }
}
