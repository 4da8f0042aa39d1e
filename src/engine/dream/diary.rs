//! The diary stage: today's entry from the day's material, and the window roll into `prior`.
//!
//! The material is the day's turns without their sensitive sentences (and echoes of the
//! secrets in them), for the LLM and the built-in summarizer alike; what an LLM writes is
//! checked again, and any sentence the detector flags is left out of the entry.

use super::{embed_records, Scan, StageError};
use crate::api::DiaryReport;
use crate::conversation::Turn;
use crate::diary::{put_daily, Diary, DiaryEntry};
use crate::dream::summarize;
use crate::engine::Hippo;
use crate::llm;
use crate::memory::{merge_source_turns, Collection, Memory, MemoryType};
use crate::ports::{Write, WriteBatch};
use crate::sensitive::material::{keep_safe_sentences, without_sensitive_sentences};
use crate::time::Timestamp;
use chrono::NaiveDate;

/// Longest daily entry, in characters.
pub const DAILY_MAX_CHARS: usize = 800;
/// Longest `prior`, in characters.
pub const PRIOR_MAX_CHARS: usize = 4_000;
/// The `source` of diary day records.
pub const DIARY_SOURCE: &str = "diary";
/// The `confidence` of a diary day: the character's own summary of what was said, as
/// unverified as what was said.
pub const DIARY_CONFIDENCE: f64 = 0.6;
/// How far back (in log entries before the watermark) a re-dream looks for the earlier
/// material of the same day.
pub const DAY_LOOKBACK: u64 = 500;

pub(super) async fn run(
    hippo: &Hippo,
    npcid: &str,
    scan: &Scan,
    dry_run: bool,
) -> Result<DiaryReport, StageError> {
    let store = &hippo.ports().store;
    let material = safe_material(day_material(hippo, npcid, scan).await?);
    let name = user_name(&store.pkg(npcid).await.map_err(StageError::Store)?);
    let (prior, dailies) = store.diary(npcid).await.map_err(StageError::Store)?;
    let before: Vec<String> = dailies.iter().map(|d| d.date.clone()).collect();
    let mut diary = Diary { prior, dailies };
    let window = scan.npc.settings.diary_window as usize;
    let mut overflow: Vec<DiaryEntry> = Vec::new();
    let mut records = Vec::new();
    let mut written: Vec<DiaryEntry> = Vec::new();
    // One entry per day the conversation happened on: a dream after midnight writes about
    // yesterday under yesterday's date, and a dream after a week away writes each day.
    for (day, turns) in by_day(&material, scan.today) {
        let date = crate::time::date_text(day);
        let text = write_daily(hippo, day, &turns, name.as_deref()).await?;
        let entry = DiaryEntry {
            date: date.clone(),
            summary: text,
        };
        records.push(diary_record(&entry, &turns));
        let roll = put_daily(&diary, entry.clone(), window);
        overflow.extend(roll.overflow);
        diary = roll.diary;
        written.push(entry);
    }
    let mut batch = WriteBatch::new();
    for entry in &written {
        if diary.dailies.iter().any(|d| d.date == entry.date) {
            batch.push(Write::PutDaily {
                entry: entry.clone(),
            });
        }
    }
    for old in overflow.iter().filter(|o| before.contains(&o.date)) {
        batch.push(Write::DeleteDaily {
            date: old.date.clone(),
        });
    }
    if !overflow.is_empty() {
        let merged = match &hippo.ports().llm {
            Some(model) => {
                let prompt = llm::prompts::prior_merge(&diary.prior, &overflow, PRIOR_MAX_CHARS);
                let answer = model
                    .complete(&prompt.system, &prompt.messages)
                    .await
                    .map_err(StageError::Llm)?;
                let merged = llm::parse::parse_prior(&answer, PRIOR_MAX_CHARS)
                    .map_err(StageError::LlmRejected)?;
                without_sensitive_sentences(&merged)
            }
            None => summarize::merge_prior(&diary.prior, &overflow, PRIOR_MAX_CHARS),
        };
        batch.push(Write::SetPrior { prior: merged });
    }
    // Every day also stays a searchable record after it leaves the window (same batch).
    batch.writes.extend(
        records
            .iter()
            .cloned()
            .map(|memory| Write::PutMemory { memory }),
    );
    if !dry_run {
        if !hippo
            .try_commit(npcid, batch)
            .await
            .map_err(StageError::Store)?
        {
            return Err(StageError::DiaryChanged);
        }
        let vectors = embed_records(hippo, &records).await;
        hippo.index_after_commit(npcid, vectors, &[]).await;
    }
    let last = written.last().cloned().unwrap_or(DiaryEntry {
        date: crate::time::date_text(scan.today),
        summary: String::new(),
    });
    Ok(DiaryReport {
        date: last.date,
        diary_text: last.summary,
        prior_merged: !overflow.is_empty(),
        overflow_count: overflow.len(),
        dry_run,
    })
}

