//! [`NewMemory`]: a memory on its way in, validated (the write routes) or brought within the
//! limits every stored memory keeps (the dream, import), before conflict resolution
//! (`engine::ingest`) decides what it becomes; and the field validators those routes share.

use crate::error::{Error, Result};
use crate::ids::{is_path_safe_id, new_id};
use crate::memory::{
    Collection, EmotionTag, Memory, MemoryInput, MemoryType, MAX_CONTEXT_CHARS, MAX_KEYWORDS,
    MAX_KEYWORD_CHARS, MAX_SOURCE_CHARS, MAX_SUMMARY_CHARS,
};
use crate::pkg::cut_chars;
use crate::sensitive::Category;
use crate::time::Timestamp;
use std::fmt::Display;

/// A validated memory on its way in.
#[derive(Debug, Clone, PartialEq)]
pub struct NewMemory {
    pub summary: String,
    pub memory_type: MemoryType,
    pub keywords: Vec<String>,
    pub confidence: f64,
    pub importance: f64,
    pub source: String,
    pub event_time: Option<Timestamp>,
    pub expires_at: Option<Timestamp>,
    pub sensitive: bool,
    pub sensitive_category: Option<Category>,
    /// See [`Memory::pinned`]; sticky like sensitivity (a pinned duplicate or old value
    /// keeps the kept memory pinned).
    pub pinned: bool,
    pub collection: Collection,
    pub emotion: Option<EmotionTag>,
    /// See [`Memory::context`].
    pub context: String,
    /// See [`Memory::source_turns`].
    pub source_turns: Vec<String>,
}

impl NewMemory {
    /// A typed long-term memory with the defaults for everything else.
    pub fn new(summary: impl Into<String>, memory_type: MemoryType, source: &str) -> Self {
        NewMemory {
            summary: summary.into(),
            memory_type,
            keywords: Vec::new(),
            confidence: 0.8,
            importance: 0.5,
            source: source.to_string(),
            event_time: None,
            expires_at: None,
            sensitive: false,
            sensitive_category: None,
            pinned: false,
            collection: Collection::Memory,
            emotion: None,
            context: String::new(),
            source_turns: Vec::new(),
        }
    }

    /// Validates one `POST /api/memories` item; errors name its index. (Field names are
    /// `format_args!`, formatted only when an error names them: a valid memory formatted six
    /// for nothing, 2% of a fill's instructions and as much of an import's.)
    pub fn from_input(input: &MemoryInput, i: usize) -> Result<Self> {
        let source = input
            .source
            .as_deref()
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .unwrap_or("long_term_memory");
        check_source(source, format_args!("memories[{i}].source"))?;
        let sensitive_category = input
            .sensitive_category
            .as_deref()
            .map(|name| check_category(name, format_args!("memories[{i}].sensitive_category")))
            .transpose()?;
        Ok(NewMemory {
            summary: check_summary(&input.summary, format_args!("memories[{i}].summary"))?,
            memory_type: check_type(&input.memory_type, format_args!("memories[{i}].type"))?,
            keywords: check_keywords(&input.keywords, format_args!("memories[{i}].keywords"))?,
            confidence: check_unit(input.confidence, format_args!("memories[{i}].confidence"))?
                .unwrap_or(0.8),
            importance: check_unit(input.importance, format_args!("memories[{i}].importance"))?
                .unwrap_or(0.5),
            source: source.to_string(),
            event_time: input.event_time,
            expires_at: input.expires_at,
            sensitive: input.sensitive || sensitive_category.is_some(),
            sensitive_category,
            pinned: input.pinned,
            collection: Collection::Memory,
            emotion: None,
            context: String::new(),
            source_turns: Vec::new(),
        })
    }

    /// Brings a record the dream made within the limits every stored memory keeps (the write
    /// route refuses what is over them; the dream's text is cut instead): summary and
    /// context cut, keywords trimmed, de-duplicated, cut and at most [`MAX_KEYWORDS`].
    pub(crate) fn fit_limits(&mut self) {
        self.summary = cut_chars(self.summary.trim(), MAX_SUMMARY_CHARS);
        self.context = cut_chars(&self.context, MAX_CONTEXT_CHARS);
        self.source = cut_chars(&self.source, MAX_SOURCE_CHARS);
        self.keywords = fit_keywords(std::mem::take(&mut self.keywords));
    }

    pub(crate) fn into_memory(self, now: Timestamp) -> Memory {
        Memory {
            keywords: self.keywords,
            confidence: self.confidence,
            importance: self.importance,
            source: self.source,
            event_time: self.event_time,
            expires_at: self.expires_at,
            sensitive: self.sensitive,
            sensitive_category: self.sensitive_category,
            pinned: self.pinned,
            collection: self.collection,
            emotion: self.emotion,
            context: self.context,
            source_turns: self.source_turns.into(),
            ..Memory::new(new_id("mem"), self.memory_type, self.summary, now)
        }
    }
}

