//! The session brief (`POST /api/npc/{npcid}/brief`): the lines a brief may hold, gathered
//! from the NPC's state most important first, then packed by `brief::pack`.
//!
//! Priority: the user's name and nickname; constraints (allergies, "never …"); pinned
//! memories; the people in the user's life; what the query is about; the rest of the
//! profile; the strongest memories; the last days of the diary. Nothing sensitive: marked
//! memories and PKG fields of a sensitive kind are left out, and every line goes through the
//! detector. A brief is a read: it reinforces nothing, so the same state (and clock) gives
//! the same brief.

use super::dream::{diary_record_id, DIARY_RECORD_PREFIX};
use super::search::{entity_text, pkg_text};
use super::Hippo;
use crate::api::visible_to_tokens;
use crate::api::{BriefRequest, BriefResponse};
use crate::brief::{pack, BriefLine, Lang, Section};
use crate::error::{Error, Result};
use crate::memory::strength::{self, Tier};
use crate::memory::{Collection, Memory, MemoryType};
use crate::ports::MemoryFilter;
use crate::retrieval::rank::CandidateKind;
use crate::sensitive;
use std::cmp::Ordering;

pub const BRIEF_DEFAULT_TOKENS: usize = 500;
pub const BRIEF_MAX_TOKENS: usize = 32_768;
/// Query hits considered for the "relevant" part.
const RELEVANT_RESULTS: usize = 8;
/// Strongest memories considered for the "recent" part.
const RECENT_MEMORIES: usize = 30;
/// Diary days considered.
const DIARY_DAYS: usize = 3;

const IDENTITY_FIELDS: [&str; 2] = ["Name", "Nickname"];
const PEOPLE_FIELDS: [&str; 2] = ["Important Friends", "Other Important People"];

fn kind_name(kind: CandidateKind) -> &'static str {
    match kind {
        CandidateKind::Memory => "memory",
        CandidateKind::Pkg => "pkg",
        CandidateKind::Relationship => "relationship",
        CandidateKind::Diary => "diary",
        CandidateKind::Conversation => "conversation",
    }
}

impl Hippo {
    /// `POST /api/npc/{npcid}/brief`.
    pub async fn brief(&self, npcid: &str, req: BriefRequest) -> Result<BriefResponse> {
        let max_tokens = match req.max_tokens {
            None => BRIEF_DEFAULT_TOKENS,
            Some(n) if n >= 1 && n <= BRIEF_MAX_TOKENS as u64 => n as usize,
            Some(_) => {
                return Err(Error::invalid(format!(
                    "max_tokens must be between 1 and {BRIEF_MAX_TOKENS}"
                )))
            }
        };
        let lang = req
            .lang
            .as_deref()
            .map(|l| Lang::parse(l).ok_or_else(|| Error::invalid("lang must be zh or en")))
            .transpose()?;
        let query = req
            .query
            .as_deref()
            .map(str::trim)
            .filter(|q| !q.is_empty());
        self.require_npc(npcid).await?;
        let lines = self.brief_lines(npcid, query).await?;
        let lang = lang.unwrap_or_else(|| Lang::of(lines.iter().map(|l| l.text.as_str())));
        let packed = pack(&lines, lang, max_tokens);
        Ok(BriefResponse {
            npcid: npcid.to_string(),
            lang,
            text: packed.text,
            tokens: packed.tokens,
            max_tokens,
            items: packed.items,
        })
    }

