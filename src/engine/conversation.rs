//! Appending to and reading the conversation log (SPEC §3.3).

use super::Hippo;
use crate::api::*;
use crate::conversation::{EntryKind, Role, Turn};
use crate::error::{Error, Result};
use crate::ids::{new_id, validate_npcid};

/// Limits of one append request.
pub const MAX_TURNS_PER_APPEND: usize = 500;
pub const MAX_TURN_CHARS: usize = 8_000;
/// A conversation summary entry (what an app condensed earlier turns into).
pub const MAX_CONVERSATION_SUMMARY_CHARS: usize = 8_000;
pub const MAX_SESSION_ID_CHARS: usize = 128;

/// The index a session's summary is stored under: one summary per session, so a re-sent
/// summary is a duplicate like a re-sent turn.
pub const SUMMARY_INDEX: u32 = u32::MAX;

fn parse_role(role: &str, i: usize) -> Result<Role> {
    match role {
        "user" => Ok(Role::User),
        "assistant" => Ok(Role::Assistant),
        _ => Err(Error::invalid(format!(
            "turns[{i}].role must be \"user\" or \"assistant\""
        ))),
    }
}

/// Text that must say something: non-empty after trimming, at most `max` characters.
pub(super) fn check_text(text: &str, what: impl std::fmt::Display, max: usize) -> Result<()> {
    if text.trim().is_empty() {
        return Err(Error::invalid(format!("{what} cannot be empty")));
    }
    if text.chars().count() > max {
        return Err(Error::invalid(format!(
            "{what} is longer than {max} characters"
        )));
    }
    Ok(())
}

/// Checks a stored log entry (an import) by the rules of `POST /api/conversation`: a turn has
/// a role and at most [`MAX_TURN_CHARS`] characters, a session summary none and at most
/// [`MAX_CONVERSATION_SUMMARY_CHARS`]; session ids as appended; an addressable id; `seq` from 1.
pub(crate) fn validate_stored_turn(t: &Turn, what: impl std::fmt::Display) -> Result<()> {
    if !crate::ids::is_path_safe_id(&t.id) {
        return Err(Error::invalid(format!(
            "{what}.id must be 1-64 characters of A-Z a-z 0-9 _ . : -"
        )));
    }
    if t.seq == 0 {
        return Err(Error::invalid(format!("{what}.seq must be at least 1")));
    }
    if let Some(s) = &t.session_id {
        check_text(s, format_args!("{what}.session_id"), MAX_SESSION_ID_CHARS)?;
    }
    // Field names are formatted only when an error names them (`format_args!`).
    match (t.kind, t.role) {
        (EntryKind::Turn, Some(_)) if t.turn_index != Some(SUMMARY_INDEX) => {
            check_text(&t.content, format_args!("{what}.content"), MAX_TURN_CHARS)
        }
        (EntryKind::Summary, None) => check_text(
            &t.content,
            format_args!("{what}.content"),
            MAX_CONVERSATION_SUMMARY_CHARS,
        ),
        _ => Err(Error::invalid(format!(
            "{what}: a turn has a role (and an index below {SUMMARY_INDEX}), a summary none"
        ))),
    }
}

impl Hippo {
    /// Appends turns (and an optional session summary). Idempotent on
    /// `(session_id, turn index)`: a turn whose index is already stored for its session is
    /// counted in `duplicates` and not stored again. A turn's index defaults to its position
    /// in the request, so re-sending a whole session changes nothing; clients appending turn
    /// by turn send `index`.
    pub async fn append_conversation(
        &self,
        npcid: &str,
        req: ConversationAppend,
    ) -> Result<ConversationAppendResponse> {
        validate_npcid(npcid)?;
        if req.turns.is_empty() && req.summary.is_none() {
            return Err(Error::invalid("turns cannot be empty"));
        }
        if req.turns.len() > MAX_TURNS_PER_APPEND {
            return Err(Error::invalid(format!(
                "at most {MAX_TURNS_PER_APPEND} turns per request"
            )));
        }
        if let Some(s) = &req.session_id {
            check_text(s, "session_id", MAX_SESSION_ID_CHARS)?;
        }
        let mut parsed = Vec::with_capacity(req.turns.len());
        for (i, t) in req.turns.iter().enumerate() {
            let role = parse_role(&t.role, i)?;
            check_text(
                &t.content,
                format_args!("turns[{i}].content"),
                MAX_TURN_CHARS,
            )?;
            let index = t.index.unwrap_or(i as u32);
            if index == SUMMARY_INDEX {
                return Err(Error::invalid(format!("turns[{i}].index is out of range")));
            }
            parsed.push((role, index));
        }
        if let Some(s) = &req.summary {
            check_text(s, "summary", MAX_CONVERSATION_SUMMARY_CHARS)?;
        }
        let now = self.now();
        let mut entries = Vec::with_capacity(parsed.len() + 1);
        for (t, (role, index)) in req.turns.iter().zip(&parsed) {
            entries.push(Turn {
                id: new_id("turn"),
                seq: 0,
                session_id: req.session_id.clone(),
                turn_index: req.session_id.as_ref().map(|_| *index),
                kind: EntryKind::Turn,
                role: Some(*role),
                content: t.content.clone(),
                ts: t.ts.unwrap_or(now),
                emotion: t.emotion.clone(),
            });
        }
        if let Some(summary) = &req.summary {
            entries.push(Turn {
                id: new_id("sum"),
                seq: 0,
                session_id: req.session_id.clone(),
                turn_index: req.session_id.as_ref().map(|_| SUMMARY_INDEX),
                kind: EntryKind::Summary,
                role: None,
                content: summary.clone(),
                ts: now,
                emotion: None,
            });
        }
        let sent = entries.len();
        // One write that needs no read first: the store assigns each entry its `seq` and
        // skips the ones already stored, so parallel appends never conflict (SPEC §3.3).
        let done = match self.ports.store.append_turns(npcid, entries).await {
            Ok(done) => done,
            Err(err) => {
                self.require_npc(npcid).await?;
                return Err(err.into());
            }
        };
        let appended = done.seqs.iter().flatten().count();
        Ok(ConversationAppendResponse {
            status: "ok".into(),
            appended,
            duplicates: sent - appended,
            last_seq: done.last_seq,
        })
    }

    /// Log entries with `seq > since`, oldest first.
    pub async fn get_conversation(
        &self,
        npcid: &str,
        since: u64,
        limit: usize,
    ) -> Result<ConversationView> {
        let npc = self.require_npc(npcid).await?;
        let limit = limit.clamp(1, crate::api::LOG_PAGE_MAX);
        Ok(ConversationView {
            npcid: npcid.to_string(),
            turns: self.ports.store.turns(npcid, since, limit).await?,
            watermark: npc.watermark,
        })
    }
}
