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
use wasm_bindgen::prelude::*;

/// A JS request object → the core's request type, read exactly as the HTTP API reads a body:
/// `JSON.stringify` then `serde_json`. So `undefined` fields are absent, a `Date` is its
/// RFC 3339 string, and a shape error is the HTTP API's 400 with serde_json's message (code
/// `invalid_request`). No request object (`undefined` or `null`) reads as `{}`, as an empty
/// HTTP body does. (serde-wasm-bindgen would walk a string as if it were an array and report
/// JS engine errors instead.)
pub fn from_js<T: DeserializeOwned>(value: JsValue) -> Result<T, hippo::Error> {
    let json = if value.is_undefined() || value.is_null() {
        "{}".to_string()
    } else {
        // `JSON.stringify` throws on cycles and BigInt, and gives `undefined` for a function.
        js_sys::JSON::stringify(&value)
            .ok()
            .and_then(|json| json.as_string())
            .ok_or_else(|| hippo::Error::invalid("the request is not a JSON value"))?
    };
    serde_json::from_str(&json)
        .map_err(|e| hippo::Error::invalid(format!("invalid JSON body: {e}")))
}

/// A core response → a plain JS object, exactly the JSON the HTTP route answers.
pub fn to_js<T: Serialize + ?Sized>(value: &T) -> Result<JsValue, hippo::Error> {
    value
        .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .map_err(|e| hippo::Error::Internal(format!("cannot convert the response: {e}")))
}

/// A core error → a JS `Error` whose `message` is what the HTTP API says and whose `code` is
/// [`hippo::Error::code`] (`invalid_request`, `not_found`, `conflict`, …).
pub fn to_js_error(error: hippo::Error) -> JsValue {
    let js = js_sys::Error::new(&error.to_string());
    // Setting a data property on a fresh Error object cannot fail.
    let _ = js_sys::Reflect::set(&js, &"code".into(), &error.code().into());
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