    /// Every line the brief may hold, most important first, none sensitive.
    async fn brief_lines(&self, npcid: &str, query: Option<&str>) -> Result<Vec<BriefLine>> {
        let store = &self.ports.store;
        let now = self.now();
        let pkg: Vec<(String, String)> = store
            .pkg(npcid)
            .await?
            .into_iter()
            .filter(|f| sensitive::key_category(&f.key).is_none())
            .filter_map(|f| pkg_text(&f.key, &f.value).map(|t| (f.key, t)))
            .collect();
        let pkg_line = |section, key: &str, text: &str| {
            BriefLine::new(section, "pkg", format!("pkg:{key}"), text)
        };

        // Live, non-sensitive memories of the memory collection, strongest first (ties:
        // the latest update, then the id, so the order never depends on the store's).
        let filter = MemoryFilter {
            collection: Some(Collection::Memory),
            ..Default::default()
        };
        let mut memories: Vec<(f64, Memory)> = store
            .memories(npcid, &filter)
            .await?
            .into_iter()
            .filter(|m| m.superseded_by.is_none() && !m.is_expired(now) && visible_to_tokens(m))
            .map(|m| (strength::strength(&m, now, &self.decay), m))
            .filter(|(s, _)| strength::tier(*s) != Tier::Archive)
            .collect();
        crate::order::sort_by(&mut memories, |(sa, a), (sb, b)| {
            sb.partial_cmp(sa)
                .unwrap_or(Ordering::Equal)
                .then(b.updated_at.cmp(&a.updated_at))
                .then(a.id.cmp(&b.id))
        });
        let memory_line =
            |section, m: &Memory| BriefLine::new(section, "memory", m.id.clone(), &m.summary);

        let mut lines = Vec::new();
        for (key, text) in pkg
            .iter()
            .filter(|(k, _)| IDENTITY_FIELDS.contains(&k.as_str()))
        {
            lines.push(pkg_line(Section::User, key, text));
        }
        for (_, m) in memories
            .iter()
            .filter(|(_, m)| m.memory_type == MemoryType::Constraint)
        {
            lines.push(memory_line(Section::Constraints, m));
        }
        for (_, m) in memories.iter().filter(|(_, m)| m.pinned) {
            lines.push(memory_line(Section::Pinned, m));
        }
        for (id, entity) in store.entities(npcid).await? {
            lines.push(BriefLine::new(
                Section::People,
                "relationship",
                format!("rel:{id}"),
                &entity_text(&entity),
            ));
        }
        for (key, text) in pkg
            .iter()
            .filter(|(k, _)| PEOPLE_FIELDS.contains(&k.as_str()))
        {
            lines.push(pkg_line(Section::People, key, text));
        }
        if let Some(query) = query {
            for (id, kind, text) in self.relevant(npcid, query, RELEVANT_RESULTS).await? {
                lines.push(BriefLine::new(
                    Section::Relevant,
                    kind_name(kind),
                    id,
                    &text,
                ));
            }
        }
        for (key, text) in pkg.iter().filter(|(k, _)| {
            !IDENTITY_FIELDS.contains(&k.as_str()) && !PEOPLE_FIELDS.contains(&k.as_str())
        }) {
            lines.push(pkg_line(Section::User, key, text));
        }
        for (_, m) in memories.iter().take(RECENT_MEMORIES) {
            lines.push(memory_line(Section::Recent, m));
        }
        for (date, summary) in self.last_diary_days(npcid).await? {
            lines.push(BriefLine::new(
                Section::Diary,
                "diary",
                diary_record_id(&date),
                &format!("{date}: {summary}"),
            ));
        }
        // The detector judges every line, whatever its source said (docs/SECURITY.md).
        lines.retain(|l| sensitive::category_of(&l.text).is_none());
        Ok(lines)
    }

    /// The last [`DIARY_DAYS`] days of the diary, newest first, as (date, text): the dream's
    /// per-day `diary` records, and the days of the diary window an older dream wrote without
    /// a record (the record wins). Marked records are left out.
    async fn last_diary_days(&self, npcid: &str) -> Result<Vec<(String, String)>> {
        let store = &self.ports.store;
        let filter = MemoryFilter {
            collection: Some(Collection::Diary),
            ..Default::default()
        };
        let mut recorded = Vec::new();
        let mut days: Vec<(String, String)> = Vec::new();
        for m in store.memories(npcid, &filter).await? {
            let Some(date) = m.id.strip_prefix(DIARY_RECORD_PREFIX) else {
                continue;
            };
            recorded.push(date.to_string());
            if m.superseded_by.is_none() && visible_to_tokens(&m) {
                days.push((date.to_string(), m.summary));
            }
        }
        let (_, window) = store.diary(npcid).await?;
        days.extend(
            window
                .into_iter()
                .filter(|d| !recorded.contains(&d.date))
                .map(|d| (d.date, d.summary)),
        );
        // Dates are YYYY-MM-DD: their text order is their time order.
        crate::order::sort_by(&mut days, |a, b| b.0.cmp(&a.0));
        days.truncate(DIARY_DAYS);
        Ok(days)
    }
}
