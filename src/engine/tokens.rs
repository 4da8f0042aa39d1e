//! memory_retrieval tokens: issued per NPC, shown once, stored only as a SHA-256 hash.

use super::Hippo;
use crate::api::{Caller, OpKind, TokenIssued, TokenRequest};
use crate::error::{Error, Result};
use crate::ids::{new_id, new_token, sha256_hex};
use crate::ports::{Scope, TokenRecord, Write, WriteBatch};

/// The longest TTL a token may be given (10 years).
pub const MAX_TOKEN_TTL_SECONDS: u64 = 10 * 365 * 24 * 3600;

impl Hippo {
    pub async fn issue_token(&self, npcid: &str, req: TokenRequest) -> Result<TokenIssued> {
        self.require_npc(npcid).await?;
        let now = self.now();
        let expires_at = match req.ttl_seconds {
            None => None,
            Some(0) => return Err(Error::invalid("ttl_seconds must be at least 1")),
            Some(s) if s > MAX_TOKEN_TTL_SECONDS => {
                return Err(Error::invalid(format!(
                    "ttl_seconds must be at most {MAX_TOKEN_TTL_SECONDS}"
                )))
            }
            Some(s) => Some(now.plus_ms(i64::try_from(s.saturating_mul(1000)).unwrap_or(i64::MAX))),
        };
        let scopes = match &req.scopes {
            None => vec![Scope::Retrieval],
            Some(names) => {
                let mut scopes = Vec::new();
                for name in names {
                    let scope = Scope::parse(name).ok_or_else(|| {
                        Error::invalid(format!(
                            "unknown scope {name:?}: use retrieval, read or write"
                        ))
                    })?;
                    if !scopes.contains(&scope) {
                        scopes.push(scope);
                    }
                }
                if scopes.is_empty() {
                    return Err(Error::invalid("scopes cannot be empty"));
                }
                scopes
            }
        };
        let token = new_token();
        let record = TokenRecord {
            token_id: new_id("tok"),
            npcid: npcid.to_string(),
            token_hash: sha256_hex(&token),
            created_at: now,
            expires_at,
            scopes: scopes.clone(),
        };
        let mut batch = WriteBatch::new();
        batch.push(Write::PutToken {
            token: record.clone(),
        });
        self.ports.store.commit(npcid, batch).await?;
        Ok(TokenIssued {
            token_id: record.token_id,
            token,
            expires_at,
            scopes,
        })
    }

    pub async fn revoke_token(&self, npcid: &str, token_id: &str) -> Result<()> {
        self.require_npc(npcid).await?;
        let exists = self
            .ports
            .store
            .tokens(npcid)
            .await?
            .iter()
            .any(|t| t.token_id == token_id);
        if !exists {
            return Err(Error::not_found(format!("token {token_id} does not exist")));
        }
        let mut batch = WriteBatch::new();
        batch.push(Write::DeleteToken {
            token_id: token_id.to_string(),
        });
        self.ports.store.commit(npcid, batch).await?;
        Ok(())
    }

    /// The NPC a memory_retrieval token (`<token>` or `Bearer <token>`) is bound to: a token
    /// that may run [`OpKind::Retrieve`] (the `retrieval` or `read` scope). Unknown, revoked
    /// and expired tokens, tokens of deleted NPCs and tokens without such a scope are all 401.
    pub async fn resolve_token(&self, authorization: &str) -> Result<String> {
        let caller = self.resolve_caller(authorization).await?;
        match caller {
            Caller::Token { npcid, .. } if caller.may(OpKind::Retrieve) => Ok(npcid),
            _ => Err(Error::Unauthorized(
                "this token may not run memory_retrieval".into(),
            )),
        }
    }

    /// The caller a token (`<token>` or `Bearer <token>`) makes: its NPC and scopes, on the
    /// rules of [`Self::resolve_token`] whatever its scopes. What it may run is
    /// [`Caller::authorize`]'s to say.
    pub async fn resolve_caller(&self, authorization: &str) -> Result<Caller> {
        let unauthorized = || Error::Unauthorized("missing or invalid token".into());
        let value = authorization.trim();
        let token = match value.split_once(' ') {
            Some((scheme, rest)) if scheme.eq_ignore_ascii_case("bearer") => rest.trim(),
            Some(_) => return Err(unauthorized()),
            None => value,
        };
        if token.is_empty() || token.len() > 256 {
            return Err(unauthorized());
        }
        let record = self
            .ports
            .store
            .token_by_hash(&sha256_hex(token))
            .await?
            .ok_or_else(unauthorized)?;
        if record.expires_at.is_some_and(|t| t <= self.now()) {
            return Err(unauthorized());
        }
        if self.ports.store.npc(&record.npcid).await?.is_none() {
            return Err(unauthorized());
        }
        Ok(Caller::Token {
            npcid: record.npcid,
            scopes: record.scopes,
        })
    }
}
