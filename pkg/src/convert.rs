//! The one place where Rust values become JS values and back, and where core errors become
//! JS `Error`s. Everything crosses as plain JSON-compatible objects (the HTTP API's shapes):
//! maps become plain objects, integers become numbers, never `Map` or `BigInt`.
#![deny(
    clippy::indexing_slicing,
    clippy::string_slice,
    clippy::arithmetic_side_effects
)]

use hippo::error::PortError;
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::cell::RefCell;
use wasm_bindgen::prelude::*;

/// A JS request object → the core's request type, read as the HTTP API reads a body
/// (`JSON.stringify`, then the core's serde types). So `undefined` fields are absent and a
/// `Date` is its RFC 3339 string. No request object (`undefined` or `null`) reads as `{}`, as
/// an empty HTTP body does. `shape` names the request's schema in the HTTP API's OpenAPI
/// components ([`crate::shapes`]): a key it does not have is an `invalid_request` naming it,
/// with its snake_case spelling when that is what was meant (`maxResults` → `max_results`).
pub fn from_js<T: DeserializeOwned>(
    value: JsValue,
    shape: Option<&str>,
) -> Result<T, hippo::Error> {
    from_json(&request_json(value)?, shape)
}

/// A JS request object as the JSON text an HTTP client would send: `JSON.stringify`, and
/// `{}` for no object (`undefined` or `null`).
pub fn request_json(value: JsValue) -> Result<String, hippo::Error> {
    if value.is_undefined() || value.is_null() {
        return Ok("{}".to_string());
    }
    // `JSON.stringify` throws on cycles and BigInt, and gives `undefined` for a function.
    let json = js_sys::JSON::stringify(&value)
        .ok()
        .filter(|json| json.is_string())
        .ok_or_else(|| hippo::Error::invalid("the request is not a JSON value"))?;
    // The text crosses as the host's UTF-8 bytes: a JS string read as a `String` reserves
    // three bytes of wasm memory per UTF-16 unit while it is encoded, and wasm memory never
    // shrinks (an import of 100k memories grew it by ~90 MB for ~30 MB of text).
    let bytes = TextEncoder::new().encode(&json).to_vec();
    // SAFETY: `TextEncoder.encode` always gives UTF-8 (the Encoding Standard: a lone surrogate
    // becomes U+FFFD), so the check `String::from_utf8` would make cannot fail.
    Ok(unsafe { String::from_utf8_unchecked(bytes) })
}

#[wasm_bindgen]
extern "C" {
    /// The host's `TextEncoder` (Node, browsers and Workers all have it).
    type TextEncoder;
    #[wasm_bindgen(constructor)]
    fn new() -> TextEncoder;
    #[wasm_bindgen(method)]
    fn encode(this: &TextEncoder, text: &js_sys::JsString) -> js_sys::Uint8Array;
}

/// [`from_js`] after `JSON.stringify` (native, so it is tested without a JS engine).
pub fn from_json<T: DeserializeOwned>(json: &str, shape: Option<&str>) -> Result<T, hippo::Error> {
    // Only the parse is generic: the checks and the error text are compiled once for every
    // request type, not once each (the npm wasm has a size budget).
    check_keys(json, shape)?;
    hippo::json::parse(json).map_err(parse_error)
}

/// A key `shape` does not have, as an `invalid_request` naming it.
fn check_keys(json: &str, shape: Option<&str>) -> Result<(), hippo::Error> {
    // The keys are checked on the text (one walk for every type), the request read from the
    // text after: reading T from a `Value` too would add a second copy of every request type's
    // parser to the wasm, and a `Value` of a large import is several times its text.
    let unknown = shape.and_then(|shape| crate::shapes::unknown_key(shape, json));
    match unknown {
        Some(unknown) => {
            let hint = unknown
                .known_as
                .map(|snake| {
                    format!(
                        " (did you mean `{snake}`? request fields are snake_case, as in the HTTP API)"
                    )
                })
                .unwrap_or_default();
            Err(invalid_request(format!(
                "unknown field `{}`{hint}",
                unknown.path
            )))
        }
        None => Ok(()),
    }
}

