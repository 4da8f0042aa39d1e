//! Who may run an operation, and what a token bound to one NPC sees of the answer: the one
//! access rule behind `/memory_retrieval`, `/mcp` (both transports) and anything else that
//! runs an [`Operation`] for a token. The admin may run every operation and sees everything;
//! a token may run the operations its scopes allow ([`OpKind::scopes`]) on its own NPC, and
//! sensitive items follow the memory_retrieval rule for it (docs/SECURITY.md): never shown,
//! and invisible to the operations that change or delete one memory.

use super::operation::Operation;
use super::OpKind;
use crate::api::DreamReport;
use crate::error::{Error, Result};
use crate::memory::Memory;
use crate::ports::Scope;
use crate::sensitive;

/// Who is calling.
#[derive(Debug, Clone, PartialEq)]
pub enum Caller {
    /// The admin token (or the owner of an npm store): every NPC, every operation,
    /// sensitive items shown (marked).
    Admin,
    /// A token bound to `npcid` with `scopes`.
    Token { npcid: String, scopes: Vec<Scope> },
}

impl OpKind {
    /// The token scopes that allow this operation on the token's own NPC (any one is
    /// enough). Empty: the admin only.
    pub fn scopes(self) -> &'static [Scope] {
        match self {
            // A reader may also ask what memory_retrieval would answer.
            OpKind::Retrieve => &[Scope::Retrieval, Scope::Read],
            OpKind::GetPkg | OpKind::GetRelationship | OpKind::ListMemories | OpKind::Brief => {
                &[Scope::Read]
            }
            OpKind::AddMemories
            | OpKind::AppendConversation
            | OpKind::UpdateMemory
            | OpKind::DeleteMemory
            | OpKind::ForgetMemories
            | OpKind::Dream => &[Scope::Write],
            // NPC records, tokens, export and import, the diary window, the raw log, the
            // search route's debug view, PKG and entity writes: the admin's.
            OpKind::ListNpcs
            | OpKind::GetNpc
            | OpKind::PutNpc
            | OpKind::DeleteNpc
            | OpKind::PutPkg
            | OpKind::PostRelationship
            | OpKind::GetDiary
            | OpKind::GetConversation
            | OpKind::SearchMemories
            | OpKind::IssueToken
            | OpKind::RevokeToken
            | OpKind::ExportNpc
            | OpKind::ImportNpc
            | OpKind::RebuildVectors => &[],
        }
    }
}

impl Caller {
    pub fn is_admin(&self) -> bool {
        matches!(self, Caller::Admin)
    }

    /// The NPC a token is bound to (`None` for the admin).
    pub fn npcid(&self) -> Option<&str> {
        match self {
            Caller::Admin => None,
            Caller::Token { npcid, .. } => Some(npcid),
        }
    }

    /// Whether this caller may run operations of `kind` (on its own NPC, for a token).
    pub fn may(&self, kind: OpKind) -> bool {
        match self {
            Caller::Admin => true,
            Caller::Token { scopes, .. } => kind.scopes().iter().any(|s| scopes.contains(s)),
        }
    }

    /// 401 unless this caller may run `op`: its kind ([`Self::may`]) on the token's own NPC.
    pub fn authorize(&self, op: &Operation) -> Result<()> {
        let Caller::Token { npcid, .. } = self else {
            return Ok(());
        };
        let kind = op.kind();
        if !self.may(kind) {
            let needs: Vec<&str> = kind.scopes().iter().map(|s| s.as_str()).collect();
            return Err(Error::Unauthorized(if needs.is_empty() {
                "this operation needs the admin token".to_string()
            } else {
                format!("this token needs the {} scope", needs.join(" or "))
            }));
        }
        match op.npcid() {
            Some(target) if target == npcid => Ok(()),
            _ => Err(Error::Unauthorized(
                "this token is bound to another NPC".into(),
            )),
        }
    }
}

/// Whether a token may see `m`: not marked sensitive, and nothing in its text the detector
/// flags (rows written before the detector, or by an older version, are judged now).
pub fn visible_to_tokens(m: &Memory) -> bool {
    !m.sensitive
        && sensitive::category_of(&m.summary).is_none()
        && sensitive::category_of(&m.context).is_none()
}

