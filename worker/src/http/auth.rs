//! Credentials: the admin Bearer token of `/api/*`, and the token of memory_retrieval.

use crate::error::HttpError;
use hippo::ids::sha256_hex;

/// Equality that takes the same time wherever the inputs differ. Both sides are hashed
/// first, so neither the position of a difference nor the secret's length leaks.
pub fn constant_time_eq(a: &str, b: &str) -> bool {
    let (a, b) = (sha256_hex(a), sha256_hex(b));
    a.bytes()
        .zip(b.bytes())
        .fold(0u8, |acc, (x, y)| acc | (x ^ y))
        == 0
}

/// Admin check of `/api/*`: 503 when no admin token is configured (never open by default),
/// 401 when the header is missing or wrong. Only `Bearer` is accepted here.
pub fn require_admin(configured: Option<&str>, header: Option<&str>) -> Result<(), HttpError> {
    let Some(expected) = configured else {
        return Err(HttpError::not_configured(
            "HIPPO_ADMIN_TOKEN is not configured; the /api routes are disabled",
        ));
    };
    let given = header.map(str::trim).and_then(|h| {
        let (scheme, token) = h.split_once(char::is_whitespace)?;
        scheme.eq_ignore_ascii_case("bearer").then(|| token.trim())
    });
    match given {
        Some(token) if constant_time_eq(token, expected) => Ok(()),
        Some(_) => Err(HttpError::unauthorized("invalid admin token")),
        None => Err(HttpError::unauthorized(
            "missing Authorization: Bearer <admin token>",
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constant_time_eq_compares_values() {
        assert!(constant_time_eq("s3cret", "s3cret"));
        assert!(!constant_time_eq("s3cret", "s3creT"));
        assert!(!constant_time_eq("s3cret", "s3cret "));
        assert!(!constant_time_eq("", "x"));
    }

    #[test]
    fn admin_needs_configuration_then_the_right_bearer() {
        assert_eq!(
            require_admin(None, Some("Bearer x")).unwrap_err().status,
            503
        );
        assert_eq!(require_admin(Some("x"), None).unwrap_err().status, 401);
        assert_eq!(require_admin(Some("x"), Some("x")).unwrap_err().status, 401);
        assert_eq!(
            require_admin(Some("x"), Some("Bearer y"))
                .unwrap_err()
                .status,
            401
        );
        assert!(require_admin(Some("x"), Some("Bearer x")).is_ok());
        assert!(require_admin(Some("x"), Some("bearer  x ")).is_ok());
    }
}