/// serde's reason a request does not parse, as an `invalid_request`.
fn parse_error(error: serde_json::Error) -> hippo::Error {
    let message = error.to_string();
    // Types that refuse unknown fields themselves say so in serde's words.
    let key = unknown_field_in(&message);
    let hint = key
        .map(crate::shapes::snake_case)
        .filter(|snake| Some(snake.as_str()) != key)
        .filter(|snake| message.contains(&format!("`{snake}`")))
        .map(|snake| format!(" (did you mean `{snake}`?)"))
        .unwrap_or_default();
    // A JS caller passed an object, not text: the parser's position means nothing to it.
    let message = match message.rsplit_once(" at line ") {
        Some((what, position)) if position.contains(" column ") => what.to_string(),
        _ => message,
    };
    invalid_request(format!("{message}{hint}"))
}

fn invalid_request(message: String) -> hippo::Error {
    hippo::Error::invalid(format!("invalid request: {message}"))
}

/// The key of serde's "unknown field `key`, expected …" message.
fn unknown_field_in(message: &str) -> Option<&str> {
    let rest = message.split_once("unknown field `")?.1;
    rest.split_once('`').map(|(key, _)| key)
}

/// A core response → a plain JS object, exactly the JSON the HTTP route answers: the JSON
/// text, then `JSON.parse` (one fast call into JS, and serde_json's serializer, which the
/// snapshots need anyway, instead of a second one per response type in the wasm).
pub fn to_js<T: Serialize + ?Sized>(value: &T) -> Result<JsValue, hippo::Error> {
    // Only the serialization is generic (the npm wasm has a size budget).
    json_to_js(serde_json::to_string(value))
}

fn json_to_js(json: serde_json::Result<String>) -> Result<JsValue, hippo::Error> {
    let failed = |e: String| hippo::Error::Internal(format!("cannot convert the response: {e}"));
    let json = json.map_err(|e| failed(e.to_string()))?;
    js_sys::JSON::parse(&json).map_err(|e| failed(describe(&e)))
}

thread_local! {
    /// The package's `HippoError` class, registered by each entry point.
    static ERROR_CLASS: RefCell<Option<js_sys::Function>> = const { RefCell::new(None) };
}

/// Makes errors instances of `class` (`new class(message, code)`): the package's entry points
/// register its `HippoError`, so `instanceof HippoError` works.
#[wasm_bindgen(js_name = setErrorClass)]
pub fn set_error_class(class: js_sys::Function) {
    ERROR_CLASS.with(|slot| *slot.borrow_mut() = Some(class));
}

/// A core error → a `HippoError` (an `Error`) whose `message` is what the HTTP API says and
/// whose `code` is [`hippo::Error::code`] (`invalid_request`, `not_found`, `conflict`, …).
pub fn to_js_error(error: hippo::Error) -> JsValue {
    let message = JsValue::from(error.to_string());
    let code = JsValue::from(error.code());
    let class = ERROR_CLASS.with(|slot| slot.borrow().clone());
    if let Some(class) = class {
        let args = js_sys::Array::of2(&message, &code);
        if let Ok(made) = js_sys::Reflect::construct(&class, &args) {
            return made;
        }
    }
    let js = js_sys::Error::new(&error.to_string());
    // Setting a data property on a fresh Error object cannot fail.
    let _ = js_sys::Reflect::set(&js, &"code".into(), &code);
    js.into()
}

/// What a JS callback (adapter, embedder, LLM) threw or rejected with, as a port error.
/// Keeps the thrown `Error`'s message; anything else is stringified.
pub fn port_error(context: &str, thrown: JsValue) -> PortError {
    PortError::Backend(format!("{context}: {}", describe(&thrown)))
}

/// A readable one-line description of any thrown JS value.
pub fn describe(thrown: &JsValue) -> String {
    if let Some(error) = thrown.dyn_ref::<js_sys::Error>() {
        return String::from(error.message());
    }
    if let Some(text) = thrown.as_string() {
        return text;
    }
    js_sys::JSON::stringify(thrown)
        .ok()
        .and_then(|s| s.as_string())
        .unwrap_or_else(|| "unknown error".to_string())
}

/// Resolves a promise, a thenable or a plain value: JS callbacks may be `async` or not.
pub async fn settle(value: JsValue) -> Result<JsValue, JsValue> {
    wasm_bindgen_futures::JsFuture::from(js_sys::Promise::resolve(&value)).await
}