/// Whether the detector flags anything in `value`'s JSON text.
pub(crate) fn flagged<T: serde::Serialize>(value: &T) -> bool {
    serde_json::to_string(value).map_or(true, |text| sensitive::category_of(&text).is_some())
}

/// A dream report as a token sees it: the same counts, without what is sensitive.
pub(crate) fn report_for_tokens(report: &mut DreamReport) {
    if let Some(diary) = &mut report.diary {
        if sensitive::category_of(&diary.diary_text).is_some() {
            diary.diary_text.clear();
        }
    }
    if let Some(x) = &mut report.extractions {
        x.pkg_updates
            .retain(|u| sensitive::key_category(&u.key).is_none() && !flagged(u));
        x.entity_ops.retain(|op| !flagged(op));
        x.memories
            .retain(|m| !m.sensitive && sensitive::category_of(&m.summary).is_none());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::RawRequest;

    fn op(kind: OpKind, npcid: &str) -> Operation {
        let path = [("npcid", npcid), ("id", "m1"), ("token_id", "t1")];
        let query = vec![("confirm".to_string(), npcid.to_string())];
        let body: &[u8] = match kind {
            OpKind::Retrieve => br#"{"query":"hi"}"#,
            OpKind::SearchMemories => br#"{"query":"hi"}"#,
            OpKind::UpdateMemory => br#"{"pinned":true}"#,
            OpKind::AddMemories => br#"{"memories":[]}"#,
            OpKind::PutPkg => br#"{"updates":[]}"#,
            OpKind::PostRelationship => br#"{"ops":[]}"#,
            OpKind::AppendConversation => br#"{"turns":[]}"#,
            _ => b"{}",
        };
        let raw = RawRequest {
            path: &path,
            query: &query,
            body,
        };
        match kind {
            // An export document is long to write out; its access is the kind's.
            OpKind::ImportNpc => Operation::RebuildVectors {
                npcid: npcid.into(),
            },
            _ => Operation::parse(kind, &raw).unwrap_or_else(|e| panic!("{kind:?}: {e}")),
        }
    }

    #[test]
    fn the_admin_may_run_everything() {
        for kind in OpKind::ALL {
            assert!(Caller::Admin.may(kind));
            assert!(Caller::Admin.authorize(&op(kind, "a")).is_ok());
        }
    }

    #[test]
    fn a_token_runs_what_its_scopes_allow_on_its_own_npc_only() {
        let token = |scopes: &[Scope]| Caller::Token {
            npcid: "a".into(),
            scopes: scopes.to_vec(),
        };
        let retrieval = token(&[Scope::Retrieval]);
        let reader = token(&[Scope::Read]);
        let writer = token(&[Scope::Write]);
        assert!(retrieval.authorize(&op(OpKind::Retrieve, "a")).is_ok());
        assert!(retrieval.authorize(&op(OpKind::Retrieve, "b")).is_err());
        assert!(retrieval.authorize(&op(OpKind::Brief, "a")).is_err());
        assert!(retrieval.authorize(&op(OpKind::AddMemories, "a")).is_err());
        assert!(reader.authorize(&op(OpKind::Retrieve, "a")).is_ok());
        assert!(reader.authorize(&op(OpKind::Brief, "a")).is_ok());
        assert!(reader.authorize(&op(OpKind::DeleteMemory, "a")).is_err());
        assert!(writer.authorize(&op(OpKind::DeleteMemory, "a")).is_ok());
        assert!(writer.authorize(&op(OpKind::DeleteMemory, "b")).is_err());
        assert!(writer.authorize(&op(OpKind::Brief, "a")).is_err());
        let every = token(&Scope::ALL);
        for kind in OpKind::ALL {
            let allowed = every.authorize(&op(kind, "a")).is_ok();
            assert_eq!(allowed, !kind.scopes().is_empty(), "{kind:?}");
        }
        // Nothing that manages NPCs or tokens, nor the raw log, is a token's.
        for kind in [
            OpKind::ListNpcs,
            OpKind::DeleteNpc,
            OpKind::IssueToken,
            OpKind::RevokeToken,
            OpKind::ExportNpc,
            OpKind::ImportNpc,
            OpKind::GetConversation,
            OpKind::SearchMemories,
        ] {
            assert!(kind.scopes().is_empty(), "{kind:?}");
        }
    }
}
