//! Identifiers: npcid validation, random ids and tokens, and hashing.
#![deny(
    clippy::indexing_slicing,
    clippy::string_slice,
    clippy::arithmetic_side_effects
)]

use crate::error::{Error, Result};
use sha2::{Digest, Sha256};

/// `npcid`: 1–64 characters of `[A-Za-z0-9_.:-]` (SPEC §1), and not `.` or `..` (URL
/// normalisation removes those path segments, so such an NPC could never be addressed);
/// anything else is a 400.
pub fn validate_npcid(npcid: &str) -> Result<()> {
    if is_path_safe_id(npcid) {
        Ok(())
    } else {
        Err(Error::invalid(
            "npcid must be 1-64 characters of A-Z a-z 0-9 _ . : -",
        ))
    }
}

/// 1–64 characters of `[A-Za-z0-9_.:-]`, not `.` or `..`: an id that goes in a URL path
/// segment unchanged and never names a directory.
pub fn is_path_safe_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 64
        && id != "."
        && id != ".."
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b':' | b'-'))
}

/// `n` random bytes from the platform's CSPRNG (`crypto.getRandomValues` on wasm).
#[allow(
    clippy::panic,
    reason = "fails only on a platform without a random source, never because of input; \
              ids and tokens cannot be made without one"
)]
pub fn random_bytes<const N: usize>() -> [u8; N] {
    let mut buf = [0u8; N];
    if let Err(err) = getrandom::getrandom(&mut buf) {
        // The code, not the error's text: getrandom's descriptions of every platform's
        // failure were ~600 bytes of the package's wasm (the code names one in its docs).
        panic!(
            "the platform has no random source (getrandom error {})",
            err.code()
        );
    }
    buf
}

pub fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len().saturating_mul(2));
    for b in bytes {
        for nibble in [b >> 4, b & 15] {
            out.push(char::from(
                DIGITS.get(usize::from(nibble)).copied().unwrap_or(b'0'),
            ));
        }
    }
    out
}

/// A new random id with a readable prefix, e.g. `mem_3f9a…` (prefix + 16 hex digits).
pub fn new_id(prefix: &str) -> String {
    format!("{prefix}_{}", hex(&id_bytes()))
}

/// Random bytes an id is made of (the bytes of [`ID_POOL`] are each used once).
const ID_BYTES: usize = 8;
/// How many random bytes ids draw from the platform at a time: in wasm every draw crosses
/// into JS (`crypto.getRandomValues`, in Node `randomFillSync`), and one draw per new memory
/// was ~2% of the package's fill. Ids are not secrets; tokens draw their own bytes.
const ID_POOL: usize = 64 * ID_BYTES;

/// The next [`ID_BYTES`] of this thread's pool, refilled from the CSPRNG when used up.
fn id_bytes() -> [u8; ID_BYTES] {
    use std::cell::RefCell;
    thread_local! {
        static POOL: RefCell<([u8; ID_POOL], usize)> = const { RefCell::new(([0; ID_POOL], ID_POOL)) };
    }
    POOL.with(|pool| {
        let mut pool = pool.borrow_mut();
        let (bytes, used) = &mut *pool;
        let next = match bytes.get(*used..used.saturating_add(ID_BYTES)) {
            Some(next) => next,
            None => {
                *bytes = random_bytes::<ID_POOL>();
                *used = 0;
                bytes.get(..ID_BYTES).unwrap_or_default()
            }
        };
        let mut out = [0u8; ID_BYTES];
        out.copy_from_slice(next);
        *used = used.saturating_add(ID_BYTES);
        out
    })
}

/// A new secret token: 32 random bytes, hex, with a `hpo_` prefix so leaks are greppable.
pub fn new_token() -> String {
    format!("hpo_{}", hex(&random_bytes::<32>()))
}

/// SHA-256 of `text`, hex. Tokens are stored only as this hash.
pub fn sha256_hex(text: &str) -> String {
    hex(&Sha256::digest(text.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn npcid_rules() {
        for ok in [
            "a",
            "01",
            "npc_1.test:x-y",
            &"a".repeat(64),
            "...",
            ".a",
            "a..",
        ] {
            assert!(validate_npcid(ok).is_ok(), "{ok}");
        }
        for bad in [
            "",
            "a b",
            "../x",
            "a/b",
            "灵绯",
            &"a".repeat(65),
            "x\0",
            ".",
            "..",
        ] {
            assert!(validate_npcid(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn ids_stay_unique_across_pool_refills() {
        // Several pools' worth: no id repeats, at a refill or after it.
        let ids: std::collections::HashSet<String> = (0..5 * ID_POOL / ID_BYTES + 3)
            .map(|_| new_id("mem"))
            .collect();
        assert_eq!(ids.len(), 5 * ID_POOL / ID_BYTES + 3);
        assert!(ids
            .iter()
            .all(|id| id.len() == 20 && id.starts_with("mem_")));
    }

    #[test]
    fn ids_are_unique_and_prefixed() {
        let a = new_id("mem");
        let b = new_id("mem");
        assert!(a.starts_with("mem_") && a.len() == 20);
        assert_ne!(a, b);
        assert_eq!(new_token().len(), 4 + 64);
        assert_eq!(
            sha256_hex("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