/// `object[name]` if it is a function.
pub fn method(object: &JsValue, name: &str) -> Option<js_sys::Function> {
    js_sys::Reflect::get(object, &name.into())
        .ok()
        .and_then(|f| f.dyn_into::<js_sys::Function>().ok())
}

/// A property of a JS object, or `undefined`.
pub fn property(object: &JsValue, name: &str) -> JsValue {
    js_sys::Reflect::get(object, &name.into()).unwrap_or(JsValue::UNDEFINED)
}

#[cfg(test)]
mod tests {
    use super::*;
    use hippo::api::{AddMemoriesRequest, NpcUpsert, RetrievalRequest, SearchRequest};

    fn message<T: DeserializeOwned + std::fmt::Debug>(json: &str, shape: &str) -> String {
        let error = from_json::<T>(json, Some(shape)).unwrap_err();
        assert_eq!(error.code(), "invalid_request");
        error.to_string()
    }

    #[test]
    fn an_unknown_key_is_named_with_its_snake_case_spelling() {
        let text =
            message::<SearchRequest>(r#"{"query": "jazz", "maxResults": 1}"#, "SearchRequest");
        assert!(text.contains("unknown field `maxResults`"), "{text}");
        assert!(text.contains("did you mean `max_results`?"), "{text}");
        let text = message::<NpcUpsert>(r#"{"displayName": "N"}"#, "NpcUpsert");
        assert!(
            text.contains("displayName") && text.contains("`display_name`"),
            "{text}"
        );
        assert!(
            !text.contains("line"),
            "no JSON parser position for a JS object: {text}"
        );
    }

    #[test]
    fn a_key_unknown_in_any_spelling_gets_no_suggestion() {
        let text =
            message::<RetrievalRequest>(r#"{"query": "x", "userId": "u"}"#, "RetrievalRequest");
        assert!(text.contains("unknown field `userId`"), "{text}");
        assert!(!text.contains("did you mean"), "{text}");
    }

    #[test]
    fn nested_unknown_keys_are_named_by_their_path() {
        let text = message::<AddMemoriesRequest>(
            r#"{"memories": [{"summary": "a", "type": "other"}, {"summary": "b", "type": "other", "metadata": {}}]}"#,
            "AddMemoriesRequest",
        );
        assert!(
            text.contains("unknown field `memories.1.metadata`"),
            "{text}"
        );
    }

    #[test]
    fn known_keys_parse_as_before() {
        let request: SearchRequest = from_json(
            r#"{"query": "jazz", "max_results": 2}"#,
            Some("SearchRequest"),
        )
        .unwrap();
        assert_eq!(request.query, "jazz");
        // Maps take any key: PKG field names are the user's.
        let upsert: NpcUpsert =
            from_json(r#"{"pkg": {"favoriteColor": "red"}}"#, Some("NpcUpsert")).unwrap();
        assert!(upsert.pkg.is_some());
    }
}

#[cfg(test)]
mod query_tests {
    //! Options without a schema (`listMemories`, `getConversation`, `listNpcs`): their types
    //! refuse unknown fields themselves, in serde's words.
    use super::*;
    use hippo::api::ListMemoriesQuery;

    fn refused(json: &str) -> String {
        let error = from_json::<ListMemoriesQuery>(json, None).unwrap_err();
        assert_eq!(error.code(), "invalid_request");
        error.to_string()
    }

    #[test]
    fn list_memories_refuses_an_unknown_key_and_names_its_snake_case_spelling() {
        let text = refused(r#"{"includeSuperseded": true}"#);
        assert!(text.contains("unknown field `includeSuperseded`"), "{text}");
        assert!(
            text.contains("did you mean `include_superseded`?"),
            "{text}"
        );
    }

    #[test]
    fn a_snake_case_key_unknown_to_serde_gets_no_suggestion_of_itself() {
        #[derive(Debug, serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        #[allow(dead_code)]
        struct Range {
            since: u64,
        }
        let error = from_json::<Range>(r#"{"since": 1, "foo": 1}"#, None).unwrap_err();
        let text = error.to_string();
        assert!(text.contains("unknown field `foo`"), "{text}");
        assert!(!text.contains("did you mean"), "{text}");
        assert!(refused(r#"{"foo": 1}"#).contains("unknown field `foo`"));
    }
}
