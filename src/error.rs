//! The core's error enum. Bindings map each variant to an HTTP status or a JS error code in
//! exactly one place (`worker/src/error.rs`, `pkg/src/convert.rs`).

use thiserror::Error;

/// Errors a port (store, vector index, embedder, LLM, HTTP client) reports to the core.
#[derive(Debug, Clone, Error, PartialEq)]
pub enum PortError {
    /// A precondition of a write batch failed (another writer got there first): retry.
    #[error("write conflict: {0}")]
    Conflict(String),
    /// The backend failed; nothing of the failed call was applied.
    #[error("{0}")]
    Backend(String),
    /// The backend did not answer in time.
    #[error("timed out: {0}")]
    Timeout(String),
}

#[derive(Debug, Clone, Error, PartialEq)]
pub enum Error {
    /// Bad input from the caller (HTTP 400).
    #[error("{0}")]
    InvalidInput(String),
    /// An unknown NPC or item (HTTP 404).
    #[error("{0}")]
    NotFound(String),
    /// Missing or wrong credentials (HTTP 401).
    #[error("{0}")]
    Unauthorized(String),
    /// The operation cannot run now, e.g. a dream of this NPC is already running (HTTP 409).
    #[error("{0}")]
    Busy(String),
    /// A body or field over its limit (HTTP 413).
    #[error("{0}")]
    TooLarge(String),
    /// Something the deployment lacks, e.g. no admin token (HTTP 503).
    #[error("{0}")]
    NotConfigured(String),
    /// A port failed (HTTP 500).
    #[error("{0}")]
    Port(#[from] PortError),
    /// A broken invariant inside the core (HTTP 500).
    #[error("internal error: {0}")]
    Internal(String),
}

impl Error {
    pub fn invalid(msg: impl Into<String>) -> Self {
        Error::InvalidInput(msg.into())
    }

    pub fn not_found(msg: impl Into<String>) -> Self {
        Error::NotFound(msg.into())
    }

    /// A stable machine-readable code, shared by the HTTP API and the npm package.
    pub fn code(&self) -> &'static str {
        match self {
            Error::InvalidInput(_) => "invalid_request",
            Error::NotFound(_) => "not_found",
            Error::Unauthorized(_) => "unauthorized",
            // A write conflict that outlived the engine's retries is a conflict too: the
            // caller may retry, as with a busy NPC.
            Error::Busy(_) | Error::Port(PortError::Conflict(_)) => "conflict",
            Error::TooLarge(_) => "request_too_large",
            Error::NotConfigured(_) => "not_configured",
            Error::Port(_) | Error::Internal(_) => "internal_error",
        }
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_write_conflict_has_the_conflict_code_in_every_binding() {
        // The Worker answered 409 `conflict` and npm `internal_error` for the same error.
        let lost_race = Error::Port(PortError::Conflict("version moved".into()));
        assert_eq!(lost_race.code(), "conflict");
        assert_eq!(Error::Busy("dreaming".into()).code(), "conflict");
        assert_eq!(
            Error::Port(PortError::Backend("disk".into())).code(),
            "internal_error"
        );
    }
}