/// Keywords within the limits: trimmed, blank and repeated ones dropped, each cut to
/// [`MAX_KEYWORD_CHARS`], at most [`MAX_KEYWORDS`] (the first ones).
pub(crate) fn fit_keywords(keywords: Vec<String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for k in keywords {
        let k = cut_chars(k.trim(), MAX_KEYWORD_CHARS);
        if !k.is_empty() && !out.contains(&k) && out.len() < MAX_KEYWORDS {
            out.push(k);
        }
    }
    out
}

/// The field validators of `POST /api/memories` and `PATCH /api/memories/{npcid}/{id}`;
/// `at` names the field in errors.
/// A summary: non-empty after trimming, at most [`MAX_SUMMARY_CHARS`] characters; trimmed.
pub(crate) fn check_summary(summary: &str, at: impl Display) -> Result<String> {
    let summary = summary.trim();
    super::conversation::check_text(summary, at, MAX_SUMMARY_CHARS)?;
    Ok(summary.to_string())
}

pub(crate) fn check_type(name: &str, at: impl Display) -> Result<MemoryType> {
    MemoryType::parse(name).ok_or_else(|| {
        Error::invalid(format!(
            "{at} must be one of preference, style, profile, history, project, constraint, \
             relationship, other"
        ))
    })
}

fn check_source(source: &str, what: impl Display) -> Result<()> {
    if source.chars().count() > MAX_SOURCE_CHARS {
        return Err(Error::invalid(format!(
            "{what} is longer than {MAX_SOURCE_CHARS} characters"
        )));
    }
    Ok(())
}

/// An id a record is stored and addressed by (`DELETE /api/memories/{npcid}/{id}`).
fn check_record_id(id: &str, what: impl Display) -> Result<()> {
    if is_path_safe_id(id) {
        Ok(())
    } else {
        Err(Error::invalid(format!(
            "{what} must be 1-64 characters of A-Z a-z 0-9 _ . : - (not . or ..)"
        )))
    }
}

/// Checks a stored memory (an import) by the rules of `POST /api/memories`, plus what only
/// stored records have: an addressable id, `superseded_by`, `context`, an emotion tag.
/// Keywords are expected within limits already ([`fit_keywords`]).
pub(crate) fn validate_record(m: &Memory, what: impl Display) -> Result<()> {
    check_record_id(&m.id, format_args!("{what}.id"))?;
    check_summary(&m.summary, format_args!("{what}.summary"))?;
    check_keywords(&m.keywords, format_args!("{what}.keywords"))?;
    check_unit(Some(m.confidence), format_args!("{what}.confidence"))?;
    check_unit(Some(m.importance), format_args!("{what}.importance"))?;
    check_source(&m.source, format_args!("{what}.source"))?;
    if let Some(id) = &m.superseded_by {
        check_record_id(id, format_args!("{what}.superseded_by"))?;
    }
    if m.context.chars().count() > MAX_CONTEXT_CHARS {
        return Err(Error::invalid(format!(
            "{what}.context is longer than {MAX_CONTEXT_CHARS} characters"
        )));
    }
    if let Some(emotion) = &m.emotion {
        check_unit(
            Some(emotion.intensity),
            format_args!("{what}.emotion.intensity"),
        )?;
        if emotion.label.chars().count() > MAX_KEYWORD_CHARS {
            return Err(Error::invalid(format!(
                "{what}.emotion.label is longer than {MAX_KEYWORD_CHARS} characters"
            )));
        }
    }
    Ok(())
}

pub(crate) fn check_keywords(keywords: &[String], at: impl Display) -> Result<Vec<String>> {
    if keywords.len() > MAX_KEYWORDS
        || keywords
            .iter()
            .any(|k| k.chars().count() > MAX_KEYWORD_CHARS)
    {
        return Err(Error::invalid(format!(
            "{at}: at most {MAX_KEYWORDS} keywords of at most {MAX_KEYWORD_CHARS} characters"
        )));
    }
    Ok(keywords
        .iter()
        .map(|k| k.trim().to_string())
        .filter(|k| !k.is_empty())
        .collect())
}

pub(crate) fn check_unit(value: Option<f64>, at: impl Display) -> Result<Option<f64>> {
    match value {
        Some(x) if !(0.0..=1.0).contains(&x) => {
            Err(Error::invalid(format!("{at} must be between 0 and 1")))
        }
        other => Ok(other),
    }
}

pub(crate) fn check_category(name: &str, at: impl Display) -> Result<Category> {
    Category::parse(name)
        .ok_or_else(|| Error::invalid(format!("{at} must be one of {}", Category::NAMES)))
}
