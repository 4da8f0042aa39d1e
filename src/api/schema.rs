//! How a derived wire type's field refers to a shape the contract does not derive yet
//! (feature `contract`; `crate::contract` generates the files): `#[schemars(schema_with =
//! "crate::api::schema::…")]` on the field.

use schemars::generate::SchemaGenerator;
use schemars::{json_schema, JsonSchema, Schema};
use serde_json::Value;

/// A `$ref` to a shape still written by hand (for a derived shape's field).
fn handwritten(name: &str) -> Schema {
    json_schema!({ "$ref": format!("#/components/schemas/{name}") })
}

pub(crate) fn entity_ops(_: &mut SchemaGenerator) -> Schema {
    json_schema!({ "type": "array", "items": handwritten("EntityOp") })
}

pub(crate) fn pkg_updates(_: &mut SchemaGenerator) -> Schema {
    json_schema!({ "type": "array", "items": handwritten("PkgUpdate") })
}

pub(crate) fn memory_type(_: &mut SchemaGenerator) -> Schema {
    handwritten("MemoryType")
}

/// A `sensitive_category` field: the category names inline as a string enum (what clients
/// and tests read from the field itself), taken from the Rust enum's schema.
pub(crate) fn sensitive_category(g: &mut SchemaGenerator) -> Schema {
    let schema = <crate::sensitive::Category as JsonSchema>::json_schema(g);
    let names: Vec<Value> = schema
        .get("oneOf")
        .and_then(Value::as_array)
        .map(|variants| {
            variants
                .iter()
                .filter_map(|v| v.get("const").cloned())
                .collect()
        })
        .unwrap_or_default();
    json_schema!({ "type": "string", "enum": names })
}
