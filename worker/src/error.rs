//! The one place that turns errors into HTTP statuses and JSON bodies.
//!
//! Three shapes, by surface: `/api/*` (and the Worker's own routes) answer the seed's
//! `{"status": "error", "message": …}`; memory_retrieval answers the protocol's
//! `{"error": {"code": …, "message": …}}`; `/mcp` answers a JSON-RPC 2.0 error.

use hippo::api::{ApiError, RetrievalError, RetrievalErrorDetail};
use hippo::error::{Error, PortError};
use serde_json::json;
use worker::Response;

/// Which error shape a route answers with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Surface {
    Api,
    Retrieval,
    Mcp,
}

impl Surface {
    pub fn of_path(path: &str) -> Surface {
        if path == "/memory_retrieval" || path.starts_with("/memory_retrieval/") {
            Surface::Retrieval
        } else if path == "/mcp" {
            Surface::Mcp
        } else {
            Surface::Api
        }
    }
}

/// An error on its way to the client: status, stable code, message.
#[derive(Debug, Clone, PartialEq)]
pub struct HttpError {
    pub status: u16,
    pub code: &'static str,
    pub message: String,
}

impl HttpError {
    pub fn new(status: u16, code: &'static str, message: impl Into<String>) -> Self {
        HttpError {
            status,
            code,
            message: message.into(),
        }
    }

    pub fn bad_request(message: impl Into<String>) -> Self {
        Self::new(400, "invalid_request", message)
    }

    pub fn unauthorized(message: impl Into<String>) -> Self {
        Self::new(401, "unauthorized", message)
    }

    pub fn route_not_found(method: &str, path: &str) -> Self {
        Self::new(404, "not_found", format!("no route for {method} {path}"))
    }

    pub fn method_not_allowed(method: &str, path: &str) -> Self {
        Self::new(
            405,
            "method_not_allowed",
            format!("{method} is not allowed on {path}"),
        )
    }

    /// A body over `limit` bytes: the core's error, so the npm package says the same.
    pub fn too_large(limit: usize) -> Self {
        hippo::api::protocol::body_too_large(limit).into()
    }

    pub fn not_configured(message: impl Into<String>) -> Self {
        Self::new(503, "not_configured", message)
    }

    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(500, "internal_error", message)
    }

    /// The JSON response of this error on `surface`. Details of a 500 go to the log; the
    /// memory_retrieval caller (an external platform) gets a generic message.
    pub fn response(&self, surface: Surface) -> worker::Result<Response> {
        if self.status >= 500 {
            worker::console_error!("{} {}: {}", self.status, self.code, self.message);
        }
        let response = match surface {
            Surface::Api => Response::from_json(&ApiError::new(self.message.as_str()))?,
            Surface::Retrieval => {
                let message = if self.status == 500 {
                    "internal error"
                } else {
                    self.message.as_str()
                };
                Response::from_json(&RetrievalError {
                    error: RetrievalErrorDetail {
                        code: self.code.into(),
                        message: message.into(),
                    },
                })?
            }
            Surface::Mcp => Response::from_json(&json!({ "jsonrpc": "2.0", "id": null, "error": {
                "code": jsonrpc_code(self.status), "message": self.message } }))?,
        };
        Ok(response.with_status(self.status))
    }
}

/// The JSON-RPC error code of an HTTP-level failure on `/mcp`: -32600 (invalid request) for
/// what the client sent, -32603 for the server's own failures, and -32001 (implementation
/// defined) for credentials.
pub fn jsonrpc_code(status: u16) -> i64 {
    match status {
        401 | 403 => -32001,
        s if s >= 500 => -32603,
        _ => -32600,
    }
}

impl From<Error> for HttpError {
    fn from(err: Error) -> Self {
        let status = match &err {
            Error::InvalidInput(_) => 400,
            Error::Unauthorized(_) => 401,
            Error::NotFound(_) => 404,
            Error::Busy(_) => 409,
            // A write conflict that outlived the engine's retries: the client may retry.
            Error::Port(PortError::Conflict(_)) => 409,
            Error::TooLarge(_) => 413,
            Error::NotConfigured(_) => 503,
            Error::Port(_) | Error::Internal(_) => 500,
        };
        HttpError::new(status, err.code(), err.to_string())
    }
}

impl From<worker::Error> for HttpError {
    fn from(err: worker::Error) -> Self {
        HttpError::internal(err.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_core_error_has_its_status_and_code() {
        let cases = [
            (
                Error::invalid("updates cannot be empty"),
                400,
                "invalid_request",
            ),
            (Error::Unauthorized("bad token".into()), 401, "unauthorized"),
            (
                Error::not_found("NPC x does not exist or has no PKG"),
                404,
                "not_found",
            ),
            (
                Error::Busy("a dream of x is running".into()),
                409,
                "conflict",
            ),
            (
                Error::Port(PortError::Conflict("v".into())),
                409,
                "conflict",
            ),
            (Error::TooLarge("too big".into()), 413, "request_too_large"),
            (
                Error::NotConfigured("no token".into()),
                503,
                "not_configured",
            ),
            (
                Error::Port(PortError::Backend("d1".into())),
                500,
                "internal_error",
            ),
            (
                Error::Port(PortError::Timeout("llm".into())),
                500,
                "internal_error",
            ),
            (Error::Internal("bug".into()), 500, "internal_error"),
        ];
        for (err, status, code) in cases {
            let message = err.to_string();
            let http = HttpError::from(err);
            assert_eq!((http.status, http.code), (status, code), "{message}");
            assert_eq!(http.message, message, "the message passes through");
        }
    }

    #[test]
    fn surfaces_by_path() {
        assert_eq!(Surface::of_path("/memory_retrieval"), Surface::Retrieval);
        assert_eq!(
            Surface::of_path("/memory_retrieval/fake"),
            Surface::Retrieval
        );
        assert_eq!(Surface::of_path("/memory_retrievalx"), Surface::Api);
        assert_eq!(Surface::of_path("/api/pkg/a"), Surface::Api);
        assert_eq!(Surface::of_path("/health"), Surface::Api);
        assert_eq!(Surface::of_path("/mcp"), Surface::Mcp);
    }
}