/// One day's entry from its material: the LLM when configured, else the built-in summarizer;
/// any sentence the detector flags is left out.
async fn write_daily(
    hippo: &Hippo,
    day: NaiveDate,
    material: &[Turn],
    user_name: Option<&str>,
) -> Result<String, StageError> {
    let builtin = || summarize::summarize_day(material, user_name, DAILY_MAX_CHARS);
    let written = match &hippo.ports().llm {
        Some(model) => {
            let prompt = llm::prompts::diary(day, material, DAILY_MAX_CHARS);
            let answer = model
                .complete(&prompt.system, &prompt.messages)
                .await
                .map_err(StageError::Llm)?;
            llm::parse::parse_diary(&answer, DAILY_MAX_CHARS).map_err(StageError::LlmRejected)?
        }
        None => builtin(),
    };
    let text = without_sensitive_sentences(&written);
    Ok(if text.is_empty() { builtin() } else { text })
}

/// The day a log entry belongs to (entries without a time belong to the dream's day).
fn day_of(t: &Turn, today: NaiveDate) -> NaiveDate {
    if t.ts.ms() > 0 {
        t.ts.date()
    } else {
        today
    }
}

/// The material grouped by day, oldest day first.
fn by_day(material: &[Turn], today: NaiveDate) -> Vec<(NaiveDate, Vec<Turn>)> {
    let mut days: Vec<(NaiveDate, Vec<Turn>)> = Vec::new();
    for t in material {
        let day = day_of(t, today);
        match days.iter_mut().find(|(d, _)| *d == day) {
            Some((_, turns)) => turns.push(t.clone()),
            None => days.push((day, vec![t.clone()])),
        }
    }
    crate::order::sort_by(&mut days, |(a, _), (b, _)| a.cmp(b));
    days
}

/// The searchable record of a diary day: id `diary_<date>`, so rewriting the day replaces it.
/// The diary is the character's summary, not a quote: its confidence says so.
fn diary_record(entry: &DiaryEntry, turns: &[Turn]) -> Memory {
    let at = crate::time::parse_date(&entry.date)
        .map(Timestamp::from_date)
        .unwrap_or_default();
    let mut sources = Vec::new();
    merge_source_turns(
        &mut sources,
        &turns.iter().map(|t| t.id.clone()).collect::<Vec<_>>(),
    );
    Memory {
        confidence: DIARY_CONFIDENCE,
        source: DIARY_SOURCE.to_string(),
        event_time: Some(at),
        collection: Collection::Diary,
        source_turns: sources.into(),
        ..Memory::new(
            diary_record_id(&entry.date),
            MemoryType::History,
            entry.summary.clone(),
            at,
        )
    }
}

/// The id of the record of the diary day `date`.
pub fn diary_record_id(date: &str) -> String {
    format!("{DIARY_RECORD_PREFIX}{date}")
}

/// What the id of a diary day's record starts with.
pub const DIARY_RECORD_PREFIX: &str = "diary_";

/// The material without its sensitive sentences; entries with nothing safe left are dropped.
fn safe_material(material: Vec<Turn>) -> Vec<Turn> {
    let safe = keep_safe_sentences(
        &material
            .iter()
            .map(|t| t.content.as_str())
            .collect::<Vec<_>>(),
    );
    material
        .into_iter()
        .zip(safe)
        .filter(|(_, text)| !text.is_empty())
        .map(|(turn, content)| Turn { content, ..turn })
        .collect()
}

/// How the character calls the user: the latest nickname, else the name.
fn user_name(pkg: &[crate::pkg::PkgField]) -> Option<String> {
    let field = |key: &str| pkg.iter().find(|f| f.key == key).map(|f| &f.value);
    let text = |v: &crate::pkg::PkgValue| match v {
        crate::pkg::PkgValue::Text(t) => Some(t.clone()),
        crate::pkg::PkgValue::List(items) => items.last().cloned(),
        _ => None,
    };
    field("Nickname")
        .and_then(text)
        .or_else(|| field("Name").and_then(text))
        .filter(|n| !n.trim().is_empty())
}

/// The material: the new entries, after the earlier entries of their first day that a
/// previous dream already consumed (so a re-dream rewrites the day from all of it).
async fn day_material(hippo: &Hippo, npcid: &str, scan: &Scan) -> Result<Vec<Turn>, StageError> {
    let watermark = scan.npc.watermark;
    let first_day = scan
        .new
        .first()
        .map_or(scan.today, |t| day_of(t, scan.today));
    let mut material = Vec::new();
    if watermark > 0 {
        let from = watermark.saturating_sub(DAY_LOOKBACK);
        let earlier = hippo
            .ports()
            .store
            .turns(npcid, from, DAY_LOOKBACK as usize)
            .await
            .map_err(StageError::Store)?;
        material.extend(
            earlier
                .into_iter()
                .filter(|t| t.seq <= watermark && day_of(t, scan.today) == first_day),
        );
    }
    material.extend(scan.new.iter().cloned());
    Ok(material)
}
